"""One section per session in a daily log: written the first time, extended after, never duplicated.

::

    ## Session 14:02–14:40 · plan the Lisbon trip
    <!-- memlane:capture session=4f1c… -->

    - Decided: Let's book the flight for May 3.

    ### Retain
    - W @Peter: Peter is moving to Lisbon in May. (Peter, 14:05)

The marker line names the session, so a later capture of the same session on the same day finds its
section again: new digest lines go before its ``### Retain`` heading, new bullets at the end of that
subsection, and the heading's end time moves. A bullet the file already holds (same words once the
provenance is set aside) and a digest line the section already has are not written again. A person may
edit the section freely: only the marker line identifies it. Pure text in, text out.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..errors import MemlaneError, UsageError
from ..facts.retain import PROVENANCE, parse_retain
from ..reflect.extract import normalized
from ..text.markdown import Document, Heading, parse, split_lines
from ..text.origin import stamp_at

MARKER = re.compile(r"^<!-- memlane:capture session=(?P<id>[\w.:-]{1,80}) -->\s*$")
BULLET = re.compile(r"^- [WBOS](?:\([^)\n]{0,20}\))?[\s@:]")
_HEADING_TIMES = re.compile(r"^(?P<lead>#{2} Session )(?P<start>\d{2}:\d{2})(?:–(?P<end>\d{2}:\d{2}))?(?P<rest>.*)$")


def session_key(session: str) -> str:
    """The session id as the marker writes it: kept when it is a plain id, else a short hash of it."""
    if re.fullmatch(r"[\w.:-]{1,80}", session):
        return session
    return "h" + hashlib.sha256(session.encode()).hexdigest()[:16]


def fact_words(bullet_content: str) -> str:
    """What makes two captured facts the same: their words, without the provenance."""
    return normalized(PROVENANCE.sub("", bullet_content))


@dataclass
class SessionPart:
    """What one capture adds to one session's section of one daily log."""

    session: str
    title: str
    start: dt.time
    end: dt.time
    digest: list[str] = field(default_factory=list)
    bullets: list[str] = field(default_factory=list)  # full bullet lines ("- W @x: ... (user, 14:05)")
    corrections: list[tuple[str, str]] = field(default_factory=list)  # (old, new): "Lisbon, not Porto"


@dataclass
class Merged:
    text: str
    first: int  # 1-based lines of the section after the change
    last: int
    bullets: list[str]  # the bullets written (those the file did not hold)
    digest: list[str]
    corrected: int = 0  # bullets of the section's earlier captures that a correction rewrote


def merge(text: str, part: SessionPart) -> Merged:
    """``text`` with ``part`` written into its session's section (appended when the log has none).
    A correction in ``part`` ("Lisbon, not Porto") also rewrites the bullets an earlier capture of the
    same session wrote into this section: the corrected fact, not both."""
    text, corrected = _corrected(text, part)
    merged = _merge(text, part)
    merged.corrected = corrected
    return merged


def _corrected(text: str, part: SessionPart) -> tuple[str, int]:
    """``text`` with each correction of ``part`` applied to the one earlier bullet of the session it corrects
    (:func:`correct`), the line ends kept as they were; and how many bullets changed."""
    if not part.corrections:
        return text, 0
    doc = parse(text)
    lines = split_lines(text, keepends=True)
    code = doc.in_code()
    at = _marker_line(list(doc.lines), code, session_key(part.session))
    span = _span(doc, at) if at is not None else None
    if at is None or span is None:
        return text, 0
    places = [i for i in range(at + 1, span[1]) if not code[i] and BULLET.match(lines[i])]
    changed: set[int] = set()
    for old, new in part.corrections:
        bodies = [lines[i] for i in places]
        fix = correct(bodies, old, new)
        if fix is None or _already_said(part.bullets, new, fix.score):
            continue
        lines[places[fix.index]] = fix.line
        changed.add(places[fix.index])
    return ("".join(lines), len(changed)) if changed else (text, 0)


