"""What capture drafts from the turns of a conversation: the offline rules.

Only prose is read: each turn goes through the source filter first (:mod:`memlane.capture.prose`), so
pasted code, shell sessions, logs, stack traces, data and tables are quotes, never facts. Then who
said it decides what may be kept:

- **The person** (a user turn, or any named speaker; the rules are :mod:`memlane.capture.person`): what they say of
  themselves, their setup, projects, preferences and decisions, and their instructions for the future ("always",
  "never", "remember", "make sure", "from now on"). A short answer to the agent's question keeps the question it
  answers; "option B" / "the second one" is resolved to the option the agent's turn listed (the person adopted it:
  their decision, with its content). A sentence written in Chinese is sorted into the same classes by Chinese cues
  (:mod:`memlane.capture.chinese`); work asked for now ("then go through the docs") is no statement of the person's.
- **The agent** (an unnamed assistant turn): only its outcomes in the person's environment, as ``B``:
  what it changed, created, fixed, ran, or found to be the cause (:mod:`memlane.capture.outcomes`).
  Never its advice, explanations, refusals, questions, steps or narration, and never a sentence that
  restates a tool turn (text from outside the conversation).
- **Tool turns** (``role="tool"``: tool results, fetched pages, files read) are never drafted; they are
  only read to recognise the agent restating them.

Fidelity: the speaker's words are kept as they wrote them, after the speaker's name; how a bullet is
written (and which entities it names) is :mod:`memlane.capture.phrasing`.

Budget: a candidate is drafted when its score (how likely a person is to ask for it later) is at least
:data:`THRESHOLD`; instructions and decisions score highest, then the person's statements about
themselves and the agent's first outcome of a turn, then the rest. One of the person's turns yields at
most ``person.PERSON_PER_TURN`` bullets, an agent turn ``outcomes.AGENT_PER_TURN``. Every one of these depends on
its turn (and the agent turn before it) only, so a batch cut in two drafts what it drafts whole (an
import interrupted and run again writes the same bullets) unless a batch of ``n`` turns reaches the cap
of ``BUDGET_BASE + BUDGET_PER_TURN * n`` bullets, which keeps the highest scored, and of equal scores the
later: a later outcome or value is the one that holds at the session's end. Each fact once.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..facts.retain import normalize_name
from ..reflect.extract import Draft, draft_log, normalized
from ..text.keywords import STOPWORDS
from . import options
from .agreed import settled, takes
from .outcomes import agent_outcomes
from .outside import SHARED_SHARE_SAID, OutsideText, applied_edits
from .person import BODY, Candidate, person_candidates
from .phrasing import clean, cut, entities, quote
from .prose import Prose, read_prose
from .turns import Turn

THRESHOLD = 0.5  # a candidate scored below this is not drafted: decided on the dev set's tune half
BUDGET_BASE = 3  # a batch of n turns yields at most BUDGET_BASE + BUDGET_PER_TURN * n bullets, the highest first
BUDGET_PER_TURN = 0.37  # (user and assistant turns): <= 40 per 100 turns on a long session
MAKING_TURNS = 8  # a name asked for nothing named is for what the person set out to make in their last 8 turns
SPARE_FLOOR = 0.6  # an outcome takes a slot a known fact freed only from this score (a "what" or a cause said)
NEAR_SAME = 0.7  # share of an agent outcome's content words in a kept one that makes it a restatement of it


@dataclass(frozen=True)
class Drafted:
    """A draft and the turn it came from (index into the batch)."""

    draft: Draft
    turn: int
    speaker: str  # whose words: a name, "user" or "assistant"
    score: float = 0.0  # how likely a person is to ask for it later (the budget keeps the highest)
    role: str = ""  # "remember" | "decided" | "done" | "found" | "" : what the digest calls it


def speaker_of(turn: Turn, user_name: str) -> str:
    if turn.name:
        return turn.name
    return user_name if turn.role == "user" else "assistant"


# --- drafting ----------------------------------------------------------------------------------------


def draft_candidates(
    turns: Sequence[Turn],
    day: dt.date | None,
    known: Iterable[str],
    user_name: str = "User",
    budget: bool = True,
    chat: bool = False,
) -> list[Drafted]:
    """The drafts of a batch within its budget (``budget`` False: no cap on the batch), in the order said. ``chat``:
    the batch comes from a chat app (an export), where the agent ran nothing in the person's environment."""
    known = list(known)
    names = {normalize_name(n): n for n in known if normalize_name(n)}
    lower = {k: n for k, n in names.items() if n == n.lower() and len(n) >= 3}
    outside = OutsideText(turns)
    applied = _applied(turns)
    acted = not chat  # a chat app's agent did nothing in the person's world: only "I/we <did>" is its work
    cands: list[Candidate] = []
    said: set[str] = set()
    spoken_by_name: list[Candidate] = []  # named speakers' statements: not ranked against the budget
    prev_agent: Prose | None = None
    request: Prose | None = None  # the person's last turn: what the agent's turns after it answer
    making: list[str | None] = []  # what each of the person's last MAKING_TURNS turns set out to make
    spoken = 0
    worked = False  # a tool ran since the person's last turn: the agent acted in their environment
    for i, t in enumerate(turns):
        if t.role == "tool":
            worked = True
            continue
        spoken += 1  # the agent's narration counts toward the session's size, and gives no bullet
        if t.narration:
            continue
        key = normalized(t.content)
        if key in said and len(key.split()) >= 6:
            continue  # a pasted-back old turn is not recorded again
        said.add(key)
        prose = read_prose(t.content)
        speaker = speaker_of(t, user_name)
        if t.role == "assistant" and not t.name:
            cands.extend(
                Candidate(o.score, "experience", o.text, i, "assistant", o.role)
                for o in agent_outcomes(prose, i, outside, worked, applied[i], acted)
            )
            prev_agent = prose
        elif t.name:
            spoken_by_name.extend(_named(prose, i, t.name, day, known))
        else:
            if prev_agent is not None and not worked and t.role == "user":
                cands.extend(_takes_settled(prose, prev_agent, i, speaker, outside))
            cands.extend(
                person_candidates(
                    prose,
                    i,
                    speaker,
                    prev_agent,
                    day,
                    prev_agent is not None and not worked,
                    outside,
                    request,
                    next((m for m in reversed(making) if m), None),
                )
            )
            if t.role == "user":
                request = prose
                making = [*making, options.making(prose)][-MAKING_TURNS:]
            prev_agent = None if t.role == "user" else prev_agent
            worked = worked and t.role != "user"
    limit = BUDGET_BASE + math.ceil(BUDGET_PER_TURN * spoken) if budget else len(cands)
    # the highest scored first; of equal scores the later (what holds at the end: a later outcome, a changed value)
    keep = sorted((k for k in range(len(cands)) if cands[k].score >= THRESHOLD), key=lambda k: (-cands[k].score, -k))
    ranked = []
    seen: set[str] = set()
    reported = _Reports()  # the agent's outcomes kept
    for k in keep:
        c = cands[k]
        c.text = cut(c.text)
        norm = normalized(BODY.sub("", c.text))
        if not norm or norm in seen:
            continue
        if c.speaker == "assistant":
            words, values = _gist(c.text)
            if reported.restates(words, values):
                continue  # "Done — added a Filaments tab ..." after "Added a Filaments tab ...": one report twice
            reported.add(words, values)
        seen.add(norm)
        ranked.append(k)
        if len(ranked) >= limit:
            break
    for c in spoken_by_name:
        norm = normalized(c.text)
        if norm and norm not in seen:
            seen.add(norm)
            cands.append(c)
            ranked.append(len(cands) - 1)
    out: list[Drafted] = []
    for k in sorted(ranked, key=lambda k: (cands[k].turn, k)):
        c = cands[k]
        who = None if c.speaker == "assistant" else c.speaker
        draft = Draft(c.kind, c.text, entities(c.text, who, names, lower), 0, c.confidence)
        out.append(Drafted(draft, c.turn, c.speaker, c.score, c.role))
    return out


