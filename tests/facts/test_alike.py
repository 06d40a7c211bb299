"""Two facts answering one question alike: the later first, for a question asking for a value now, unmarked."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder
from memlane.facts import alike, reading
from memlane.facts.retain import normalize_name


def said(seq: int, content: str, day: str = "2026-03-03", at: str = "09:00") -> reading.Said:
    user = [(normalize_name("User"), "User")]
    found = reading.read(seq, f"{content} (User, {at})", day, f"memory/{day}.md", seq, user)
    assert found is not None
    return found


@pytest.mark.parametrize(
    ("query", "now"),
    [
        ("When is my safety inspection for the apartment?", True),
        ("How many people are on my team?", True),
        ("What budget am I working with for the laptop?", True),
        ("When did I schedule the safety inspection?", False),  # an event, in the past tense
        ("What was my budget for the laptop?", False),
        ("What was my best time at first?", False),  # a word of the past
        ("Have I ever used Bootstrap components?", False),  # yes or no: no value asked for
        ("How old is my daughter now?", True),  # an age, not an old value
        ("What do I need to pack before my flight?", True),  # a time ahead, not an earlier value
    ],
)
def test_a_question_asks_for_a_value_now_only_in_the_present_tense_with_a_wh_word(query: str, now: bool) -> None:
    assert alike.present(query) is now


def test_two_facts_answer_alike_when_the_later_holds_every_word_of_the_question_the_earlier_does() -> None:
    asked = reading.question("When is my safety inspection for the apartment?")
    early = said(1, "I scheduled a safety inspection for the apartment on March 23")
    late = said(2, "the safety inspection for the apartment is on March 25 now", "2026-03-05")
    assert alike.answer_alike(early, late, asked)
    # another inspection: the later holds no "safety", so it is no answer alike, whatever else it shares
    home = said(3, "I scheduled a home inspection for the apartment on October 10", "2026-03-06")
    assert not alike.answer_alike(early, home, asked)
    # the same value twice is a restatement; one word of the question in common is not enough
    again = said(4, "the safety inspection for the apartment is on March 23", "2026-03-07")
    assert not alike.answer_alike(early, again, asked)
    thin = said(5, "the apartment costs $2,400 a month", "2026-03-08")
    assert not alike.answer_alike(said(6, "the apartment costs $2,300 a month"), thin, asked)


def test_the_later_of_two_alike_comes_right_before_the_earlier_and_the_rest_keep_their_order() -> None:
    asked = reading.question("What budget am I working with for the laptop?")
    early = said(1, "my budget for the laptop is $1,300")
    other = said(2, "I like the ThinkPad keyboard", "2026-03-04")
    late = said(3, "my budget for the laptop is $1,200 after the refund", "2026-03-09")
    assert alike.reorder([[early], [other], [late]], asked) == [2, 0, 1]
    assert alike.reorder([[late], [other], [early]], asked) == [0, 1, 2]  # already later first
    # a chain of three: each later one before the one it answers alike with, the latest first
    mid = said(4, "my budget for the laptop is $1,250", "2026-03-06")
    assert alike.reorder([[early], [mid], [other], [late]], asked) == [3, 1, 0, 2]
    # items without facts (a passage of another agent, a fact a supersession placed) are left where they are
    assert alike.reorder([[early], [], [late]], asked) == [2, 0, 1]
    # only the best SPAN are looked at
    filler = [[said(10 + i, f"note number {i}", "2026-03-04")] for i in range(alike.SPAN)]
    assert alike.reorder([[early], *filler, [late]], asked) == list(range(alike.SPAN + 2))


def _log(ws: Path, day: str, bullets: list[str]) -> None:
    path = ws / "memory" / f"{day}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# {day}\n\n## Retain\n" + "".join(f"- {b}\n" for b in bullets), encoding="utf-8")


def test_recall_and_search_show_the_later_of_two_answers_first_and_mark_neither(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    # the earlier says more of the question's words twice over; no word says the value changed
    _log(
        ws,
        "2026-03-03",
        [
            "W @User: the safety inspection of the apartment, my apartment safety inspection, is on March 23"
            " (User, 10:34)"
        ],
    )
    _log(ws, "2026-03-05", ["W @User: the safety inspection for the apartment is on March 25 (User, 10:46)"])
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        now = dt.datetime(2026, 3, 10, 12, 0)
        facts = mem.recall("When is the safety inspection for the apartment?", k=5, now=now).facts
        assert [f.day for f in facts] == ["2026-03-05", "2026-03-03"]
        assert all(f.superseded_by is None for f in facts)  # an order, not a claim that one no longer holds
        past = mem.recall("When was the safety inspection for the apartment?", k=5, now=now).facts
        assert [f.day for f in past] == ["2026-03-03", "2026-03-05"]  # ranked as found
        hits = mem.search("When is the safety inspection for the apartment?", now=now, min_score=0).results
        assert [h.path for h in hits][:2] == ["memory/2026-03-05.md", "memory/2026-03-03.md"]
        was = mem.search("When was the safety inspection for the apartment?", now=now, min_score=0).results
        assert [h.path for h in was][:2] == ["memory/2026-03-03.md", "memory/2026-03-05.md"]


def test_search_cuts_a_passage_holding_two_answers_alike_the_later_part_first(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _log(  # two days named and no word of a move: no supersession, but two answers to "when is ...?"
        ws,
        "2026-03-03",
        [
            "W @User: I signed up for a pottery class (User, 08:00)",
            "W @User: the safety inspection of the apartment is on March 23 (User, 08:10)",
            "W @User: I like the new rug (User, 08:20)",
            "W @User: the safety inspection of the apartment is on March 25 (User, 19:45)",
        ],
    )
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        now = dt.datetime(2026, 3, 10, 12, 0)
        hits = mem.search("When is the safety inspection of the apartment?", now=now, min_score=0).results
        assert len(hits) == 2 and "March 25" in hits[0].snippet and "March 25" not in hits[1].snippet
        assert "March 23" in hits[1].snippet
        whole = mem.search("When was the safety inspection of the apartment?", now=now, min_score=0).results
        assert len(whole) == 1  # a question in the past tense: the passage is left whole


def test_a_question_about_a_value_before_gets_the_earlier_of_two_answers_first(tmp_path: Path) -> None:
    assert alike.past_first("What was my previous status before I got the current one?") is True
    assert alike.past_first("What is my status?") is False
    assert alike.past_first("When did I get my status?") is None  # an event: ranked as found
    asked = reading.question("What was my previous budget for the laptop?")
    early = said(1, "my budget for the laptop is $1,300")
    late = said(3, "my budget for the laptop is $1,200 after the refund", "2026-03-09")
    assert alike.reorder([[late], [early]], asked, past=True) == [1, 0]
    assert alike.reorder([[late], [early]], asked) == [0, 1]
    ws = tmp_path / "ws"
    _log(ws, "2026-03-03", ["W @User: the frequent flyer status on my airline is Silver (User, 10:34)"])
    _log(  # the later says more of the question's words, twice over
        ws,
        "2026-03-05",
        ["W @User: my frequent flyer status on my airline, the airline frequent flyer status, is Gold (User, 10:46)"],
    )
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        now = dt.datetime(2026, 3, 10, 12, 0)
        question = "What was my previous frequent flyer status on my airline?"
        assert [f.day for f in mem.recall(question, k=5, now=now).facts] == ["2026-03-03", "2026-03-05"]
        hits = mem.search(question, now=now, min_score=0).results
        assert [h.path for h in hits][:2] == ["memory/2026-03-03.md", "memory/2026-03-05.md"]
