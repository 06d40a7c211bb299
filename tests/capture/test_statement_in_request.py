"""A statement the person makes inside a request is drafted, up to where the request starts (issues 43, 44):
"..., but I'm wondering if ...?", "..., can you help me ..." without a question mark, and a statement that ends in
a question tag ("..., you know?"). Hand-written turns."""

from __future__ import annotations

import datetime as dt

from memlane.capture.digest import draft_turns
from memlane.capture.turns import Turn

DAY = dt.date(2026, 6, 2)


def _texts(said: str) -> list[str]:
    return [d.draft.content for d in draft_turns([Turn("user", said, dt.datetime(2026, 6, 2, 9, 0))], DAY, ())]


def test_a_statement_before_i_am_wondering_if_is_drafted_without_the_question() -> None:
    (text,) = _texts("I switched the greenhouse heater to a 12 V panel in May, but I'm wondering if it is enough?")
    assert "12 V panel in May" in text and "wondering" not in text


def test_a_statement_before_a_request_with_no_question_mark_is_drafted_without_the_request() -> None:
    (text,) = _texts("I just installed Calibre on my laptop on June 1, can you help me import my old library")
    assert "installed Calibre on my laptop on June 1" in text and "help me" not in text


def test_a_statement_with_a_question_tag_states_something() -> None:
    (text,) = _texts("I turned down Viktor's offer to rent my garage on April 3, but it was the right call, you know?")
    assert "turned down Viktor's offer to rent my garage on April 3" in text and "you know" not in text


def test_a_question_stays_a_question() -> None:
    assert _texts("How do I keep the greenhouse above 10 degrees at night, right?") == []
    assert _texts("Can you help me import my old library into Calibre, you know?") == []
    # ", right?" asks to be told whether it is so: not the person's statement
    assert _texts("The greenhouse heater runs on a 12 V panel since May, right?") == []


def test_a_request_the_person_reports_is_part_of_their_statement() -> None:
    (text,) = _texts("My landlord asked me, can you move your bike out of the hallway by June 1, and I said yes")
    assert "move your bike out of the hallway by June 1" in text