def within_budget(drafted: Sequence[Drafted], turns: Sequence[Turn], held: Iterable[int] = ()) -> list[Drafted]:
    """The drafts of a batch drafted with no cap, cut to its budget as :func:`draft_candidates` cuts them (the
    highest scored, of equal scores the later; named speakers' statements are not ranked against it), less
    ``held``, the drafts memory already holds. A slot a held draft took goes to the agent's next best outcome: the
    project rules a person pastes into every session's prompt took every slot of a short session and were then
    skipped as known, and the session's own outcomes were lost. Only outcomes take freed slots: the person's
    statements a session repeats are known for a reason (a pasted prompt), its outcomes are new by nature."""
    held = set(held)
    spoken = sum(1 for t in turns if t.role != "tool")
    limit = BUDGET_BASE + math.ceil(BUDGET_PER_TURN * spoken)
    chat = {k for k, d in enumerate(drafted) if d.turn < len(turns) and turns[d.turn].name}
    ranked = sorted((k for k in range(len(drafted)) if k not in chat), key=lambda k: (-drafted[k].score, -k))
    freed = sum(1 for k in ranked[:limit] if k in held)
    outcomes = [k for k in ranked[limit:] if drafted[k].speaker == "assistant" and drafted[k].score >= SPARE_FLOOR]
    spare = [k for k in outcomes if k not in held][:freed]
    keep = (set(ranked[:limit]) | set(spare) | chat) - held
    return [d for k, d in enumerate(drafted) if k in keep]


