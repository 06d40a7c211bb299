"""The capture stage: turns -> cleaned turns -> drafts -> new facts -> a session section per day.

1. Turns seen before (by hash, per session) are skipped: a hook that fires twice writes nothing twice.
2. Only user and assistant text is drafted (the readers already dropped tool calls, thinking and the
   hosts' injected text); "tool" turns (outside text) are redacted and carried to the drafting step but
   never drafted, titled or counted as turns read; a turn matching ``capture.exclude`` is skipped; secrets
   are redacted before anything else sees the text (:mod:`memlane.capture.secrets`). A record that cannot
   be read is counted (``unreadableLines``) and gives no turn; the records around it still do.
3. The turns are grouped by their local date (their timestamp, else ``now``) and drafted per day:
   the offline rules (:mod:`memlane.capture.digest`), or one LLM call per day of the batch.
4. A draft memory already holds (same words, or a near-duplicate vector about the same entity) is a
   restatement: counted, not written.
5. Each day's part is merged into that day's log through the writer (lock, atomic, refused outside
   the workspace); the section's own bullets are checked again there, under the lock.
"""

from __future__ import annotations

import datetime as dt
import re
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

from ..config import CaptureSettings
from ..errors import MemlaneError, UsageError
from ..facts.retain import normalize_name
from ..files.writer import edit_file
from ..reflect.extract import Draft
from .digest import Drafted, corrections, digest, draft_turns
from .draft import within_budget
from .formats import FORMATS, detect_format, load_record, read_aider, read_record, sniff
from .secrets import redact
from .section import SessionPart, merge
from .state import HEAD_BYTES, CaptureState, FileMark, turn_hash
from .turns import SPEAKERS, Turn

DEFAULT_SESSION = "conversation"
DETECT_RECORDS = 20  # records read from a transcript's start to tell its format
_PREFIX = 4  # letters of a name's key that index it (names_in)
READ_CHUNK = 1 << 20  # bytes read at a time from a transcript: memory holds one record, not the file

# For each draft: the source of the fact memory already holds ("memory/2026-05-01.md#L12"), or None.
KnownFacts = Callable[[Sequence[Draft]], list[str | None]]


class TurnDrafter(Protocol):
    """Drafts the facts of one day of a batch (the LLM drafter); one call per day of a capture."""

    def draft_turns(self, turns: Sequence[Turn], day: dt.date, known: Sequence[str]) -> list[Drafted]: ...


@dataclass
class CaptureReport:
    turns_read: int = 0
    turns_seen_before: int = 0
    turns_excluded: int = 0
    facts_drafted: int = 0
    facts_written: int = 0
    skipped_as_known: int = 0
    secrets_redacted: int = 0
    digest_lines: int = 0
    unreadable_lines: int = 0
    tool_turns: int = 0  # outside text read (tool results, pages, files): never drafted
    seconds: float = 0.0
    sections: list[dict[str, Any]] = field(default_factory=list)  # {path, session, startLine, endLine}
    written: list[dict[str, Any]] = field(default_factory=list)  # {path, line, bullet, turn}
    restated: list[dict[str, Any]] = field(default_factory=list)  # {fact, known}
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "turnsRead": self.turns_read,
            "turnsSeenBefore": self.turns_seen_before,
            "turnsExcluded": self.turns_excluded,
            "factsDrafted": self.facts_drafted,
            "factsWritten": self.facts_written,
            "skippedAsKnown": self.skipped_as_known,
            "secretsRedacted": self.secrets_redacted,
            "digestLines": self.digest_lines,
            "unreadableLines": self.unreadable_lines,
            "toolTurns": self.tool_turns,
            "seconds": round(self.seconds, 3),
            "sections": self.sections,
            "written": self.written,
            "restated": self.restated,
            "notes": self.notes,
        }


