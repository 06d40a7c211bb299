"""The agent's outcomes: what of an assistant's turn capture may keep, as ``B`` bullets.

Only what it changed, created, fixed, ran, or found to be the cause in the person's environment ("Done — ...",
"Added ...", "I've created ...", "The root cause was ...", a report's list item "For X: maps A to B", and the same said
in Chinese, "已更新 ..."). Never its advice, explanations, refusals, questions, plans or narration, never the steps it
gives the person ("To fix it: - Set X to Public"), and never a sentence that restates a tool turn (text from outside
the conversation, :mod:`memlane.capture.outside`: a run of words or most of its content words in one tool turn).

A report is read as agents write it: a heading opens a section (a report or steps) and, when it is an outcome itself
("### Root cause"), leads the sentence under it; a small table's rows are list items inside a report after work.
A turn yields at most :data:`AGENT_PER_TURN` outcomes, those that say the most (a name, value or path first; of equal
scores one from a part of the report not yet drawn on); how they rank against the person's words in the batch's
budget is :mod:`memlane.capture.draft`. What the two agreed is :mod:`memlane.capture.agreed`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from . import chinese
from .outside import SHARED_SHARE_SAID, OutsideText
from .phrasing import clean, names_someone, size, specific, straight
from .prose import Mark, Prose

AGENT_PER_TURN = 2  # outcomes drafted from one assistant turn at most (a final report's first items)


@dataclass
class Outcome:
    """One outcome of an agent turn: how likely a person is to ask for it later, its words, and what the digest
    calls it ("done" or "found")."""

    score: float
    text: str
    role: str
    section: int = 0  # which part of the turn it is in (a heading or a list's line opens a new one)


# --- the agent's words -------------------------------------------------------------------------------

_PAST = (
    "added|created|fixed|updated|changed|installed|removed|renamed|moved|set|configured|implemented|wrote|replaced|"
    "enabled|disabled|refactored|deployed|pushed|committed|built|generated|switched|restored|reverted|merged|"
    "cleaned|patched|wired|introduced|extended|mapped|documented|converted|applied|adjusted|saved|scheduled|"
    "registered|rewrote|swapped|dropped|deleted|excluded|increased|reduced|raised|lowered|bumped|upgraded|"
    "downgraded|migrated|ran|verified|tested|confirmed|found|traced|identified|resolved|hardcoded|"
    "backed up|copied|linked|mounted|started|stopped|restarted|killed|published|uploaded|downloaded|tagged|"
    "hooked|attempted|tried|checked|made|gave|kept|logged|recorded|locked|pinned|opened|closed|"
    "finished|completed|analy[sz]ed|computed|calculated|measured|ported|shipped|stored|edited|modified|"
    "reorganized|reorganised|simplified|consolidated|exposed|hid|marked|chose|picked|selected|defined|declared|"
    "turned on|turned off|toggled|bound|unbound|rebound|rebuilt|overrode|overwrote|undid|reran"
)
# An acknowledgement before the report: "You were right — I refactored ...", "Good call — I've decluttered ..."
_ACK = (
    r"(?:(?:you'?re|you were|you are) (?:right|correct)|good (?:catch|call|point|idea)|great (?:catch|call|point|idea)|"
    r"nice catch|thanks(?: for [^—–:.!]{1,40})?|got it|understood)\s*[—–:,!.-]{1,3}\s*"
)
# "I noticed ...", "I wanted to ...": what the agent saw or wished, no work done
_NOT_DONE = r"(?!(?:wanted|needed|hoped|wished|liked|loved|noticed|enjoyed)\b)"
_WE_DID = r"(?:i|we)(?:'ve| have)? (?:also |now |just |successfully |already )?"  # "I've also ...", "we just ..."
_OUTCOME = re.compile(
    rf"^(?:\W{{0,3}})(?:{_ACK})?(?:(?:done|fixed|all set|finished|complete[d]?|pushed|committed|deployed|installed|"
    rf"saved|applied|updated)\b[\s.!:—–-]|完成了?[。！!，,:：]|\w+ (?:complete[d]?|done|finished)\b|(?:{_PAST})\b"
    rf"|{_WE_DID}(?:{_PAST}|set|put|split|{_NOT_DONE}\w{{3,}}ed)\b"
    rf"|(?:i|we) (?:hit|got|saw|ran into|had to|went with|settled on)\b|found it\b|found the\b"
    rf"|(?:the )?root cause\b|cause:|the fix(?: was)?:"
    rf"|the (?:problem|issue|bug|error|crash|failure|culprit) (?:was|is|came)\b|it turned out\b|turns out\b"
    rf"|(?:that|this|it)(?: was|'s| is) (?:the|our) (?:culprit|root cause)\b)",
    re.I,
)
# "nfcpy added to pyproject", "Retry limit raised to 5": a report's passive line of what was changed; "The name gets
# converted to lowercase", "X can be set to Y" say how a thing works, not what was done
_HOW_IT_WORKS = r"(?:gets?|getting|will|would|can|could|should|must|may|might|be)\b"
_DONE_TO = re.compile(
    rf"^\W{{0,3}}[^\s:]{{2,60}}(?: (?!{_HOW_IT_WORKS})[^\s:]{{1,40}}){{0,3}} (?:(?:is|are|was|were|now) )?(?:{_PAST}) "
    rf"(?:to|in|into|from|for|under|as|with|on|via)\b",
    re.I,
)
_NOW = re.compile(r"\b(?:is|are) now\b|\bnow (?!yes\b|this\b|thus\b)(?:\w+s|shows?|uses?|points?|runs?|works?)\b", re.I)
_CAUSE = re.compile(r"\b(?:because|caused by|due to|root cause|turned out|the reason|culprit)\b", re.I)
_ADVICE = re.compile(
    r"\b(?:you can|you could|you should|you'?ll need|you need to|you may|you might|you'?d|try|consider|recommend|"
    r"suggest|if your?|want me to|would you like|do you want|let me know|feel free|make sure you|i can|i could|"
    r"i would|i'd|i cannot|i can'?t|i'?m (?:unable|not able|sorry)|unfortunately|as an ai|here'?s|here are|"
    r"for example|e\.g\.|such as|next step|optionally|to confirm|to test|test it|to verify|to check)\b",
    re.I,
)
# A finding about the person's environment, stated (with "your", no hedge): "your ESLint setup does not use X"
_FINDING = re.compile(
    r"^\W{0,3}(?:\w+\s+){0,2}?your\s+(?:[\w.-]+\s+){0,3}?(?:is|are|was|were|isn'?t|aren'?t|wasn'?t|doesn'?t|does not|"
    r"has no|lacks|uses|points to|runs)\b|\b(?:is|are|was|were|isn'?t|aren'?t) (?:not )?(?:reflected|set|used|"
    r"enabled|disabled|configured|defined|missing|present|installed) (?:in|by|on|for) your\b",
    re.I,
)
# A sentence that opens as a finding ("The culprit was ...", "Root cause: ..."), and the words that make it a guess
FINDING_LEAD = re.compile(
    r"^\W{0,3}(?:found|(?:the )?(?:root )?cause|the (?:problem|issue|culprit)|(?:it )?turn(?:s|ed) out)", re.I
)
_SUSPECT = re.compile(
    # "may", and "May" opening a sentence, hedge; "the May 3 migration" names a month
    r"\b(?:probably|likely|perhaps|possibly|maybe|might|(?-i:may|May(?! \d))|i suspect|i think|i believe|seems?|"
    r"appears?|could be)\b",
    re.I,
)
# A verb whose past is its imperative, opening a sentence with no subject: "Set X to 5" is a report only after work
_BARE_VERB = re.compile(r"^\W{0,3}(?:set|put|split|cut|reset|read|run|hit|let)\s", re.I)
_PLANNED = re.compile(r"\b(?:i|we) (?:will|am going to|are going to)\b|\b(?:i|we)'ll\b", re.I)
_WAS = re.compile(r"\b(?:was|were|had|did|didn'?t|wasn'?t|weren'?t|hadn'?t|failed|broke|came)\b", re.I)
# A thing of the person's setup: a code span, a path (from /, ~/ or ./), a file with a code or config extension, a
# setting (KEY=value) or a snake_case name; never a URL, nor "and/or", "50/50", "w/"
CODEISH = re.compile(
    r"`[^`\n]{1,300}`|(?<![\w/.])(?:~|\.{1,2})?/[\w.-]+/[\w./-]*"
    r"|(?<![\w/-])[\w-]+(?:/[\w-]+)*\.(?:py|js|ts|tsx|jsx|json|toml|ya?ml|ini|cfg|conf|md|sh|rb|go|rs|exs?|heex|lua|css|html|"
    r"sql|env|lock|txt|xml|java|kt|swift|c|h|cpp|nix|service)\b|\b[A-Z][A-Z0-9_]{2,40}=\S{1,80}|\b[a-z][a-z0-9]*_[a-z0-9_]+\b"
)
# What an outcome that names nothing says it did it to: nothing a person could ask for ("some general news", "all
# the necessary steps", "the next feature")
_VAGUE = re.compile(
    r"\b(?:some|a few|several|various|everything|all the (?:necessary|required|requested|needed)|"
    r"the (?:requested|necessary|required|next))\b",
    re.I,
)
_HEDGE = re.compile(r"\b(?:may|might|could|probably|perhaps|likely|possibl[ey]|maybe|should|would)\b", re.I)
# With no tool run in the session, the agent did nothing in the person's environment: only what it says it did in
# the first person ("I've updated the draft ...") reports its work; "The Visigoths converted to ...", "Increased
# visibility: ...", "The prices are adjusted for inflation" are its claims about the world
_I_DID = re.compile(
    rf"^\W{{0,3}}(?:{_ACK})?{_WE_DID}"
    rf"(?:{_PAST}|{_NOT_DONE}\w{{3,}}ed)\b",
    re.I,
)
NARRATION = re.compile(
    r"^(?:ok(?:ay)?[,!.]?\s+|sure[,!.]?\s+|great[,!.]?\s+|alright[,!.]?\s+|now[,]?\s+|first[,]?\s+|next[,]?\s+)?"
    r"(?:let me|let's (?:check|look|see|start|run|try|read|open|search)|i'll|i will|i'm going to|i am going to|"
    r"i need to|i should|i'm now|i am now|now i|next i|first i|looking at|checking|reading|searching|running)\b",
    re.IGNORECASE,
)
_SHORT_LEAD = re.compile(
    r"^(?:done|fixed|found it|pushed|all set|complete[d]?|finished|\w+ complete|完成了?)\W*$", re.I
)  # 完成: "done" in Chinese
# The line that opens a list of what was done: "Here's what changed:", "Changes made:", "Both issues are fixed:"; and,
# after the agent worked (a tool ran since the person's turn), what the person will now find: "You should now see:".
_REPORT_INTRO = re.compile(
    r"^\W{0,3}(?:(?:done|all set|finished|fixed)\W{1,3})?(?:here'?s|here is|this is|below is)? ?(?:what|everything)"
    r" (?:(?:i|we)(?:'ve| have)? |got |was |has been |is )?(?:changed|did|done|added|fixed|updated|applied|built|"
    r"created|installed|implemented|set up)\b[^:]{0,60}:$"
    r"|^\W{0,3}(?:(?:done|all set|finished|fixed)\W{1,3})?(?:changes(?: made)?|(?:all|both|the) (?:\w+ )?"
    r"(?:issues|bugs|problems|changes|fixes) (?:are|were|have been) (?:fixed|applied|done|in|live))\W{0,3}:$",
    re.I,
)
_YOU_SEE = re.compile(
    r"^\W{0,3}(?:(?:done|all set)\W{1,3})?you(?: should|'ll| will)? (?:now |immediately )?see:$", re.I
)
# What holds after the agent's work, said as a state: "The logo is now orange", "The site is live at ..."
_STATE = re.compile(r"\b(?:is|are) (?:now )?(?:live|up and running|deployed|published|running) (?:at|on|in)\b", re.I)
# The agent recaps what the two agreed: "Agreed — Postgres 16 for production", "So we settled on `ruff`"
_AGREED = re.compile(
    r"^\W{0,3}(?:agreed|settled)\b\W{1,3}\w|^\W{0,3}(?:so\W{1,2})?we(?:'ve| have)? (?:settled on|agreed on|agreed to|"
    r"decided on|decided to|went with)\b",
    re.I,
)
# What the person is to do next, said after a bare "Done.": "Reload WezTerm to see it.", "Restart the shell."
# The "Done." then says nothing of what was done, and the step is advice: neither is an outcome.
_NEXT_STEP = re.compile(
    r"^(?:now\s+|then\s+|just\s+|please\s+)?(?:reload|restart|re-?run|relaunch|reopen|refresh|source|open|press|hit|"
    r"click|log (?:out|in|back in)|sign (?:out|in)|close|quit|exit|launch|start|run|check|verify|see|paste|copy|"
    r"type|go to|switch to|reboot|re-?login)\b",
    re.I,
)


# --- the files a host says it applied edits to ----------------------------------------------------------


def _names_file(u: str, name: str) -> bool:
    """Whether ``u`` names the file ``name`` whole ("`data.py`" and "`src/data.py`" name data.py, not a.py)."""
    at = u.find(name)
    while at >= 0:
        before, after = u[at - 1 : at], u[at + len(name) : at + len(name) + 1]
        if not (before and (before.isalnum() or before in "_.-")) and not (
            after and (after.isalnum() or after in "_-")
        ):
            return True
        at = u.find(name, at + 1)
    return False


# A report's list item said in the present tense or without a subject: "For Klipper: maps camera M240 to M118",
# "Deps: nfcpy added to pyproject", "`load()` now reads the cache first". Only read inside a report (_section).
_LABEL = re.compile(r"^(?:`[^`\n]{1,80}`|[^:;.]{1,40}):\s+(?=\S)")  # "Deps: ", "`src/app.py`: "
_PRESENT = re.compile(
    r"^(?:now\s+|also\s+)?(?:maps|adds|uses|reads|writes|returns|leaves|supports|validates|accepts|shows|includes|"
    r"handles|applies|generates|creates|stores|injects|runs|sets|calls|points|checks|emits|exposes|prefers|defaults|"
    r"falls back|translates|converts|skips|ignores|loads|saves|keeps|removes|replaces|renders|wraps|merges|passes|"
    r"routes|sends|prints|logs|caches|retries|fetches|parses|exports|imports|warns|rejects|refuses|detects|resolves|"
    r"reuses|limits|caps|requires|allows|blocks|excludes|enables|disables|triggers|starts|stops|waits)\b",
    re.I,
)
# What a section of an agent's turn is, by the line that opens it: a report of what was done, or steps and plans
_REPORT_HEAD = re.compile(
    r"^\W{0,3}(?:what (?:i|we)(?:'ve| have)? (?:did|done|changed|implemented|added|fixed|built|updated|shipped)|"
    r"what'?s (?:new|changed|done)|what changed|changes(?: made)?\b|summary\b|implemented\b|done\b|completed\b|"
    r"fixed\b|highlights\b|(?:key|main) changes\b|files? (?:changed|modified|touched|updated)\b|modified files\b)",
    re.I,
)
_PLAN_HEAD = re.compile(
    r"\b(?:how to|how do|next steps?|roadmap|proposed|proposal|plan|would you like|want me to|you can|you could|"
    r"you'?ll|you need|if you|to (?:try|use|test|fix|run|verify|deploy|install)|options?|suggest(?:ion)?s?|"
    r"recommend(?:ation)?s?|could|should|fix in|steps?|todo|to do|next|manual(?:ly)?|instructions?|usage|example)\b",
    re.I,
)


# An outcome that reports what a check or tool said ("I verified ...: all returned `false`", "Ran the tests: 3
# failed"): its result is the tool's, read whole by the restating check
_CHECKED = re.compile(
    r"^\W{0,3}(?:(?:i|we)(?:'ve| have)? )?(?:also |then |now )?(?:verified|tested|confirmed|checked|ran|re-?ran|"
    r"measured|computed|calculated|analy[sz]ed|found|traced|identified|saw|got)\b",
    re.I,
)
# the words that open the act ("Fixed! Removed", "I've also added"): the agent's own, whatever the files say
_ACT_LEAD = re.compile(rf"^(?:\W*\b(?:{_PAST}|done|fixed|i|we|'ve|have|also|now|just|successfully)\b)+", re.I)


def _own_words(u: str, acted: bool) -> str:
    """What of an outcome the restating check reads: of the agent's act ("Removed the deprecated `--no-lock` flag
    from `install/brew.sh`"), its words without the act's verbs and the names of the person's things (code spans,
    paths, files, settings), which the files and results it worked on name too; of a finding, a cause or a check's
    result, the whole sentence."""
    if not acted or FINDING_LEAD.match(u) or _CAUSE.search(u) or _CHECKED.match(u):
        return u
    return CODEISH.sub(" ", _ACT_LEAD.sub("", u, count=1))


def opens_report(u: str) -> bool:
    """Whether a sentence opens a report of work done ("Done:", "Here's what changed:"): its list is no offer."""
    return bool(_REPORT_HEAD.match(u) or _REPORT_INTRO.match(u))


def _intro(u: str, worked: bool) -> bool:
    """Opens a list of what was done ("Here's what changed:"), or of what the person now finds after the agent's
    work ("You should now see:"); only after the agent worked: with no tool run, "Here's what changed in Python
    3.13:" is a chat answer about the world."""
    return bool(worked and (_REPORT_INTRO.match(u) or _YOU_SEE.match(u)))


