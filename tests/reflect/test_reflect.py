"""Reflect: generated blocks, the documented opinion rule, entity pages, proposals, idempotence, schedule."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memlane
from conftest import FakeEmbedder, write
from memlane.files.markers import BlockError, begin_marker, block_body, end_marker, set_block
from memlane.reflect.opinions import CAP, Evidence, confidence_path, contradicts, step

NOW = dt.datetime(2025, 12, 3, 12)

# -- generated blocks


_TEXT = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=200).filter(
    lambda t: "memlane:begin" not in t and "memlane:end" not in t
)


@settings(max_examples=300, deadline=None)
@given(_TEXT, _TEXT, _TEXT, _TEXT)
def test_text_outside_the_markers_is_kept_byte_for_byte(before: str, old: str, after: str, body: str) -> None:
    page = f"{before}\n{begin_marker('x')}\n{old}\n{end_marker('x')}\n{after}"
    new = set_block(page, "x", body)
    head = f"{before}\n{begin_marker('x')}\n"
    tail = f"{end_marker('x')}\n{after}"
    assert new.startswith(head) and new.endswith(tail)  # the person's text, untouched
    assert block_body(new, "x") == (body if not body or body.endswith("\n") else body + "\n")
    assert set_block(new, "x", body) == new  # setting the same body again changes nothing


@settings(max_examples=200, deadline=None)
@given(_TEXT, _TEXT)
def test_a_page_without_the_block_gets_it_appended_and_keeps_its_text(page: str, body: str) -> None:
    new = set_block(page, "x", body)
    assert new.startswith(page) and block_body(new, "x") is not None
    assert set_block(new, "x", body) == new


@pytest.mark.parametrize(
    "page",
    [
        f"{begin_marker('x')}\nno end\n",
        f"{end_marker('x')}\n{begin_marker('x')}\n",
        f"{begin_marker('x')}\n{end_marker('x')}\n{begin_marker('x')}\n{end_marker('x')}\n",
    ],
)
def test_broken_markers_are_refused(page: str) -> None:
    with pytest.raises(BlockError):
        set_block(page, "x", "body")


# -- the opinion rule (docs/DESIGN.md §12 has this example)


def test_the_documented_opinion_dynamics() -> None:
    """An opinion stated at c=0.8, three reinforcing facts, then two contradictions."""
    evidence = [
        Evidence("2025-11-02", "memory/2025-11-02.md#L5", "support"),
        Evidence("2025-11-05", "memory/2025-11-05.md#L5", "support"),
        Evidence("2025-11-09", "memory/2025-11-09.md#L5", "support"),
        Evidence("2025-11-12", "memory/2025-11-12.md#L5", "contradict"),
        Evidence("2025-11-20", "memory/2025-11-20.md#L5", "contradict"),
    ]
    path = [round(c, 4) for _, c in confidence_path(0.8, evidence)]
    assert path == [0.8, 0.82, 0.838, 0.8542, 0.7042, 0.5542]
    # the same evidence twice (a re-run, a duplicate source) counts once; the order it comes in does not matter
    assert confidence_path(0.8, evidence + evidence[::-1])[-1][1] == pytest.approx(0.5542, abs=1e-4)


@settings(max_examples=300)
@given(st.floats(0, 1), st.sampled_from(["support", "contradict", "restate"]), st.floats(0, 1))
def test_one_piece_of_evidence_moves_c_by_at_most_the_cap(c: float, effect: str, stated: float) -> None:
    after = step(c, Evidence("2025-01-01", "x#L1", effect, stated if effect == "restate" else None))
    assert 0.0 <= after <= 1.0
    assert abs(after - c) <= CAP + 1e-9
    if effect == "contradict":
        assert after <= c
    if effect == "support":
        assert after >= c


@pytest.mark.parametrize(
    ("statement", "fact", "expected"),
    [
        ("Prefers concise replies on WhatsApp.", "Peter does not want concise replies anymore.", True),
        ("Prefers concise replies on WhatsApp.", "Peter asked for lengthy replies this week.", True),
        ("Prefers concise replies on WhatsApp.", "Peter asked again for concise replies.", False),
        ("Does not like meetings before 10.", "Peter still dislikes early meetings.", False),  # both negative
        ("Likes the new office.", "Peter dislikes the new office.", True),
    ],
)
def test_contradiction_cues(statement: str, fact: str, expected: bool) -> None:
    assert contradicts(statement, fact) is expected


# -- reflect end to end


def opinion_workspace(root: Path) -> Path:
    write(root, "MEMORY.md", "# Memory\n\nPeter lives in Vienna.\n")
    write(root, "bank/entities/Peter.md", "# Peter\n\nMy own notes about Peter, kept as they are.\n")
    days = {
        "2025-11-01": "- O(c=0.8) @Peter: Peter prefers concise replies on WhatsApp.\n"
        "- W @Peter @warelay: Peter reviewed the warelay reconnect patch.\n",
        "2025-11-02": "- W @Peter: Peter asked again for concise replies on WhatsApp.\n",
        "2025-11-05": "- W @Peter: Peter wants concise replies on WhatsApp, short and to the point.\n",
        "2025-11-09": "- W @Peter: Peter praised the concise replies on WhatsApp.\n",
        "2025-11-12": "- W @Peter: Peter does not want concise replies on WhatsApp anymore.\n",
        "2025-11-20": "- W @Peter: Peter no longer likes concise replies on WhatsApp.\n"
        "- W @Dana: Dana waters the office plants on Mondays.\n",
        "2025-11-25": "- W @Dana: Dana waters the office plants on Mondays.\n",
        "2025-11-28": "- W @Dana: Dana waters the office plants on Mondays.\n",
    }
    for day, bullets in days.items():
        write(root, f"memory/{day}.md", f"# {day}\n\n## Retain\n{bullets}")
    return root


def test_reflect_writes_entity_pages_opinions_and_proposals(tmp_path: Path, fake: FakeEmbedder) -> None:
    ws = opinion_workspace(tmp_path)
    with memlane.open(ws, provider=fake) as mem:
        report = mem.reflect(since="2025-11-01", now=NOW)
        assert set(report.written) == {
            "bank/entities/Peter.md", "bank/entities/warelay.md", "bank/entities/Dana.md",
            "bank/opinions.md", "bank/proposals.md",
        }  # fmt: skip
        peter = (ws / "bank/entities/Peter.md").read_text()
        assert peter.startswith(
            "# Peter\n\nMy own notes about Peter, kept as they are.\n\n<!-- memlane:begin entity -->"
        )
        body = block_body(peter, "entity") or ""
        for section in ("### Summary", "### Timeline", "### Related"):
            assert section in body
        bullets = [ln for ln in body.splitlines() if ln.startswith("- ")]
        assert bullets and all("#L" in ln for ln in bullets)  # every line cites its source
        assert "- [warelay](warelay.md): 1 fact together (memory/2025-11-01.md#L5)" in body
        assert (
            "- 2025-11-12: Peter does not want concise replies on WhatsApp anymore. (memory/2025-11-12.md#L4)" in body
        )
        created = (ws / "bank/entities/warelay.md").read_text()
        assert created.startswith("# warelay\n\n<!-- memlane:begin entity -->")  # a missing page, with a title

        [opinion] = report.opinions
        assert opinion["entity"] == "Peter" and opinion["stated"] == 0.8
        assert opinion["for"] == ["memory/2025-11-02.md#L4", "memory/2025-11-05.md#L4", "memory/2025-11-09.md#L4"]
        assert opinion["against"] == ["memory/2025-11-12.md#L4", "memory/2025-11-20.md#L4"]
        assert opinion["confidence"] == pytest.approx(0.5542, abs=1e-4)  # the documented dynamics, for real
        assert opinion["trend"] == "weakening" and opinion["updated"] == "2025-11-20"
        page = (ws / "bank/opinions.md").read_text()
        assert "### Peter: Peter prefers concise replies on WhatsApp." in page and "confidence 0.55 (weakening)" in page

        [proposal] = report.proposals  # said on three days, not in MEMORY.md
        assert proposal["content"] == "Dana waters the office plants on Mondays." and proposal["days"] == 3
        assert "Dana waters the office plants" in (ws / "bank/proposals.md").read_text()
        assert "plants" not in (ws / "MEMORY.md").read_text()  # reflect never writes MEMORY.md

        # the pages are indexed at once
        assert mem.search("warelay reconnect patch", min_score=0).results
        assert any(r.path == "bank/opinions.md" for r in mem.search("confidence weakening", min_score=0).results)


def test_a_second_run_changes_nothing_and_a_dry_run_writes_nothing(tmp_path: Path, fake: FakeEmbedder) -> None:
    ws = opinion_workspace(tmp_path)
    with memlane.open(ws, provider=fake) as mem:
        dry = mem.reflect(since="2025-11-01", dry_run=True, now=NOW)
        assert dry.written == [] and not (ws / "bank/opinions.md").exists()
        assert "+++ b/bank/opinions.md" in dry.diff() and "--- /dev/null" in dry.diff()
        first = mem.reflect(since="2025-11-01", now=NOW)
        assert first.written
        snapshot = {p: p.read_bytes() for p in ws.rglob("*.md")}
        again = mem.reflect(since="2025-11-01", now=NOW)
        assert again.written == [] and again.diff() == ""
        assert {p: p.read_bytes() for p in ws.rglob("*.md")} == snapshot
        # a person edits around the block: their text survives the next run byte for byte
        page = ws / "bank/entities/Peter.md"
        page.write_text("Intro written by hand.\n\n" + page.read_text() + "\nA closing note, also by hand.\n")
        write(ws, "memory/2025-11-30.md", "## Retain\n- W @Peter: Peter booked a trip to Lisbon.\n")
        mem.reflect(since="2025-11-30", now=NOW)
        text = page.read_text()
        assert text.startswith("Intro written by hand.\n\n# Peter\n") and text.endswith(
            "\nA closing note, also by hand.\n"
        )
        assert "Peter booked a trip to Lisbon." in text


def test_reflect_is_refused_unless_writable_and_broken_markers_are_left_alone(tmp_path: Path) -> None:
    ws = opinion_workspace(tmp_path)
    with memlane.open(ws, provider="none", config={"agents": {"defaults": {"workspaceAccess": "ro"}}}) as mem:
        with pytest.raises(memlane.MemlaneError, match="not allowed"):
            mem.reflect(now=NOW)
        assert mem.reflect(since="2025-11-01", dry_run=True, now=NOW).changed  # a dry run only reads
    broken = "# Peter\n\n<!-- memlane:begin entity -->\nhalf a block, no end\n"
    write(ws, "bank/entities/Peter.md", broken)
    with memlane.open(ws, provider="none") as mem:
        report = mem.reflect(since="2025-11-01", now=NOW)
        assert any(n.startswith("bank/entities/Peter.md: not updated") for n in report.notes)
        assert "bank/entities/Peter.md" not in report.written
    assert (ws / "bank/entities/Peter.md").read_text() == broken


def test_reflect_through_the_cli(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from memlane.surface.cli import cli

    ws = opinion_workspace(tmp_path)
    runner = CliRunner()
    dry = runner.invoke(cli, ["-w", str(ws), "reflect", "--since", "400d", "--dry-run"])
    assert dry.exit_code == 0 and "+++ b/bank/entities/Peter.md" in dry.output
    assert not (ws / "bank/opinions.md").exists()
    done = runner.invoke(cli, ["-w", str(ws), "reflect", "--since", "400d"])
    assert done.exit_code == 0 and "wrote " in done.output and "bank/entities/Peter.md" in done.output
    again = runner.invoke(cli, ["-w", str(ws), "reflect", "--since", "400d", "--json"])
    assert again.exit_code == 0 and '"written": []' in again.output


def test_reflect_on_a_schedule(tmp_path: Path, fake: FakeEmbedder) -> None:
    ws = opinion_workspace(tmp_path)
    cfg = {"agents": {"defaults": {"reflect": {"schedule": "0.005m", "since": "3650d"}}}}  # every 0.3 s
    with memlane.open(ws, provider=fake, config=cfg, sync={"onSessionStart": False}) as mem:
        mem.start(watch=False)
        deadline = dt.datetime.now() + dt.timedelta(seconds=60)
        while not (ws / "bank/opinions.md").exists():
            assert dt.datetime.now() < deadline, "the scheduled reflect did not run"
        assert mem.background_status()["lastError"] is None


def test_the_schedule_setting_is_checked() -> None:
    with pytest.raises(memlane.ConfigError, match=r"reflect\.schedule|reflect: .*schedule"):
        memlane.config.resolve({"agents": {"defaults": {"reflect": {"schedule": "every tuesday"}}}})


def test_the_first_reflect_of_a_workspace_covers_every_fact_later_ones_reflect_since(
    tmp_path: Path, fake: FakeEmbedder
) -> None:
    # every log is months older than reflect.since (7d): the first reflect wrote nothing at all
    ws = opinion_workspace(tmp_path)
    later = NOW + dt.timedelta(days=120)
    with memlane.open(ws, provider=fake) as mem:
        first = mem.reflect(now=later)
        assert set(first.entities) == {"Peter", "warelay", "Dana"} and first.since == "the first fact"
        assert "bank/entities/Dana.md" in first.written
        assert any("first reflect" in n for n in first.notes)
        write(ws, "memory/2026-03-30.md", "# 2026-03-30\n\n## Retain\n- W @Dana: Dana moved to the Graz office.\n")
        second = mem.reflect(now=later)  # incremental now: only Dana has a fact in the last 7 days
        assert second.entities == ["Dana"] and second.since == (later.date() - dt.timedelta(days=7)).isoformat()
        assert not any("first reflect" in n for n in second.notes)
    assert "Graz" in (ws / "bank/entities/Dana.md").read_text()
