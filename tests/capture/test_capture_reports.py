"""How capture reads an agent's report as agents write them (issue 43, keep 7): its headings ("### Root cause"), its
small tables (`file | change`, `phase | time`), a report of several parts, the settled version the person takes
("## Final plan" then "ok, go"); and the noise a person would not keep: how a thing works said in the passive, an
outcome that names nothing, a command line pasted as prose, a report's label read as a name. Hand-written turns."""

from __future__ import annotations

import datetime as dt

from hypothesis import given
from hypothesis import strategies as st

from memlane.capture.digest import digest, draft_turns
from memlane.capture.draft import Drafted
from memlane.capture.outcomes import with_list
from memlane.capture.phrasing import entities
from memlane.capture.prose import TABLE_ROWS, machine_kind, read_prose
from memlane.capture.turns import Turn

DAY = dt.date(2026, 6, 2)


def _t(role: str, content: str, minute: int = 0) -> Turn:
    return Turn(role, content, dt.datetime(2026, 6, 2, 9, minute % 60))


def _drafts(turns: list[Turn]) -> list[Drafted]:
    return draft_turns(turns, DAY, ())


def _worked(agent: str, ask: str = "please do it") -> list[str]:
    """The agent's bullets of a turn written after a tool ran (the agent acted in the person's environment)."""
    turns = [_t("user", ask, 0), _t("tool", "exit status 0", 1), _t("assistant", agent, 2)]
    return [d.draft.content for d in _drafts(turns) if d.speaker == "assistant"]


def _chat(agent: str, ask: str = "how would you do it") -> list[str]:
    """The agent's bullets of a turn written with no tool run since the person's turn (advice, a proposal)."""
    turns = [_t("user", ask, 0), _t("assistant", agent, 1)]
    return [d.draft.content for d in _drafts(turns) if d.speaker == "assistant"]


# --- tables -------------------------------------------------------------------------------------------


TIMINGS = """Done.

**Final timings:**
| Phase | Duration |
|---|---|
| Design discussion | ~18 min |
| Build | ~41 min |
| **Total** | **~59 min** |
"""


def test_a_small_table_in_a_report_after_work_is_the_reports_list() -> None:
    (done,) = _worked(TIMINGS)
    assert "Final timings: Design discussion: ~18 min; Build: ~41 min; Total: ~59 min" in done, done
    changes = "Here's what changed:\n\n| File | Change |\n|---|---|\n| `src/sync.py` | Added a retry on timeouts |\n"
    (done,) = _worked(changes)
    assert "`src/sync.py`: Added a retry on timeouts" in done, done
    # a third column is written with its name
    wider = "Changes made:\n\n| Setting | Before | After |\n|---|---|---|\n| `max_workers` | 4 | 8 |\n"
    assert any("`max_workers`: 4 (After: 8)" in b for b in _worked(wider)), _worked(wider)


def test_a_table_outside_a_report_is_a_reference_not_work_done() -> None:
    # after reading files, a table that compares or explains is no outcome, and with no tool run none is either
    compare = "I read both configs. Here's how they differ:\n\n| Key | Staging | Prod |\n|---|---|---|\n"
    compare += "| `replicas` | 1 | 3 |\n"
    assert _worked(compare) == []
    assert _chat(TIMINGS) == []
    # a table read after work that says what a file now does, under no report: what the agent read, not its work
    notes = "I read the upstream notes.\n\n| File | Upstream change |\n|---|---|\n| `cache.py` | now uses Redis |\n"
    assert _worked(notes) == []
    steps = "Done.\n\n### How to try it\n| Step | Command |\n|---|---|\n| Start the app | `make run` |\n"
    assert _worked(steps) == []


def test_done_in_chinese_opens_the_report_as_done_does() -> None:
    report = "完成。\n\n**耗時:**\n| 階段 | 時間 |\n|---|---|\n| 討論 | ~20 min |\n| 實作 | ~35 min |\n"
    (done,) = _worked(report)
    assert done.startswith("完成。") and "~35 min" in done, done


