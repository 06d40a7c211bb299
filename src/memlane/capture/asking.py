"""What a sentence of the person asks of the agent now, rather than states: work to do, help, a want of the moment.

Such a sentence decides nothing ("Then go through our definitions", "I want to make sure the layout is
responsive", "I'm not sure if I should use ...", "I'm trying to clean the data, and I need to ..."):
:mod:`memlane.capture.person` gives it no "Decided" label, and work asked for now scores below a statement.
"""

from __future__ import annotations

import re

# A want ("I want the header 64px tall" decides); asking for help with it decides nothing (ASKS_HELP), nor does a
# wish ("I'd love pizza tonight", "I'd love some feedback": LOVES asks for help only)
WANTS = r"i want|i'd like|i would like|i need"
LOVES = r"i'd love|i would love"
# A request for work in the session: an imperative ("Then go through our PDL definitions", "okay now lets take a look
# at ...") that sets nothing (a setting or a rule is another class): the person's statement classes do not apply.
ASKS_WORK = re.compile(
    r"^\W{0,3}(?:(?:ok(?:ay)?|so|then|thern|also|and|now|next|first|lastly|finally|please|yes|yeah|great|cool|alright|"
    r"perfect|nice)[,!.]?\s+){0,4}(?:let'?s\s+|lets\s+)?(?:go through|go over|go ahead|look (?:at|into)|take a look|"
    r"review|check|ensure|add|create|write|update|implement|fix|build|run|test|read|find|show|give|tell|explain|help|"
    r"list|generate|extend|include|remove|delete|commit|push|install|try|start|continue|collect|document|refactor|"
    r"clean|scan|search|open|see|analy[sz]e|summari[sz]e|compare|research|figure out|get|execute|apply|carry out|"
    r"make (?:the|those|these|this|that) changes?)\b"
    r"(?!\s*:|\s+(?:that|of)\b)",  # "Update: my sister moved", "Also read that ...", "Review of": not asked for
    re.I,
)
# "However, I'm not sure how to configure it", "I don't know how to ...", "I'm wondering if ...": a doubt, no
# decision. Not "I'm having trouble with my Pi 4" (a setup), "I don't know anyone in Lisbon" or "Although I'm not
# sure, I host ..."
UNSURE = re.compile(
    r"^\W{0,3}(?:(?:but|however|so|and|still)[,]?\s+)*(?:i(?:'m| am)\s+(?:still\s+)?(?:not (?:sure|certain)|unsure)"
    r"(?!\s+yet\b)|i (?:don'?t|do not) (?:know|understand) (?:how|what|why|whether|if|where|which)|i(?:'m| am) "
    r"wondering|i wonder)\b",
    re.I,
)
# "I'm trying to clean the raw CSV data, and I need to remove duplicates": the work at hand, whose wants are its
# steps, not a decision (unless it says one was made: "decided", "agreed", "chose", "settled on", "go with")
AT_WORK = re.compile(
    r"^\W{0,3}(?:(?:but|so|and|now|right now|currently)[,]?\s+)?i(?:'m| am)\s+(?:currently\s+|still\s+)?(?:trying|"
    r"working|looking|hoping|planning|struggling)\s+(?:to|on)\b(?!.*\b(?:decided|agreed|chose|settled on|go(?:ing)? "
    r"with)\b)",
    re.I,
)
# "I'd like to know more", "I want to make sure it is responsive", "I'd love some feedback": help asked for now ("I
# need to make sure the backups run nightly" is a rule, not a request)
ASKS_HELP = re.compile(
    rf"\b(?:(?:{WANTS}|{LOVES})\s+to (?:know|learn|ask|understand|find out|explore|discuss|talk|hear|see|get "
    r"(?:some |more )?(?:help|advice|ideas|tips|suggestions|recommendations|feedback|information))|(?:i want|i'd like|"
    rf"i would like|{LOVES}) to (?:make sure|ensure|be sure|verify|confirm)|(?:{WANTS}|{LOVES})\s+(?:some |more |"
    r"your )?(?:help|advice|ideas|tips|suggestions|recommendations|feedback|information|info|details))\b",
    re.I,
)
# "Continue with Phase 4", "ok proceed": the session going on, nothing to ask for later ("continue using X" decides)
CARRY_ON = re.compile(
    r"^\W{0,3}(?:(?:ok(?:ay)?|yes|yeah|great|good|perfect|thanks|now)[,!.]?\s+)?(?:please\s+)?"
    r"(?:continue|proceed|resume|carry on|keep going|go on|move on)\b(?!\s+(?:to use|using)\b)",
    re.I,
)


def decides_nothing(sentence: str) -> bool:
    """Whether a sentence that reads as a want or decision asks for help, doubts or names a step of the work at hand
    (:data:`ASKS_HELP`, :data:`UNSURE`, :data:`AT_WORK`): kept, but no "Decided" line."""
    return bool(ASKS_HELP.search(sentence) or UNSURE.match(sentence) or AT_WORK.match(sentence))
