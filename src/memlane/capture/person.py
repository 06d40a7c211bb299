"""Which of the person's sentences become candidates, and how each is scored: their instructions for later
("always", "never", "remember", "from now on"), decisions, statements about themselves and their setup, answers
to the agent's question, choices among the options it offered (:mod:`memlane.capture.options`) and confirmations of
its suggestions; work asked for now, chat about the session and questions are none. The pattern tables come
first, then :func:`person_candidates` (one turn) and :func:`person_unit` (one sentence). The batch, its budget
and the agent's side are :mod:`memlane.capture.draft`.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from ..text.keywords import STOPWORDS
from . import chinese
from .agreed import CONTRAST, confirmed_proposal, confirms, followed
from .asking import ASKS_WORK, CARRY_ON, WANTS, decides_nothing
from .options import CHOICE_WORDS, adopted, chosen_by_name, purpose
from .outcomes import with_list
from .outside import SHARED_SHARE_SAID, OutsideText
from .phrasing import (
    FIRST_PERSON,
    PROTECTED,
    clean,
    names_someone,
    quote,
    self_contained,
    size,
    specific,
    straight,
)
from .prose import Prose

PERSON_PER_TURN = 6  # bullets drafted from one of the person's turns at most (its highest scored)
QUESTION_TAIL = 4  # sentences: a short reply answers a question with fewer sentences of prose after it
CONFIRM_WORDS = 12  # a reply this short that says the agent's suggestion worked carries the suggestion
SHORT_UNIT = 6  # words: a sentence this short leans on the one before it ("Do not change the contents.")
# --- the person's words ------------------------------------------------------------------------------

_IRREGULAR = frozenset(
    re.findall(
        r"\S+",
        "went made got did took met saw found wrote built ran began bought sold won lost gave brought left spent came "
        "told taught read drove flew sent put set thought felt knew kept heard paid meant woke broke chose forgot fell "
        "hit led let rode sat shot shut spoke stood stuck threw wore",
    )
)
# A rule for later work. Not "I'll make sure to ..." (a plan of the person's), not "I've always / it's always ..." (a
# statement: what the person has always or never done is _CONSTANT).
_INSTRUCTION = re.compile(
    r"\b(?:(?<!\bi )(?<!\bwe )(?<!\bt )(?<!\bnot )remember(?: that)?|remind me|don'?t forget|from now on|going forward|"
    r"keep in mind|(?<!\bto )(?<!\bme )(?<!\bus )(?<!\bi )(?<!\bwe )(?<!'ll )(?<!\bwill )(?<!\bgonna )make sure|"
    r"(?<!\bi )(?<!\bwe )(?<!\bit )(?<!\bthey )(?<!\bhe )(?<!\bshe )(?<!'ve )(?<!\bhave )(?<!\bhas )"
    r"(?<!\bit's )(?<!\bthat's )(?<!\bhe's )(?<!\bshe's )"
    r"(?:always|never)|"
    r"do not ever)\b",
    re.I,
)
# What the person has always or never done: "I've never attended a workshop", "I always run the tests first". A fact
# about themselves that a later statement may contradict ("I attended one in May"): ranked just under a rule for later.
_CONSTANT = re.compile(
    r"\b(?:i|we)(?:'ve| have)\s+(?:always|never)\b|\b(?:i|we)\s+(?:always|never)\s+(?!\w+ed\b|(?:"
    + "|".join(sorted(_IRREGULAR))
    + r")\b)\w",
    re.I,
)  # not "I never saw it open" (one past event)
# "I'll make sure to enable 2FA": the person's own plan, a statement about themselves (not a rule for the agent)
_PLEDGE = re.compile(
    r"\b(?:i|we)(?:'ll| will|'m going to| am going to|'re going to|'m gonna| am gonna)\s+make sure\b", re.I
)
# "Do not change the contents." / "Don't push on Fridays.": an imperative prohibition binds the work that follows
_PROHIBITION = re.compile(
    r"^\W{0,3}(?:please\s+)?(?:do not|don'?t|dont|never)\s+(?!worry\b|bother\b|mind\b|know\b)\w", re.I
)
# A value that changed: "moved to 6:30", "is now 49:30", "has now reached 165", "extended ... to 12 books". Such a
# statement is what a question about the present is answered by (issue 44), so it outranks the person's other
# statements in the budget and is never taken for a restatement (known.py: it holds a number the old fact lacks).
_CHANGED = re.compile(
    r"\b(?:(?:is|are|was|were|has|have|'s|'ve|'re)\s+(?:now|since|recently|just|finally)\b|now\s+(?:is|are|at|has|have|"
    r"reached|stands|sits|totals?|up to|down to)\b|(?:changed|moved|switched|upgraded|downgraded|increased|decreased|"
    r"reduced|raised|lowered|extended|shortened|rescheduled|postponed|pushed back|brought forward|bumped|grown|grew|"
    r"dropped|reached|improved|updated|adjusted|revised|shifted|expanded|cut)\s+(?:\S+\s+){0,4}?(?:to|from|by)\s|"
    r"(?:change|move|switch|upgrade|increase|decrease|reduce|raise|lower|extend|shorten|reschedule|postpone|bump|adjust|"
    r"update|set)s?\s+(?:\S+\s+){0,4}?to\s+\S{0,3}\d|"
    r"(?:new|current|latest|updated|revised|increased|decreased|reduced|raised|lowered|extended|adjusted)\s+"
    r"(?:\w+\s+){0,3}?(?:of|is|at|to|are|will be)\s+[^.,;]{0,20}?\d|"
    r"no longer|anymore|instead of|so far\b|a total of\b|up to now\b)",
    re.I,
)
# "Rename the relay output to Aux" / "if there are several, add three as Aux1, Aux2, Aux3": an imperative that sets a
# name or a value of the person's project is their decision (a request with no value, "give me the command", is not).
_SETS = re.compile(
    r"^\W{0,3}(?i:(?:(?:so|then|also|and|now|ok(?:ay)?|yes|yeah|next|first|lastly|finally|instead)[,]?\s+){0,3}"
    r"(?:if [^,]{1,160},\s*)?(?:please\s+)?(?:(?:add|rename|set|make|create|change|call|name|label|use|default|limit|"
    r"switch|move|put|keep|replace)\b[^.;]{0,120}?\b(?:to|as|named|called|at)\b|(?:name|call|label)\s+"
    r"(?:it|them|this|that|these|those|the \w{1,30})))\s+[\"'“`]?(?:\d|[A-Z]|\S*[/_.=]\S)",
)
# Where a request to the agent starts inside a sentence that first states something ("my library has now 52
# sources, how can I organise them?"): what comes before it is a statement.
_CLAUSE_START = r"(?:[,;:]|\s[-–—])\s*(?:(?:and|but|so)\s+)?"  # where a clause of a sentence starts
_ASKS = re.compile(
    _CLAUSE_START + r"(?:(?:can|could|would|will|is|does|do|should)\s+(?:you|i|we|someone|it|"
    r"this|that|they|these|there)\b|(?:how|what|why)\s+(?:\w+\s+){0,2}?(?:can|could|should|would|do|does|did|will|to|is|are)\b|"
    r"are there\b|any (?:tips|ideas|advice)\b|"
    r"i(?:'m| am| was) (?:\w+ )?(?:wondering|curious|not sure) (?:if|whether|how|what|about)\b)",
    re.I,
)
# A request to the agent inside a sentence with no question mark ("I just set up X, can you help me use it")
_REQUEST = re.compile(_CLAUSE_START + r"(?:can|could|would|will) you\b", re.I)
# A question tag after a statement ("..., you know?"): the sentence states, it does not ask
# (only the rhetorical ones: ", right?" after "the server listens on 8080" asks to be told whether it does)
_TAG = re.compile(r",\s*(?:you know|ya know)\s*\?$", re.I)
# Speech reported before a request ("My manager asked me, can you lead the migration"): the request is the
# statement's, not the person's to the agent
_REPORTED = re.compile(r"\b(?:ask(?:s|ed)?|sa(?:ys|id)|told|tells?|wrote|writes?|texted|emailed)(?: \w+)?$", re.I)
# A short sentence that points back at the one before it: "the contents", "it", "them", "those"
_REFERS = re.compile(r"\b(?:it|its|them|this|that|these|those|there|the|same)\b", re.I)
# "ones" (or "a new one") among a sentence's first words stands for a thing the sentence before named: "Have you
# tried any good ramen places? I've tried four different ones so far" says what was tried only with its question
_ONES = re.compile(
    r"^(?:\S+\s+){0,8}?(?:(?<!loved )(?<!little )ones\b|"
    r"(?:old|new|other|different|current|previous|latest|first|last) one\b(?!\s+of\b))",
    re.I,
)
# An order bound to the work at hand ("Don't make any changes yet", "Only plan for now"): no rule for later work.
# A "yet" in a condition ("a pull request that has not been reviewed yet") is part of a standing rule.
_FOR_NOW = re.compile(
    r"\b(?:yet|for now|right now|for the moment|at the moment|this time|in this (?:session|step|turn|pass|task))\b"
    r"\W{0,3}$|\b(?:for now|for the moment|this time)\b",
    re.I,
)
_YET_CONDITION = re.compile(r"\b(?:has|have|had|is|are|was|were)(?:n't| not)\b[^.;]{0,60}\byet\W{0,3}$", re.I)
_KEEP_IN_MIND = re.compile(r"\b(?:remember|remind me|don'?t forget|keep in mind|from now on|going forward)\b", re.I)
# Words addressed to the agent about the session itself ("I tried your command", "you broke it", "now ur turn"):
# what happened in the chat, not what a person would ask memory for later.
_ADDRESSED = re.compile(r"\b(?:you|your|you'?re|you'?ve|u|ur|yours)\b", re.I)
_DECISION = re.compile(
    r"\b(?:(?:let'?s|lets)(?! (?:take a look|look|see|check|start|begin|get|figure|test|run|continue|do)\b)|"
    r"we(?:'ll| will) (?:go with|use|keep)|decided|i decide|agreed|going with|go with|settled on|"
    r"we chose|i chose|i(?:'ll| will) (?:go with|use|take|keep)|should (?:be|use|say|have|hold|support|go)|"
    r"(?<!\byou )(?:should not|shouldn'?t|must not|mustn'?t) (?!have\b)\w+|"
    rf"(?<!what )(?<!which )(?:{WANTS})|please (?:use|make|set|add|keep|change|call|name|rename|move|put))\b",
    re.I,
)
_OPINION: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"\b(?:love[sd]?|hate[sd]?|can'?t stand|adore[sd]?|favou?rite)\b", re.I), 0.9),
    (
        # "like" held by someone ("I really like it"), not the preposition ("worked like a charm", "looks like")
        re.compile(
            r"\b(?:prefer(?:s|red)?|(?:i|we|really|also|just|do|don'?t|dont|would|i'?d)\s+like|likes|liked|"
            r"enjoy(?:s|ed)?|dislikes?|rather|looks? (?:the )?best)\b",
            re.I,
        ),
        0.75,
    ),
    (re.compile(r"\b(?:i think|i believe|i feel|in my opinion)\b", re.I), 0.6),
)
_WORKED = re.compile(
    r"\b(?:this|that|it|which) (?:finally )?(?:worked|works now|fixed it|did it|did the trick|solved it)\b", re.I
)
_NOT_PAST = r"(?!(?:need|feed|speed|proceed|exceed|succeed)\b)"  # words ending in -ed that are no past tense
_DID = re.compile(
    rf"\b(?:i|we) (?:just |finally |also |already )?(?:{_NOT_PAST}\w+ed|{'|'.join(sorted(_IRREGULAR))})\b", re.I
)
_PAST_ANY = re.compile(rf"\b(?:\w{{3,}}ed|{'|'.join(sorted(_IRREGULAR))})\b", re.I)
_SELF = re.compile(
    r"\b(?:i'?m|i am|i'?ve|i have|i usually|i often|i work|i live|i own|i use|i run|i travel|i develop|i build|"
    r"i manage|i do|my|our|we have|we use|we run|i used|i've used)\b",
    re.I,
)
# What the person or their team does as a habit: "we deploy the payments repo every Thursday"
_HABIT = re.compile(
    r"\b(?:i|we)\s+(?:usually\s+|normally\s+|typically\s+|always\s+)?[a-z]{3,}\b[^.?!]{0,100}?\b(?:every|each|daily|"
    r"weekly|monthly|nightly|yearly|on (?:mon|tues|wednes|thurs|fri|satur|sun)days)\b",
    re.I,
)
_SOCIAL = re.compile(
    r"^(?:ok(?:ay)?|k|yes|yeah|yep|yup|no|nope|nah|sure|thanks|thank you|thx|ty|cool|nice|great|awesome|perfect|"
    r"sweet|dope|wow|lol|haha|hi|hello|hey|good|done|got it|sounds good|looks good|makes sense|please|go ahead|"
    r"continue|proceed|next)\b[\s!.,]*(?:please|thanks|thank you)?[\s!.]*$",
    re.I,
)
_YES = re.compile(r"^(?:ok(?:ay)?|yes|yeah|yep|yup|sure|please|do it|go ahead|all of (?:it|them)|both)\b", re.I)

# --- a unit's shape --------------------------------------------------------------------------------

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
_URL_ONLY = re.compile(r"^\W{0,3}(https?://\S{1,500}?)[\s.!)]*$")
BODY = re.compile(r"^[^:]{1,80} (?:said|answered|chose)[^:]{0,400}: ")  # the speaker's lead-in
_QUESTION = re.compile(
    r"^(?:what|why|how|where|when|which|who|can (?:we|you|i)|could (?:we|you)|would you|will (?:it|this|any|you)|"
    r"is (?:there|it|this)|are (?:there|they|these)|do (?:you|we|i)|does|did|should (?:i|we)|any way|is that)\b",
    re.I,
)


@dataclass
class Candidate:
    score: float
    kind: str
    text: str
    turn: int
    speaker: str
    role: str
    confidence: float | None = None


def person_candidates(
    prose: Prose,
    i: int,
    speaker: str,
    prev_agent: Prose | None,
    day: dt.date | None,
    advised: bool = False,
    outside: OutsideText | None = None,
    request: Prose | None = None,
    making: str | None = None,
) -> list[Candidate]:
    """The candidates of one of the person's turns; ``advised``: the agent's turn before it ran no tool (it told
    the person what to do, so "done" says they did it); ``outside``: the batch's tool turns, whose words (a page, a
    file, a tool's result the agent restated) never become what the person confirmed or chose; ``request``: the
    person's turn before the agent's, which says what the options it listed were for, or ``making``, what the
    person set out to make in a recent turn, when a name was asked for nothing named."""
    units = [straight(clean(u)) for u in prose.units]
    words = sum(len(u.split()) for u in units)
    out: list[Candidate] = []
    whole = " ".join(units)

    def restated(text: str) -> bool:
        return outside is not None and outside.restates(text, i, SHARED_SHARE_SAID, 3)

    def chose(picked: tuple[str, str]) -> Candidate:
        # an option that restates outside text ("Hotel Aurora — $120/night, rated 4.5" from a search) is named only;
        # what it was chosen as comes from the person's request ("suggest some names for my theme")
        what = purpose(request, making)
        chosen = f"{speaker} chose {picked[0]} {what}" if what else f"{speaker} chose {picked[0]}"
        text = chosen if restated(picked[1]) else f"{chosen}: {picked[1]}"
        return Candidate(0.95, "world", text, i, speaker, "decided")

    confirmed = False  # the reply confirms the agent's suggestion: its confirming sentences are no bullets
    # "that worked! We run Postgres 16.": the confirming sentences name nothing themselves, the rest is drafted below
    if (
        prev_agent is not None
        and 0 < words <= CONFIRM_WORDS
        and confirms(whole, advised)
        and not specific(" ".join(u for u in units if confirms(u, advised)) or whole)
    ):
        did = followed(whole)  # "ok, done": the person did what they were told, which vouches for no diagnosis
        proposal = confirmed_proposal(prev_agent, restated, did)  # "that worked": what the two agreed
        if proposal:
            text = f"{speaker} did: {proposal}" if did else f"{speaker} confirmed {quote(proposal)}: {whole}"
            out.append(Candidate(0.85, "world", text, i, speaker, "decided"))
            confirmed = True
        elif proposal == "" or not names_someone(whole):
            confirmed = True  # "that worked" after "Glad it helped", or after outside text only: nothing it names
    if not confirmed and prev_agent is not None and 0 < words <= CHOICE_WORDS and not whole.endswith(("?", "？")):
        if words <= 8:
            picked = adopted(whole, prev_agent) or chosen_by_name(whole, prev_agent)
            if picked is not None:
                return [chose(picked)]
            question = _question_asked(prev_agent)
            rest = _YES.sub("", whole).strip(" ,.!")
            meaningful = [
                w for w in re.findall(r"[^\W_]+", rest.casefold()) if w not in STOPWORDS and w not in _CHATTER
            ]
            if question and not _SOCIAL.match(whole) and not _URL_ONLY.match(whole):
                if not meaningful or not _substance(rest) or _ADDRESSED.search(whole) or chinese.assent(whole):
                    return []  # "Test", "try again", "now ur turn": a reply about the chat, nothing to ask for later
                text = f"{speaker} answered {quote(question)}: {whole}"
                score = 0.7 + (0.1 if specific(whole) else 0.0)
                return [Candidate(score, "world", text, i, speaker, "")]  # not a digest line: it needs its question
        else:
            # "Let's go with option 2, and keep the old name": the choice, then the reply's own statements
            picked = adopted(whole, prev_agent, explicit=True) or chosen_by_name(whole, prev_agent)
            if picked is not None:
                out.append(chose(picked))
    n, last, first = 0, -2, -2  # last/first: the units the last candidate of ``out`` ends and begins at
    while n < len(units):
        k, u = n, units[n]
        n += 1
        if u.endswith((":", "：")) and not prose.items[k]:
            # "These IDs should have the following requirements:" says what only its list says: one bullet with
            # the list's first items, or none when no list follows (code or output the source filter left out)
            u, n = with_list(u, units, prose.items, n)
            if n == k + 1:
                continue
        if confirmed and confirms(u, advised):
            continue  # "that worked!": said by the confirmation
        c = _person_unit(u, i, speaker, day)
        if c is None:
            continue
        leans = bool(
            c.role and k and size(u) <= SHORT_UNIT and _REFERS.search(u) and units[k - 1][-1:] != "?"
        )  # "Reorder the lists. Do not change the contents.": what "the contents" are is the sentence before
        if (leans or (k and _ONES.match(u))) and len(units[k - 1]) <= 200:
            begin = k - 1
            if out and last == k - 1:  # the sentence before is in this one now: one bullet, not two
                before = out.pop()
                c.score, c.role = max(c.score, before.score), c.role or before.role
                begin = first  # that bullet may itself hold the sentence before it: keep the whole of it
            c.text = self_contained(" ".join(units[begin : k + 1]), speaker, day)
            first = begin
        else:
            first = k
        out.append(c)
        last = k
    if len(out) > PERSON_PER_TURN:
        best = sorted(range(len(out)), key=lambda k: (-out[k].score, k))[:PERSON_PER_TURN]
        out = [out[k] for k in sorted(best)]
    if prose.error and prose.dropped and len(out) < 3:
        text = f"{speaker} shared an error: `{prose.error}`" if "`" not in prose.error else prose.error
        out.append(Candidate(0.55, "world", text, i, speaker, ""))
    return out


def _question_asked(agent: Prose) -> str | None:
    """The agent's last question, with the sentence before it when the question alone says nothing ("How about
    the name Harbour Light? What do you think?"). Only one near the turn's end (its last QUESTION_TAIL units) is
    what the person answers: a question the turn asked itself and went on to answer ("Should we add a score? In
    principle yes ...") is not. The options listed after a question ("For example: - 5 minutes ...") do not count."""
    units = [clean(u) for u in agent.units]
    after = 0  # sentences of prose after the unit, options and their "For example:" aside
    for k in range(len(units) - 1, -1, -1):
        if after >= QUESTION_TAIL:
            return None
        if units[k].rstrip().endswith(("?", "？")):
            if k and size(units[k]) < SHORT_UNIT and not units[k - 1].endswith(":"):
                return f"{units[k - 1]} {units[k]}"
            return units[k]
        after += not (agent.items[k] or units[k].endswith(":"))
    return None


_CHATTER = frozenset(
    ["again", "now", "right", "test", "try", "all", "both", "one", "it", "this", "that", "go", "ahead", "please"]
)
_HOLLOW = frozenset(
    [
        "like",
        "want",
        "need",
        "see",
        "get",
        "make",
        "let",
        "lets",
        "please",
        "would",
        "should",
        "more",
        "some",
        "try",
        "going",
        "look",
    ]
)


def _substance(text: str) -> bool:
    """Says what: a content word besides the verbs of wanting ("I would like to see more" says nothing)."""
    words = re.findall(r"[^\W\d_]{3,}", text.casefold())
    return any(w not in STOPWORDS and w not in _HOLLOW for w in words) or bool(_CJK.search(text))


def _statement_of(u: str) -> str:
    """A sentence that states something and then asks ("I've now read 12 of them, can you suggest more?", "...,
    but I'm wondering if ...?", "..., can you help me use it" with no question mark): the statement before the
    request. A statement with a question tag ("..., you know?") is a statement. A sentence that is only a question
    stays as it is (and is not drafted)."""
    tag = _TAG.search(u)
    if tag is not None and not _QUESTION.match(u):
        u = u[: tag.start()].rstrip(" ,;")
    if _QUESTION.match(u):
        return u
    m = _ASKS.search(u) if u.endswith("?") else _REQUEST.search(u)
    if m is None:
        return u
    head = u[: m.start()].rstrip(" ,;:-–—")
    return head if size(head) >= 4 and not _REPORTED.search(head) else u


def _person_unit(u: str, i: int, speaker: str, day: dt.date | None) -> Candidate | None:
    url = _URL_ONLY.match(u)
    if url:
        return Candidate(0.6, "world", f"{speaker} shared {url.group(1)}", i, speaker, "")
    if chinese.is_chinese(u):
        return _chinese_unit(u, i, speaker, day)
    u = _statement_of(u)
    words = u.split()
    if not words or u.endswith("?") or _SOCIAL.match(u) or (_QUESTION.match(u) and not _DECISION.search(u)):
        return None
    if CARRY_ON.match(u) and size(u) <= 10:
        return None
    content = len([w for w in re.findall(r"[^\W\d_]{3,}", u.casefold()) if w not in STOPWORDS])
    length = size(u)
    bonus = 0.1 if specific(u) or names_someone(u) else 0.0
    conf = next((c for p, c in _OPINION if p.search(u)), None)
    rule = _INSTRUCTION.search(u) or (_PROHIBITION.match(u) and _substance(u))
    now = _FOR_NOW.search(u)
    for_now = bool(now and not (now.group(0)[:3].casefold() == "yet" and _YET_CONDITION.search(u)))
    if rule and length >= 3 and not (for_now and not _KEEP_IN_MIND.search(u)):
        kind, score, role = "world", 0.95, "remember"
        conf = None
    elif _CONSTANT.search(u) and length >= 4 and content >= 1:
        kind, score, role = "world", 0.9, ""
        conf = None
    elif _PLEDGE.search(u) and length >= 4 and content >= 1:
        kind, score, role = "world", 0.7, ""
        conf = None
    elif _CHANGED.search(u) and specific(u) and length >= 4 and content >= 1:
        kind, score, role = "world", 0.8, ""
        conf = None
    elif _SETS.match(u) and length >= 4:
        kind, score, role = "world", 0.8, "decided"
        conf = None
    elif (worked := _WORKED.search(u)) and not CONTRAST.search(u, worked.end()):  # not "it worked before ..."
        kind, score, role = "world", 0.85, "decided"
        conf = None
    elif _DECISION.search(u) and length >= 3 and _substance(u):
        # help asked for, a doubt ("But I'm not sure if I should use ..."), a step of the work at hand: no decision
        kind, score, role = "world", 0.8, "" if decides_nothing(u) else "decided"
        conf = None
    elif conf is not None and length >= 3:
        kind, score, role = "opinion", 0.7, ""
    elif _DID.search(u) and length >= 4 and content >= 1:
        kind, score, role = "experience", 0.7, ""  # what the person did: as askable as what they are
    elif (_SELF.search(u) or _HABIT.search(u)) and length >= 4 and content >= 1:
        kind, score, role = "world", 0.7, ""
    elif _PAST_ANY.search(u) and length >= 4 and content >= 2 and names_someone(u):
        kind, score, role = "experience" if FIRST_PERSON.search(u) else "world", 0.5, ""
    elif length >= 4 and content >= 2:
        kind, score, role = "world", 0.45, ""
    else:
        return None
    if kind != "opinion" and score < 0.8 and ASKS_WORK.match(u):
        # work asked for now ("then go through our docs"): the agent's outcome says what came of it; its verb
        # ("Execute on this plan") names no one
        score = min(score, 0.45)
        bonus = 0.1 if specific(u) or names_someone(u.split(" ", 1)[-1]) else 0.0
    score += bonus
    if not role and score < 0.85 and _ADDRESSED.search(PROTECTED.sub(" ", u)):
        score -= 0.2  # about the chat with the agent ("I ran your command and got ..."), not the person's world
    return Candidate(score, kind, self_contained(u, speaker, day), i, speaker, role, conf)


# The classes of a Chinese sentence (capture/chinese.py) scored as the English rules score the same class
_CHINESE: dict[str | None, tuple[str, float, str]] = {
    "instruction": ("world", 0.95, "remember"),
    "changed": ("world", 0.8, ""),
    "decision": ("world", 0.8, "decided"),
    "opinion": ("opinion", 0.7, ""),
    "self": ("world", 0.7, ""),
    "request": ("world", 0.35, ""),  # asks the agent for work now, sets nothing: under the threshold with a value
    None: ("world", 0.45, ""),
}


def _chinese_unit(u: str, i: int, speaker: str, day: dt.date | None) -> Candidate | None:
    """A sentence the person wrote in Chinese, scored by its own cues into the English rules' classes."""
    u = chinese.statement_of(u)
    cue = chinese.cue(u)
    if cue == "question" or size(u) < 3:
        return None
    kind, score, role = _CHINESE[cue]
    if chinese.named(u) or specific(u):
        score += 0.1
    if not role and score < 0.85 and chinese.addressed(u):
        score -= 0.2  # about the chat with the agent, not the person's world
    conf = 0.75 if kind == "opinion" else None
    return Candidate(score, kind, self_contained(u, speaker, day), i, speaker, role, conf)