def test_a_long_table_is_no_report_summary_and_the_line_before_a_table_stays_prose() -> None:
    rows = "".join(f"| `mod{n}.py` | Updated the import |\n" for n in range(TABLE_ROWS + 1))
    prose = read_prose(f"Here is the summary:\n| File | Change |\n|---|---|\n{rows}")
    assert prose.units == ["Here is the summary:"] and prose.marks == [], prose
    prose = read_prose("The results were these:\n| a | b |\n|---|---|\n| `x|y` | 2 |\n")
    assert prose.units == ["The results were these:"], prose
    assert prose.marks[0].rows == (("a", "b"), ("`x|y`", "2")), prose


@given(st.text(alphabet="|-: `ab\n#*1", max_size=300))
def test_every_mark_stands_within_the_turns_units(text: str) -> None:
    prose = read_prose(text)
    assert all(0 <= m.at <= len(prose.units) for m in prose.marks)
    assert all(len(m.rows) <= TABLE_ROWS + 1 for m in prose.marks)
    assert all(bool(m.heading) != bool(m.rows) for m in prose.marks)


# --- headings -----------------------------------------------------------------------------------------


def test_a_heading_says_what_the_sentence_under_it_is() -> None:
    report = "### Root cause\nThe `DEPLOY_KEY` secret had expired in `deploy.yml`.\n"
    assert _worked(report) == ["Root cause: The `DEPLOY_KEY` secret had expired in `deploy.yml`."]
    schema = "### Added migration\n- `priv/repo/migrations/20260101_create_zones.exs`\n"
    assert _worked(schema) == ["Added migration: `priv/repo/migrations/20260101_create_zones.exs`"]
    # a bare "Done." before a heading is not joined to the heading: the sentences under it say what was done
    assert _worked("Done.\n\n### Fixed\n- Removed the broken JSON in `settings.json`.\n") == [
        "Removed the broken JSON in `settings.json`."
    ]
    # with no tool run, the same heading is advice about a guess
    assert _chat(report) == []
    numbered = "### 2. Fixed the race in `worker.py`\nThe lock was released before the queue was drained.\n"
    assert _worked(numbered) == ["Fixed the race in `worker.py`: The lock was released before the queue was drained."]


def test_a_heading_that_opens_steps_keeps_its_list_out() -> None:
    report = (
        "I updated `router.ex` to require a login.\n\n### Usage in a LiveView\n"
        "- Added `on_mount :require_admin` to the admin view\n"
    )
    assert _worked(report) == ["I updated `router.ex` to require a login."]


def test_of_equal_outcomes_a_report_of_several_parts_keeps_one_of_each() -> None:
    report = (
        "### Fixed\n- Fixed the quoting in `backup.sh`.\n- Fixed the cron path in `backup.timer`.\n\n"
        "### Git hygiene\n- Added ignore rules in `.gitignore` for cache folders.\n"
    )
    kept = _worked(report)
    assert kept == ["Fixed the quoting in `backup.sh`.", "Added ignore rules in `.gitignore` for cache folders."], kept


# --- the settled version the person takes --------------------------------------------------------------


PLAN = """Both points taken. Here is where we landed.

## Final plan

| Stage | What it covers |
|---|---|
| **Collect** | pull the export every night |
| **Clean** | drop duplicate rows |
| **Publish** | push the report to the shared drive |

Shall I start?"""


def test_a_settled_version_the_person_takes_is_what_the_two_agreed() -> None:
    turns = [_t("user", "how should the pipeline look", 0), _t("assistant", PLAN, 1), _t("user", "ok go ahead", 2)]
    drafted = _drafts(turns)
    texts = [d.draft.content for d in drafted]
    assert 'User agreed to "Final plan: Collect; Clean; Publish": ok go ahead' in texts, texts
    assert "Decided: Final plan: Collect; Clean; Publish" in digest(turns, drafted), digest(turns, drafted)