@dataclass(frozen=True)
class Fix:
    """The one rewrite a correction makes: which bullet (index into the bullets given), its new line, and how
    well the bullet's words around the value matched the correction's (its unit or context words)."""

    index: int
    line: str
    score: tuple[int, int]


# A captured bullet's head: "- W ", "- O(c=0.9) ", its leading mentions and colon. Every repetition starts
# with "@", so the match is linear.
_HEAD = re.compile(r"^ {0,3}- [WBOS](?:\([^)\n]{0,20}\))?[ \t]*(?:(?:@\[[^\]\n]{1,80}\]|@[\w.-]{1,80})[ \t]*)*:?")
_WORD = re.compile(r"\w+")


def _key(word: str) -> str:
    return "".join(_WORD.findall(word)).casefold()


def _value(word: str) -> bool:
    """A number-led word ("10", "12.5", "3pm"): a value whose unit is the words beside it."""
    return word[:1].isdigit()


def _standalone(value: str) -> re.Pattern[str]:
    """``value`` as a whole word, not a piece of a longer number, date, time or name ("10" is not in "10:30",
    "2026-10-01", "10.5" or "x10")."""
    return re.compile(rf"(?<!\w)(?<!\w[.,:/-]){re.escape(value)}(?!\w)(?![.,:/-]\w)", re.IGNORECASE)


def correct(bullets: Sequence[str], old: str, new: str) -> Fix | None:
    """The rewrite of the one bullet a correction "``new``, not ``old``" corrects, or None when no bullet says
    ``old``. Only the value's words change, in the bullet's body (never its kind, its provenance stamp, or
    another bullet), at the one place whose neighbouring words match the correction's best: "12 guests, not
    10" changes "10 guests" and leaves "Nov 10" and "10 euros" alone. Ties go to the latest bullet, then to
    the first place in it. A leading ``@old`` tag of the bullet follows its value."""
    old_parts, new_parts = old.split(), new.split()
    if not old_parts or not new_parts:
        return None
    numeric = _value(old_parts[0]) and _value(new_parts[0]) and (len(old_parts) > 1 or len(new_parts) > 1)
    if numeric:  # a number and its unit: the number changes, the unit words are context
        find, put = old_parts[0], new_parts[0]
        unit = list(dict.fromkeys(_key(w) for w in (*old_parts[1:], *new_parts[1:]) if _key(w)))
    else:
        find, put, unit = " ".join(old_parts), " ".join(new_parts), []
    pattern = _standalone(find)
    reach = len(new_parts) + len(old_parts)
    context = {_key(p) for p in (*new_parts, *old_parts)}
    best: tuple[tuple[int, int, int, int], int, int, int, str] | None = None
    for index, line in enumerate(bullets):
        head = _HEAD.match(line)
        text = line.rstrip("\r\n")
        stamp = stamp_at(text)
        lo = head.end() if head else 0
        hi = stamp if stamp is not None else len(text)
        body = line[lo:hi]
        words = {_key(w) for w in _WORD.findall(body)}
        bonus = sum(1 for w in context if w and w in words)
        for m in pattern.finditer(body):
            # the few words either side where the correction's unit or context words can stand
            after = [w.group(0).casefold() for w in itertools.islice(_WORD.finditer(body, m.end()), reach)]
            before = [w.casefold() for w in _WORD.findall(body, max(0, m.start() - 120), m.start())[-reach:]]
            if numeric:
                near = {*after[: len(unit) + 1], *before[-1:]}
                score, replacement = sum(1 for u in unit if u in near), put
            else:
                score, replacement = _trimmed(new_parts, after, before)
            rank = (score, bonus, index, -m.start())
            if best is None or rank > best[0]:
                best = (rank, index, lo + m.start(), lo + m.end(), replacement)
    if best is None:
        return None
    rank, index, start, end, replacement = best
    line = bullets[index][:start] + replacement + bullets[index][end:]
    if not numeric:
        head = _HEAD.match(line)
        if head:  # the bullet's own tag for the value it named
            tags = re.sub(
                rf"@(?:\[{re.escape(find)}\]|{re.escape(find)}(?![\w.-]))", lambda _: _tag(put), head.group(0)
            )
            line = tags + line[head.end() :]
    return Fix(index, line, (rank[0], rank[1]))