def _section(u: str, current: bool | None, worked: bool = False) -> bool | None:
    """Whether the list items after ``u`` (a line of prose that is no list item) report work done (True), are steps
    for the person or a plan (False), or neither is known (None); a short heading such as "Docs" keeps the section
    it is in."""
    if _intro(u, worked):
        return True
    head = size(u) <= 6 or u.endswith(":")
    if u.endswith(("?", "？")) or (head and _PLAN_HEAD.search(u)) or NARRATION.match(u):
        return False
    if _REPORT_HEAD.match(u) or (_OUTCOME.match(u) and not _ADVICE.search(u)):
        return True
    if _ADVICE.search(u) or re.search(r"\b(?:will|i'll|we'll|going to)\b", u, re.I):
        return False
    return current if head else None


# A report's item in the form of a commit message ("- Add `--dry-run` to `opk install`", "`app.py`: add a retry"):
# read only inside a report, where it says what was done (under steps it is what the person is to do).
_BASE = re.compile(
    r"^(?:add|update|fix|remove|rename|move|create|implement|refactor|replace|switch|wire|extend|bump|drop|document|"
    r"split|introduce|support|handle|cover|expose|allow|skip|ensure|change|convert|migrate|pin|enable|disable|"
    r"delete|clean up|simplify|merge|restore|revert|tighten|relax|raise|lower|increase|reduce|default|guard|"
    r"validate|cache|retry|log|store|load|read|write|show|hide|sort|group|limit|cap|map|register|export|import)\b",
    re.I,
)