@dataclass
class Capturer:
    """One agent's capture: where it writes, what it knows, and its state. Made by ``capture.run.capturing``."""

    workspace: Path
    settings: CaptureSettings
    state: CaptureState
    names: Sequence[str] = ()  # entity names memory knows
    known: KnownFacts | None = None
    llm: TurnDrafter | None = None

    _by_prefix: dict[str, list[tuple[str, str]]] | None = field(default=None, init=False, repr=False)

    def names_in(self, turns: Sequence[Turn]) -> list[str]:
        """The known names the turns can mention: those whose key (:func:`normalize_name`) occurs in the turns'
        text, or that name a speaker. The drafter looks for each name it is given in each sentence, so handing
        it every name memory knows made a capture's cost grow with memory (issue 42, item 5: 0.54 of 0.9 s for
        50 turns at 10,000 facts). Found through an index of the keys' first letters, built once per capturer:
        the cost is the batch's length, not the number of names."""
        if self._by_prefix is None:
            self._by_prefix = {}
            for name in self.names:
                key = normalize_name(name)
                if key:
                    self._by_prefix.setdefault(key[:_PREFIX], []).append((key, name))
        speakers = {self.settings.user_name, *(t.name for t in turns if t.name)}
        text = normalize_name("\n".join([t.content for t in turns] + sorted(speakers)))
        found: dict[str, str] = {}
        for i in range(len(text)):
            for width in range(1, _PREFIX + 1):
                for key, name in self._by_prefix.get(text[i : i + width], ()):
                    if (len(key) < _PREFIX or width == _PREFIX) and text.startswith(key, i):
                        found.setdefault(name, name)
        return list(found)

    def capture(
        self, turns: Sequence[Turn], session: str | None, now: dt.datetime, offset: int = 0, chat: bool = False
    ) -> CaptureReport:
        """Capture ``turns`` of ``session``; ``offset`` numbers them in the report (their place in a file); ``chat``:
        a chat app's conversation (an export), whose agent ran nothing in the person's environment."""
        started = time.perf_counter()
        report = CaptureReport()
        self._capture(list(turns), session or DEFAULT_SESSION, now, report, offset, chat)
        report.seconds = time.perf_counter() - started
        return report

    def _capture(
        self, turns: list[Turn], session: str, now: dt.datetime, report: CaptureReport, offset: int, chat: bool = False
    ) -> None:
        seen = self.state.seen(session)
        excludes = [re.compile(p) for p in self.settings.exclude]
        fresh: list[tuple[int, Turn]] = []
        hashes: list[str] = []
        last: dt.datetime | None = None  # the time of the turn before: an untimed tool result came right after it
        for i, t in enumerate(turns):
            speaker = t.role in SPEAKERS
            if speaker:
                report.turns_read += 1
            elif t.role == "tool":
                report.tool_turns += 1
            h = turn_hash(t)
            if h in seen:
                report.turns_seen_before += speaker
                continue
            seen.add(h)
            hashes.append(h)
            if not (speaker or t.role == "tool") or not t.content.strip():
                continue
            try:
                when = _local(t.timestamp)
            except (OverflowError, ValueError, OSError):  # a time no calendar holds: the turn cannot be filed
                report.unreadable_lines += 1
                continue
            # Aider writes no time on its tool lines: they belong to the batch of the turn they follow, where the
            # drafter reads them (the agent restating them; "Applied edit to X"), not to today's
            when = when if when is not None or t.role != "tool" else last
            last = when or last
            if speaker and any(p.search(t.content) for p in excludes):
                report.turns_excluded += 1
                continue
            clean = redact(t.content)
            report.secrets_redacted += clean.count
            fresh.append((i + offset, replace(t, content=clean.text, timestamp=when)))
        by_day: dict[dt.date, list[tuple[int, Turn]]] = {}
        for i, t in fresh:
            by_day.setdefault((t.timestamp or now).date(), []).append((i, t))
        for day in sorted(by_day):
            self._capture_day(day, by_day[day], session, now, report, chat)
        self.state.add_turns(session, hashes)

    def _capture_day(
        self,
        day: dt.date,
        items: list[tuple[int, Turn]],
        session: str,
        now: dt.datetime,
        report: CaptureReport,
        chat: bool = False,
    ) -> None:
        # Outside text ("tool" turns) rides in the batch, redacted like the rest: the drafters never draft it, and
        # recognise an agent sentence that restates it (the trust boundary). The title, times, names and
        # corrections are the speakers' alone.
        if not any(t.role in SPEAKERS for _, t in items):
            return
        turns = [t for _, t in items]
        spoken = [t for t in turns if t.role in SPEAKERS]
        names = self.names_in(spoken)
        # with memory to ask, the batch is drafted uncapped and cut to its budget after what memory holds is set
        # aside: a slot a known fact took goes to the agent's next outcome (draft.within_budget)
        cut_after = self.llm is None and self.settings.budget and self.known is not None
        if self.llm is not None:
            drafted = self.llm.draft_turns(turns, day, names)
        else:
            budget = self.settings.budget and not cut_after
            drafted = draft_turns(turns, day, names, self.settings.user_name, budget, chat)
        known = self.known([d.draft for d in drafted]) if self.known is not None and drafted else []
        held = [k for k, fact in enumerate(known) if fact is not None]
        new = within_budget(drafted, turns, held) if cut_after else [d for k, d in enumerate(drafted) if k not in held]
        if cut_after:  # what is reported as known: the known drafts the budget would have kept
            budgeted = {id(d) for d in within_budget(drafted, turns)}
            held = [k for k in held if id(drafted[k]) in budgeted]
        report.facts_drafted += len(new) + len(held)
        report.skipped_as_known += len(held)
        report.restated.extend({"fact": drafted[k].draft.content, "known": known[k]} for k in held)
        bullets = [_bullet(d, turns[d.turn] if d.turn < len(turns) else None, now) for d in new]
        times = [(t.timestamp or now).time() for t in spoken]
        title = _title(spoken)
        fixes = [(c.old, c.new) for c in corrections(spoken)]
        # the digest says what is new too: a rule memory already holds (project rules pasted into every session's
        # prompt) is not written again as "Remember: ..." in each session's digest
        part = SessionPart(session, title, min(times), max(times), digest(turns, new), bullets, fixes)
        if not part.bullets and not part.digest and not part.corrections:
            return  # nothing new to say: the day's log is not touched
        rel = f"memory/{day.isoformat()}.md"
        box: dict[str, Any] = {}

        def change(old: str) -> tuple[str, int, int]:
            merged = merge(old, part)
            box["merged"] = merged
            return merged.text, merged.first, merged.last

        edit_file(self.workspace, rel, change)
        merged = box["merged"]
        if merged.corrected:
            report.notes.append(
                f"{rel}: a correction rewrote {merged.corrected} earlier bullet(s) of session {session}"
            )
        if not merged.bullets and not merged.digest:
            return
        report.facts_written += len(merged.bullets)
        report.digest_lines += len(merged.digest)
        report.sections.append({"path": rel, "session": session, "startLine": merged.first, "endLine": merged.last})
        lines = merged.text.split("\n")
        turn_of = {b: items[d.turn][0] for b, d in zip(bullets, new, strict=True) if d.turn < len(items)}
        for b in merged.bullets:
            line = max((n for n, ln in enumerate(lines) if ln == b), default=-1) + 1
            report.written.append({"path": rel, "line": line, "bullet": b, "turn": turn_of.get(b)})

    def transcript(self, path: Path, fmt: str = "auto", now: dt.datetime | None = None) -> CaptureReport:
        """Capture what is new in a transcript file since the last capture of it (a half-written last
        line waits; a rewritten or rotated file is read again from its start, and its turns already
        captured are recognised). What is new may be at most ``capture.maxTranscriptBytes``; it is read a
        chunk at a time, so memory holds one record and the turns, not the file."""
        started = time.perf_counter()
        now = now or dt.datetime.now()
        report = CaptureReport()
        key = str(path.resolve())
        mark = self.state.files.get(key)
        limit = self.settings.max_transcript_bytes
        try:
            info = path.stat()
            if not stat.S_ISREG(info.st_mode):
                raise MemlaneError(f"cannot read the transcript {path}: it is not a regular file")
            with path.open("rb") as fh:
                head = fh.read(HEAD_BYTES)
                reset = (
                    mark is None
                    or info.st_size < mark.offset
                    or self.state.head_hash(head[: min(mark.offset, HEAD_BYTES)]) != mark.head
                )
                start = 0 if reset or mark is None else mark.offset
                if info.st_size - start > limit:
                    raise _too_big(path, info.st_size - start, limit)
                if fmt == "auto":
                    fmt = mark.format if mark is not None and not reset else _detect(fh)
                if reset and mark is not None:
                    report.notes.append(f"{path.name} was rewritten or rotated: read again from its start")
                fh.seek(start)
                read = _Read(fmt, mark.session if mark is not None and not reset else None)
                used = read.file(fh, limit)
        except OSError as exc:
            raise MemlaneError(f"cannot read the transcript {path}: {exc.strerror or exc}") from None
        if used > limit:
            raise _too_big(path, used, limit)
        report.unreadable_lines = read.bad
        # Aider names no session and every repository's history has the same file name: its folder names it
        session = read.session or (f"aider-{path.resolve().parent.name}" if fmt == "aider" else path.stem)
        self._capture(read.turns, session, now, report, 0)
        end = start + used
        with path.open("rb") as fh:
            head = fh.read(min(end, HEAD_BYTES))
        self.state.files[key] = FileMark(end, self.state.head_hash(head), session, fmt)
        report.seconds = time.perf_counter() - started
        return report

    def stream(self, data: bytes, fmt: str, now: dt.datetime, name: str = "stdin") -> CaptureReport:
        """Capture a transcript read whole from a stream (stdin): its turns seen before are recognised. The
        caller reads at most ``capture.maxTranscriptBytes`` and one byte more; more than the limit is refused."""
        started = time.perf_counter()
        limit = self.settings.max_transcript_bytes
        if len(data) > limit:
            raise _too_big(Path(name), len(data), limit)
        report = CaptureReport()
        if fmt == "auto":
            fmt = sniff(data) or detect_format(_records(data, DETECT_RECORDS))
        read = _Read(fmt, None)
        read.lines(data if data.endswith(b"\n") else data + b"\n")
        report.unreadable_lines = read.bad
        self._capture(read.turns, read.session or name, now, report, 0)
        report.seconds = time.perf_counter() - started
        return report


