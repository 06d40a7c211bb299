"""What is true now: facts about the same thing, the latest first (memlane.facts.supersede, issue 44)."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memlane
from conftest import FakeEmbedder
from memlane.facts import alike, passages, reading, supersede
from memlane.facts.retain import normalize_name
from memlane.store import StoredFact


def said(seq: int, content: str, day: str = "2026-03-03", at: str = "09:00", who: str = "User") -> reading.Said:
    text = f"{content} ({who}, {at})"
    found = reading.read(seq, text, day, f"memory/{day}.md", seq, [(normalize_name(who), who)])
    assert found is not None
    return found


@pytest.mark.parametrize(
    "query",
    [
        "What was my best 10K time before I joined the club?",
        "How many people were on my team initially?",
        "What did I use when I started?",
        "What was my previous employer?",
        "How much did I save in the first three months?",
        "What phone did I use at first?",
        "Which editor did I use to begin with?",
    ],
)
def test_a_question_about_an_earlier_value_asks_for_the_past(query: str) -> None:
    assert alike.asks_for_past(query)


@pytest.mark.parametrize(
    "query",
    [
        "What is my best 10K time now?",
        "How many people are on my team?",
        "What is my current daily call quota?",
        "Have I used Bootstrap components in my project before?",  # "ever", not an earlier value
        "Which watch do I still use?",
        "What is the latest version I deployed?",
    ],
)
def test_a_question_in_the_present_or_about_ever_asks_for_the_present(query: str) -> None:
    assert not alike.asks_for_past(query)


def test_amounts_keep_what_they_count() -> None:
    # what a number counts is the words after it, up to a stopword; the words before it only when none follows
    assert reading.amounts_of("now I have a total of 10 cards") == {("10", "card")}
    assert reading.amounts_of("I now lead six people") == {("six", "people")}
    assert reading.amounts_of("a quota of 1,200 calls per day and 78%") == {("1200", "call"), ("78", "%")}
    assert reading.amounts_of("my team of 4") == {("4", "team")}  # the word before: "of" counts nothing
    assert reading.amounts_of("I solved 12 conditional probability problems") == {
        ("12", "condit"),
        ("12", "probab"),
        ("12", "proble"),
    }
    assert reading.amounts_of("a $500 monthly joint budget for groceries") == {("500", "$:joint"), ("500", "$:budget")}
    assert reading.amounts_of("$550 monthly starting in May, 6 hours total, 14 hours across June") == {
        ("6", "hour"),
        ("14", "hour"),
    }  # how often ("monthly") and where a phrase ends ("total", "across") count nothing
    assert reading.amounts_of("I finished my 5th project") == {("5", "projec")}  # an ordinal's suffix is no unit


def test_two_statements_of_one_attribute_with_other_values_are_the_same_thing() -> None:
    old = said(1, "My team at work has 4 engineers", at="09:00")
    new = said(2, "My team at work now has 6 engineers", at="15:30")
    assert supersede.same_thing(old, new)
    found = supersede.supersessions([old, new])
    assert found[1].by == 2 and found[1].day == "2026-03-03" and 2 not in found


def test_a_restatement_or_another_subject_is_not_a_supersession() -> None:
    a = said(1, "My team at work has 4 engineers")
    assert not supersede.same_thing(a, said(2, "My team at work has 4 engineers", at="10:00"))  # same values
    other = reading.read(
        3, "@Dana: Dana's team at work has 6 engineers (User, 10:00)", "2026-03-03", "m.md", 3, [("dana", "Dana")]
    )
    assert other is not None and not supersede.same_thing(a, other)
    unrelated = said(4, "I bought 6 apples at the market", at="11:00")
    assert not supersede.same_thing(a, unrelated)
    # two events on other days are not one count updated: two words alike, no word of change
    talk = said(5, "@Ana: Ana talked about sourdough on day 5", who="Ana")
    assert not supersede.same_thing(talk, said(6, "@Ana: Ana talked about violin on day 8", at="10:00", who="Ana"))
    # a later fact that only adds a value (a name) to the earlier one's replaced none: both stand
    call = said(7, "Hey Tomas, Pia needs to talk to you about the move now", who="Pia", at="09:00")
    later = said(8, "Just so you know, Pia is here if you need to talk about the move", who="Pia", day="2026-05-01")
    assert not supersede.same_thing(call, later)
    # ... while a count of one thing told apart is a value replaced even when the old number is said again
    # ... nor a value the later fact names as the one replaced ("from Fira Code")
    font = said(11, "My editor font is Fira Code at size 13")
    switched = said(12, "I switched my editor font from Fira Code to JetBrains Mono at size 13", day="2026-04-01")
    assert supersede.same_thing(font, switched)
    kneading = said(9, "I knead the bread dough for 8 minutes now")
    longer = said(10, "I knead the bread dough for 12 minutes now, up from 8 minutes", day="2026-04-01")
    assert supersede.same_thing(kneading, longer)


def test_facts_answering_one_question_with_other_amounts_are_the_same_thing_for_it() -> None:
    old = said(1, "I am building the project gallery with 8 cards using Bootstrap", at="09:00")
    new = said(2, "I added two projects, so the gallery now holds 10 cards", at="09:40")
    question = reading.question("How many cards are in my project gallery?")
    assert not supersede.same_thing(old, new)  # their words alone differ too much ...
    assert supersede.same_thing(old, new, asked=question)  # ... but both answer this question, with other counts
    elsewhere = said(3, "My gallery page loads in 250 ms", at="10:00")
    assert not supersede.same_thing(old, elsewhere, asked=question)  # another amount of another thing


def test_a_chain_of_likenesses_is_not_a_group() -> None:
    a = said(1, "the staging server runs 4 workers and 2 queues", at="09:00")
    b = said(2, "the staging server runs 8 workers and 2 queues", at="10:00")
    c = said(3, "the staging server runs 8 workers and 5 queues", at="11:00")
    found = supersede.supersessions([a, b, c])
    assert found[1].by == 3 and found[2].by == 3  # each by the latest that says the same of it


def test_order_puts_the_current_value_where_its_group_first_stood() -> None:
    a = said(1, "my best 10K time is 52 minutes", day="2026-03-03")
    b = said(2, "my best 10K time is 49 minutes now", day="2026-03-09")
    x = said(3, "I like trail running", day="2026-03-05")
    found = supersede.supersessions([a, b, x])
    when = {s.seq: s.when for s in (a, b, x)}
    assert supersede.order([1, 3, 2], found, when, past=False) == [2, 1, 3]
    assert supersede.order([1, 3, 2], found, when, past=True) == [1, 2, 3]
    assert supersede.order([1, 3, 2], found, when, past=True, until=dt.date(2026, 3, 4)) == [1, 2, 3]
    assert supersede.order([3, 1, 2], found, when, past=True, until=dt.date(2026, 3, 10)) == [3, 2, 1]


def _log(ws: Path, day: str, bullets: list[str]) -> None:
    path = ws / "memory" / f"{day}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"# {day}\n\n## Retain\n" + "".join(f"- {b}\n" for b in bullets), encoding="utf-8")


def test_recall_answers_the_present_with_the_latest_value_and_marks_the_earlier(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _log(ws, "2026-03-03", ["W @User: my best 10K time so far is 52 minutes (User, 08:10)"])
    _log(ws, "2026-03-09", ["W @User: my best 10K time is now 49 minutes (User, 19:45)"])
    _log(ws, "2026-03-20", ["W @User: my best 10K time is 47 minutes (User, 07:00)"])  # after the question
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        now = dt.datetime(2026, 3, 15, 12, 0)
        facts = mem.recall("what is my best 10K time now?", k=5, now=now).facts
        assert [f.day for f in facts] == ["2026-03-09", "2026-03-03"]  # the 20th had not been said yet
        assert facts[1].superseded_by is not None and "49 minutes" in facts[1].superseded_by["content"]
        assert facts[1].valid_to == "2026-03-09" and facts[0].superseded_by is None
        first = mem.recall("what was my best 10K time at first?", k=5, now=now).facts
        assert [f.day for f in first] == ["2026-03-03", "2026-03-09"] and first[0].superseded_by is None
        # a question that names the value it wants is answered by that fact, not moved aside
        named = mem.recall("did I run a 10K in 52 minutes?", k=5, now=now).facts
        assert named[0].day == "2026-03-03" and named[0].superseded_by is None


def test_a_fact_said_later_the_same_day_is_not_an_answer_yet(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _log(
        ws,
        "2026-03-09",
        ["W @User: my team has 4 engineers (User, 09:00)", "W @User: my team has 6 engineers now (User, 18:00)"],
    )
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        noon = mem.recall("how many engineers are on my team?", k=5, now=dt.datetime(2026, 3, 9, 12, 0)).facts
        assert [f.content.split("(")[0].strip() for f in noon] == ["my team has 4 engineers"]
        evening = mem.recall("how many engineers are on my team?", k=5, now=dt.datetime(2026, 3, 9, 20, 0)).facts
        assert "6 engineers" in evening[0].content and "4 engineers" in evening[1].content


def test_context_shows_the_current_value_and_an_earlier_one_only_as_past(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _log(ws, "2026-03-03", ["W @User: my best 10K time so far is 52 minutes (User, 08:10)"])
    _log(ws, "2026-03-09", ["W @User: my best 10K time is now 49 minutes (User, 19:45)"])
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        text = mem.context(query="what is my best 10K time?", now=dt.datetime(2026, 3, 15, 12, 0)).render()
    lines = [ln for ln in text.splitlines() if "10K" in ln and ln.startswith("- ")]
    assert lines[0].startswith("- my best 10K time is now 49 minutes (User, 19:45) (the person said · 2026-03-09")
    stale = [ln for ln in lines if "52 minutes" in ln]
    assert stale and all(
        ln.startswith("- was: my best 10K time so far is 52 minutes (User, 08:10) (until 2026-03-09 · ") for ln in stale
    )


def test_search_shows_a_passage_of_superseded_facts_after_the_current_one(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _log(ws, "2026-03-03", ["W @User: my best 10K time so far is 52 minutes, my best 10K time (User, 08:10)"])
    _log(ws, "2026-03-09", ["W @User: my best 10K time is now 49 minutes (User, 19:45)"])
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        now = dt.datetime(2026, 3, 15, 12, 0)
        present = mem.search("what is my best 10K time?", now=now, min_score=0).results
        assert [r.path for r in present][:2] == ["memory/2026-03-09.md", "memory/2026-03-03.md"]
        past = mem.search("what was my best 10K time at first?", now=now, min_score=0).results
        assert past[0].path == "memory/2026-03-03.md"  # the words rank it first, and the past leaves it there


def test_search_cuts_the_superseded_lines_of_a_passage_and_shows_them_after_the_current_ones(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _log(
        ws,
        "2026-03-09",
        [
            "W @User: I signed up for the spring half marathon (User, 08:00)",
            "W @User: my best 10K time so far is 52 minutes (User, 08:10)",
            "W @User: I like trail running in the hills (User, 08:20)",
            "W @User: my best 10K time is now 49 minutes (User, 19:45)",
        ],
    )
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        now = dt.datetime(2026, 3, 15, 12, 0)
        present = mem.search("what is my best 10K time?", now=now, min_score=0).results
        spans = [(r.start_line, r.end_line) for r in present]
        old = next(i for i, r in enumerate(present) if "52 minutes" in r.snippet)
        new = next(i for i, r in enumerate(present) if "49 minutes" in r.snippet)
        assert new == 0 and old > new and "49 minutes" not in present[old].snippet, spans
        assert old == new + 1  # cut in two, the part with the later value first and the earlier right after it
        # each line once, none lost: the two parts cover the passage the search found
        lines = sorted(n for r in present for n in range(r.start_line, r.end_line + 1))
        assert len(lines) == len(set(lines)) and set(lines) >= {4, 5, 6, 7}
        past = mem.search("what was my best 10K time at first?", now=now, min_score=0).results
        assert len(past) == 1 and "52 minutes" in past[0].snippet and "49 minutes" in past[0].snippet


def test_timeline_shows_which_fact_was_superseded_by_which(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _log(ws, "2026-03-03", ["W @Dana: Dana's team has 4 engineers (User, 08:10)"])
    _log(ws, "2026-03-09", ["W @Dana: Dana's team now has 6 engineers (User, 19:45)"])
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        updates = mem.timeline("Dana", fresh=True)["updates"]
    assert [(u["source"], u["until"], u["superseded_by"]["source"]) for u in updates] == [
        ("memory/2026-03-03.md#L4", "2026-03-09", "memory/2026-03-09.md#L4")
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "memlane", "--workspace", str(ws), "timeline", "Dana"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "was: Dana's team has 4 engineers" in proc.stdout and "superseded by: Dana's team now has 6" in proc.stdout


def test_search_leaves_out_the_logs_of_days_after_now(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _log(ws, "2026-03-03", ["W @User: my best 10K time so far is 52 minutes (User, 08:10)"])
    _log(ws, "2026-03-20", ["W @User: my best 10K time is 47 minutes (User, 07:00)"])
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        before = mem.search("best 10K time", now=dt.datetime(2026, 3, 15, 12, 0), min_score=0).results
        after = mem.search("best 10K time", now=dt.datetime(2026, 3, 25, 12, 0), min_score=0).results
    assert [r.path for r in before] == ["memory/2026-03-03.md"]
    assert {r.path for r in after} == {"memory/2026-03-03.md", "memory/2026-03-20.md"}


def test_search_leaves_out_later_days_before_it_cuts_to_n(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for day in ("2026-03-01", "2026-03-02", "2026-03-03"):
        _log(ws, day, [f"W @User: my 10K pace on {day} (User, 08:10)"])
    for day in ("2026-04-01", "2026-04-02", "2026-04-03", "2026-04-04"):  # later, and a better match
        _log(ws, day, ["W @User: my best 10K time, my best 10K time, best 10K time again (User, 08:10)"])
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        found = mem.search("best 10K time", max_results=3, now=dt.datetime(2026, 3, 15, 12, 0), min_score=0).results
    assert sorted(r.path for r in found) == [f"memory/2026-03-0{d}.md" for d in (1, 2, 3)]


def test_a_version_counts_nothing_and_a_question_naming_one_still_gets_the_latest_count(tmp_path: Path) -> None:
    assert reading.amounts_of("the gallery with 8 cards using Bootstrap 5.3.0 card-deck") == {("8", "card")}
    asked = reading.question("What was fact number 17?")
    assert supersede.named_apart(said(1, "fact number 12 is the moon"), said(2, "fact number 17 is the sun"), asked)
    ws = tmp_path / "ws"
    _log(
        ws,
        "2026-03-03",
        [
            "W @User: I'm building the project gallery with 8 cards using Bootstrap 5.3.0 card-deck (User, 09:02)",
            "W @User: I've added two new projects, so now I have a total of 10 cards in the gallery (User, 09:58)",
        ],
    )
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        q = "How many project cards are included in my gallery using Bootstrap 5.3.0?"
        facts = mem.recall(q, k=5, now=dt.datetime(2026, 3, 15, 12, 0)).facts
    assert "10 cards" in facts[0].content and facts[1].superseded_by is not None


def test_a_choice_switched_is_the_same_thing_whether_or_not_its_name_is_capitalised() -> None:
    assert supersede.same_thing(
        said(1, "I use victor mono", day="2026-03-01"), said(2, "switched to hack", day="2026-03-05")
    )
    font = said(1, "I use victor mono as my editor font", day="2026-03-01")
    assert supersede.same_thing(font, said(2, "I switched my editor font to hack", day="2026-03-05"))
    vim = said(1, "I use vim for editing", day="2026-03-01")
    assert supersede.same_thing(vim, said(2, "I switched to neovim for editing", day="2026-03-05"))
    # two tools for two things are both true
    slack = said(1, "I use slack for team chat", day="2026-03-01")
    assert not supersede.same_thing(slack, said(2, "I now use notion for notes", day="2026-03-05"))
    # without a word of change, a second tool is another tool
    assert not supersede.same_thing(said(1, "I use vim"), said(2, "I use emacs", day="2026-03-05"))


def test_a_choice_switched_comes_first_in_recall(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _log(ws, "2026-03-01", ["W @User: I use victor mono as my editor font (User, 08:10)"])
    _log(ws, "2026-03-05", ["W @User: I switched my editor font to hack (User, 19:45)"])
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        facts = mem.recall("which editor font do I use?", k=5, now=dt.datetime(2026, 3, 15, 12, 0)).facts
    assert "hack" in facts[0].content and facts[1].superseded_by is not None


def test_what_two_amounts_count_anchors_them_to_the_question() -> None:
    old = said(1, "I'm building the project gallery with 8 cards and modal popups, all displayed correctly", at="09:02")
    new = said(2, "I've added two new projects, so now I have a total of 10 cards displayed correctly", at="09:58")
    asked = reading.question("How many project cards are in my gallery?")
    assert supersede.same_thing(old, new, asked=asked)  # "project" and what both count, "cards"
    # answering one question is not enough: the two must be somewhat alike in their own words too
    area = said(
        2,
        "I'm trying to see how my area calculation skills improved: I've completed 12 problems and my accuracy "
        "has gone from 70% to 90%, and I've also applied the median length formula to a triangle with given sides",
        at="09:00",
    )
    other = said(3, "I've completed 25 congruence and similarity problems with an accuracy exceeding 90%", at="10:04")
    counted = reading.question("How many classification problems have I completed, with what accuracy?")
    assert not supersede.same_thing(area, other, asked=counted)
    assert said(5, "my coins").frame == said(6, "my coin").frame  # a plural's s is no other word


def _stored(seq: int, content: str, day: str, at: str) -> StoredFact:
    path = f"memory/{day}.md"
    return StoredFact(seq, str(seq), path, seq, seq, "world", f"{content} (User, {at})", day, None, None, None, (), ())


def test_search_brings_the_passage_with_the_current_value_before_the_one_it_superseded() -> None:
    old = _stored(1, "my best 10K time so far is 52 minutes", "2026-03-03", "08:10")
    trail = _stored(2, "I like trail running in the hills", "2026-03-03", "08:12")  # still true
    other = _stored(3, "I bought new running shoes", "2026-03-05", "09:00")
    new = _stored(4, "my best 10K time is now 49 minutes", "2026-03-09", "19:45")
    found = [[old, trail], [other], [new]]
    assert passages.passage_order(found, "what is my best 10K time?") == [2, 0, 1]
    assert passages.passage_order(found, "what was my best 10K time at first?") == [0, 1, 2]
    # for the past, the earlier value comes before what superseded it; nothing is moved to the end
    assert passages.passage_order([[new], [other], [old]], "what was my best 10K time at first?") == [2, 0, 1]
    assert passages.passage_order([[new], [other], [old, trail]], "what is my best 10K time?") == [0, 1, 2]
    # a passage whose facts were all superseded comes after the rest, what superseded it where it stood
    assert passages.passage_order([[old], [other], [new]], "what is my best 10K time?") == [2, 1, 0]


def test_the_part_of_a_cut_passage_with_the_later_value_shows_it_in_its_snippet(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    walks = [
        f"W @User: I walked the dog number {i} around the lake with Rosa before lunch, a long walk (User, 09:{i:02d})"
        for i in range(8)
    ]
    _log(
        ws,
        "2026-03-09",
        [
            "W @User: my best 10K time so far is 52 minutes (User, 08:10)",
            *walks,
            "W @User: my best 10K time is now 49 minutes (User, 19:45)",
        ],
    )
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        present = mem.search("what is my best 10K time?", now=dt.datetime(2026, 3, 15, 12, 0), min_score=0).results
    assert "49 minutes" in present[0].snippet, [(r.start_line, r.end_line, r.snippet[:80]) for r in present]


def test_a_passage_is_cut_between_a_fact_and_what_superseded_it_the_later_part_first() -> None:
    old = _stored(5, "my best 10K time so far is 52 minutes", "2026-03-03", "08:10")
    new = _stored(8, "my best 10K time is now 49 minutes", "2026-03-03", "19:45")
    other = _stored(6, "I like trail running in the hills", "2026-03-03", "09:00")
    found = {5: supersede.Supersession(5, 8, "2026-03-03", ("2026-03-03", 0, "08:10", 0))}
    assert passages.split(3, 10, [old, other, new], found) == [(6, 10), (3, 5)]
    assert passages.split(3, 10, [new, other, old], {8: supersede.Supersession(8, 5, "", ("", 0, "", 0))}) == [
        (3, 5),
        (6, 10),
    ]  # the later value above the earlier one (a log not in time order): cut below it
    assert passages.split(3, 10, [old, other], found) == [(3, 10)]  # what superseded it is elsewhere: whole
    assert passages.split(3, 10, [other, new], {}) == [(3, 10)]


def test_a_word_that_only_begins_alike_or_a_date_does_not_anchor_two_counts_to_the_question() -> None:
    draft = said(1, "my final essay draft reached 4,700 words by May 13", day="2026-05-13")
    goal = said(2, "my daily word count goal of 1,500 words, with the article finalization by May 10", day="2026-05-15")
    asked = reading.question("How many words does my final essay draft contain?")
    assert not supersede.same_thing(draft, goal, asked=asked)  # "final" is not "finalization"
    assert reading.amounts_of("by May 13, then 13 June") == set()


def test_capture_framing_and_its_dates_are_not_words_or_values_of_the_fact() -> None:
    old = said(1, "User said: I've managed to spot 27 different species in my local park so far", day="2023-05-24")
    new = said(
        2,
        "User said: I just saw a flicker in my local park last weekend (2023-05-27..2023-05-28), which brings my total "
        "species count to 32",
        day="2023-05-29",
    )
    assert "said" not in old.frame and not {"27", "28", "2023"} & new.values  # "27 species" is no date's 27
    assert ("32", "specie") in new.amounts  # the word two before counts too: "species count to 32"
    asked = reading.question("How many different species of birds have I seen in my local park?")
    assert supersede.same_thing(old, new, asked=asked)


def test_dates_clock_times_names_and_formula_terms_count_nothing() -> None:
    assert reading.amounts_of("the June 5 deadline, then 13 June") == set()
    assert reading.amounts_of("uploaded at 9:30 PM") == set()
    assert reading.amounts_of("I'm working on Sprint 3") == set()
    assert reading.amounts_of("the line y = 2x + 3") == set()
    assert reading.amounts_of("around 250ms, a 10k run") == {("250", "ms"), ("10", "k")}


def test_two_counts_answer_a_question_alike_only_when_they_count_what_it_asks_about() -> None:
    asked = reading.question("How many times have I worn my new black sneakers?")
    worn = said(1, "I've worn my new black sneakers four times already", at="09:00")
    gym = said(2, "I can commit to 3 times a week at my new gym", at="10:00")
    assert not supersede.same_thing(worn, gym, asked=asked)  # "times" and "new" only: a count of something else
    again = said(3, "I wore my black sneakers to run errands, so that's six times now", at="11:00")
    assert supersede.same_thing(worn, again, asked=asked)
    hours = reading.question("How many hours did I spend practicing cake decorating?")
    video = said(4, "I extended my daily video editing practice to 2.5 hours", day="2026-03-03")
    cake = said(5, "I've been practicing cake decorating for 14 hours", day="2026-03-28")
    assert not supersede.same_thing(video, cake, asked=hours)  # one word of the question besides the unit
    deadline = reading.question("When is the deadline for submitting my application?")
    early = said(6, "I submitted my essay 5 days before the deadline", at="09:00")
    grant = said(7, "I sent my grant application 11 days before the deadline", at="10:00")
    assert not supersede.same_thing(early, grant, asked=deadline)  # days are not what it asks about
    speed = reading.question("What is the average response time of the dashboard API?")
    old = said(8, "The average response time of the dashboard API is around 250ms", at="09:00")
    new = said(9, "the dashboard API response time is around 220ms after caching", at="10:00")
    assert supersede.same_thing(old, new, asked=speed)  # a measure the question need not name


def test_fractions_months_and_a_recent_purchase_join_nothing() -> None:
    assert reading.amounts_of("heads twice is 1/4, at least one head is 3/4") == {("one", "head")}
    hours = reading.question("How many hours did I spend practicing cake decorating in April?")
    work = said(1, "I cut my work hours to 45 by April 1 and feel drained", day="2026-04-10")
    video = said(2, "I extended my video editing practice to 2.5 hours on April 12", day="2026-04-12")
    assert not supersede.same_thing(work, video, asked=hours)  # "April" is when, not what
    blouse = said(3, "I recently bought a Prada blouse from them and want to earn reward points", at="18:52")
    glasses = said(4, "I recently bought Gucci sunglasses and want to earn reward points", at="18:54")
    assert not supersede.same_thing(blouse, glasses)  # two purchases, both true: "recently" says when, not a change


def test_facts_need_words_in_common_whatever_their_vectors() -> None:
    a = said(1, "I ran 5 km at the lake on Sunday", day="2026-03-01")
    b = said(2, "I now swim 2 km at the lake", day="2026-03-05")
    assert not supersede.same_thing(a, b)  # "lake" alone is not the same thing
    # three words in common among many others are not enough either, however alike the vectors
    area = said(
        1,
        "I've now completed 12 geometry problems on area while trying Heron's formula on triangles with known sides, "
        "comparing base height methods for efficiency in my evening homework sessions at the library",
    )
    cong = said(2, "I've now completed 25 geometry problems on congruence and similarity with accuracy", at="10:00")
    assert not supersede.same_thing(area, cong)
    assert supersede.same_thing(said(3, "my geometry problems: 12 done"), said(4, "my geometry problems: 25 done now"))


@given(st.text(max_size=300))
@settings(max_examples=100, deadline=None)
def test_any_text_reads_without_error(text: str) -> None:
    found = reading.read(1, f"{text} (User, 09:00)", "2026-03-03", "memory/2026-03-03.md", 1, [("user", "User")])
    assert found is not None and all(n and u for n, u in found.amounts)
    supersede.same_thing(found, found, asked=reading.question(text))


def test_what_someone_aims_at_is_another_thing_than_what_is() -> None:
    assert reading.amounts_of("keep the response time under 300ms") == {("300", "goal:ms")}
    assert reading.amounts_of("aiming for 10 books by March 1") == {("10", "goal:book")}
    speed = reading.question("What is the average response time of the dashboard API?")
    aim = said(1, "I want the dashboard API response time to stay under 300ms", at="09:00")
    now = said(2, "the dashboard API average response time is around 220ms", at="10:00")
    assert not supersede.same_thing(aim, now, asked=speed)
    books = reading.question("How many books am I aiming to read in my winter reading challenge?")
    goal = said(3, "I joined a winter reading challenge aiming for 10 books", at="09:00")
    more = said(4, "I've extended my winter reading challenge goal to 12 books", at="10:00")
    done = said(5, "I just finished 11 books of my winter reading challenge", at="11:00")
    assert supersede.same_thing(goal, more, asked=books) and not supersede.same_thing(more, done, asked=books)


def test_how_long_asks_for_a_duration() -> None:
    asked = reading.question("How long do I spend on my daily vocal warm-ups?")
    old = said(1, "I'm curious how my daily vocal warm-ups with the app for 15 minutes each morning affect my acting")
    new = said(2, "I've stretched my daily vocal warm-ups to 20 minutes, hoping for a clearer voice", at="10:28")
    assert supersede.same_thing(old, new, asked=asked)
    what = reading.question("What do I do in my daily vocal warm-ups?")
    assert not supersede.same_thing(old, new, asked=what)  # minutes are not what this one asks about


def test_no_fact_is_shown_above_a_later_fact_about_the_same_thing() -> None:
    when = {1: ("2026-03-01", 0, "m", 1), 2: ("2026-03-02", 0, "m", 2), 3: ("2026-03-03", 0, "m", 3)}
    when[9] = ("2026-03-02", 0, "m", 9)
    # a chain: 1 was superseded by 2, and 2 by 3 (1 and 3 not alike): one group, the latest first
    chain = {
        1: supersede.Supersession(1, 2, "2026-03-02", when[1]),
        2: supersede.Supersession(2, 3, "2026-03-03", when[2]),
    }
    assert supersede.order([1, 9, 2, 3], chain, when, past=False) == [3, 2, 1, 9]
    # 1 is alike both 2 and 3 (superseded by the latest, 3), and 2 is of another group: 1 still waits for 2
    both = {1: supersede.Supersession(1, 3, "2026-03-03", when[1], frozenset({2}))}
    assert supersede.order([3, 1, 9, 2], both, when, past=False) == [3, 9, 2, 1]
    assert supersede.order([3, 1, 9, 2], both, when, past=True) == [1, 3, 9, 2]  # the past: the earliest first


def test_supersessions_keep_every_later_fact_about_the_same_thing() -> None:
    asked = reading.question("How many tomato plants are in my balcony garden?")
    first = said(1, "my balcony garden has 3 tomato plants", at="09:00")
    second = said(2, "my balcony garden has 5 tomato plants now", day="2026-03-05")
    third = said(3, "my balcony garden has 6 tomato plants now", day="2026-03-09")
    found = supersede.supersessions([first, second, third], asked)
    assert found[1].by == 3 and found[1].also == {2} and found[2].by == 3 and not found[2].also


def test_money_counts_what_the_word_before_its_sign_names_as_money() -> None:
    assert reading.amounts_of("I raised the trip budget to $450") == {("450", "$:trip"), ("450", "$:budget")}
    asked = reading.question("What is my budget for the ski trip?")
    old = said(1, "I set a budget of $300 for the ski trip in January", at="09:00")
    new = said(2, "I raised the ski trip budget to $450", day="2026-03-20")
    assert supersede.same_thing(old, new, asked=asked)
    # money spent on books counts no books
    books = reading.question("How many books have I read for the reading club?")
    read = said(3, "I finished three books for the reading club this winter", at="09:00")
    spend = said(4, "I raised my reading club book budget to $75 for the spring", day="2026-03-20")
    assert not supersede.same_thing(read, spend, asked=books)


def test_two_counts_said_in_one_conversation_need_less_in_common() -> None:
    asked = reading.question("How many hours of overtime did I log?")
    old = said(1, "I want to cut back, since I logged 12 hours of overtime during the release crunch", at="14:10")
    new = said(2, "good news: my overtime is finally down to 4 hours", at="14:40")
    assert supersede.close(old, new) and supersede.same_thing(old, new, asked=asked)
    later = said(2, "good news: my overtime is finally down to 4 hours", day="2026-03-12", at="14:40")
    assert not supersede.close(old, later) and not supersede.same_thing(old, later, asked=asked)  # days apart
    hours = said(3, "I spent 2 hours on the release notes", at="14:30")
    assert not supersede.same_thing(old, hours, asked=asked)  # close, but no other word of the question


def test_a_verb_before_an_amount_counts_nothing() -> None:
    assert reading.amounts_of("I allocated $2,000 for the garden shed") == set()
    assert reading.amounts_of("I completed 14 crossword puzzles") == {("14", "crossw"), ("14", "puzzle")}
    assert reading.amounts_of("I'm completing 8 sudoku puzzles") == {("8", "sudoku"), ("8", "puzzle")}
    assert ("1450", "rating") in reading.amounts_of("my chess rating is 1450")  # a noun, "is" between
    # "completing" is what was done: two puzzle sets of other kinds are not one count updated
    sudoku = said(3, "I'm completing 8 sudoku puzzles this week", at="09:00")
    kakuro = said(4, "I'm completing 12 kakuro puzzles this week", at="09:20")
    assert not supersede.same_thing(sudoku, kakuro, asked=reading.question("How many puzzles am I completing?"))
    asked = reading.question("How much have I allocated for the garden this spring?")
    shed = said(1, "I allocated $2,000 for the garden shed this spring", at="09:00")
    pond = said(2, "this spring I allocated $900 for the garden pond pump", day="2026-04-02")
    assert not supersede.same_thing(shed, pond, asked=asked)  # two sums set aside, not one updated


def test_two_events_on_other_days_are_two_events_unless_the_later_says_it_moved() -> None:
    cooked = said(1, "I cooked 6 dinners at home on February 3", day="2026-02-10")
    again = said(2, "I cooked 5 dinners at home on March 4", day="2026-03-10")
    assert not supersede.same_thing(cooked, again)
    undated = said(3, "I cooked 5 dinners at home by March 4", day="2026-03-10")
    assert supersede.same_thing(cooked, undated)  # "by": a count as of a day, not an event on it
    # the days capture writes after "on Thursday" are not the speaker's: a weekly class moved is one thing
    thursday = said(8, "I take a pottery class on Thursday (2026-02-12), trying new glazes", day="2026-02-10")
    friday = said(9, "I take a pottery class on Friday (2026-03-13) now, trying new glazes", day="2026-03-10")
    assert supersede.same_thing(thursday, friday)
    call = said(4, "I have a call with the landlord about the lease on March 4, at 2 pm", day="2026-03-01")
    moved = said(5, "the call with the landlord about the lease got rescheduled, on March 6 at 4 pm", day="2026-03-02")
    assert supersede.same_thing(call, moved)  # another day, but the event itself moved
    other = said(6, "I had a call with the landlord about the lease on March 9, at 4 pm", day="2026-03-09")
    assert not supersede.same_thing(call, other)  # another call
    turned = reading.read(7, "an offer I turned down on the 3rd of May (User, 09:00)", "2026-05-04", "m", 7, [])
    assert turned is not None and turned.days == {"may 3"}


def test_a_value_said_to_have_changed_to_another_supersedes_the_one_it_names() -> None:
    asked = reading.question("When is the deadline for my grant proposal to the city arts council?")
    old = said(1, "my grant proposal to the city arts council has its deadline on April 3", at="09:00")
    new = said(2, "good news, the arts council grant deadline was pushed to April 17", at="09:20")
    assert supersede.same_thing(old, new, asked=asked)
    visa = said(3, "the visa office deadline for my council permit is April 9", at="09:10")
    assert not supersede.same_thing(visa, new, asked=asked)  # another deadline: one other word of the question
    counted = reading.question("How many chess puzzles am I solving each day to improve my endgame rating?")
    before = said(4, "my endgame rating went up after solving 6 puzzles each day", day="2026-03-01")
    after = said(
        5, "to push my endgame rating further I raised my routine to 9 tactical chess puzzles", day="2026-03-08"
    )
    assert supersede.same_thing(before, after, asked=counted)  # "puzzles" is counted by the new value's words
    fund = said(6, "I raised my puzzle fund to $90 to improve my endgame rating", day="2026-03-09")
    assert not supersede.same_thing(before, fund, asked=counted)  # money counts no puzzles


def test_recall_puts_a_count_updated_within_one_conversation_first(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    old = "W @User: User said: I want to cut back, since I logged 12 hours of overtime during the release crunch"
    new = "W @User: User said: good news: my overtime is finally down to 4 hours"
    other = "W @User: User said: the release crunch ended with a team dinner"
    _log(ws, "2026-03-03", [f"{old} (User, 14:10)", f"{other} (User, 14:20)", f"{new} (User, 14:40)"])
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        facts = mem.recall("How many hours of overtime did I log?", k=5, now=dt.datetime(2026, 3, 4)).facts
        current = next(i for i, f in enumerate(facts) if "4 hours" in f.content)
        stale = next(i for i, f in enumerate(facts) if "12 hours" in f.content)
        by = facts[stale].superseded_by
        assert current < stale and by is not None and "4 hours" in by["content"]


def test_what_a_new_count_counts_is_what_changed() -> None:
    # "practice sessions" were raised "to 12 ... problems": a count of problems, not of sessions
    asked = reading.question("How many chess endgame puzzles am I solving in practice to improve my rating?")
    sessions = said(1, "my chess rating got better over the 10 practice sessions I logged", at="09:00")
    solved = said(2, "my chess rating went up after solving 8 puzzles", at="09:05")
    raised = said(3, "I raised my practice sessions to 12 endgame puzzles, which helped my chess rating", at="09:30")
    assert not supersede.same_thing(sessions, raised, asked=asked)
    assert supersede.same_thing(solved, raised, asked=asked)


def test_one_thing_said_with_an_article_is_a_count_of_one() -> None:
    asked = reading.question("How many days off did I take to recover after the product launch?")
    one = said(1, "I took a full day off on May 2 to recover after the product launch", at="09:00")
    two = said(2, "I extended my time off on May 2 to two full days to recover after the product launch", at="09:40")
    assert supersede.same_thing(one, two, asked=asked)
    assert one.ones == {"day"}
    assert said(3, "I stretch 3 times a day, and I'm stuck on a problem").ones == set()  # a rate; a thing named
    asked = reading.question("How many logic problems have I been practicing?")
    stuck = said(4, "I'm stuck on a problem about logic I keep practicing", at="09:00")
    raised = said(5, "I've increased my practice to 12 logic problems", at="09:20")
    assert not supersede.same_thing(stuck, raised, asked=asked)  # "a problem" is no count of problems


def test_a_count_told_as_of_a_later_day_has_grown() -> None:
    asked = reading.question("How many watercolor paintings have I finished so far?")
    three = said(1, "I started painting watercolor landscapes last week and I've finished 3 paintings by May 4")
    five = said(2, "I've finished 5 paintings by May 5, and I wonder how to frame them", at="09:30")
    assert three.as_of == (5, 4) and five.as_of == (5, 5)
    assert supersede.same_thing(three, five, asked=asked)
    again = said(3, "I've finished 5 paintings, and I wonder how to frame them", at="09:30")
    assert not supersede.same_thing(three, again, asked=asked)  # no day, no word of change: one word in common
    plans = reading.question("How many geometry problems have I planned to solve?")
    first = said(4, "I've planned to solve 8 geometry problems on circles by March 20")
    second = said(5, "I'm trying to complete 10 geometry problems on tangents by May 30", at="09:30")
    assert not supersede.same_thing(first, second, asked=plans)  # two aims with their own days, not a count grown


def test_sizes_in_other_units_are_one_measure() -> None:
    assert reading.amounts_of("set the cache limit to 512MB, then 1 GB, or 0.5gb") == {
        ("512", "mb"),
        ("1024", "mb"),
    }
    asked = reading.question("What memory limit should my Postgres shared buffers use?")
    old = said(1, "raising the Postgres shared buffers memory limit to 512MB might help", at="09:00")
    new = said(2, "I'm unsure how to set the Postgres shared buffers memory limit to 2GB as planned", at="09:30")
    assert supersede.same_thing(old, new, asked=asked)


def test_measures_of_other_months_are_two_measures_even_when_the_later_says_it_changed() -> None:
    asked = reading.question("How many hours did I spend practicing pottery glazing?")
    april = said(1, "I spent 8 hours practicing pottery glazing in April", day="2026-05-02")
    summer = said(2, "I spent 14 hours practicing pottery glazing across June and July", day="2026-08-01")
    assert april.periods == {"apr"} and summer.periods == {"jun", "jul"}
    assert not supersede.same_thing(april, summer, asked=asked)
    assert not supersede.same_thing(april, summer)
    more = said(3, "I spent 16 hours practicing pottery glazing in June and July", day="2026-08-02")
    assert supersede.same_thing(summer, more, asked=asked)  # the same months
    cut = said(4, "I now spend just 5 hours practicing pottery glazing in August", day="2026-09-01")
    assert not supersede.same_thing(summer, cut, asked=asked)  # another month: both hold, though it says "now"
    raised = said(6, "I increased my pottery glazing practice to 10 hours in April", day="2026-05-03")
    assert supersede.same_thing(april, raised, asked=asked)  # the same month, said to have changed
    january = said(7, "I'm spending my increased January pottery budget of $50 on glazes", day="2026-01-20")
    spring = said(8, "I've increased my April-June pottery budget to $75", day="2026-03-15")
    assert january.periods == {"jan"} and spring.periods == {"apr", "may", "jun"}  # a month naming a measure
    assert not supersede.same_thing(january, spring)
    assert said(5, "I booked a lesson for March 3 in Lisbon").periods == set()  # a day, not a month's measure


def test_a_bound_or_an_attempt_before_a_number_is_an_aim() -> None:
    assert reading.amounts_of("to meet the sub-200ms target") == {("200", "goal:ms")}
    assert reading.amounts_of("I'm trying to solve 10 logic puzzles a day") == {
        ("10", "goal:logic"),
        ("10", "goal:puzzle"),
    }
    assert reading.amounts_of("my deadline to gather 15 articles") == {("15", "goal:articl")}
    assert reading.amounts_of("I managed to spot 27 species") == {("27", "specie")}  # done, not aimed at
    assert reading.amounts_of("I upgraded to version 2 of the app") == {("2", "versio")}  # a name, no aim
    sources = reading.question("How many survey articles have I gathered for my thesis?")
    due = said(3, "I have until May 5 to gather 15 survey articles for my thesis", at="09:00")
    have = said(4, "I've gathered 22 survey articles for my thesis", at="09:02")
    assert not supersede.same_thing(due, have, asked=sources)  # what is aimed at, then what is
    asked = reading.question("What is the response time of the search API?")
    aim = said(1, "I'm trying to meet the sub-200ms search API response target", at="09:00")
    now = said(2, "the search API response time is currently at 180ms after tuning", at="09:30")
    assert not supersede.same_thing(aim, now, asked=asked)


def test_a_session_for_a_day_is_an_event_on_that_day() -> None:
    first = said(1, "I planned a batch cooking session for June 22 with 4 recipes", day="2026-06-01")
    second = said(2, "I planned a batch cooking session for July 6 with 5 recipes", day="2026-06-20")
    assert first.days == {"jun 22"} and second.days == {"jul 6"}
    assert not supersede.same_thing(first, second)
    moved = said(3, "I moved the batch cooking session for June 22 to June 29, now with 5 recipes", day="2026-06-21")
    assert supersede.same_thing(first, moved)


@pytest.mark.parametrize(
    "unit",
    [
        "in March and April ",
        "to gather 15 ",
        "a full day a full ",
        "5 monthly joint budget ",
        "by May 5 by ",
        "for June 2 ",
        "the May 1-2 ",
        "May 3 May ",
        "5 budget for budget ",
        "our dining out budget 5 ",
    ],
)
def test_reading_grows_linearly_with_hostile_text(unit: str) -> None:
    def cost(n: int) -> float:
        text = unit * n
        best = float("inf")
        for i in range(3):
            start = time.perf_counter()
            reading.read(i, f"{text}{n}{i} (User, 09:00)", "2026-03-03", "memory/2026-03-03.md", 1, [])
            best = min(best, time.perf_counter() - start)
        return best

    small, large = cost(200), cost(1600)
    assert large / small < 24  # 8 times the text: linear is ~8, quadratic ~64


def test_facts_alike_in_words_but_not_in_what_is_asked_stand_for_a_question() -> None:
    # alike in most words, one word of the question in common: for this question they are two things
    fees = reading.question("What budget have I set for the permit and inspection fees?")
    approved = said(
        1,
        "I'm kinda worried about the budget for my garden shed permit application, I've got $1,200 approved for the "
        "filing by October 15",
        day="2026-09-18",
    )
    funded = said(
        2,
        "I'm kinda worried about the garden shed permit application I filed on November 10, will it be approved, "
        "considering I just got $1,000 follow-up funding",
        day="2026-11-25",
    )
    assert not supersede.same_thing(approved, funded, asked=fees)
    assert supersede.same_thing(approved, funded)  # without a question (the timeline), words alike still join
    # other counts of something the question does not ask about do not make an answer changed
    practiced = reading.question("Have I ever practiced chess endgame puzzles?")
    hours = said(
        3,
        "I spent 4 hours practicing chess endgame puzzles, including 3 rook endings and 5 pawn races, trying to "
        "understand how to calculate zugzwang positions without an engine",
        at="09:30",
    )
    question = said(
        4,
        "I'm trying to understand how to calculate zugzwang positions in chess endgame puzzles without an engine, "
        "with two rook endings from a famous game",
        at="09:40",
    )
    assert not supersede.same_thing(hours, question, asked=practiced)
    assert supersede.same_thing(hours, question)
    # a count of what is asked that differs needs no more words of the question ("knead" is not "kneading")
    how_long = reading.question("How long do I knead my pizza dough for a chewy crust?")
    twelve = said(5, "I've increased my kneading time from 8 to 12 minutes for a chewier pizza crust", at="10:18")
    fifteen = said(6, "I've increased my kneading time to 15 minutes", at="10:32")
    assert supersede.same_thing(twelve, fifteen, asked=how_long)


def test_a_later_fact_that_says_the_earlier_count_again_leaves_it_standing() -> None:
    asked = reading.question("How many guests am I planning to invite to my housewarming party?")
    plan = said(1, "I'm planning a housewarming party and I can invite 20 guests", day="2026-06-14")
    after = said(
        2,
        "We hosted the housewarming party on July 20, it was meant to be 15 guests but we ended up with 20",
        day="2026-07-25",
    )
    assert not supersede.same_thing(plan, after, asked=asked)  # 20 still holds: the later says it again
    grew = said(3, "We now have 25 guests for the housewarming party", day="2026-07-26")
    assert supersede.same_thing(plan, grew, asked=asked)  # another count, said to have changed
    again = said(4, "I had 20 guests and now it's 25 guests for the housewarming party", day="2026-07-27")
    assert supersede.same_thing(plan, again, asked=asked)  # the earlier count named, and the later says it changed


def test_what_someone_went_or_had_to_do_is_no_aim() -> None:
    went = said(1, "I went to see 3 concerts this year", day="2026-05-01")
    now = said(2, "I have now been to 5 concerts this year", day="2026-06-01")
    assert supersede.same_thing(went, now)  # a count of what was done, grown: not an aim of 3
    assert not any(u.startswith("goal:") for _, u in reading.amounts_of("I had to pay $450 for the repair"))


def test_month_spans_end_on_a_month_and_wrap_the_year() -> None:
    assert said(1, "I practised 8 hours in April and Mark joined me").periods == {"apr"}
    assert said(2, "I practised 6 hours in November through February").periods == {"nov", "dec", "jan", "feb"}
    assert reading.amounts_of("we took 3 family trips") >= {("3", "family")}  # a noun in -ly is counted
    assert reading.amounts_of("I practise 10 hours weekly for me") == {("10", "hour")}  # an adverb is not


def test_an_adjective_in_ing_before_what_is_counted_is_part_of_it() -> None:
    assert reading.amounts_of("I uploaded 25 supporting documents to the portal") == {("25", "docume")}
    assert reading.amounts_of("I have 10 remaining tasks") == {("10", "task")}
    assert not any(n == "550" and u == "starting" for n, u in reading.amounts_of("$550 starting September 15"))
    early = said(1, "I've uploaded 25 supporting documents to the portal", at="09:00")
    later = said(2, "I've now uploaded 30 supporting documents to the portal", at="10:00")
    assert supersede.same_thing(early, later)


def test_a_day_of_a_month_is_a_date_and_a_stopword_after_a_number_is_no_unit() -> None:
    event = said(1, "28 people are coming to the May 20 event")
    assert "may 20" in event.values and "20event" not in event.values
    assert "event" in event.frame  # the word after the day is a word of the fact, not the day's unit
    assert ("20", "event") not in event.amounts and ("28", "people") in event.amounts
    assert said(2, "we had 20 and then 30").values == {"20", "30"}
    assert said(3, "the 6th of June party").values == {"jun 6", "june"}
    assert reading.amounts_of("the May 11-12 weekend") == set()  # the range's last day counts no weekends
    assert reading.amounts_of("a 6-7 June trip") == set()
    asked = reading.question("How many people are coming to the launch party?")
    before = said(4, "25 people are coming to the launch party", at="09:00")
    after = said(5, "now 28 people are coming to the May 20 launch party", at="09:30")
    assert supersede.same_thing(before, after, asked=asked)


def test_a_range_of_days_is_an_events_days_and_one_named_day_may_move() -> None:
    april = said(1, "I spent $65 on snacks for our April 6-7 movie weekend", day="2026-04-08")
    may = said(2, "I spent $70 on snacks for the May 11-12 movie weekend", day="2026-05-13")
    assert april.days == {"apr 6", "apr 7"} and may.days == {"may 11", "may 12"}
    assert not supersede.same_thing(april, may)
    # one day named before an event is no event day: the event may move ("now on June 13")
    assert said(3, "I'm planning the May 20 event").days == set()
    wedding = said(5, "our wedding is the June 6 wedding at the vineyard", day="2026-01-10")
    moved = said(6, "our wedding is now on June 13 at the vineyard", day="2026-02-10")
    assert supersede.same_thing(wedding, moved)


def test_a_count_of_one_kind_qualified_apart_in_both_facts_is_two_things() -> None:
    asked = reading.question("What is the monthly food budget we agreed on?")
    dining = said(1, "we compromised on the dining out budget to $200 monthly", day="2026-03-01")
    groceries = said(2, "we agreed on a $500 monthly joint budget for groceries", day="2026-09-01")
    assert dict(dining.qualified)["budget"] == {"dining"}
    assert dict(groceries.qualified)["budget"] == {"joint", "grocer"}
    assert not supersede.same_thing(dining, groceries, asked=asked)
    assert not supersede.same_thing(dining, groceries)
    grocery = said(3, "the grocery budget went up to $550 monthly", day="2026-09-15")
    assert supersede.same_thing(groceries, grocery, asked=asked)  # "grocery" is a word the earlier holds
    hours = reading.question("How many hours have I spent on chess openings?")
    openings = said(4, "I've spent 3 hours on chess, with 2 hours specifically on queen gambit openings")
    endgames = said(5, "I've spent 4 hours practicing rook endgame drills in chess", day="2026-03-04")
    assert not supersede.same_thing(openings, endgames, asked=hours)
    more = said(6, "I've now spent 5 hours on queen gambit openings", day="2026-03-05")
    assert supersede.same_thing(openings, more, asked=hours)


def test_a_number_named_as_a_target_is_an_aim() -> None:
    assert reading.amounts_of("we cache results to meet our 300ms response time SLA") == {("300", "goal:ms")}
    assert reading.amounts_of("a 200ms target") == {("200", "goal:ms")}
    assert reading.amounts_of("around 220ms, and the target is lower") == {("220", "ms")}  # a stopword ends it
    asked = reading.question("What is the response time of the search API?")
    sla = said(1, "I've been caching to meet our 300ms search API response time SLA", at="09:00")
    now = said(2, "the search API response time is around 220ms now", at="09:30")
    assert not supersede.same_thing(sla, now, asked=asked)


@given(
    st.sampled_from(["May", "June", "Sept.", "DECEMBER", "Jan"]),
    st.integers(min_value=0, max_value=99),
    st.sampled_from(["event", "people", "and", ""]),
)
def test_a_month_and_a_number_are_a_date_only_for_a_day_of_a_month(month: str, n: int, after: str) -> None:
    text = f"we planned {month} {n} {after}".strip()
    days = {day for *_, found in reading.month_days(text) for day in found}
    assert days == ({f"{month[:3].lower()} {n}"} if 1 <= n <= 31 else set())


def test_a_month_is_one_written_capitalised_and_a_period_whatever_opens_the_sentence() -> None:
    assert reading.month_days("I will march 20 miles") == () and reading.month_days("jan 3") == ()
    assert reading.amounts_of("I will march 20 miles") == {("20", "mile")}
    assert said(1, "My January book budget is $75").periods == {"jan"}
    assert said(2, "my January book budget is $75").periods == {"jan"}


def test_a_change_from_a_value_the_earlier_never_held_is_another_things_change() -> None:
    asked = reading.question("What is my peak memory usage?")
    earlier = said(1, "my resume script uses around 250MB of peak memory usage", "2026-03-03")
    other = said(2, "I brought the peak memory usage of my app down from 600MB to 400MB", "2026-03-05")
    assert not supersede.same_thing(earlier, other, asked=asked)
    steps = said(3, "I cut the peak memory usage of my script from 300MB to 180MB", "2026-03-03")
    assert not supersede.same_thing(steps, other, asked=asked)
    # a change from the value the earlier holds goes on from it
    onward = said(4, "I brought the peak memory usage of my script down from 250MB to 200MB", "2026-03-05")
    assert supersede.same_thing(earlier, onward, asked=asked)
    assert reading.unit_of("600mb") == "mb" and reading.unit_of("$1300") == ""
    # a bare starting value ("from 72 to 65 bpm") is not compared with the earlier's bare numbers (an age, a model)
    rate = reading.question("What is my resting heart rate?")
    before = said(5, "my resting heart rate is around 70 bpm, I'm 41 and use a Garmin 965", "2026-03-03")
    dropped = said(6, "my resting heart rate dropped from 72 to 65 bpm now", "2026-03-05")
    assert supersede.same_thing(before, dropped, asked=rate)


def test_an_event_of_another_day_that_changed_its_length_did_not_move() -> None:
    asked = reading.question("How long is my batch cooking session?")
    may = said(1, "my batch cooking session on May 11 is at 3 PM for 2.5 hours", "2026-03-03")
    june = said(2, "the June 8 batch cooking session was extended to 3.5 hours", "2026-03-05")
    assert not supersede.same_thing(may, june, asked=asked)
    # moved to another time and day is the same event moved, not resized
    dentist = reading.question("When is my dentist appointment?")
    first_visit = said(5, "my dentist appointment is on May 11 at 3 PM", "2026-03-03")
    moved_visit = said(6, "my dentist appointment was moved to 4 PM on June 2", "2026-03-05")
    assert supersede.same_thing(first_visit, moved_visit, asked=dentist)
    # a deadline extended to another day is the same deadline moved
    first = said(3, "the application deadline for the producer role is May 10", "2026-03-03")
    moved = said(4, "the producer role application deadline was extended to May 20", "2026-03-05")
    assert supersede.same_thing(first, moved, asked=reading.question("When is the producer role application deadline?"))


def test_a_join_made_only_by_the_questions_words_orders_the_two_but_marks_nothing(tmp_path: Path) -> None:
    # two measures answering one question, days apart, with no word of change between them: the later first,
    # but neither is shown as superseded (the search endpoint's 90ms may well still hold beside the site's 240ms)
    ws = tmp_path / "ws"
    _log(
        ws,
        "2026-03-03",
        ["W @User: I measured the search endpoint of my shop API, its response time is 90ms (User, 09:10)"],
    )
    _log(
        ws,
        "2026-03-09",
        ["W @User: I ran a load test on my shop API, the response time is currently 240ms (User, 16:00)"],
    )
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        q = "What is the response time of my shop API?"
        facts = mem.recall(q, k=5, now=dt.datetime(2026, 3, 15, 12, 0)).facts
        assert "240ms" in facts[0].content and "90ms" in facts[1].content  # ordered: the later first
        assert facts[1].superseded_by is None and facts[1].valid_to is None  # ... and not marked
        assert mem.timeline("User", fresh=True)["updates"] == []
    early, late = (
        said(1, "I measured the search endpoint of my shop API, its response time is 90ms", at="09:10"),
        said(2, "I ran a load test on my shop API, the response time is currently 240ms", day="2026-03-09", at="16:00"),
    )
    asked = reading.question("What is the response time of my shop API?")
    found = supersede.supersessions([early, late], asked)
    assert found[1].by == 2 and found[1].sure is None and supersede.marked(found) == {}
    # the same two within one conversation, or the later saying that what the earlier names changed: marked
    near = said(2, "I ran a load test on my shop API, the response time is currently 240ms", at="09:40")
    assert supersede.marked(supersede.supersessions([early, near], asked))[1].by == 2
    raised = said(2, "the response time of my shop API went up, it increased to 240ms", day="2026-03-09")
    assert supersede.sure(early, raised)


def test_search_moves_down_only_a_passage_surely_superseded() -> None:
    early = _stored(
        1, "I measured the search endpoint of my shop API, its response time is 90ms", "2026-03-03", "09:10"
    )
    other = _stored(2, "I bought a new keyboard for the shop", "2026-03-05", "09:00")
    late = _stored(3, "I ran a load test on my shop API, the response time is currently 240ms", "2026-03-09", "16:00")
    q = "What is the response time of my shop API?"
    assert passages.passage_order([[early], [other], [late]], q) == [2, 0, 1]  # the later first, none moved down
    near = _stored(3, "I ran a load test on my shop API, the response time is currently 240ms", "2026-03-03", "09:40")
    assert passages.passage_order([[early], [other], [near]], q) == [2, 1, 0]  # one conversation: moved down


def test_two_things_listed_in_one_conversation_are_not_marked(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    login = "W @User: the login endpoint of my shop API responds in 150ms (User, 09:10)"
    search = "W @User: the search endpoint of my shop API responds in 180ms (User, 09:20)"
    _log(ws, "2026-03-03", [login, search])
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        facts = mem.recall("How fast is the login endpoint of my shop API?", k=5, now=dt.datetime(2026, 3, 4)).facts
        assert all(f.superseded_by is None and f.valid_to is None for f in facts), facts
        assert mem.timeline("User", fresh=True)["updates"] == []
    # the same two, the later saying it changed: one conversation makes that sure
    early = said(1, "the login endpoint of my shop API responds in 150ms", at="09:10")
    now = said(2, "the login endpoint of my shop API now responds in 120ms", at="09:20")
    assert supersede.sure(early, now)
    assert not supersede.sure(early, said(2, "the search endpoint of my shop API responds in 180ms", at="09:20"))