def _takes_settled(prose: Prose, agent: Prose, i: int, speaker: str, outside: OutsideText) -> list[Candidate]:
    """The person's "ok, start" after the agent's turn that gives a settled version under a heading that says so
    ("## Final plan" and its table or list): what the two agreed, the version's heading and first cells or items
    (:func:`agreed.settled`); nothing when its items restate outside text (a page, a tool's result): a table's short
    first cells are names, written as a chosen option's name is."""
    reply = " ".join(clean(u) for u in prose.units)
    found = settled(agent) if takes(reply) else None
    if found is None or (not found[1] and outside.restates(found[0], i, SHARED_SHARE_SAID, 3)):
        return []
    return [Candidate(0.85, "world", f"{speaker} agreed to {quote(found[0])}: {reply}", i, speaker, "decided")]


def _applied(turns: Sequence[Turn]) -> list[tuple[str, ...]]:
    """Per turn, the files the host says it applied edits to after it, by their names: the tool turns up to the
    person's next turn (Aider quotes an edit block's lines as its own, so the agent's turn comes in pieces). One
    backward pass: each tool turn is read once."""
    out: list[tuple[str, ...]] = [()] * len(turns)
    after: tuple[str, ...] = ()
    for i in range(len(turns) - 1, -1, -1):
        out[i] = after
        t = turns[i]
        if t.role == "user":
            after = ()
        elif t.role == "tool":
            new = [re.split(r"[/\\]", f)[-1] for f in applied_edits(t.content)]
            after = after + tuple(f for f in new if f not in after) if new else after
    return out


_ACTS = re.compile(
    r"\b(?:add|remov|delet|creat|drop|enabl|disabl|increas|decreas|rais|lower|install|uninstall|revert|restor|"
    r"turn(?:ed)? on|turn(?:ed)? off|switch(?:ed)? on|switch(?:ed)? off)\w*",
    re.I,
)


def _gist(text: str) -> tuple[frozenset[str], frozenset[str]]:
    """A bullet's content words (a plural's "s" aside) and the values it names (numbers, backtick spans)."""
    words = {w.removesuffix("s") for w in re.findall(r"[^\W\d_]{3,}", text.casefold()) if w not in STOPWORDS}
    values = set(re.findall(r"`[^`\n]{1,300}`|\d+(?:[.,:]\d+)*", text))
    # what was done is a value too: "Added the retry loop", then "Removed the retry loop" is a change, not a restatement
    values |= {m.group(0).casefold()[:5] for m in _ACTS.finditer(text)}
    return frozenset(words), frozenset(values)


class _Reports:
    """The agent's outcomes kept so far, by their content words, to tell a restatement without comparing each new
    outcome with every kept one (a long agentic batch keeps thousands)."""

    def __init__(self) -> None:
        self.kept: list[tuple[frozenset[str], frozenset[str]]] = []  # words, values
        self.having: dict[str, list[int]] = {}  # a word -> the kept outcomes holding it

    def restates(self, words: frozenset[str], values: frozenset[str]) -> bool:
        """Says nothing a kept outcome does not: NEAR_SAME of its content words (at least 4) are the kept one's,
        and every value it names too (a changed value is never a restatement). An outcome holding that many of
        the words holds at least one of any ``len(words) - need + 1`` of them: only the kept outcomes that hold
        one of its rarest words are compared."""
        if len(words) < 4:
            return False
        need = math.ceil(NEAR_SAME * len(words))
        rare = sorted(words, key=lambda w: (len(self.having.get(w, ())), w))[: len(words) - need + 1]
        seen = {k for w in rare for k in self.having.get(w, ())}
        return any(len(words & self.kept[k][0]) >= need and values <= self.kept[k][1] for k in seen)

    def add(self, words: frozenset[str], values: frozenset[str]) -> None:
        for w in words:
            self.having.setdefault(w, []).append(len(self.kept))
        self.kept.append((words, values))


def _named(prose: Prose, i: int, name: str, day: dt.date | None, known: Iterable[str]) -> list[Candidate]:
    """A named speaker's prose (people talking to each other, no agent: a LoCoMo-style chat) drafted by the
    rules of ``memlane retain`` after the source filter: its third-person bullets are what those
    conversations were tuned and measured on (LoCoMo's replay R@5); the budget does not apply to them."""
    text = " ".join(clean(u) for u in prose.units)
    if not text:
        return []
    label = " ".join(w[:1].upper() + w[1:] for w in re.findall(r"[\w'’.-]+", name)[:3]) or "User"
    drafts = draft_log(f"{label}: {_escape_markdown(text)}", day, known, speakers=[label], whole=True)
    return [Candidate(0.6, d.kind, d.content, i, name, "", d.confidence) for d in drafts]


def _escape_markdown(text: str) -> str:
    """A turn's prose as one log line: a heading, fence or list marker inside it is text."""
    return re.sub(r"^(\s*)(#|```|~~~|[-*+] )", r"\1\\\2", text)