def _trimmed(new_parts: list[str], after: list[str], before: list[str]) -> tuple[int, str]:
    """How many of the new phrase's last (and first) words the bullet already has right after (before) the
    old value, and what is left of the phrase to put in its place: "it's Lisbon office, not Porto" on "the
    Porto office" puts "Lisbon"."""
    keys = [_key(p) for p in new_parts]
    k = max((n for n in range(1, len(keys)) if keys[-n:] == after[:n]), default=0)
    j = max((n for n in range(1, len(keys) - k) if keys[:n] == before[-n:]), default=0)
    return k + j, " ".join(new_parts[j : len(new_parts) - k])


def _tag(name: str) -> str:
    return f"@{name}" if re.fullmatch(r"\w(?:[\w.-]*\w)?", name) else f"@[{name}]"


def _already_said(bullets: Sequence[str], new: str, score: tuple[int, int]) -> bool:
    """A bullet of this capture already says the corrected value with the correction's own words around it
    (its batch's drafts were corrected before they were written): the correction was about that one."""
    if score[0] > 0 or not bullets:
        return False
    found = correct(bullets, new, new)
    return found is not None and found.score[0] > 0


def _merge(text: str, part: SessionPart) -> Merged:
    doc = parse(text)
    lines = list(doc.lines)
    code = doc.in_code()
    have = {normalized(f.content) for f in parse_retain(text)[0]} | {
        fact_words(f.content) for f in parse_retain(text)[0]
    }
    bullets, seen = [], set(have)
    for b in part.bullets:
        key = fact_words(re.sub(r"^\s*-\s*[A-Z](?:\([^)]*\))?\s*(?:@\S+\s*|@\[[^\]]*\]\s*)*:?", "", b))
        if key and key not in seen:
            seen.add(key)
            bullets.append(b)
    key = session_key(part.session)
    at = _marker_line(lines, code, key)
    if at is None:
        if doc.code and not doc.code[-1].closed:
            raise MemlaneError("the daily log ends inside an open code fence; close it before capturing into it")
        digest = _new_lines(part.digest, set())
        if not bullets and not digest:
            return Merged(text, 0, 0, [], [])
        head = f"## Session {_hm(part.start)}–{_hm(part.end)} · {part.title}".rstrip(" ·")
        block = [head, f"<!-- memlane:capture session={key} -->", ""]
        if digest:
            block += [*(f"- {d}" for d in digest), ""]
        if bullets:
            block += ["### Retain", *bullets, ""]
        while lines and not lines[-1].strip():
            lines.pop()
        lead = [""] if lines else []
        first = len(lines) + len(lead) + 1
        out = lines + lead + block
        return Merged("\n".join(out).rstrip("\n") + "\n", first, len(out) - 1, bullets, digest)
    span = _span(doc, at)
    if span is None:
        raise MemlaneError(f"the capture marker on line {at + 1} has no Session heading above it")
    sec, end = span
    body = "\n".join(lines[sec.end : end])
    digest = _new_lines(part.digest, {normalized(x) for x in body.split("\n")})
    if not bullets and not digest:
        return Merged(text, sec.line + 1, end, [], [])
    retain = next((h for h in doc.headings if sec.line < h.line < end and h.text.casefold() == "retain"), None)
    inserts: list[tuple[int, list[str]]] = []
    if retain is not None:
        r_end = next((h.line for h in doc.headings if h.line > retain.line and h.level <= retain.level), len(lines))
        r_end = min(r_end, end)
        if bullets:
            inserts.append((_after_last_text(doc, retain.end, r_end), bullets))
        if digest:
            inserts.append((_after_last_text(doc, at + 1, retain.line), [f"- {d}" for d in digest]))
    else:
        tail = _after_last_text(doc, at + 1, end)
        block = [f"- {d}" for d in digest] + (["", "### Retain", *bullets] if bullets else [])
        inserts.append((tail, block))
    for pos, new in sorted(inserts, key=lambda x: -x[0]):
        lines[pos:pos] = new
        if pos < len(lines) - len(new) and lines[pos + len(new)].strip() and lines[pos + len(new)].startswith("#"):
            lines.insert(pos + len(new), "")
    m = _HEADING_TIMES.match(lines[sec.line])
    if m and m.group("start"):
        start = min(m.group("start"), _hm(part.start))
        stop = max(m.group("end") or m.group("start"), _hm(part.end))
        lines[sec.line] = f"{m.group('lead')}{start}–{stop}{m.group('rest')}"
    added = sum(len(n) for _, n in inserts)
    return Merged("\n".join(lines) + "\n", sec.line + 1, end + added, bullets, digest)