def _reported(u: str) -> bool:
    """A list item of a report that says what was done in the present tense, as a commit message ("Add X") or as a
    passive ("Deps: nfcpy added to pyproject"), possibly after a label: an outcome when it names something."""
    body = _LABEL.sub("", u, count=1)
    said = (
        _PRESENT.match(body) or _BASE.match(body) or _OUTCOME.match(body) or _DONE_TO.match(body) or _NOW.search(body)
    )
    # "`src/auth.py`: tokens expire after 15 minutes": under a report, what a file of the person's now holds
    filed = body != u and CODEISH.fullmatch(u[: len(u) - len(body)].rstrip().rstrip(":")) and specific(body)
    return bool(said or filed) and (specific(u) or names_someone(u))


def with_list(u: str, units: list[str], items: list[bool], k: int) -> tuple[str, int]:
    """A line that ends in ":" with the list after it (its first three items), and where reading goes on: the
    agent's "Changes made:" and its work, the person's "The IDs should have these requirements:" and theirs."""
    if not (u.endswith((":", "：")) and k < len(units) and items[k]):
        return u, k
    listed: list[str] = []
    while k < len(units) and items[k] and len(listed) < 3:
        listed.append(units[k])
        k += 1
    # an item that ends in a URL keeps a space before the ";" that follows it: "https://x.app/;" is no link
    linked = [t[t.rfind(" ") + 1 :].startswith(("http://", "https://")) for t in listed]
    joined = "".join(f"{t} ; " if link else f"{t}; " for t, link in zip(listed, linked, strict=True))
    return f"{u} {joined[:-2].rstrip()}", k


