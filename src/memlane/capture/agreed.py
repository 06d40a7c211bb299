"""What the two agreed: the agent's proposal a person's short reply confirms or accepts.

"That worked" / "yep, that was it" after the agent's suggestion makes it agreed (:func:`confirms`,
:func:`confirmed_proposal`: the first sentences of the agent's turn that name a thing of the person's setup); "ok,
start" after a turn that gives a settled version under a heading that says so ("## Final plan", "最終 ... 定版")
accepts that version (:func:`settled`). Only the agent's words the person vouched for are carried, never a
sentence that restates outside text (a page, a tool's result).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import chinese
from .outcomes import CODEISH, FINDING_LEAD, NARRATION
from .phrasing import clean, size, straight
from .prose import Prose

# The person's short reply that the agent's suggestion did it: "that worked", "yep, that was it", "works now!"
CONFIRMS = re.compile(
    r"\b(?:that|this|it)(?:'s| is| was) it\b(?!\s+(?:for|from|then|now|today))"  # not "that's it for today"
    r"|\b(?:that|this|it) (?:finally |also )?(?:worked|works(?: now)?|fixed it|did it|did the trick|solved it)\b"
    r"|^\W{0,3}(?:\w+\W{1,3}){0,2}(?:works|working) now\b",
    re.I,
)
NEGATED = re.compile(r"\b(?:not|no|nope|never)\b|n't\b", re.I)  # "I don't think that worked"


# The person says they did what the agent advised: "done", "ok, ran it", "installed it", "I added that"
_FOLLOWED = re.compile(
    r"^\W{0,3}(?:(?:ok(?:ay)?|yes|yep|yeah|alright|sure)\W{1,3})?(?:(?:all )?done\b|did (?:that|it|this)\b|"
    r"(?:i(?:'ve| have)? )?(?:just )?(?:ran|run|installed|applied|added|set|changed|updated|tried|pasted|copied)"
    r" (?:it|that|this|them|those)\b)",
    re.I,
)


# After the confirming words, a contrast says it did not (or no longer) work: "it worked before the update, now it
# crashes", "that worked but now the signup page is broken"
CONTRAST = re.compile(r"\b(?:but|however|though|although|before|until|now it|except|yet)\b", re.I)


def confirms(reply: str, advised: bool = False) -> bool:
    """Whether a person's reply says the agent's suggestion did it ("yep, that was it", "that worked!"), or, after
    a turn of advice (``advised``: no tool ran, the agent only told them what to do), that they followed it ("done",
    "ok, ran it"): after the agent's own work, "done" answers nothing the agent proposed. A question ("that's it?")
    or a contrast after the confirming words ("it worked before the update, now it crashes") confirms nothing."""
    if NEGATED.search(reply) or reply.rstrip().endswith(("?", "？")):
        return False
    m = CONFIRMS.search(reply) or (_FOLLOWED.match(reply) if advised else None)
    return m is not None and not CONTRAST.search(reply, m.end())


def followed(reply: str) -> bool:
    """Whether a confirming reply says only that the person did what they were told ("ok, done", "ran it"), not
    that it worked: it vouches for the instruction, never for the agent's diagnosis."""
    return not CONFIRMS.search(reply)


PROPOSED_UNITS = 2  # sentences of the agent's proposal a confirmation carries at most
PROPOSAL_UNITS = 8  # sentences of prose an agent's turn may have for a confirmation to tell what it confirms


# An instruction: a sentence that opens with a verb telling the person what to do ("Add `export X` to `~/.zshrc`")
_INSTRUCTS = re.compile(
    r"^\W{0,3}(?:(?:then|now|also|just|first|next|finally|please)\W{1,3})?(?:add|set|run|install|uninstall|reinstall|"
    r"open|restart|reload|remove|delete|change|edit|update|upgrade|downgrade|create|put|enable|disable|use|replace|"
    r"copy|paste|type|export|unset|clear|append|move|rename|save|close|launch|start|stop|kill|switch|turn|uncomment|"
    r"comment out|insert|apply|configure|pin|try|point|increase|decrease|raise|lower|drop|rebuild|reboot|log out|"
    r"sign out|reset|revert|rm|mv|cd|make sure|ensure)\b",
    re.I,
)


