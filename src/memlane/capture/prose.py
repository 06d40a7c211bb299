"""The source filter: what of a turn is the speaker's own prose, and what is pasted machine text.

A turn of a coding session holds more than what its speaker said: code blocks, shell sessions and their
output, logs, stack traces, JSON/YAML/TOML, diffs, tables, file listings. Those are quotes, never facts:
only the prose around them is drafted. Blocks come from the project's one Markdown reader
(:func:`memlane.text.markdown.parse`: fenced and indented code); the rest is recognised line by line, and a
paragraph whose lines are mostly machine text is dropped whole (a pasted log without a fence).

Two shapes are kept aside as marks (:class:`Mark`), each where it stands among the units, for the agent's rules
to read: its headings ("### Root cause", "### What changed": what the sentences under them are) and its small
Markdown tables (a report's `file | change` or `phase | time` rows, at most :data:`TABLE_ROWS`).

What was dropped is kept as a kind ("stack", "shell", ...) and, for an error, its last line (the
exception or error message): a person who pastes a stack trace and says "it crashes" may later ask what
the error was, so capture may write one bullet that it was shared (see :mod:`memlane.capture.draft`).

Every pattern here is anchored or bounded: linear on hostile input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..text.keywords import STOPWORDS
from ..text.markdown import parse

MAX_UNIT_CHARS = 600  # a prose unit longer than this is cut at a sentence end (a wall of text is not a fact)

# Each kind of machine line, tested one line at a time (the line stripped of its list marker).
_MACHINE: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "stack",
        re.compile(
            r"^(?:Traceback \(most recent call last\)|File \"[^\"\n]{1,300}\", line \d+"
            # IPython / Jupyter: "NameError    Traceback (...)", "Cell In[7], line 35", "---> 35 ", "File ~/x.py:9, in "
            r"|[\w.]{1,80}\s{2,}Traceback \(most recent call last\)|Cell In\s?\[\d{1,6}\], line \d+"
            r"|-{1,12}> {0,3}\d{1,6}\s|File [^\n]{1,300}:\d{1,6}, in "
            r"|at [\w$.<>/]{1,200} ?\(.{0,300}:\d+"
            r"|\^{3,}\s*$|~{3,}\^*\s*$|panic: |goroutine \d+ \[|Caused by: |\.\.\. \d+ more$|thread '.{1,80}' panicked)"
        ),
    ),
    ("error", re.compile(r"^(?:[\w.]{1,80}(?:Error|Exception|Warning)|error(?:\[E\d+\])?|fatal|FATAL|ERROR):\s")),
    (
        "shell",
        re.compile(
            r"^(?:\$ |# (?=[a-z./~])[\w./~-]{1,40} |> (?=[a-z./~])|PS [A-Za-z]:\\|PS> |[❯➜] |! (?=[a-z./~])"
            r"|[\w.-]{1,40}@[\w.-]{1,60}:[~/]|[A-Za-z]:\\[^\s>]{0,200}> |~\S{0,100} [$#] "
            r"|set [A-Z_]{1,60}=|(?:sudo|pip3?|python3?|npm|npx|yarn|pnpm|git|cd|ls|cat|echo|export|curl|wget|docker|"
            r"kubectl|cargo|brew|apt|apt-get|pacman|yay|systemctl|chmod|chown|mkdir|rm|cp|mv|grep|sed|awk|tar|"
            r"ssh|scp|rsync|uv|pytest|deno|bun|hyprctl|journalctl|flatpak|nix|vim|nvim) "
            r"(?=[^\n]{0,300}(?:&&|\|\||\| |\s-{1,2}\w|=|\.\w{1,5}\b|/)))"
        ),
    ),
    (
        "log",
        re.compile(
            r"^(?:\[?\d{4}-\d\d-\d\d[T ]\d\d:\d\d|\[?\d\d:\d\d:\d\d[.,\]]|\[(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE)\]"
            r"|(?:INFO|DEBUG|WARN|WARNING|ERROR|TRACE)[\s:\]]|\[[\w.-]{1,40}\] \d)"
        ),
    ),
    ("listing", re.compile(r"^(?:[dl-](?:[r-][w-][xsStT-]){3}[.+@]?\s|total \d+$|[│├└┌┐┘┬┴┼─]|\|-- |`-- )")),
    ("diff", re.compile(r"^(?:@@ -\d|\+\+\+ [ab/]|--- [ab/]|diff --git |index [0-9a-f]{7,}\.\.)")),
    (
        "data",
        re.compile(
            r"^(?:[{}\[\]],?\s*$|\"[^\"\n]{1,200}\"\s*:\s*|[\w.-]{1,60}\s*=\s*[\"'\d\[{tf]|\[[\w.\"-]{1,60}\]\s*$"
            r"|[\w-]{1,60}:\s*(?:[\"'][^\"'\n]*[\"']|-?\d[\d.]*|true|false|null|~|\||>)?\s*$|<\??[\w:-]{1,40}[\s>/])"
        ),
    ),
    (
        "code",
        re.compile(
            r"^(?:(?:def|class|fn|pub fn|func|impl|async def|function)\s+\w{1,80}\s*[(:<{]|from [\w.]{1,80} import\b"
            r"|import (?:[\w.]{1,80}(?: as \w{1,40})?\s*;?\s*$|\{|\*)|(?:const|let|var)\s+[\w{\[]{1,80}\s*[=:]"
            r"|#include\b|#!/|package [\w.]{1,80};?\s*$|using [\w.]{1,80};\s*$"
            r"|export (?:default|const|function|class)\b"
            r"|(?:public|private|static|protected)\s+\w.{0,200}[({;]\s*$|SELECT .{1,300}\bFROM\b|INSERT INTO\b"
            r"|UPDATE \w{1,80} SET\b|CREATE TABLE\b|return\s+[\w.()\[\]'\"]{0,80};\s*$"
            r"|.{0,300}[;{]\s*$|[})\]];?,?\s*$|//|/\*|\*/|<!--)"
        ),
    ),
)
_COMMAND_WORD = re.compile(r"^(?:set|sudo|pip3?|python3?|npm|npx|yarn|pnpm|git|cd|ls|cat|echo|export|curl|wget|\w+) ")
_TABLE = re.compile(r"^\|.{0,2000}\|\s*$|^[|:\s-]{3,}$")
_ROW = re.compile(r"^ {0,3}\|.{0,2000}\|\s*$")  # a Markdown table's row: "| a | b |"
_RULE = re.compile(r"^ {0,3}\|?[\s:|]{0,20}-{3}[|:\s-]{0,2000}$")  # the rule under its header: "|---|:--|"
TABLE_ROWS = 8  # a table of more rows is a listing or reference, not a report's summary: kept as no mark
_CLOSING_TAG = re.compile(r"</[A-Za-z][\w:.-]{0,40}>")
_FLAG = re.compile(r"^--?[A-Za-z][\w-]{0,40}(?:=\S{0,200})?$")  # a command's option: "-L", "--channel", "--to=5"
_HOST = re.compile(r"[\w.-]{1,64}@[\w-]{1,64}(?:\.[\w-]{1,64})+|\b\d{1,3}(?:\.\d{1,3}){3}\b")  # me@host, an IP
_TAB_ROW = re.compile(r"\t.{0,500}\t")  # a row of tab-separated cells
_LIST_MARKER = re.compile(r"^(?:[-*+]|\d{1,3}[.)])\s+")
_NUMBERED = re.compile(r"^\s*\d{1,6} {1,12}\S")  # a source line as a traceback quotes it, its number first
_SYMBOLS = re.compile(r"[{}\[\]();=<>$|\\&^%#@*~`]")
_EMPHASIS = re.compile(r"\*\*(?=\S)|(?<=\S)\*\*|(?<![\w_])__(?=\S)|(?<=\S)__(?![\w_])")  # Markdown's bold markers
_WORD = re.compile(r"[^\W\d_]{2,}")
_ASIDE = re.compile(r"(?<!\S)\([^\W\d_][\w ,.'’-]{0,80}\)(?!\S)")  # words in brackets after a space: "(optional)"
_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
# A title before a name ends no sentence: "I've started seeing Dr. Farah" had been split into "I've started seeing
# Dr." and "Farah at ...", two bullets neither of which says who
_TITLES = r"(?<!\bDr\.)(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bProf\.)(?<!\bSt\.)(?<!\bMt\.)"
_SENTENCE_END = re.compile(
    r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<!\betc\.)(?<!\bvs\.)" + _TITLES + r"(?:(?<=[.!?])[\"'”)]*\s+(?=[A-Z\"'“(*`\d])"
    # Chinese and Japanese end a sentence with 。！？； and no space, and often with ?/! before the next character
    rf"|(?<=[.?!])\s+(?=[{_CJK_CHARS}])|(?<=[?!])(?=[{_CJK_CHARS}]))"
    r"|(?:(?<=[。！？；])|(?<=[。！？；][」』”’）)]))(?![」』”’）)])\s*(?=\S)"
)
_CJK = re.compile(f"[{_CJK_CHARS}]")
# A line that ends in a CJK character (no comma or other mark that carries on): Chinese writers end a sentence with
# the line as often as with 。, so the next line is a new unit rather than the same sentence wrapped.
_CJK_LINE_END = re.compile(f"[{_CJK_CHARS}」』）][)）]?\\s*$")


@dataclass(frozen=True)
class Mark:
    """A heading or a small table of a turn, and where it stands: the number of units before it."""

    at: int
    heading: str = ""  # a heading's text
    rows: tuple[tuple[str, ...], ...] = ()  # a table's rows, its header first, each a tuple of its cells


@dataclass(frozen=True)
class Prose:
    """What a turn's speaker wrote in their own words, as units (a paragraph's sentences or a list item),
    and what machine text was dropped."""

    units: list[str] = field(default_factory=list)
    items: list[bool] = field(default_factory=list)  # per unit: was it a list item
    dropped: list[str] = field(default_factory=list)  # kinds of machine text left out, in order
    error: str | None = None  # the last error line of a dropped stack trace or log, verbatim
    marks: list[Mark] = field(default_factory=list)  # headings and small tables, in order


def machine_kind(line: str) -> str | None:
    """The kind of machine text ``line`` is, or None when it reads as prose."""
    s = line.strip()
    if not s:
        return None
    if _TABLE.match(s):
        return "table"
    if _TAB_ROW.search(s):
        return "table"
    if _CLOSING_TAG.search(s):
        return "markup"  # XML or HTML: a host's or a page's markup, not the speaker's sentence
    for kind, pattern in _MACHINE:
        if pattern.match(s):
            if kind == "shell" and _COMMAND_WORD.match(s) and s.endswith((".", "!")) and len(s.split()) >= 6:
                return None  # "python3 script.py is how I start it." is a sentence about a command
            return kind
    body = _LIST_MARKER.sub("", s)
    if body != s:
        for kind, pattern in _MACHINE:
            if kind in ("shell", "stack", "listing", "diff") and pattern.match(body):
                return kind
    if _typed_command(s):
        return "shell"
    # "**Total: 57 min**" is prose with emphasis, and "Next improvements (optional)" with an aside: not code
    symbols = len(_SYMBOLS.findall(_ASIDE.sub(" ", _EMPHASIS.sub("", s))))
    words = len(_WORD.findall(s)) + len(_CJK.findall(s)) // 2  # a CJK run has no spaces: two characters a word
    if len(s) >= 12 and symbols * 3 > words + 2 and "`" not in s:
        return "code"  # more punctuation than words: code or output, not prose
    return None


def _typed_command(s: str) -> bool:
    """A command line typed without its prompt ("test ssh -L 8080:127.0.0.1:80 me@10.0.0.5", "mytool send 'hi'
    --channel x --to 42"): a lower-case first word, two options or one and a host, no sentence end and none of the
    small words a sentence has ("use -v and --force when you run it" is a sentence)."""
    if not s[:1].islower() or s.endswith((".", "!", "?")):
        return False
    words = s.split()
    flags = sum(1 for w in words if _FLAG.match(w))
    if flags < 2 and not (flags and _HOST.search(s)):
        return False
    return not any(w.casefold() in STOPWORDS for w in words)


def read_prose(text: str) -> Prose:
    """The prose of a turn: code blocks (by the Markdown reader), tables and machine lines left out;
    a paragraph that is mostly machine lines is left out whole. Headings and small tables are kept as marks."""
    doc = parse(text)
    code = doc.in_code()
    heads = {i for h in doc.headings for i in range(h.line, h.end)}
    titles = {h.line: h.text for h in doc.headings}
    dropped: list[str] = []
    error: str | None = None
    paragraphs: list[list[str] | Mark] = []  # a paragraph's lines, or a heading or table (``at`` set below)
    current: list[str] = []
    if doc.code:
        dropped.append("code")
        for block in doc.code:
            error = _last_error(doc.lines[block.start : block.end]) or error
    i = 0
    while i < len(doc.lines):
        line = doc.lines[i]
        end = _table_end(doc.lines, code, i)
        if code[i] or not line.strip() or i in heads or end > i:
            if current:
                paragraphs.append(current)
                current = []
            if titles.get(i):
                paragraphs.append(Mark(0, heading=titles[i]))
            if end > i:  # a table: its own block, so the line that introduces it ("Final timings:") stays prose
                dropped.extend(["table"] * (end - i))
                if end - i - 2 <= TABLE_ROWS:
                    rows = [_cells(doc.lines[n]) for n in range(i, end) if n != i + 1]
                    paragraphs.append(Mark(0, rows=tuple(rows)))
                i = end
                continue
            i += 1
            continue
        current.append(line)
        i += 1
    if current:
        paragraphs.append(current)
    units: list[str] = []
    items: list[bool] = []
    marks: list[Mark] = []
    for para in paragraphs:
        if isinstance(para, Mark):
            marks.append(Mark(len(units), para.heading, para.rows))
            continue
        kinds = [machine_kind(ln) for ln in para]
        if "stack" in kinds:  # a traceback's numbered source lines ("  33 for col in cols:") are the trace's too
            kinds = [k or ("stack" if _NUMBERED.match(ln) else None) for ln, k in zip(para, kinds, strict=True)]
        machine = sum(1 for k in kinds if k)
        if machine and (machine * 2 >= len(para) or any(k in ("stack", "listing", "diff") for k in kinds)):
            dropped.extend(k for k in kinds if k)
            error = _last_error(para) or error
            if machine * 2 >= len(para):
                # a pasted block without a fence: only a line that reads as a sentence is the speaker's
                para = [ln for ln, k in zip(para, kinds, strict=True) if not k and _sentence_like(ln)]
                kinds = [None] * len(para)
        lines = []
        for ln, kind in zip(para, kinds, strict=True):
            if kind:
                dropped.append(kind)
                continue
            lines.append(ln)
        for chunk in _blocks(lines):
            item = bool(_LIST_MARKER.match(chunk.lstrip()))
            body = " ".join(_LIST_MARKER.sub("", chunk.strip()).split())
            if not body:
                continue
            for s in _sentences(body):
                units.append(s)
                items.append(item)
    return Prose(units, items, dropped, error, marks)


def _table_end(lines: tuple[str, ...], code: list[bool], i: int) -> int:
    """Where the Markdown table that starts at line ``i`` ends (its header, its rule, then rows), or ``i`` when
    no table starts there."""
    if code[i] or i + 1 >= len(lines) or not _ROW.match(lines[i]) or not _RULE.match(lines[i + 1]):
        return i
    end = i + 2
    while end < len(lines) and not code[end] and _ROW.match(lines[end]):
        end += 1
    return end


def _cells(row: str) -> tuple[str, ...]:
    """A table row's cells, stripped; a "|" inside a backtick span or escaped is the cell's own."""
    cells: list[str] = []
    cell: list[str] = []
    ticked = False
    body = row.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    prev = ""
    for ch in body:
        if ch == "`":
            ticked = not ticked
        if ch == "|" and not ticked and prev != "\\":
            cells.append("".join(cell).strip())
            cell = []
        else:
            cell.append(ch)
        prev = ch
    cells.append("".join(cell).strip())
    return tuple(cells)


def _sentence_like(line: str) -> bool:
    """A line of a pasted block that reads as the speaker's sentence: four words or more, mostly letters."""
    s = line.strip()
    letters = sum(1 for c in s if c.isalpha() or c == " ")
    return len(s.split()) >= 4 and letters >= 0.8 * len(s) and s[:1].isalpha()


def _blocks(lines: list[str]) -> list[str]:
    """A paragraph's lines joined into list items and wrapped runs of text (a list item starts a block, and so
    does a line after one that ends in a CJK character)."""
    out: list[str] = []
    for ln in lines:
        if not out or _LIST_MARKER.match(ln.lstrip()) or _CJK_LINE_END.search(out[-1]):
            out.append(ln)
        else:
            out[-1] += " " + ln.strip()
    return out


def _sentences(text: str) -> list[str]:
    """``text`` split at sentence ends, never inside a backtick span; a sentence past MAX_UNIT_CHARS is cut."""
    spans = [(m.start(), m.end()) for m in re.finditer(r"`[^`\n]{0,300}`", text)]
    out: list[str] = []
    start = 0
    at = 0  # spans and sentence ends both run left to right: one walk, linear
    for m in _SENTENCE_END.finditer(text):
        while at < len(spans) and spans[at][1] <= m.start():
            at += 1
        if at < len(spans) and spans[at][0] < m.start() < spans[at][1]:
            continue
        out.append(text[start : m.start()].strip())
        start = m.end()
    out.append(text[start:].strip())
    return [s[:MAX_UNIT_CHARS] for s in out if s]


def _last_error(lines: tuple[str, ...] | list[str]) -> str | None:
    """The last line of an error in a pasted block (the exception and its message), verbatim."""
    for ln in reversed(lines):
        s = ln.strip()
        if re.match(r"^[\w.]{1,80}(?:Error|Exception)(?::\s.{1,300})?$", s) or re.match(
            r"^(?:error(?:\[E\d+\])?|fatal|panic): .{1,300}$", s
        ):
            return s
    return None