def _too_big(path: Path, size: int, limit: int) -> MemlaneError:
    mb = 2**20
    return MemlaneError(
        f"the transcript {path} has {size / mb:.0f} MB to read, over capture.maxTranscriptBytes "
        f"({limit / mb:.0f} MB): raise that setting to capture it"
    )


class _Read:
    """The turns of a transcript's lines, read a chunk at a time: a record that is not JSON or nests too deep
    to parse, or that its reader cannot read, is counted in ``bad`` and gives no turn; the ones around it do."""

    def __init__(self, fmt: str, session: str | None) -> None:
        if fmt not in FORMATS:
            raise UsageError(f"unknown transcript format {fmt!r}; one of auto, {', '.join(FORMATS)}")
        self.fmt = fmt
        self.session = session
        self.turns: list[Turn] = []
        self.bad = 0
        self.last: Turn | None = None  # the person's last turn, while no answer has followed it

    def file(self, fh: Any, limit: int) -> int:
        """Read ``fh`` from where it stands up to its last complete line, at most ``limit`` + 1 bytes; the
        bytes used (a number over ``limit`` means the file grew past it while read)."""
        if self.fmt == "aider":  # Markdown: read whole (bounded), up to its last complete line
            raw = fh.read(limit + 1)
            if len(raw) > limit:
                return len(raw)
            data = _complete(raw)
            self.lines(data)
            return len(data)
        used = 0
        buf = bytearray()
        while used + len(buf) <= limit:
            chunk = fh.read(min(READ_CHUNK, limit + 1 - used - len(buf)))
            if not chunk:
                break
            cut = chunk.rfind(b"\n")  # only the new chunk is searched: a long line costs its length once
            if cut < 0:
                buf += chunk
                continue
            cut += len(buf)
            buf += chunk
            self.lines(bytes(buf[: cut + 1]))
            used += cut + 1
            del buf[: cut + 1]
        return used + (len(buf) if used + len(buf) > limit else 0)

    def lines(self, data: bytes) -> None:
        if self.fmt == "aider":
            for turn in read_aider(data.decode("utf-8", "replace")):
                self.add(turn)
            return
        for raw in data.split(b"\n"):
            if not raw.strip():
                continue
            try:
                record = load_record(raw)
            except ValueError:
                self.bad += 1
                continue
            info = read_record(self.fmt, record)
            if self.session is None and info.session:
                self.session = info.session
            self.bad += info.unreadable
            for turn in info.turns:
                self.add(turn)

    def add(self, turn: Turn) -> None:
        """In OpenClaw, a user turn that repeats the person's last words with no answer between is the gateway
        resending them (its retries after a prompt error, a queue replayed): read once."""
        if (
            self.fmt == "openclaw"
            and turn.role == "user"
            and self.last is not None
            and self.last.content == turn.content
        ):
            return
        if turn.role in SPEAKERS:
            self.last = turn if turn.role == "user" else None
        self.turns.append(turn)


