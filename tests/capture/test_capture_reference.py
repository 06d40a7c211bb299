"""A person's sentence that stands for something the sentence before named ("four different ones") is written
with that sentence, once; an agent's outcome that restates a kept one is told by an index of their words."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from memlane.capture.digest import draft_turns
from memlane.capture.draft import NEAR_SAME, _Reports
from memlane.capture.outside import SHARED_RUN, SHARED_SHARE, SHARED_SHARE_SAID, OutsideText
from memlane.capture.phrasing import entities
from memlane.capture.turns import Turn
from memlane.text.keywords import STOPWORDS

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


_VOCAB = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "the", "of"]


@settings(max_examples=600)
@given(
    st.lists(  # the batch: a tool turn's words, or None for a turn of the conversation
        st.one_of(st.none(), st.lists(st.sampled_from(_VOCAB), min_size=0, max_size=12)), max_size=20
    ),
    st.lists(st.sampled_from(_VOCAB), max_size=12),
    st.integers(min_value=0, max_value=21),
    st.sampled_from([SHARED_SHARE, SHARED_SHARE_SAID, 0.0, 1.0, 0.3]),
    st.integers(min_value=0, max_value=6),
)
def test_the_indexed_outside_text_check_answers_as_comparing_with_every_tool_turn(
    batch: list[list[str] | None], said: list[str], before: int, share: float, least: int
) -> None:
    turns = [
        Turn("user", "go on", dt.datetime(2026, 6, 2, 9, 0))
        if words is None
        else Turn("tool", " ".join(words), dt.datetime(2026, 6, 2, 9, 0))
        for words in batch
    ]
    sentence = " ".join(said)
    toks = sentence.casefold().split()
    tools = [(i, set(t.content.casefold().split())) for i, t in enumerate(turns) if t.role == "tool"]
    runs = {tuple(t.content.split()[k : k + SHARED_RUN]) for t in turns if t.role == "tool" for k in range(12)}
    run = any(tuple(toks[k : k + SHARED_RUN]) in runs for k in range(len(toks) - SHARED_RUN + 1))
    content = {w for w in toks if len(w) >= 3 and w not in STOPWORDS}
    brute = bool(tools) and (
        run
        or (
            len(content) >= least
            and any(i < before and len(content & words) >= share * len(content) for i, words in tools)
        )
    )
    assert OutsideText(turns).restates(sentence, before, share, least) == brute


def test_a_word_opening_a_sentence_after_a_path_that_ends_the_last_is_no_name() -> None:
    text = "Renamed the module (`lib/panel/id.ex:1`).; Replaced the alphabet; Deployed to /srv/app, Grafana shows it"
    assert entities(text, None, {}, {}) == ("Grafana",)
