"""A person's sentence that stands for something the sentence before named ("four different ones") is written
with that sentence, once; an agent's outcome that restates a kept one is told by an index of their words."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from memlane.capture.digest import draft_turns
from memlane.capture.draft import NEAR_SAME, _Reports
from memlane.capture.turns import Turn

DAY = dt.date(2026, 6, 2)


def _texts(*said: str) -> list[str]:
    turns = [Turn("user", s, dt.datetime(2026, 6, 2, 9, k)) for k, s in enumerate(said)]
    return [d.draft.content for d in draft_turns(turns, DAY, ())]


def test_ones_is_written_with_the_sentence_that_names_what_they_are() -> None:
    texts = _texts(
        "I think I'll go with the soup. By the way, have you tried any good ramen places in my town lately? "
        "I've tried five different ones so far, and I keep looking for more."
    )
    counted = [t for t in texts if "five different ones" in t]
    assert len(counted) == 1 and "ramen places" in counted[0], texts


def test_the_sentence_before_is_not_written_twice() -> None:
    texts = _texts(
        "My running shoes fell apart after the marathon. I had to replace my old ones with a pair of Brooks."
    )
    assert sum("running shoes fell apart" in t for t in texts) == 1, texts
    assert any("running shoes" in t and "old ones" in t for t in texts), texts


def test_ones_bound_in_its_own_sentence_or_loved_ones_take_nothing_before() -> None:
    texts = _texts(
        "I moved to Lisbon in March. "
        "I added a few of these records to my shelf, especially the jazz and soul ones from the seventies.",
        "I fixed the bike on Tuesday. I want to keep in touch with loved ones back home while abroad.",
    )
    assert not any("Lisbon" in t and "records" in t for t in texts), texts
    assert not any("bike" in t and "loved ones" in t for t in texts), texts


@given(
    st.lists(
        st.tuples(
            st.frozensets(st.sampled_from("abcdefghij"), min_size=0, max_size=9),
            st.frozensets(st.sampled_from("12345"), max_size=2),
        ),
        max_size=30,
    )
)
def test_the_indexed_restatement_check_answers_as_comparing_with_every_kept_outcome(
    outcomes: list[tuple[frozenset[str], frozenset[str]]],
) -> None:
    reports, kept = _Reports(), []
    for words, values in outcomes:
        brute = len(words) >= 4 and any(len(words & w) >= NEAR_SAME * len(words) and values <= v for w, v in kept)
        assert reports.restates(words, values) == brute
        if not brute:
            reports.add(words, values)
            kept.append((words, values))


def test_a_sentence_merged_into_the_one_before_keeps_every_sentence_an_earlier_merge_held() -> None:
    texts = _texts(
        "I bought a Garmin Forerunner 265 in March for my marathon training. I sold my old one to Priya. "
        "The new one tracks sleep too.",
        "I ordered a Brompton folding bike in April for the commute. I gave my old one to my nephew. "
        "The new one fits under my desk.",
    )
    for said in ("Garmin Forerunner 265", "old one to Priya", "tracks sleep", "Brompton", "my nephew", "under my desk"):
        assert any(said in t for t in texts), (said, texts)