def _row(cells: tuple[str, ...], header: tuple[str, ...]) -> str:
    """A table's row as a report's list item: "`app.py`: added a retry", the third cell on with its column's name
    ("`timeout`: 30 (After: 60)")."""
    cells = tuple(straight(clean(c)) for c in cells)
    if len(cells) < 2 or not cells[1]:
        return cells[0] if cells else ""
    named = zip(header[2:], cells[2:], strict=False)  # a row may have fewer cells than its header
    more = [f"{straight(clean(h))}: {c}" if h.strip() else c for h, c in named if c]
    return f"{cells[0]}: {cells[1]}" + (f" ({', '.join(more)})" if more else "")


_NUMBERED_HEAD = re.compile(r"^\d{1,3}[.)]\s+")


def _stream(prose: Prose, tables: bool) -> tuple[list[str], list[bool], list[str]]:
    """The turn's units with its marks in place, and what each is: "" a unit of prose, "head" a heading (its own
    unit), "row" a table's row (a list item: "cell: cell"; only with ``tables``: a table before any work is a
    proposal or an explanation)."""
    units: list[str] = []
    items: list[bool] = []
    kinds: list[str] = []
    marks: list[Mark] = sorted(prose.marks, key=lambda m: m.at)
    at = 0
    for k in range(len(prose.units) + 1):
        while at < len(marks) and marks[at].at == k:
            m = marks[at]
            at += 1
            if m.heading:  # "### 2. Fixed the race in `worker.py`": its number is the report's order, not its words
                units.append(_NUMBERED_HEAD.sub("", straight(clean(m.heading)), count=1))
                items.append(False)
                kinds.append("head")
            for r in m.rows[1:] if tables else ():
                units.append(_row(r, m.rows[0]))
                items.append(True)
                kinds.append("row")
        if k < len(prose.units):
            units.append(straight(clean(prose.units[k])))
            items.append(prose.items[k])
            kinds.append("")
    return units, items, kinds


