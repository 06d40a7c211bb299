"""What a sentence of the person asks of the agent now, rather than states: work to do, help, a want of the moment.

Such a sentence sets nothing a person would ask memory for later ("Then go through our definitions", "I want to
make sure the layout is responsive", "I'm not sure how to configure it"); :mod:`memlane.capture.person` scores it
below the person's statements, so that within a session's budget the statements come first.
"""

from __future__ import annotations

import re

# A want ("I want the header 64px tall" decides); asking for help with it decides nothing (ASKS_HELP)
WANTS = r"i want|i'd like|i would like|i'd love|i would love|i need"
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
# "However, I'm not sure how to configure it", "I'm having trouble getting the navbar to collapse": a request for
# help, not a fact of the person (a long chat's many such sentences took the budget from what was stated)
UNSURE = re.compile(
    r"^\W{0,3}(?:(?:but|however|so|and|although|though|still)[,]?\s+)*(?:i(?:'m| am)\s+(?:still\s+)?(?:not "
    r"(?:sure|certain|clear)|unsure|confused|struggling|having (?:some )?(?:a hard time|trouble|issues|problems|"
    r"difficulty))|i (?:don'?t|do not) (?:know|understand)|i(?:'m| am) wondering|i wonder)\b",
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
# "I'd like to know more", "I want to make sure it is responsive", "I'd love some feedback": help asked for now
ASKS_HELP = re.compile(
    rf"\b(?:{WANTS})\s+(?:to (?:know|learn|ask|understand|find out|explore|discuss|talk|make sure|ensure|be sure|"
    r"verify|confirm|hear|see|get (?:some |more )?(?:help|advice|ideas|tips|suggestions|recommendations|feedback|"
    r"information))\b|(?:some |more |your )?(?:help|advice|ideas|tips|suggestions|recommendations|feedback|"
    r"information|info|details)\b)",
    re.I,
)
# "Continue with Phase 4", "ok proceed": the session going on, nothing to ask for later ("continue using X" decides)
CARRY_ON = re.compile(
    r"^\W{0,3}(?:(?:ok(?:ay)?|yes|yeah|great|good|perfect|thanks|now)[,!.]?\s+)?(?:please\s+)?"
    r"(?:continue|proceed|resume|carry on|keep going|go on|move on)\b(?!\s+(?:to use|using)\b)",
    re.I,
)