def confirmed_proposal(
    agent: Prose, restated: Callable[[str], bool] = lambda _: False, did: bool = False
) -> str | None:
    """What of the agent's turn a person's "that worked" confirms: its first sentences that name a thing of the
    person's setup (a code span, path, setting) or open as a finding ("The culprit is probably ..."), at most
    PROPOSED_UNITS, in their order; None when it names nothing (a "that worked" after "Enjoy!" says nothing) or
    says too much to tell (more than PROPOSAL_UNITS sentences). A sentence that ``restated`` (outside text: a tool
    result, a page, a file the agent read) is never carried: when every one it would carry is, "" (nothing may be
    written). With ``did`` (the person only did it: "ok, done"), only the instructions, never a diagnosis."""
    if len(agent.units) > PROPOSAL_UNITS:
        return None  # a long turn (a report, a tutorial): which of its suggestions worked cannot be told
    picked: list[str] = []
    outside = False
    for raw in agent.units:
        u = straight(clean(raw))
        if size(u) < 4 or u.endswith(("?", "？")) or NARRATION.match(u):
            continue
        if did and not _INSTRUCTS.match(u):
            continue  # "Your shell loads `nvm` eagerly": the agent's claim, which "done" does not vouch for
        if CODEISH.search(u) or FINDING_LEAD.match(u):
            if restated(u):
                outside = True
                continue
            picked.append(u)
            if len(picked) >= PROPOSED_UNITS:
                break
    return " ".join(picked) or ("" if outside else None)


# A heading that gives the settled version of what the two discussed: "## Final plan", "### Agreed approach",
# "## 最終 4 Pillar 定版" (final ... settled version)
_SETTLED = re.compile(r"\b(?:final|agreed|settled|finali[sz]ed)\b|最[终終]|定[版案稿]|共[识識]", re.I)
# The person's short reply that takes it: "ok", "sounds good, go ahead", "lgtm", "yes, start"
_TAKES = re.compile(
    r"^\W{0,3}(?:ok(?:ay)?|yes|yep|yeah|sure|sounds good|looks good|lgtm|go ahead|go for it|let'?s go|let'?s do it|"
    r"do it|ship it|start|agreed|perfect)\b",
    re.I,
)
TAKES_WORDS = 8  # a reply this short that says yes takes the settled version; a longer one says more of its own
SETTLED_ITEMS = 8  # rows or items of the settled version written at most
NAME_WORDS = 4  # a table's first cell this short is a name ("Ship", "Phase 2", "`config.toml`"), not a claim


def takes(reply: str) -> bool:
    """Whether a person's short reply says yes ("ok", "sounds good, go ahead", "好，开始"), with no question or
    negation."""
    reply = reply.strip()
    if not reply or size(reply) > TAKES_WORDS or reply.endswith(("?", "？")) or NEGATED.search(reply):
        return False
    return bool(_TAKES.match(reply) or chinese.assent(reply))


def settled(agent: Prose) -> tuple[str, bool] | None:
    """What the agent's turn gives as the settled version: the last heading that says so ("## Final plan") with
    what stands under it, a table's first cells ("Ship; Lift; Reach") or a list's first items, and whether it holds
    names only (a table's first cells of at most NAME_WORDS words each: named, as a chosen option is, even when a
    file the agent read names them too); None when no heading says so or nothing but prose follows it."""
    marks = agent.marks
    for n in range(len(marks) - 1, -1, -1):
        head = marks[n]
        if not head.heading or not _SETTLED.search(head.heading):
            continue
        table = next((m for m in marks[n + 1 :] if m.at == head.at and m.rows), None)
        if table is not None:
            parts = [straight(clean(r[0])) for r in table.rows[1 : SETTLED_ITEMS + 1] if r and r[0].strip()]
        else:
            parts = []
            for u, item in zip(agent.units[head.at :], agent.items[head.at :], strict=True):
                if not item or len(parts) >= SETTLED_ITEMS:
                    break
                parts.append(straight(clean(u)))
        if parts:
            named = table is not None and all(size(part) <= NAME_WORDS for part in parts)
            return f"{straight(clean(head.heading))}: {'; '.join(parts)}", named
        return None
    return None