def agent_outcomes(
    prose: Prose,
    i: int,
    outside: OutsideText,
    worked: bool = False,
    applied: Sequence[str] = (),
    acted: bool = True,
) -> list[Outcome]:
    """The outcomes of assistant turn ``i`` (its prose), at most AGENT_PER_TURN, in their order. ``worked``: a tool
    ran since the person's last turn (the agent acted in their environment), so a state it reports ("X is now Y")
    or a cause it names is what it found there, not a claim about the world. ``applied``: the files the host says it
    applied this turn's edits to; the turn's plan for one of them ("I will update `X`: ...") was carried out.
    ``acted``: a tool ran somewhere in the batch; in a chat with none, only "I/we <did> ..." is a report (_I_DID)."""
    units, items, kinds = _stream(prose, worked and acted)
    out: list[Outcome] = []
    report: bool | None = None  # the list being read: True a report of work done, False steps or a plan, None unknown
    heading: str | None = None  # a heading that says what the sentence under it is: "Root cause", "Added schema"
    section = 0
    k = 0
    while k < len(units):
        u = units[k]
        item = items[k]
        kind = kinds[k]
        k += 1
        if kind == "head":  # "### What changed" / "### How to try it": what the lists under it are
            report = _section(u if u.endswith(":") else f"{u}:", report, worked)
            section += 1
            said_as = worked and (_OUTCOME.match(u) or FINDING_LEAD.match(u)) and not _ADVICE.search(u)
            heading = u.rstrip(":") if said_as else None
            continue
        if kind == "row" and report is not True:
            continue  # a table outside a report of work: a reference, options, an explanation
        headed = heading is not None and not (_OUTCOME.match(u) or FINDING_LEAD.match(u))
        u = f"{heading}: {u}" if headed else u  # "### Root cause" + "The token had expired": one finding
        heading = None
        if not item and u.endswith(":"):
            section += 1
        edited = next((f for f in applied if not item and _names_file(u, f) and _PLANNED.search(u)), None)
        if edited is not None:  # "I will update `CONVENTIONS.md` ...:" and the host applied it: what was done
            report = None
            u, k = with_list(u, units, items, k)
            text = f"Applied edit to {edited}: {u}"
            if not outside.restates(u, i):
                score = 0.6 - (0.05 if out else 0.0) + (0.05 if specific(u) else 0.0)
                out.append(Outcome(score, text, "done", section))
            continue
        if not item:
            report = _section(u, report, worked)
        elif report is False:
            continue  # a step for the person or a plan ("How to try", "Next steps"): never an outcome
        joined = False  # a bare "Done." read with the sentence after it
        if _SHORT_LEAD.match(u) and k < len(units) and kinds[k] != "head":  # "Done." / "Found it." + what was done
            nxt = units[k]
            if _intro(nxt, worked) or (
                not _ADVICE.search(nxt)
                and not nxt.endswith(("?", "？"))
                and not NARRATION.match(nxt)
                and not _NEXT_STEP.match(nxt)
            ):
                u = f"{u} {nxt}"
                k += 1
                joined = True
                report = True if _intro(nxt, worked) else report
            else:
                continue
        intro = _intro(u, worked) and k < len(units) and items[k]  # "Here's what changed:" + its list
        listed = joined and u.endswith(":") and k < len(units) and items[k]  # "Done. Final timings:" + its rows
        short = size(u) < 4 and not (headed and specific(u)) and not listed  # "### Added schema" + "`lib/tld.ex`"
        if not intro and (short or u.endswith(("?", "？")) or NARRATION.match(u) or _ADVICE.search(u)):
            continue
        if u.endswith(":") and not (k < len(units) and items[k]):
            continue  # an introduction to code or output that was left out
        lead = bool(_OUTCOME.match(u) or _DONE_TO.match(u) or (chinese.is_chinese(u) and chinese.done(u)) or intro)
        if lead and not worked and _BARE_VERB.match(u):
            lead = False  # "Set `line_height = 1.1` and reload": with no tool run, the imperative, advice
        if lead and not acted and not _I_DID.match(u):
            lead = False  # a chat with no tool run: "Kahlo was born and raised in Mexico" is no work done
        weaker = bool(not lead and item and report and _reported(u))  # "For Klipper: maps M240 to ...", in a report
        lead = lead or weaker
        agreed = bool(_AGREED.search(u)) and (specific(u) or names_someone(u)) and not _HEDGE.search(u)
        yours = acted and re.search(r"\byour\b", u, re.I) and not _HEDGE.search(u)  # a chat looked at nothing of yours
        cause = bool(yours and (_CAUSE.search(u) or _FINDING.search(u)))
        # after the agent worked: a cause it found ("failed because `cron` needs approval"), in the past and naming
        # a thing of the person's setup, or the state its work left ("Each month now has a border")
        said = not lead and not cause and worked and not _HEDGE.search(u)
        cause = cause or bool(said and _CAUSE.search(u) and _WAS.search(u) and CODEISH.search(u))
        # a state names a thing of the person's setup: "React's compiler is now stable", read on a page, names none
        state = bool(said and (_NOW.search(u) or _STATE.search(u)) and CODEISH.search(u))
        if not lead and not cause and not agreed and not state and not (_NOW.search(u) and out):
            continue
        if _PLANNED.search(u) or (re.search(r"\b(?:will|going to)\b", u, re.I) and not _NOW.search(u)):
            continue  # a plan, not an outcome
        u, k = with_list(u, units, items, k)
        if outside.restates(u, i, SHARED_SHARE_SAID, 3) if said else outside.restates(_own_words(u, lead), i):
            continue
        opens = FINDING_LEAD.match(u)
        if opens and _SUSPECT.search(u):
            continue  # "The culprit is probably the font cache": a suspicion until something confirms it
        found = bool(_CAUSE.search(u) or opens)
        found = found or bool(cause)
        score = (0.65 if found or agreed else 0.6) - (0.05 if out else 0.0) + (0.05 if specific(u) else 0.0)
        score -= 0.05 if weaker else 0.0  # said as done by its place in a report only: after an outcome said so
        if not (specific(u) or names_someone(u.split(" ", 1)[-1] if " " in u else "")):  # its first word aside
            score -= 0.1  # "Done, reload and try again" / "Implemented the requested changes": says no what
            score -= 0.1 if _VAGUE.search(u) else 0.0  # "I researched some news", "completed the necessary steps"
        out.append(Outcome(score, u, "found" if found else "done", section))
    return [out[k] for k in sorted(_best(out))]


def _best(out: list[Outcome]) -> list[int]:
    """The turn's outcomes that say the most (a name, value or path first), at most AGENT_PER_TURN; of equal scores
    one from a part of the report not yet drawn on, then the first: a report of five parts says more in two of
    them than in two items of its first."""
    best: list[int] = []
    while len(best) < min(AGENT_PER_TURN, len(out)):
        drawn = {out[k].section for k in best}
        rest = (k for k in range(len(out)) if k not in best)
        best.append(min(rest, key=lambda k: (-out[k].score, out[k].section in drawn, k)))
    return best