def _marker_line(lines: list[str], code: list[bool], key: str) -> int | None:
    """The 0-based line of session ``key``'s marker (outside code fences), or None."""
    return next(
        (i for i, ln in enumerate(lines) if not code[i] and (m := MARKER.match(ln)) and m.group("id") == key), None
    )


def _span(doc: Document, at: int) -> tuple[Heading, int] | None:
    """The section a marker on line ``at`` belongs to: the heading above it, and the 0-based line where the
    next heading of its level or higher starts (or the end); None without a heading above."""
    above = [h for h in doc.headings if h.line < at]
    if not above:
        return None
    sec = above[-1]
    return sec, next((h.line for h in doc.headings if h.line > sec.line and h.level <= sec.level), len(doc.lines))


@dataclass(frozen=True)
class CapturedSession:
    """A session section a capture wrote into a daily log, as the log has it now."""

    session: str
    line: int  # 1-based line of its heading
    times: str  # "14:02–14:40" (the heading's; "" when a person rewrote it)
    title: str
    bullets: int  # Retain bullets in the section


def sessions_in(text: str) -> list[CapturedSession]:
    """Every capture section of a daily log, by the same marker-to-section rule a capture writes with."""
    doc = parse(text)
    lines = list(doc.lines)
    code = doc.in_code()
    out = []
    for at, line in enumerate(lines):
        m = MARKER.match(line) if not code[at] else None
        span = _span(doc, at) if m else None
        if m is None or span is None:
            continue
        sec, end = span
        head = _HEADING_TIMES.match(lines[sec.line])
        times, title = "", sec.text
        if head:
            times = head.group("start") + (f"–{head.group('end')}" if head.group("end") else "")
            title = head.group("rest").lstrip(" ·").strip()
        bullets = sum(1 for j in range(at + 1, end) if not code[j] and BULLET.match(lines[j]))
        out.append(CapturedSession(m.group("id"), sec.line + 1, times, title, bullets))
    return out


def _new_lines(digest: list[str], present: set[str]) -> list[str]:
    out = []
    for d in digest:
        key = normalized(d)
        if key and key not in present and normalized("- " + d) not in present:
            present.add(key)
            out.append(d)
    return out


def _after_last_text(doc: Document, start: int, end: int) -> int:
    """Just past the last non-blank line in [start, end), or ``start`` when there is none. Never inside
    a code block: a section that ends in an open fence is refused."""
    pos = start
    for i in range(start, end):
        if doc.lines[i].strip():
            pos = i + 1
    block = doc.code_at(pos - 1) if pos > 0 else None
    if block is not None and (not block.closed or block.end > pos):
        raise UsageError(f"line {pos} is inside a code block; capture will not write into it")
    return pos


def _hm(t: dt.time) -> str:
    return f"{t.hour:02d}:{t.minute:02d}"