def _bullet(d: Drafted, turn: Turn | None, now: dt.datetime) -> str:
    at = (turn.timestamp if turn is not None and turn.timestamp else now).strftime("%H:%M")
    return f"{replace(d.draft, content=as_data(d.draft.content)).bullet()} ({d.speaker}, {at})"


# What a turn says is data, not markup: an inline field ("[works_at:: @Acme]") or an @mention inside it would be
# read as a relation or an entity of the person's memory (issue 41). A Markdown backslash escape keeps how it
# reads ("\@" and "\:" render as "@" and ":") and is no field or mention to the readers; code spans stay as they
# are (a backslash there would show).
_FIELD_KEY = re.compile(r"(?<=[\[(])(!?[A-Za-z][A-Za-z0-9_ -]{0,39})::")
_AT = re.compile(r"(?<![\w@\\])@(?=[\w\[])")
# Not the code span of capture.phrasing.PROTECTED (up to 300 characters, where a bullet is cut at 320): this one
# reads a bullet's whole text, and a named speaker's draft is not cut ("Bob always runs `…`" with a span of 305
# characters is written whole), so it reaches 500, a bound only there to keep the scan linear. One rule for both
# would change what is escaped in a code span of 301 to 500 characters.
_CODE_SPAN = re.compile(r"`[^`\n]{0,500}`")


