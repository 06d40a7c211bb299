"""Drafting Retain bullets from plain logs: the offline rules, --apply without duplicates, the LLM drafter."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import memlane
from conftest import write
from memlane.facts.retain import parse_retain
from memlane.reflect.extract import draft_log
from memlane.surface.cli import cli
from vendor_server import Fault, VendorServer

DAY = dt.date(2025, 11, 27)
LOG = """# 2025-11-27

## Notes
- Fixed the reconnect crash in warelay; I wrapped the handlers in try/catch.
- Peter prefers concise replies on WhatsApp.
- Dana will review the invoice schema next week.
- I think the new gateway is much faster.
- Maybe the cache could help, not sure.
- What should we do about the invoices?
- ok
- [D1:3] Caroline: I went to a LGBTQ support group yesterday and it was so powerful.
- [D1:4] Melanie: I'm reading "The Lean Startup" these days.
"""


def bullets(text: str = LOG, known: tuple[str, ...] = ("warelay", "Peter", "Dana")) -> dict[str, str]:
    return {d.content: d.bullet() for d in draft_log(text, DAY, known)}


def test_the_offline_rules() -> None:
    got = bullets()
    # a first-person account: experience, about the entity it names
    assert got["Fixed the reconnect crash in warelay; I wrapped the handlers in try/catch."] == (
        "- B @warelay: Fixed the reconnect crash in warelay; I wrapped the handlers in try/catch."
    )
    assert (
        got["Peter prefers concise replies on WhatsApp."]
        == "- O(c=0.75) @Peter: Peter prefers concise replies on WhatsApp."
    )
    assert got["Dana will review the invoice schema next week (2025-12-01..2025-12-07)."] == (
        "- W @Dana: Dana will review the invoice schema next week (2025-12-01..2025-12-07)."
    )  # a plan, with the date it means
    assert got["I think the new gateway is much faster."].startswith("- O(c=0.6)")  # a judgement, hedged
    assert got["Maybe the cache could help, not sure."].startswith("- O(c=0.4)")
    # a speaker's "I" becomes the speaker; relative dates are resolved against the log's day
    assert got["Caroline went to a LGBTQ support group yesterday (2025-11-26) and it was so powerful."].startswith(
        "- B @Caroline:"
    )
    assert got['Melanie is reading "The Lean Startup" these days.'].startswith("- W @Melanie:")
    assert not [c for c in got if c.startswith(("What should", "ok"))]  # questions and fragments are no facts


def test_every_draft_parses_and_nothing_is_drafted_twice() -> None:
    drafts = draft_log(LOG + "- Peter prefers concise replies on WhatsApp.\n", DAY, ["Peter"])
    facts, problems = parse_retain("## Retain\n" + "\n".join(d.bullet() for d in drafts))
    assert problems == [] and len(facts) == len(drafts)
    assert [f.content for f in facts].count("Peter prefers concise replies on WhatsApp.") == 1
    existing = LOG + "\n## Retain\n- O(c=0.9) @Peter: Peter prefers concise replies on WhatsApp.\n"
    again = {d.content for d in draft_log(existing, DAY, ["Peter"])}
    assert "Peter prefers concise replies on WhatsApp." not in again  # the log's own Retain bullet counts


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=80), max_size=20))
def test_any_log_drafts_only_bullets_that_parse(lines: list[str]) -> None:
    drafts = draft_log("\n".join(lines), DAY, ["Peter"])
    facts, problems = parse_retain("## Retain\n" + "\n".join(d.bullet() for d in drafts))
    assert problems == [] and len(facts) == len(drafts)


def test_apply_appends_once_and_indexes(tmp_path: Path) -> None:
    write(tmp_path, "memory/2025-11-27.md", LOG)
    write(tmp_path, "memory/2025-11-28.md", "# 2025-11-28\n\n- Dana approved the invoice schema today.\n")
    now = dt.datetime(2025, 11, 28, 9)
    with memlane.open(tmp_path, provider="none") as mem:
        preview = mem.retain(since="2025-11-27", now=now)
        assert [d.path for d in preview] == ["memory/2025-11-27.md", "memory/2025-11-28.md"]
        assert (tmp_path / "memory/2025-11-27.md").read_text() == LOG  # a preview writes nothing
        done = mem.retain(since="2025-11-27", apply=True, now=now)
        assert all(d.written for d in done if d.drafts)
        text = (tmp_path / "memory/2025-11-27.md").read_text()
        assert text.startswith(LOG) and "\n## Retain\n\n- " in text
        assert "- B: Fixed the reconnect crash in warelay; I wrapped the handlers in try/catch." in text
        assert mem.recall("invoice schema review", k=1, now=now).facts[0].source.startswith("memory/2025-11-27.md#L")
        again = mem.retain(since="2025-11-27", apply=True, now=now)
        assert all(not d.drafts and not d.written for d in again)  # nothing is written twice
        assert (tmp_path / "memory/2025-11-27.md").read_text() == text


def test_retain_is_refused_under_ro_and_the_cli_previews(tmp_path: Path) -> None:
    write(tmp_path, "memory/2025-11-27.md", LOG)
    with (
        memlane.open(tmp_path, provider="none", config={"agents": {"defaults": {"workspaceAccess": "ro"}}}) as mem,
        pytest.raises(memlane.MemlaneError, match="not allowed"),
    ):
        mem.retain(day="2025-11-27", apply=True)
    out = CliRunner().invoke(cli, ["-w", str(tmp_path), "retain", "--day", "2025-11-27", "--json"])
    assert out.exit_code == 0
    [log] = json.loads(out.output)
    assert log["path"] == "memory/2025-11-27.md" and log["written"] is False and log["bullets"]
    assert (tmp_path / "memory/2025-11-27.md").read_text() == LOG
    bad = CliRunner().invoke(cli, ["-w", str(tmp_path), "retain", "--day", "2025-11-27", "--since", "7d"])
    assert bad.exit_code == 2


# -- the LLM drafter, against a local server speaking the chat-completions wire protocol


@pytest.fixture
def server() -> Iterator[VendorServer]:
    srv = VendorServer().start()
    yield srv
    srv.stop()


def llm_config(server: VendorServer, **llm: Any) -> dict[str, Any]:
    return {
        "agents": {
            "defaults": {"llm": {"baseUrl": f"{server.url}/v1", "apiKey": "sk-llm-SECRET", "model": "m-1", **llm}}
        }
    }


def test_llm_drafts_are_parsed_and_invalid_lines_dropped(tmp_path: Path, server: VendorServer) -> None:
    write(tmp_path, "memory/2025-11-27.md", LOG)
    server.state.chat_replies.append(
        "Here are the bullets:\n"
        "- W @Peter: Peter prefers concise replies on WhatsApp, per the log of 2025-11-27.\n"
        "- O(c=1.7) @Peter: an impossible confidence, dropped\n"
        "- B @warelay: I fixed the reconnect crash in warelay.\n"
        "- Q: not a kind, dropped\n"
    )
    with memlane.open(tmp_path, provider="none", config=llm_config(server)) as mem:
        [log] = mem.retain(day="2025-11-27", llm=True, apply=True)
    assert [d.bullet() for d in log.drafts] == [
        "- W @Peter: Peter prefers concise replies on WhatsApp, per the log of 2025-11-27.",
        "- B @warelay: I fixed the reconnect crash in warelay.",
    ]
    [request] = [r for r in server.state.requests if r.kind == "chat.completions"]
    assert request.headers["authorization"] == "Bearer sk-llm-SECRET" and request.body["model"] == "m-1"
    assert (
        request.body["messages"][0]["role"] == "system" and "Day: 2025-11-27" in request.body["messages"][1]["content"]
    )
    assert "I went to a LGBTQ support group" in request.body["messages"][1]["content"]
    assert "- B @warelay: I fixed the reconnect crash in warelay." in (tmp_path / "memory/2025-11-27.md").read_text()


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        (Fault("chat.completions", status=401), "HTTP 401"),
        (Fault("chat.completions", body="<html>oops</html>"), "not valid JSON"),
        (Fault("chat.completions", body='{"choices": []}'), r"no choices\[0\]\.message\.content"),
        (Fault("chat.completions", body='{"choices": [{"message": {"content": 7}}]}'), "not text"),
    ],
)
def test_llm_errors_are_clear_and_write_nothing(
    tmp_path: Path, server: VendorServer, fault: Fault, message: str
) -> None:
    write(tmp_path, "memory/2025-11-27.md", LOG)
    server.state.faults.append(fault)
    with memlane.open(tmp_path, provider="none", config=llm_config(server)) as mem:
        with pytest.raises(memlane.ProviderError, match=message) as err:
            mem.retain(day="2025-11-27", llm=True, apply=True)
        assert "SECRET" not in str(err.value)
    assert (tmp_path / "memory/2025-11-27.md").read_text() == LOG


def test_llm_retries_a_server_error_and_needs_a_key(tmp_path: Path, server: VendorServer) -> None:
    write(tmp_path, "memory/2025-11-27.md", LOG)
    server.state.faults.append(Fault("chat.completions", status=503))
    server.state.chat_replies.append("- W @Dana: Dana will review the invoice schema in December 2025.")
    with memlane.open(tmp_path, provider="none", config=llm_config(server)) as mem:
        [log] = mem.retain(day="2025-11-27", llm=True)
    assert [d.content for d in log.drafts] == ["Dana will review the invoice schema in December 2025."]
    assert server.state.count("chat.completions") == 2
    with memlane.open(tmp_path, provider="none") as mem, pytest.raises(memlane.ProviderError, match="no API key"):
        mem.retain(day="2025-11-27", llm=True)
