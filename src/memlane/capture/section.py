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
import re
from dataclasses import dataclass, field

from ..errors import MemlaneError
from ..facts.retain import PROVENANCE, parse_retain
from ..markdown import Document, Heading, parse
from ..reflect.extract import normalized

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
    if not part.corrections:
        return text, 0
    doc = parse(text)
    lines = list(doc.lines)
    code = doc.in_code()
    at = _marker_line(lines, code, session_key(part.session))
    span = _span(doc, at) if at is not None else None
    if at is None or span is None:
        return text, 0
    end = span[1]
    fixes = [(re.compile(rf"(?<!\w){re.escape(old)}(?!\w)", re.IGNORECASE), new) for old, new in part.corrections]
    count = 0
    for i in range(at + 1, end):
        if code[i] or not BULLET.match(lines[i]):
            continue
        line = lines[i]
        for pattern, new in fixes:
            line = pattern.sub(new, line)
        if line != lines[i]:
            lines[i] = line
            count += 1
    return ("\n".join(lines), count) if count else (text, 0)


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
        raise MemlaneError(f"line {pos} is inside a code block; capture will not write into it")
    return pos


def _hm(t: dt.time) -> str:
    return f"{t.hour:02d}:{t.minute:02d}"