def test_no_settled_version_without_a_heading_that_says_so_or_a_yes() -> None:
    plan = PLAN.replace("## Final plan", "## Options")
    turns = [_t("user", "how should the pipeline look", 0), _t("assistant", plan, 1), _t("user", "ok go ahead", 2)]
    assert not any("agreed to" in d.draft.content for d in _drafts(turns))
    for reply in ("ok, but why three stages?", "no, not yet", "let me think about the budget and the team first"):
        turns = [_t("user", "how should the pipeline look", 0), _t("assistant", PLAN, 1), _t("user", reply, 2)]
        assert not any("agreed to" in d.draft.content for d in _drafts(turns)), reply


def test_a_settled_list_that_restates_a_page_is_not_written_and_short_names_are() -> None:
    page = "Hotel Aurora has rooms from 120 euros per night and is rated 4.5 by guests near the station"
    plan = "## Final choice\n- Hotel Aurora has rooms from 120 euros per night and is rated 4.5 by guests\n\nBook it?"
    turns = [_t("user", "find a hotel", 0), _t("tool", page, 1), _t("assistant", plan, 2), _t("user", "yes", 3)]
    assert not any("agreed to" in d.draft.content for d in _drafts(turns))
    names = "Stage names: Collect, Clean and Publish are the ones we use"
    turns = [_t("user", "read my notes on the pipeline", 0), _t("tool", names, 1), _t("assistant", "Read them.", 2)]
    turns += [_t("user", "what would you settle on", 3), _t("assistant", PLAN, 4), _t("user", "ok go ahead", 5)]
    assert any("Final plan: Collect; Clean; Publish" in d.draft.content for d in _drafts(turns))


# --- noise a person would not keep --------------------------------------------------------------------------


def test_how_a_thing_works_in_the_passive_is_no_outcome() -> None:
    assert _worked("The display name gets converted to snake case for the database key.") == []
    assert _worked("The timeout can be set to 30 seconds in the panel.") == []
    assert _worked("Retry limit raised to 5 in `worker.toml`.") == ["Retry limit raised to 5 in `worker.toml`."]


def test_an_outcome_that_names_nothing_it_did_is_not_kept() -> None:
    assert _worked("I have looked into some general market trends for you.") == []
    assert _worked("I finished all the required steps of the migration.") == []
    assert _worked("I have looked into the outage in `api.log` for you.") != []


def test_a_command_line_pasted_as_prose_is_machine_text() -> None:
    assert machine_kind("try ssh -N -L 5432:localhost:5432 deploy@10.0.0.7") == "shell"
    assert machine_kind('mailer push "weekly digest" --list staff --from "ops"') == "shell"
    assert machine_kind("use -v and --force when you run it") is None
    assert machine_kind("OK, this worked: APP_MODE=x11 app-gui") is None
    turns = [_t("user", 'mailer push "weekly digest" --list staff --from "ops"', 0)]
    assert _drafts(turns) == []


def test_a_reports_label_is_no_name_and_a_chinese_full_stop_ends_a_sentence() -> None:
    text = "We finished onboarding with the Billing Account Provisioned: a trial plan for the team"
    assert entities(text, None, {}, {}) == ()
    assert entities("完成。 Deployment status: live", None, {}, {}) == ()
    assert entities("We met Ada Lovelace: she helped", None, {}, {}) == ("Ada Lovelace",)


def test_a_list_item_ending_in_a_link_keeps_the_link_whole() -> None:
    text, _ = with_list("Status:", ["Site: https://demo.example.app/", "Repo: example/demo"], [True, True], 0)
    assert text == "Status: Site: https://demo.example.app/ ; Repo: example/demo"


def test_what_the_agent_noticed_or_wanted_is_no_work_done() -> None:
    assert _worked("I noticed the lockfile in `web/` is older than the manifest.") == []
    assert _worked("I wanted to keep `app.py` small.") == []
    assert _worked("I regenerated the lockfile in `web/` from the manifest.") != []


def test_what_the_person_needs_to_do_asked_of_the_agent_is_no_decision() -> None:
    turns = [_t("user", "Show me what I need to install.", 0)]
    assert _drafts(turns) == []
    turns = [_t("user", "I need the report in Dutch from now on.", 0)]
    assert [d.role for d in _drafts(turns)] != []