def as_data(text: str) -> str:
    """``text`` with its inline fields and @mentions escaped outside code spans (see above)."""
    out, last = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_escape_markup(text[last : m.start()]))
        out.append(m.group())
        last = m.end()
    out.append(_escape_markup(text[last:]))
    return "".join(out)


def _escape_markup(text: str) -> str:
    return _AT.sub(r"\\@", _FIELD_KEY.sub(r"\1\\::", text))


def _title(turns: Sequence[Turn]) -> str:
    first = next((t for t in turns if t.role == "user"), turns[0] if turns else None)
    if first is None:
        return ""
    words = re.sub(r"[#*`<>\[\]|_~]+", " ", first.content).split()[:8]
    title = " ".join(words)
    return title + ("…" if len(first.content.split()) > 8 else "")


def _local(ts: dt.datetime | None) -> dt.datetime | None:
    """A timestamp in the machine's local time, naive: the day and hour a person lived it."""
    if ts is None or ts.tzinfo is None:
        return ts
    return ts.astimezone().replace(tzinfo=None)


def _complete(data: bytes) -> bytes:
    """Up to and including the last newline: a line still being written waits for the next call."""
    end = data.rfind(b"\n")
    return data[: end + 1] if end >= 0 else b""


def _records(data: bytes, limit: int) -> list[Any]:
    """The first ``limit`` records of ``data`` that parse (to tell its format)."""
    out: list[Any] = []
    for raw in data.split(b"\n"):
        if not raw.strip():
            continue
        try:
            out.append(load_record(raw))
        except ValueError:
            continue
        if len(out) >= limit:
            break
    return out


def _detect(fh: Any) -> str:
    fh.seek(0)
    head = fh.read(1 << 20)
    return sniff(head) or detect_format(_records(_complete(head) or head, DETECT_RECORDS))
