"""Recall: the ranker's signals and filters, the payload, and the real model."""

from __future__ import annotations

import datetime as dt
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import memlane
from conftest import FakeEmbedder, write

# Every test runs on both store drivers unless marked sqlite_only (conftest.py).
pytestmark = pytest.mark.usefixtures("store_driver")

NOW = dt.datetime(2025, 12, 3, 12)


def test_payload_shape_and_a_lexical_hit(fact_workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(fact_workspace, provider=fake) as mem:
        resp = mem.recall("Baileys WS crash", k=3, now=NOW)
        top = resp.facts[0]
        assert top.content.startswith("I fixed the Baileys WS crash") and top.kind == "experience"
        payload = resp.to_dict()
        assert set(payload) == {"facts", "entities", "notes"}
        assert set(payload["facts"][0]) == {
            "kind", "day", "time", "entities", "content", "confidence", "source", "origin", "score"
        }  # fmt: skip
        assert payload["facts"][0]["origin"] == "file"  # a bullet written by hand
        assert payload["facts"][0]["source"] == "memory/2025-11-27.md#L8-L9"
        assert payload["facts"][0]["entities"] == ["warelay"] and payload["facts"][0]["day"] == "2025-11-27"
        marrakech = next(f for f in mem.recall("Marrakech", k=3, now=NOW).to_dict()["facts"])
        assert marrakech["time"] == {"start": "2025-11-27", "end": "2025-12-01"}


def test_an_entity_the_question_names_and_its_related_entities(fact_workspace: Path, fake: FakeEmbedder) -> None:
    write(fact_workspace, "bank/entities/Peter.md", "---\naliases: [Pete]\n---\n# Peter\n")
    with memlane.open(fact_workspace, provider=fake) as mem:
        resp = mem.recall("tell me about Pete", k=10, now=NOW)
        named = [e for e in resp.entities if e.match == "query"]
        assert [(e.name, e.page) for e in named] == [("Peter", "bank/entities/Peter.md")]
        peter_facts = [f for f in resp.facts if "Peter" in f.entities]
        assert len(peter_facts) == 5 and resp.facts[: len(peter_facts)] == peter_facts  # his facts first
        related = [e for e in resp.entities if e.match == "related"]
        assert [(e.name, e.via) for e in related] == [("warelay", "Peter")]  # co-mentioned in one fact
        # facts of the related entity follow Peter's own
        assert any(f.entities == ["warelay"] for f in resp.facts[len(peter_facts) :])


def test_time_words_favour_facts_of_that_window(fact_workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(fact_workspace, provider=fake) as mem:
        resp = mem.recall("what was Peter doing around Nov 20", k=3, now=NOW)
        assert any("2025-11-17..2025-11-23" in n for n in resp.notes)
        assert resp.facts[0].content == "Peter is at a conference in Vienna this week."
        later = mem.recall("what was Peter doing last week", k=3, now=NOW)  # relative to now: Nov 24-30
        assert later.facts[0].content.startswith("Currently in Marrakech")


def test_a_date_without_a_year_means_the_latest_one_the_memory_holds(fact_workspace: Path, fake: FakeEmbedder) -> None:
    """Asked well after the logs end (the clock's now), "around Nov 20" is the latest Nov 20 with facts."""
    later = dt.datetime(2027, 3, 10, 12)
    with memlane.open(fact_workspace, provider=fake) as mem:
        resp = mem.recall("what was Peter doing around Nov 20", k=3, now=later)
        assert any("2025-11-17..2025-11-23" in n for n in resp.notes), resp.notes
        assert any("no fact in 2026-11-17..2026-11-23" in n for n in resp.notes), resp.notes
        assert resp.facts[0].content == "Peter is at a conference in Vienna this week."
        # a year, or a relative word, is read as written: nothing is moved
        dated = mem.recall("what was Peter doing around Nov 20, 2026", k=3, now=later)
        assert any("2026-11-17..2026-11-23" in n for n in dated.notes) and not any("no fact" in n for n in dated.notes)
        relative = mem.recall("what was Peter doing last week", k=3, now=later)
        assert any("2027-03" in n for n in relative.notes) and not any("no fact" in n for n in relative.notes)


def test_since_until_kind_and_entity_filters(fact_workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(fact_workspace, provider=fake) as mem:
        only_late = {f.content for f in mem.recall("Peter", since="2025-11-25", k=20, now=NOW).facts}
        assert "Peter is at a conference in Vienna this week." not in only_late  # Nov 17-23
        assert "Dana wants the billing rewrite done by March 2026." in only_late  # logged Nov 20, runs to March
        assert "Currently in Marrakech (Nov 27–Dec 1, 2025) for Andy's birthday." in only_late
        early = mem.recall("Peter", until="2025-11-21", k=20, now=NOW)
        assert {f.day for f in early.facts} == {"2025-11-20"}
        opinions = mem.recall("replies", kinds="opinion", k=20, now=NOW)
        assert {f.kind for f in opinions.facts} == {"opinion"} and len(opinions.facts) == 2
        assert mem.recall("replies", kinds=["O", "B"], k=20, now=NOW).facts
        about = mem.recall("crash", entity="WARELAY", k=20, now=NOW)
        assert about.facts and all("warelay" in f.entities for f in about.facts)
        assert about.entities[0].match == "filter"
        with pytest.raises(memlane.MemlaneError, match="did you mean Peter"):
            mem.recall("x", entity="Petr", now=NOW)
        with pytest.raises(memlane.MemlaneError, match="unknown fact kind"):
            mem.recall("x", kinds="rumour", now=NOW)
        with pytest.raises(memlane.MemlaneError, match="since: cannot read"):
            mem.recall("x", since="soonish", now=NOW)


def test_a_preference_question_favours_opinions_by_confidence(tmp_path: Path, fake: FakeEmbedder) -> None:
    retain = [
        "## Retain",
        "- W @Peter: Peter drinks tea and coffee at the office.",
        "- O(c=0.3) @Peter: Likes tea in the morning.",
        "- O(c=0.9) @Peter: Likes coffee in the morning.",
    ]
    write(tmp_path, "memory/2025-11-20.md", "\n".join(retain) + "\n")
    with memlane.open(tmp_path, provider=fake) as mem:
        resp = mem.recall("what does Peter like to drink in the morning?", k=3, now=NOW)
        ranked = [(f.kind, f.confidence) for f in resp.facts]
        assert ranked[0] == ("opinion", 0.9) and ranked.index(("opinion", 0.9)) < ranked.index(("opinion", 0.3))
        plain = mem.recall("Peter tea coffee morning", k=3, now=NOW)  # no preference cue: no opinion bonus
        assert plain.facts[0].kind == "world"


def test_a_budget_keeps_the_best_facts_that_fit(fact_workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(fact_workspace, provider=fake) as mem:
        full = mem.recall("Peter", k=10, now=NOW)
        small = mem.recall("Peter", k=10, budget=40, now=NOW)
        costs = [fake.count_tokens([f"{f.content} ({f.source})"])[0] for f in small.facts]
        assert small.facts and sum(costs) <= 40 and len(small.facts) < len(full.facts)
        assert small.facts[0] == full.facts[0]
        assert any(n.startswith("budget:") for n in small.notes)


def test_no_facts_yet_says_how_to_add_them(workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(workspace, provider=fake) as mem:
        resp = mem.recall("anything at all", now=NOW)
        assert resp.facts == [] and any("## Retain" in n for n in resp.notes)


def test_keyword_only_recall_without_a_provider(fact_workspace: Path) -> None:
    with memlane.open(fact_workspace, provider="none") as mem:
        resp = mem.recall("Marrakech", k=2, now=NOW)
        assert resp.facts[0].content.startswith("Currently in Marrakech")


def test_explain_shows_the_signals(fact_workspace: Path, fake: FakeEmbedder) -> None:
    with memlane.open(fact_workspace, provider=fake) as mem:
        resp = mem.recall("Peter in Vienna", k=2, now=NOW, explain=True)
        signals = resp.facts[0].signals
        assert signals is not None and signals["entity"] == 1.0 and signals["text"] == 1.0
        assert resp.candidates is not None and len(resp.candidates) >= len(resp.facts)
        assert "signals" in resp.facts[0].to_dict()


def test_the_real_model_finds_a_paraphrase(fact_workspace: Path) -> None:
    """No word of the question is in the fact: only the bundled model's vectors can find it."""
    write(
        fact_workspace,
        "memory/2025-11-29.md",
        "## Retain\n- W @Dana: Dana adopted a small terrier from the shelter.\n"
        "- W @Dana: Dana renewed the TLS certificate of the load balancer.\n",
    )
    with memlane.open(fact_workspace) as mem:  # provider auto: the bundled local model
        resp = mem.recall("which pet did she get?", k=3, now=NOW)
        assert mem.choice.provider is not None and mem.choice.provider.provider_id == "local"
        assert resp.facts[0].content == "Dana adopted a small terrier from the shelter."


def test_a_failing_recall_leaves_no_read_running_behind_it(fact_workspace: Path, fake: FakeEmbedder) -> None:
    """The chunk context runs on the search threads. A recall that fails must not return while that job
    still reads: the caller may close the store at once (that crashed SQLite in CI once)."""
    from memlane.facts.recall import recall

    with memlane.open(fact_workspace, provider=fake) as mem:
        mem.sync()
        store = mem.store
        started, finished = threading.Event(), threading.Event()

        def slow_context(text: str, vec: Any) -> list[tuple[str, int, int, float]]:
            started.set()
            time.sleep(0.5)
            store.chunks_by_seq(store.live_seqs().tolist())  # reading through the store meanwhile
            finished.set()
            return []

        def broken_counter(texts: Any) -> list[int]:
            raise RuntimeError("the token counter broke")

        settings = mem.settings.recall
        with pytest.raises(memlane.MemlaneError, match="no entity"):  # checked before any job starts
            recall(store, "x", settings=settings, now=NOW, entity="Nobody", context=slow_context)
        assert not started.is_set()
        with pytest.raises(RuntimeError, match="token counter"):  # fails after the job started ...
            recall(
                store, "Peter", settings=settings, now=NOW, budget=10, context=slow_context, count_tokens=broken_counter
            )
        assert started.is_set() and finished.is_set()  # ... and returned only once it was done


def test_a_captured_fact_says_whose_words_it_holds(fact_workspace: Path, fake: FakeEmbedder) -> None:
    write(
        fact_workspace,
        "memory/2025-12-01.md",
        "## Session 14:02–14:40 · the relay\n<!-- memlane:capture session=s1 -->\n\n### Retain\n"
        "- W @User @warelay: User wants the warelay relay moved to Frankfurt. (User, 14:05)\n"
        "- B @warelay: I moved the warelay relay config to the Frankfurt region. (assistant, 14:31)\n",
    )
    with memlane.open(fact_workspace, provider=fake) as mem:
        facts = mem.recall("warelay relay Frankfurt", k=5, now=NOW).to_dict()["facts"]
        origins = {f["source"]: f["origin"] for f in facts}
        assert origins["memory/2025-12-01.md#L5"] == "person" and origins["memory/2025-12-01.md#L6"] == "agent"
        assert all(o == "file" for s, o in origins.items() if not s.startswith("memory/2025-12-01.md"))
