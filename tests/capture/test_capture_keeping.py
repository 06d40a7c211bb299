"""What capture keeps within its budget (issues 43, 44): a changed value, a prohibition, a statement asked inside a
question, a setting the person names, the agent's outcomes that say what; and what it leaves, the chat with the agent
about itself. Hand-written turns, one rule per test."""

from __future__ import annotations

import datetime as dt
import re

from hypothesis import example, given
from hypothesis import strategies as st

from memlane.capture.digest import digest, draft_turns
from memlane.capture.draft import Drafted
from memlane.capture.options import FOR_WORDS, WHAT_WORDS, purpose
from memlane.capture.phrasing import straight
from memlane.capture.prose import read_prose
from memlane.capture.turns import Turn

DAY = dt.date(2026, 6, 2)


def _t(role: str, content: str, minute: int = 0) -> Turn:
    return Turn(role, content, dt.datetime(2026, 6, 2, 9, minute % 60))


# A tool run: the agent acted in the person's environment (in a chat with none, only "I/we <did>" reports work)
TOOL = _t("tool", "exit status 0")


def _drafts(turns: list[Turn]) -> list[Drafted]:
    return draft_turns(turns, DAY, ())


def _texts(turns: list[Turn]) -> list[str]:
    return [d.draft.content for d in _drafts(turns)]


FILLER = [
    "I walked the dog around the lake with Rosa before lunch",
    "I watched a documentary about Iceland with Tomas last night",
    "I cooked a curry for Priya and her brother on Sunday",
    "I repainted the fence with Marco over the long weekend",
    "I visited the flea market in Ghent with Annelies",
    "I finished the puzzle that Oskar gave me for my birthday",
    "I drove to the coast with Helga to see the storm",
    "I fixed the bike chain with help from Ruben",
    "I baked bread with Ingrid using her grandmother's recipe",
    "I planted tomatoes with Lucia in the back garden",
    "I cleaned the garage with Pieter and found old photos",
    "I played chess with Dmitri at the cafe on the corner",
    "I went swimming with Carla at the public pool",
    "I read a novel by Haruki on the train to work",
    "I hiked up the hill behind the house with Femke",
    "I sorted the spice rack with Yusuf after dinner",
    "I tried the new bakery on Main Street with Lotte",
    "I helped Sven carry his sofa up three flights of stairs",
]


def test_a_changed_value_is_kept_before_the_persons_other_statements() -> None:
    turns = [_t("user", f"{s}.", k) for k, s in enumerate(FILLER)]
    turns.insert(12, _t("user", "The weekly standup was moved to 9:15 on Tuesdays.", 30))
    texts = _texts(turns)
    assert len(texts) < len(turns)  # the budget chose
    assert any("moved to 9:15" in t for t in texts), texts


def test_a_statement_inside_a_question_is_a_statement() -> None:
    turns = [
        _t("user", "My reading list has now reached 14 novels, can you suggest the order to read them in?"),
        _t("user", "How do I sort a list in place?", 1),
    ]
    texts = _texts(turns)
    assert any("14 novels" in t and "suggest" not in t for t in texts), texts
    assert not any("sort a list" in t for t in texts), texts


def test_a_relative_clause_is_part_of_the_statement_and_a_yes_no_question_is_not() -> None:
    turns = [
        _t("user", "I spent $61 on plants in May, which is $11 over my $50 garden budget, could you suggest cuts?"),
        _t("user", "I've been running since June 3 and finished 4 races by now, is this a good pace for me?", 1),
    ]
    texts = _texts(turns)
    assert any("$50 garden budget" in t and "suggest" not in t for t in texts), texts
    assert any("4 races" in t and "good pace" not in t for t in texts), texts


def test_wanting_to_make_sure_is_a_wish_not_an_instruction_for_the_future() -> None:
    drafted = _drafts([_t("user", "I want to make sure the landing page loads fast on phones.")])
    assert drafted and all(d.role != "remember" for d in drafted), [(d.draft.content, d.role) for d in drafted]
    told = _drafts([_t("user", "Please make sure every page has a skip link from now on.")])
    assert [d.role for d in told] == ["remember"], told


def test_a_prohibition_is_an_instruction_that_binds_later_work() -> None:
    drafted = _drafts([_t("user", "Reorder the sections by topic. DO NOT touch the wording of each section.")])
    kept = [d for d in drafted if "DO NOT touch the wording" in d.draft.content]
    assert kept and kept[0].role == "remember", [(d.draft.content, d.role) for d in drafted]
    assert not _texts([_t("user", "Don't worry about it at all, really.")])


def test_a_reminder_the_person_asks_for_is_an_instruction() -> None:
    drafted = _drafts([_t("user", "Remind me on Friday at 5pm that the plumber comes about the boiler.")])
    assert [d.role for d in drafted] == ["remember"], drafted


def test_an_imperative_that_names_a_setting_is_the_persons_decision() -> None:
    drafted = _drafts([_t("user", "If the board has two fan headers, name them FanA and FanB in the editor.")])
    assert [d.role for d in drafted] == ["decided"], [(d.draft.content, d.role, d.score) for d in drafted]
    assert not _texts([_t("user", "give me the homebrew command")])


def test_chat_with_the_agent_about_itself_is_not_a_fact() -> None:
    turns = [
        _t("user", "I ran your command and it printed nothing at all."),
        _t("user", "I run Fedora 40 on my desktop at home.", 1),
        _t("assistant", "Want me to check the service logs next?", 2),
        _t("user", "ive ran it, now ur turn", 3),
        _t("assistant", "Should I try the install again?", 4),
        _t("user", "Test", 5),
        _t("assistant", "It failed with a timeout. Want me to run it once more?", 6),
        _t("user", "go ahead, try one more", 7),
    ]
    turns += [
        _t("assistant", "I can add themes for Kitty and Helix too. Do you use them?", 8),
        _t("user", "yes i use them both", 9),
    ]
    texts = _texts(turns)
    assert any("Kitty and Helix" in t and t.endswith("yes i use them both") for t in texts), texts
    assert any("Fedora 40" in t for t in texts), texts
    assert not any("your command" in t or "ur turn" in t or "Test" in t or "one more" in t for t in texts), texts


def test_the_agents_outcome_that_says_what_is_kept_before_one_that_does_not() -> None:
    report = (
        "I implemented everything you asked and committed it. Updated the docs as well. "
        "Added `retry_limit = 5` to `config.toml`."
    )
    texts = _texts([_t("user", "add a retry limit please"), TOOL, _t("assistant", report, 1)])
    assert any("`retry_limit = 5`" in t for t in texts), texts
    assert not any("Updated the docs as well" in t for t in texts), texts


def test_an_outcome_whose_only_capital_is_its_first_word_says_no_what() -> None:
    report = "Implemented the requested changes and committed. Updated the helper so retries wait 30 seconds."
    drafted = _drafts([_t("user", "go on"), TOOL, _t("assistant", report, 1)])
    scores = {d.draft.content.split()[0]: d.score for d in drafted}
    assert scores.get("Updated", 0) > scores.get("Implemented", 0), scores


def test_a_reports_passive_line_is_an_outcome() -> None:
    texts = _texts(
        [_t("user", "make the sync retry more"), TOOL, _t("assistant", "Retry limit raised to 7 for the sync job.", 1)]
    )
    assert any("raised to 7" in t for t in texts), texts


def test_a_finding_about_the_persons_setup_is_kept_and_flattery_is_not() -> None:
    turns = [
        _t("user", "check the lint setup"),
        TOOL,
        _t("assistant", "The strict null rule is not enabled in your tsconfig for the web package.", 1),
        _t("assistant", "It shows that your approach to testing is really thoughtful and mature.", 2),
    ]
    texts = _texts(turns)
    assert any("strict null rule" in t for t in texts), texts
    assert not any("thoughtful" in t for t in texts), texts


def test_markdown_emphasis_in_a_line_is_prose_not_code() -> None:
    units = read_prose("Timing of the run:\n\n- Setup: **4 min**\n- Tests: **11 min**\n- **Total: 15 min**").units
    assert any("Total: 15 min" in u for u in units), units


def test_a_short_instruction_keeps_the_sentence_it_points_back_to() -> None:
    drafted = _drafts([_t("user", "In the glossary, sort the entries alphabetically. Do not edit the definitions.")])
    told = [d.draft.content for d in drafted if d.role == "remember"]
    assert told and "sort the entries alphabetically. Do not edit the definitions." in told[0], told


def test_a_short_question_of_the_agent_keeps_the_sentence_before_it() -> None:
    turns = [
        _t("user", "suggest a name for the boat"),
        _t("assistant", "How about calling the boat Harbour Light? What do you think?", 1),
        _t("user", "I like Harbour Light", 2),
    ]
    texts = _texts(turns)
    assert any("calling the boat Harbour Light" in t and t.endswith("I like Harbour Light") for t in texts), texts


def test_what_the_person_does_as_a_habit_is_kept() -> None:
    texts = _texts(
        [_t("user", f"{s}.", k) for k, s in enumerate(FILLER[:4])]
        + [_t("user", "We release the mobile app from the stable branch every second Tuesday.", 9)]
    )
    assert any("every second Tuesday" in t for t in texts), texts


def test_a_notebook_traceback_is_machine_text_with_its_numbered_source_lines() -> None:
    """IPython prints a traceback as "KeyError   Traceback (most recent call last)", "Cell In[3], line 12" and the
    cell's numbered lines; a chat export keeps it unfenced. It was drafted as one long fact of code and numbers."""
    pasted = (
        "the notebook stopped here\r\n\r\n"
        "KeyError                                  Traceback (most recent call last)\r\n"
        "Cell In[3], line 12\r\n"
        "     10 totals = {}\r\n"
        "     11 for row in rows:\r\n"
        "---> 12     totals[row['shop']] += row['sum']\r\n"
        "     14 # print the totals per shop\r\n\r\n"
        "KeyError: 'shop'"
    )
    prose = read_prose(pasted)
    assert prose.units == ["the notebook stopped here"], prose.units
    assert prose.error == "KeyError: 'shop'" and "stack" in prose.dropped
    # numbered lines without a trace around them are the person's list, as before
    assert read_prose("What I counted:\n3 cats came home (two black)\n4 dogs stayed out").units == [
        "What I counted: 3 cats came home (two black) 4 dogs stayed out"
    ]


def test_a_bare_done_followed_by_what_the_person_is_to_do_is_no_outcome() -> None:
    """A bare "Done." then "Reload the terminal to see it." says nothing of what was done: no bullet (it ranked
    second in an owner's context, above the answer). A "Done." followed by what was done is still one."""
    texts = _texts(
        [
            _t("user", "Can you switch the terminal font to Hack?"),
            TOOL,
            _t("assistant", "Done. Reload Kitty to see it.", 1),
            _t("user", "And make the tab bar smaller."),
            TOOL,
            _t("assistant", "Done. Set tab_bar_min_tabs to 2 in `kitty.conf`.", 3),
        ]
    )
    assert not any("Reload" in t for t in texts), texts
    assert any("tab_bar_min_tabs" in t for t in texts), texts


# --- the agent's outcomes --------------------------------------------------------------------------


def test_a_reports_item_in_the_present_tense_is_an_outcome() -> None:
    turn = _t(
        "assistant",
        "Finished the export work.\n\nWhat I changed:\n\n- Intro text for the landing page\n"
        "- Exporter: writes `invoices.csv` with one row per invoice\n",
    )
    drafts = _drafts([_t("user", "please make the invoice export", 0), turn])
    assert any("writes `invoices.csv`" in d.draft.content and d.role == "done" for d in drafts), drafts


def test_the_steps_the_person_is_to_take_are_no_outcome() -> None:
    turn = _t(
        "assistant",
        "The app is private, so reviewers cannot open it.\n\nTo fix it in the dashboard:\n\n"
        "- Set `Visibility` to Public for the Harbor app\n- Save and reload\n",
    )
    drafts = _drafts([_t("user", "the link does not open for my team", 0), turn])
    assert not any(d.speaker == "assistant" for d in drafts), drafts


def test_a_request_for_work_now_is_no_fact_of_the_person() -> None:
    turns = [
        _t("user", "Then go through our PDL definitions and find settings for each of the tab panels.", 0),
        _t("user", "okay now lets take a look at the status bar, it looks ugly", 1),
    ]
    assert _texts(turns) == []


def test_over_the_budget_a_later_outcome_wins_a_tie() -> None:
    turns = []
    for k in range(40):
        turns.append(_t("user", "next one", 2 * k))
        turns.append(TOOL)
        turns.append(_t("assistant", f"Added `step_{k}.py` to the pipeline folder.", 2 * k + 1))
    texts = _texts(turns)
    assert len(texts) < 40  # the budget chose
    assert any("step_39.py" in t for t in texts) and not any("step_0.py" in t for t in texts), texts


def test_a_want_that_asks_for_help_now_is_no_decision() -> None:
    u = "I want to make sure my layout is responsive and works well on phones."
    turns = [_t("user", u)]
    drafts = draft_turns(turns, DAY, ())
    assert drafts and not any(line.startswith("Decided") for line in digest(turns, drafts)), drafts  # kept, undecided
    decided = [_t("user", "I want the header to be 64px tall on every page.")]
    assert any(line.startswith("Decided") for line in digest(decided, draft_turns(decided, DAY, ())))


def test_being_unsure_how_to_do_something_is_a_doubt_and_a_fact_beside_a_doubt_is_not() -> None:
    from memlane.capture.asking import UNSURE

    for u in (
        "However, I'm not sure what other optimizations I can make to the search page.",
        "But I'm still not sure how to make the navbar collapse on small screens.",
        "I don't know how to configure the retention of the logs on my server.",
    ):
        assert UNSURE.match(u), u
    for u in (  # a fact said beside a doubt, or a doubt after the fact
        "I'm having trouble getting my Raspberry Pi 4 to see the Zigbee dongle.",
        "I don't understand German, so I use DeepL at work.",
        "I'm not sure yet, but I'm leaning towards the Sony camera.",
        "Although I'm not sure how to configure Caddy, I host my blog on a small VPS.",
    ):
        assert not UNSURE.match(u), u
    plain, however = (
        [d.score for d in draft_turns([_t("user", u)], DAY, ())]
        for u in ("my build is slow on the old laptop.", "However, my build is slow on the old laptop.")
    )
    assert plain == however  # a capitalised connective names no one: no bonus for a name


def test_a_wish_is_no_decision_and_a_need_to_make_sure_is_one() -> None:
    wish = [_t("user", "I'd love pizza tonight with my sister.")]
    assert not any(line.startswith("Decided") for line in digest(wish, draft_turns(wish, DAY, ())))
    rule = [_t("user", "I need to make sure the backups run every night at 2am.")]
    assert any(line.startswith("Decided") for line in digest(rule, draft_turns(rule, DAY, ())))


def test_a_want_inside_the_work_at_hand_or_a_doubt_is_no_decision() -> None:
    for u in (
        "I'm trying to clean the raw CSV export of the shop, and I need to remove duplicates and nulls.",
        "But I'm not sure if this is the best approach, or if I should use a separate table for ratings.",
    ):
        turns = [_t("user", u)]
        assert not any(line.startswith("Decided") for line in digest(turns, draft_turns(turns, DAY, ()))), u
    made = [_t("user", "I'm trying to keep it simple, so we decided to use SQLite for the shop.")]
    assert any(line.startswith("Decided") for line in digest(made, draft_turns(made, DAY, ())))


# --- the person's chatter --------------------------------------------------------------------------


def test_like_as_a_preposition_is_no_opinion() -> None:
    assert _texts([_t("user", "the new lock screen worked like a charm")]) == []
    assert any("really like the amber" in t for t in _texts([_t("user", "I really like the amber accent colour")]))


def test_a_reply_that_only_wants_more_of_the_same_is_no_fact() -> None:
    for reply in ("I would like to see more", "yes all of them please"):
        turns = [_t("assistant", "Here are three fonts. Which do you like, or want to see more?", 0), _t("user", reply)]
        assert _texts(turns) == [], reply


def test_a_question_the_agent_answered_itself_is_not_what_a_short_reply_answers() -> None:
    agent = (
        "Should the bots count toward a score? In principle yes. In practice the signal is weak. "
        "Most bot changes are tiny. The one step left is to deploy the dashboard. "
        "Paste the deployed link here when it is up."
    )
    turns = [_t("assistant", agent, 0), _t("user", "https://dash.example.org/impact", 1)]
    assert _texts(turns) == ["User shared https://dash.example.org/impact"]


def test_a_short_reply_answers_a_question_followed_by_its_options() -> None:
    agent = (
        "The lock screen starts after 3 minutes. What would you like it to be? For example:\n\n- 5\n- 10\n- 20\n- 30\n"
    )
    turns = [_t("assistant", agent, 0), _t("user", "20 minutes", 1)]
    assert any("What would you like it to be?" in t and t.endswith("20 minutes") for t in _texts(turns)), _texts(turns)


def test_trying_a_named_thing_is_a_choice_and_taking_a_look_is_not() -> None:
    drafts = _drafts([_t("user", "lets try the amber theme", 0), _t("user", "okay now lets take a look at the bar", 1)])
    assert [(d.draft.content, d.role) for d in drafts] == [("lets try the amber theme", "decided")]


def test_a_statement_that_opens_with_a_word_spelled_like_a_request_is_kept() -> None:
    update = "Update: my sister moved back to town and lives near the station now."
    heard = "Also read that our landlord is selling the building next spring."
    texts = _texts([_t("user", update), _t("user", heard, 2)])
    assert any("sister moved back to town" in t for t in texts) and any("landlord is selling" in t for t in texts)
    assert _texts([_t("user", "Update the README with the new port.")]) == []


def test_the_session_going_on_is_no_fact_and_a_must_not_is_a_decision() -> None:
    assert _texts([_t("user", "Continue with Phase 4.")]) == []
    assert _texts([_t("user", "ok proceed with step 3")]) == []
    assert _texts([_t("user", "Continue using Postgres 17 for the reporting API.")]) != []
    (ruled,) = _drafts([_t("user", "The dashboard should not use any charting library like D3 or Chart.js.")])
    assert ruled.score >= 0.8 and "should not use any charting library" in ruled.draft.content
    told = _drafts([_t("user", "You shouldn't have deleted the old migration files in db/old.")])
    assert all(d.score < 0.8 for d in told)  # about the chat with the agent, not a rule


# --- how agents report finished work (issue 43, round 4) ---------------------------------------------


def _worked(agent: str, ask: str = "please do it") -> list[Drafted]:
    """The agent's drafts of a turn written after a tool ran (the agent acted in the person's environment)."""
    turns = [_t("user", ask, 0), _t("tool", "ok", 1), _t("assistant", agent, 2)]
    return [d for d in _drafts(turns) if d.speaker == "assistant"]


def test_a_list_introduced_as_what_changed_is_a_report_and_how_to_is_not() -> None:
    (done,) = _worked(
        "Done! Here's what changed:\n\n- **Tab bar** — active tab is now bold\n- **Clock** — shows the date\n"
    )
    assert "Here's what changed" in done.draft.content and "Tab bar" in done.draft.content, done
    assert "**" not in done.draft.content
    assert _worked("Here's how to set it up:\n\n- Add `--dry-run` to the command\n- Update the README\n") == []


def test_what_the_person_now_sees_after_the_agents_work_is_an_outcome() -> None:
    agent = "Done! You should now see:\n\n- **Floating bar** with rounded corners\n- **Pill backgrounds** on modules\n"
    assert any("Floating bar" in d.draft.content for d in _worked(agent)), _worked(agent)
    chat = [_t("user", "how would it look", 0), _t("assistant", agent, 1)]  # no tool ran: nothing was done
    assert not any(d.speaker == "assistant" for d in _drafts(chat))


def test_a_state_the_agents_work_left_is_an_outcome_and_a_claim_about_the_world_is_not() -> None:
    assert any("now has a `┌─┐` border" in d.draft.content for d in _worked("Each month now has a `┌─┐` border."))
    news = "Python 3.13 is now the default interpreter in Fedora 41."
    assert not any(d.speaker == "assistant" for d in _drafts([_t("user", "what is new", 0), _t("assistant", news, 1)]))
    page = "Fedora 41 ships Python 3.13 as the default interpreter for the whole distribution"
    turns = [_t("user", "what is new", 0), _t("tool", page, 1), _t("assistant", news, 2)]
    assert not any(d.speaker == "assistant" for d in _drafts(turns))  # it restates the page it read


def test_a_cause_found_after_work_is_a_finding_and_a_cause_in_the_news_is_not() -> None:
    (root,) = _worked("**Root cause:** the cron job ran as root, so `~/.cache` pointed to `/root/.cache`.")
    assert root.role == "found" and root.draft.content.startswith("Root cause:"), root
    (failed,) = _worked("It was failing because the `GITHUB_TOKEN` secret had expired.")
    assert failed.role == "found", failed
    assert _worked("It is causing alarm among governments due to its potential to outpace defenders.") == []


def test_a_commit_message_item_in_a_report_is_an_outcome_and_under_next_steps_is_not() -> None:
    report = "What I changed\n\n- `src/app.py`: add retry wrapper (3 attempts, 500 ms backoff)\n"
    assert any("add retry wrapper" in d.draft.content for d in _worked(report)), _worked(report)
    later = "Tests pass.\n\nNext improvements (optional)\n- Add a `toolheads` model for IDEX printers\n"
    assert not any("toolheads" in d.draft.content for d in _worked(later)), _worked(later)


def test_the_agents_recap_of_what_the_two_agreed_is_kept() -> None:
    turns = [
        _t("user", "ok postgres then", 0),
        _t("assistant", "Agreed — Postgres 16 for production, SQLite for tests.", 1),
    ]
    assert any("Postgres 16" in d.draft.content for d in _drafts(turns) if d.speaker == "assistant")
    assert _worked("I went with `httpx` over `requests` for the client.")[0].draft.content.startswith("I went with")


def test_one_report_said_twice_is_kept_once_and_a_changed_value_twice() -> None:
    turns = [
        _t("user", "add the filaments tab", 0),
        TOOL,
        _t("assistant", "Added a Filaments tab with presets for `PLA` and `PETG` to the GUI editor.", 1),
        _t("user", "and tests", 2),
        _t("assistant", "Done — added a Filaments tab with presets for `PLA` and `PETG` to the editor.", 3),
        _t("user", "raise the retries", 4),
        _t("assistant", "Retry limit raised to 5 for the sync job in `sync.toml`.", 5),
        _t("user", "more", 6),
        _t("assistant", "Retry limit raised to 7 for the sync job in `sync.toml`.", 7),
    ]
    texts = [d.draft.content for d in _drafts(turns) if d.speaker == "assistant"]
    assert sum("Filaments tab" in t for t in texts) == 1, texts
    assert any("raised to 5" in t for t in texts) and any("raised to 7" in t for t in texts), texts


def test_a_heading_with_an_aside_in_brackets_is_prose_and_a_call_is_code() -> None:
    assert read_prose("Next improvements (optional)\n- Add a model\n").units[0] == "Next improvements (optional)"
    assert read_prose("print(x) (y) = z(1)\n").units == []


# --- what the person has always or never done, and their own plans ------------------------------------


def test_what_someone_has_always_or_never_done_is_their_fact_not_a_rule_for_later() -> None:
    (never,) = _drafts([_t("user", "I've never attended a painting workshop before.")])
    assert never.score >= 0.9 and never.role == "", (
        never
    )  # ranked just under a rule: a later "I attended" contradicts it
    (drawn,) = _drafts([_t("user", "I've always been drawn to warm colours for the living room walls.")])
    assert 0.9 <= drawn.score < 0.95 and drawn.role == "", drawn
    assert all(d.score < 0.9 for d in _drafts([_t("user", "I ran the build twice but I never saw the window open.")]))
    (plan,) = _drafts([_t("user", "That is a good idea, and I'll make sure to leave room for a reading chair.")])
    assert plan.score < 0.95 and plan.role == "", plan  # the person's plan, kept as theirs, not a "Remember"
    for rule in ("Always run the tests before you push.", "Make sure the backups run nightly.",
                 "Never commit secrets to the repo."):  # fmt: skip
        (kept,) = _drafts([_t("user", rule)])
        assert kept.score >= 0.95 and kept.role == "remember", rule


def test_what_the_person_did_with_a_value_outranks_how_they_feel() -> None:
    turns = [_t("user", "By the way, I just finished my 5th project since starting painting classes.", 0)]
    feelings = ["bright colours", "a big canvas", "the new brushes", "charcoal", "the studio corner", "acrylic paint",
                "a limited palette", "abstract shapes", "the easel"]  # fmt: skip
    turns += [_t("user", f"I'm excited to start working with {f} this week.", k + 1) for k, f in enumerate(feelings)]
    texts = _texts(turns)
    assert len(texts) < len(turns)  # the budget chose
    assert any("5th project" in t for t in texts), texts


def test_a_plan_the_host_says_it_applied_is_work_done() -> None:
    """Aider: "I will update `NOTES.md`: ..." then the edit block, then its own line "Applied edit to NOTES.md"."""
    plan = "I will update `NOTES.md` to match your editor setup:\n\n1. State that tabs are 4 columns wide\n"
    applied = [_t("user", "fix my notes", 0), _t("assistant", plan, 1), _t("tool", "Applied edit to docs\\NOTES.md", 2)]
    (done,) = [d for d in _drafts(applied) if d.speaker == "assistant"]
    assert (
        done.draft.content.startswith("Applied edit to NOTES.md: I will update") and "4 columns" in done.draft.content
    )
    failed = [_t("user", "fix my notes", 0), _t("assistant", plan, 1), _t("tool", "Read-only file docs\\NOTES.md", 2)]
    assert not any(d.speaker == "assistant" for d in _drafts(failed))  # only planned: nothing was done


def test_typographic_apostrophes_read_as_plain_ones() -> None:
    """Codex and phone keyboards write "I’ve" and "I’m": the rules read them as "I've" and "I'm"."""
    turns = [
        _t("user", "I’m on Fedora 40 with KDE Plasma on the desktop.", 0),
        _t("tool", "ok", 1),
        _t("assistant", "I’ve fixed the launcher so it sets `QT_QPA_PLATFORM=xcb` first.", 2),
    ]
    drafts = _drafts(turns)
    assert any("Fedora 40" in d.draft.content and d.score >= 0.7 for d in drafts), drafts
    assert any("`QT_QPA_PLATFORM=xcb`" in d.draft.content and d.role == "done" for d in drafts), drafts


@given(st.text(alphabet="ab ’‘`'\n", max_size=60))
def test_straight_apostrophes_change_nothing_else_and_never_a_code_span(text: str) -> None:
    out = straight(text)
    assert len(out) == len(text)
    assert all(a == b or (a in "’‘" and b == "'") for a, b in zip(text, out, strict=True))
    for span in re.findall(r"`[^`\n]{0,300}`", text):
        assert span in out


def test_an_acknowledgement_before_the_report_does_not_hide_it() -> None:
    for said in ("You were right — I refactored the form but missed `set_defaults`, which still read `g_start`.",
                 "Good call — I've decluttered the tabs and added the `Aux` list editor."):  # fmt: skip
        assert any(d.role == "done" for d in _worked(said)), said


def test_a_long_exchange_of_applied_edits_stays_linear() -> None:
    """Each tool turn of an exchange is read once for the host's "Applied edit to X" lines, however many agent turns
    come before the person's next turn (a ratio: a loaded machine slows both)."""
    import time

    def seconds(n: int) -> float:
        turns = [_t("user", "go", 0)]
        for k in range(300 * n):
            turns.append(_t("assistant", f"I will update `f{k}.md`:\n\n1. Add rule {k}\n", 1))
            turns.append(_t("tool", "x " * 2000 + f"\nApplied edit to f{k}.md", 2))
        started = time.perf_counter()
        draft_turns(turns, DAY, ())
        return time.perf_counter() - started

    seconds(1)  # warm up
    small = min(seconds(1) for _ in range(3))
    large = min(seconds(4) for _ in range(3))
    assert large < 8 * max(small, 0.01), (small, large)


def test_the_persons_line_that_introduces_a_list_is_written_with_the_list_and_never_alone() -> None:
    texts = _texts(
        [
            _t(
                "user",
                "These public IDs should have the following requirements:\n\n"
                "1. Make them 16 bytes of entropy.\n"
                "2. Skip ambiguous characters like o and 0.\n",
            ),
            _t("assistant", "Understood.", 1),
            _t("user", "Alter the user resource to:\n\n```elixir\nattribute :version, :integer\n```\n", 2),
        ]
    )
    joined = [t for t in texts if "requirements" in t]
    assert len(joined) == 1 and "16 bytes of entropy" in joined[0] and "ambiguous characters" in joined[0], texts
    assert not any(t.rstrip().endswith(":") for t in texts), texts  # no heading whose content was left out


def test_a_title_before_a_name_ends_no_sentence() -> None:
    units = read_prose("I've started seeing Dr. Farah every Tuesday. Mrs. Lee agreed. We met at St. Mary's.").units
    assert units == ["I've started seeing Dr. Farah every Tuesday.", "Mrs. Lee agreed.", "We met at St. Mary's."]


def test_what_a_page_says_is_no_work_done_and_a_chat_answer_no_report() -> None:
    page = "React Compiler 1.0 released. The compiler is stable. Read the release notes on the React blog."
    texts = _texts(
        [
            _t("user", "Is the React compiler stable yet?"),
            _t("tool", page, 1),
            _t("assistant", "React's new compiler is now stable and ships with version 1.0 of its toolchain.", 2),
            _t("user", "What changed in Python 3.13?", 3),
            _t(
                "assistant",
                "Here's what changed in Python 3.13:\n\n- Added an experimental free-threaded build\n"
                "- Removed the `cgi` and `crypt` modules\n",
                4,
            ),
        ]
    )
    assert not any("compiler" in t or "Python 3.13" in t or "free-threaded" in t for t in texts), texts


def test_review_six_outcomes_and_rules() -> None:
    texts = _texts(
        [
            _t("user", "Let's always run the full test suite before pushing to main."),
            _t("user", "Cron job please", 1),
            _t("tool", "crontab updated", 2),
            _t("assistant", "Fixed the cron entry in `backup.sh`, so it'll run nightly at 02:00.", 3),
            _t("user", "and the retry loop?", 4),
            _t("tool", "patched", 5),
            _t("assistant", "Added the retry loop to `fetch()` in the client module.", 6),
            _t("user", "no, take it out", 7),
            _t("tool", "patched", 8),
            _t("assistant", "Removed the retry loop from `fetch()` in the client module.", 9),
            _t("assistant", "Cause and effect is hard to untangle in observational studies of `coffee` intake.", 10),
        ]
    )
    drafts = _drafts([_t("user", "Let's always run the full test suite before pushing to main.")])
    assert drafts and drafts[0].role == "remember", drafts  # "let's always" is a rule, not "it's always"
    assert any("so it'll run nightly" in t for t in texts), texts  # a consequence of the fix, not a plan
    assert any(t.startswith("Added the retry loop") for t in texts), texts
    assert any(t.startswith("Removed the retry loop") for t in texts), texts  # the opposite act: no restatement
    assert not any("observational" in t for t in texts), texts  # a bare "Cause" opens no finding


def test_advice_and_a_hypothetical_are_no_agreement_and_a_plan_names_its_file_whole() -> None:
    texts = _texts(
        [
            _t("user", "disk keeps filling up", 0),
            _t("assistant", "Deal with `ENOSPC` by pruning old images with `docker system prune -af` every night.", 1),
            _t("user", "and the database?", 2),
            _t("assistant", "If we decided to use Postgres 16, the `pg_hba.conf` file needs a new line.", 3),
            _t("user", "ok, ruff it is", 4),
            _t("assistant", "So we settled on `ruff` for linting and formatting.", 5),
        ]
    )
    assert not any("ENOSPC" in t or "pg_hba" in t for t in texts), texts
    assert any("settled on `ruff`" in t for t in texts), texts
    plan = "I will update `data.py` to read the cache first:\n\n1. Load `cache.json` before the fetch\n"
    other = [_t("user", "speed it up", 0), _t("assistant", plan, 1), _t("tool", "Applied edit to a.py", 2)]
    assert not any(d.speaker == "assistant" for d in _drafts(other))  # a.py was edited, not data.py


def test_an_order_for_the_work_at_hand_is_no_rule_for_later() -> None:
    texts = _texts(
        [
            _t("user", "Don't make any changes yet.", 0),
            _t("assistant", "Understood, only the plan.", 1),
            _t("user", "Execute on this plan.", 2),
            _t("user", "Apply those changes, no need to draft first.", 3),
            _t("user", "Never push to main without a review.", 4),
            _t("user", "Remember that the staging database is not ready yet.", 5),
            _t("user", "Check the Klipper config.", 6),
        ]
    )
    assert not any("changes yet" in t or "Execute" in t or "Apply those" in t for t in texts), texts
    assert any("Never push to main" in t for t in texts), texts  # a standing rule stays one
    assert any("staging database" in t for t in texts), texts  # "remember ... yet" is still to be remembered
    assert any("Klipper" in t for t in texts), texts  # a work order that names something keeps its bonus


def test_a_suggestion_the_person_confirms_is_what_the_two_agreed_and_a_guess_alone_is_no_finding() -> None:
    turns = [
        _t("user", "the text in my terminal looks cramped", 0),
        _t(
            "assistant", "The culprit is probably `line_spacing = 0.8` in `term.toml`. Raise it to `1.0` and reload.", 1
        ),
        _t("user", "yep that was it, thanks!", 2),
        _t("assistant", "Glad it helped, enjoy.", 3),
        _t("user", "that worked", 4),
    ]
    drafts = _drafts(turns)
    agreed = [d for d in drafts if d.speaker == "User" and "line_spacing = 0.8" in d.draft.content]
    assert agreed and agreed[0].role == "decided", drafts  # the agent's words, confirmed by the person
    assert "yep that was it" in agreed[0].draft.content
    assert not any(d.speaker == "assistant" and "culprit" in d.draft.content for d in drafts), drafts  # a guess
    assert not any(d.draft.content.endswith("that worked") for d in drafts), drafts  # confirms nothing named
    work = [
        _t("user", "fix it", 0),
        _t("tool", "ok", 1),
        _t("assistant", "The culprit was `cache_ttl = 0` in `app.ini`.", 2),
    ]
    assert any(d.role == "found" for d in _drafts(work)), _drafts(work)  # a culprit named after work: a finding


def test_an_option_chosen_by_its_name_or_in_a_longer_reply_is_written_with_the_agents_words() -> None:
    offer = (
        "A few options:\n\n- **Streamlit** — fastest to build, Python only\n"
        "- **Next.js** — full control, App Router and Tailwind\n- **Dash** — Plotly based\n\nWhich do you prefer?"
    )
    texts = _texts([_t("user", "which framework?", 0), _t("assistant", offer, 1), _t("user", "let's use Next.js", 2)])
    assert any(t.startswith("User chose Next.js") and "App Router and Tailwind" in t for t in texts), texts
    two = (
        "Two approaches:\n\n1. Keep a JSON file next to the binary\n2. Use SQLite in `~/.cache/app/cache.db`\n\n"
        "Which one?"
    )
    reply = "Let's go with option 2, and keep the nightly backups in the home folder of the server."
    texts = _texts([_t("user", "where?", 0), _t("assistant", two, 1), _t("user", reply, 2)])
    assert any("chose option 2" in t and "~/.cache/app/cache.db" in t for t in texts), texts
    assert any("nightly backups" in t for t in texts), texts  # the rest of the reply is the person's own
    report = "Done:\n\n- README.md: updated the usage\n- Makefile: added a test target\n\nAnything else?"
    texts = _texts([_t("user", "docs", 0), _t("assistant", report, 1), _t("user", "now fix README.md too please", 2)])
    assert not any("chose" in t for t in texts), texts  # a report's items are no options on offer


def test_a_closing_word_or_a_doubt_confirms_no_suggestion() -> None:
    tip = "Set `retries = 5` in `client.toml` and restart the worker."
    for reply in ("that's it for today", "I don't think that worked", "no, that was it before too"):
        texts = _texts([_t("user", "it keeps timing out", 0), _t("assistant", tip, 1), _t("user", reply, 2)])
        assert not any("confirmed" in t for t in texts), (reply, texts)


def test_done_after_advice_is_the_person_following_it_and_after_the_agents_work_says_nothing() -> None:
    tip = "Your shell loads `nvm` eagerly. Add `export NVM_LAZY_LOAD=true` to `~/.zshrc` and open a new terminal."
    drafts = _drafts([_t("user", "my prompt is slow", 0), _t("assistant", tip, 1), _t("user", "ok, done", 2)])
    followed = [d for d in drafts if d.speaker == "User" and "NVM_LAZY_LOAD=true" in d.draft.content]
    assert followed and followed[0].role == "decided", drafts
    work = [
        _t("user", "fix the tests", 0),
        _t("tool", "ok", 1),
        _t("assistant", "Fixed the flaky `test_login` by pinning `freezegun` to 1.4.", 2),
        _t("user", "done", 3),
    ]
    assert not any(d.speaker == "User" for d in _drafts(work)), _drafts(work)


def test_set_with_no_tool_run_is_advice_and_after_work_a_report() -> None:
    chat = [
        _t("user", "the text looks cramped", 0),
        _t("assistant", "Set `line_height = 1.1` in `term.lua` and reload.", 1),
    ]
    assert not any(d.speaker == "assistant" for d in _drafts(chat)), _drafts(chat)
    work = [
        _t("user", "the worker gives up", 0),
        _t("tool", "ok", 1),
        _t("assistant", "Set `retries = 5` in `client.toml` so the worker keeps trying.", 2),
    ]
    assert any(d.speaker == "assistant" and "retries = 5" in d.draft.content for d in _drafts(work)), _drafts(work)


# --- review 7: the person's confirmations and choices never carry outside text; a rejection is no choice ----------


def test_a_confirmation_never_carries_an_agent_sentence_that_restates_a_tool_result() -> None:
    page = "To stop the upload stalls, set `chunk_size = 64` in `sync.yaml`. Restart the daemon afterwards."
    turns = [
        _t("user", "uploads stall, look it up", 0),
        _t("tool", page, 1),
        _t("assistant", "The manual says to set `chunk_size = 64` in `sync.yaml` to stop the upload stalls.", 2),
        _t("user", "that worked!", 3),
    ]
    assert not any(d.speaker == "User" for d in _drafts(turns)), _drafts(turns)  # the page's words, not theirs
    read = [
        _t("user", "why does the deploy fail", 0),
        _t("tool", "# deploy.env\nREGISTRY_TOKEN_HINT = tulip42\nMAX_WORKERS = 3\n", 1),
        _t("assistant", "Your file sets `REGISTRY_TOKEN_HINT = tulip42` and `MAX_WORKERS = 3` in `deploy.env`.", 2),
        _t("user", "yep, that was it", 3),
    ]
    assert not any("tulip42" in t for t in _texts(read)), _texts(read)
    own = [  # the same exchange with no tool read: the agent's own suggestion is what the two agreed
        _t("user", "uploads stall", 0),
        _t("assistant", "Set `chunk_size = 64` in `sync.yaml` to stop the upload stalls.", 1),
        _t("user", "that worked!", 2),
    ]
    assert any(t.startswith("User confirmed") and "chunk_size = 64" in t for t in _texts(own)), _texts(own)


def test_a_choice_among_options_read_from_a_tool_result_names_the_option_only() -> None:
    found = "Riverside Inn - $140/night, rated 4.7, breakfast included. Harbour Lodge - $88/night, rated 3.6"
    offer = (
        "Here is what the search found:\n\n- **Riverside Inn** — $140/night, rated 4.7, breakfast included\n"
        "- **Harbour Lodge** — $88/night, rated 3.6\n\nWhich one should I book?"
    )
    for reply, name in (("let's take Riverside Inn", "Riverside Inn"), ("the first one", "the first option")):
        turns = [_t("user", "find a hotel in Bergen", 0), _t("tool", found, 1), _t("assistant", offer, 2)]
        texts = _texts([*turns, _t("user", reply, 3)])
        assert f"User chose {name}" in texts, (reply, texts)
        assert not any("$140" in t or "4.7" in t for t in texts), (reply, texts)


def test_a_rejected_or_merely_mentioned_option_is_no_choice() -> None:
    frameworks = (
        "A few options:\n\n- **Flask** — small and familiar\n- **Django** — batteries included\n\nWhich do you prefer?"
    )
    stores = "Two approaches:\n\n1. Keep a CSV file per day\n2. Use Postgres on the shared host\n\nWhich one?"
    cases = [
        (frameworks, "I don't want Django, it is far too big for this"),
        (frameworks, "let's not use Flask"),
        (stores, "Neither option 1 nor option 2 suits us, we need something hosted."),
        (stores, "Option 2 is a bad idea since the host is shared; what else is there"),
        (stores, "Wait a moment. I plan a move to Leeds in spring with Noor, so we will settle this later."),
        (stores, "No idea yet. My son came number 2 in the chess club and I must fetch him, we decide tomorrow."),
        # the reviewer's reproductions (review 7, H3/H4)
        (
            "A few options:\n\n- **Streamlit** — fastest to build\n- **Next.js** — full control\n\n"
            "Which do you prefer?",
            "I don't want Next.js, it is too heavy for this",
        ),
        (
            "Two approaches:\n\n1. Keep a JSON file next to the binary\n2. Use SQLite in `~/.cache/app/cache.db`\n\n"
            "Which one?",
            "Hmm, hold on. I plan a trip to Rome next week with Marta, so let us finish this later on.",
        ),
    ]
    for offer, reply in cases:
        texts = _texts([_t("user", "what now?", 0), _t("assistant", offer, 1), _t("user", reply, 2)])
        assert not any("chose" in t for t in texts), (reply, texts)
    picked = _texts(
        [
            _t("user", "what now?", 0),
            _t("assistant", stores, 1),
            _t("user", "We will go with option 2, and the nightly dumps stay on the old backup disk.", 2),
        ]
    )
    assert any("chose option 2" in t and "Postgres" in t for t in picked), picked  # an explicit pick still counts


def test_a_report_that_asks_for_preferences_offers_no_options_and_the_request_is_kept() -> None:
    report = (
        "Done:\n\n- CHANGELOG.md: added the 2.1 entry\n- setup.cfg: bumped the version\n\n"
        "Tell me if you prefer another format."
    )
    texts = _texts(
        [
            _t("user", "release prep", 0),
            _t("tool", "ok", 1),
            _t("assistant", report, 2),
            _t("user", "please also tag the release in CHANGELOG.md", 3),
        ]
    )
    assert not any("chose" in t for t in texts), texts
    assert any("tag the release" in t for t in texts), texts


def test_a_problem_report_or_a_question_confirms_nothing_and_the_rest_of_a_confirmation_is_kept() -> None:
    tip = "Set `pool_size = 20` in `db.toml`."
    for reply in (
        "it worked until the upgrade, now it times out again",
        "that worked but the export is broken now",
        "that's it?",
    ):
        texts = _texts([_t("user", "the db chokes", 0), _t("assistant", tip, 1), _t("user", reply, 2)])
        assert not any("confirmed" in t for t in texts), (reply, texts)
    texts = _texts(
        [_t("user", "the db chokes", 0), _t("assistant", tip, 1), _t("user", "that worked! We run Postgres 16.", 2)]
    )
    assert any("confirmed" in t and "pool_size = 20" in t for t in texts), texts
    assert any("Postgres 16" in t and "confirmed" not in t for t in texts), texts  # the rest of the turn


def test_done_after_advice_carries_what_the_person_did_not_the_agents_diagnosis() -> None:
    tip = "Your editor reads `.editorconfig` before the workspace file. Delete `indent_size = 8` from `.editorconfig`."
    drafts = _drafts([_t("user", "tabs look huge", 0), _t("assistant", tip, 1), _t("user", "ok, done", 2)])
    person = [d.draft.content for d in drafts if d.speaker == "User"]
    assert any("Delete `indent_size = 8`" in t for t in person), drafts
    assert not any("reads `.editorconfig` before" in t for t in person), drafts


def test_the_digest_line_of_a_confirmation_says_what_was_confirmed() -> None:
    turns = [
        _t("user", "the build is slow", 0),
        _t("assistant", "Set `jobs = 8` in `build.ini` and rerun it.", 1),
        _t("user", "yes that did it", 2),
    ]
    lines = digest(turns, _drafts(turns))
    assert any(line.startswith("Decided:") and "jobs = 8" in line for line in lines), lines


def test_a_standing_rule_with_a_condition_in_yet_is_kept_and_an_order_for_now_is_not() -> None:
    texts = _texts(
        [
            _t("user", "Never release a build that has not been signed yet.", 0),
            _t("user", "Don't rename any modules yet.", 1),
        ]
    )
    assert any("has not been signed yet" in t for t in texts), texts
    assert not any("rename any modules" in t for t in texts), texts


def test_the_month_may_is_no_hedge_in_a_finding() -> None:
    work = [
        _t("user", "why are the reports empty", 0),
        _t("tool", "ok", 1),
        _t("assistant", "The culprit was the May 14 cleanup job that truncated the `reports_daily` table.", 2),
    ]
    assert any(d.role == "found" and "May 14" in d.draft.content for d in _drafts(work)), _drafts(work)
    guess = [
        _t("user", "why are the reports empty", 0),
        _t("tool", "ok", 1),
        _t("assistant", "The culprit may be the cleanup job that truncated the `reports_daily` table.", 2),
    ]
    assert not any(d.role == "found" for d in _drafts(guess)), _drafts(guess)


def test_review7_reproductions_write_no_confirmation_choice_or_loss() -> None:
    """The reviewer's cases (review 7), verbatim: each must not give what the review found."""
    offer = (
        "Here are the top results from the search:\n\n- **Hotel Aurora** — $120/night, rated 4.5, free cancellation\n"
        "- **Hotel Borealis** — $95/night, rated 3.9\n\nWhich do you prefer?"
    )
    hotel = [
        _t("user", "find me a hotel in Oslo", 0),
        _t("tool", "Hotel Aurora — $120/night, rated 4.5, free cancellation. Hotel Borealis — $95/night, rated 3.9", 1),
        _t("assistant", offer, 2),
        _t("user", "let's do Hotel Aurora", 3),
    ]
    assert not any("$120" in t for t in _texts(hotel)), _texts(hotel)
    page = (
        "To fix the timeout, set `retries = 5` in `client.toml`. The maintainers recommend restarting the worker after."
    )
    docs = [
        _t("user", "it keeps timing out, check the docs", 0),
        _t("tool", page, 1),
        _t("assistant", "According to the docs, set `retries = 5` in `client.toml` to fix the timeout.", 2),
        _t("user", "that worked!", 3),
    ]
    assert not any("retries = 5" in t for t in _texts(docs)), _texts(docs)
    two = (
        "Two approaches:\n\n1. Keep a JSON file next to the binary\n2. Use SQLite in `~/.cache/app/cache.db`\n\n"
        "Which one?"
    )
    for reply in (
        "Not sure yet. My daughter is number 2 in her class and I need to pick her up now, we'll decide tomorrow.",
        "Neither option 1 nor option 2 works for me, we need a server database.",
        "Option 2 is a bad idea since the cache gets wiped; what else is there",
    ):
        texts = _texts([_t("user", "where?", 0), _t("assistant", two, 1), _t("user", reply, 2)])
        assert not any("chose" in t for t in texts), (reply, texts)
    tip = "Set `session_ttl = 3600` in `auth.toml`."
    for reply in (
        "it worked before the update, now it crashes on login",
        "that worked but now the signup page is broken again",
    ):
        texts = _texts([_t("user", "the login fails", 0), _t("assistant", tip, 1), _t("user", reply, 2)])
        assert not any("confirmed" in t for t in texts), (reply, texts)
    clear = [
        _t("user", "how do I clear it", 0),
        _t("assistant", "Run `rm -rf ~/.cache/pip` to clear the pip cache.", 1),
    ]
    assert not any("confirmed" in t for t in _texts([*clear, _t("user", "that's it?", 2)]))
    for rule in (
        "Never merge a pull request that has not been reviewed yet.",
        "Don't deploy to production while CI has not finished yet.",
    ):
        assert any(d.role == "remember" for d in _drafts([_t("user", rule, 0)])), rule
    report = (
        "Done:\n\n- README.md: updated the usage\n- Makefile: added a test target\n\n"
        "Let me know if you prefer a different layout."
    )
    texts = _texts(
        [
            _t("user", "docs", 0),
            _t("tool", "ok", 1),
            _t("assistant", report, 2),
            _t("user", "please also add a license section to README.md", 3),
        ]
    )
    assert not any("chose" in t for t in texts) and any("license section" in t for t in texts), texts
    reorder = (
        "Reorder the lists in the settings page by date. Do not change the contents. I prefer the old ones anyway."
    )
    assert any("Reorder the lists" in t for t in _texts([_t("user", reorder, 0)]))


def test_a_list_of_options_with_the_request_to_pick_after_it_is_an_offer() -> None:
    offer = "- **Redis** — in memory, fast\n- **SQLite** — a single file\n\nLet me know which you prefer."
    texts = _texts([_t("user", "which cache?", 0), _t("assistant", offer, 1), _t("user", "let's use SQLite", 2)])
    assert any(t.startswith("User chose SQLite") for t in texts), texts


def test_a_choice_says_what_the_options_were_for_from_the_request_they_answer() -> None:
    offer = (
        "Some ideas:\n\n- **Night Owl** — dark and calm\n- **Dawn Patrol** — light and warm\n"
        "- **Harbor** — blue tones\n\nWhich do you like?"
    )

    def chose(request: str, reply: str = "I like Night Owl") -> list[str]:
        turns = [_t("user", request, 0), _t("assistant", offer, 1), _t("user", reply, 2)]
        return [t for t in _texts(turns) if " chose " in t]

    # the option's name alone does not say what was named: the person's request does, in their words
    assert chose("The colours are from an old sailing poster, suggest some names for my terminal theme") == [
        "User chose Night Owl as the name for their terminal theme: Night Owl — dark and calm"
    ]
    typo = chose("the palette came from a poster suggest somme names")  # "somme": a word before it, not a name
    assert typo[0].startswith("User chose Night Owl as the name:")
    assert chose("Which font should I use for the status bar?")[0].startswith(
        "User chose Night Owl as the font for the status bar:"
    )
    assert chose("what should we call the new bot?")[0].startswith("User chose Night Owl as the name for the new bot:")
    assert chose("any ideas for the landing page headline?")[0].startswith(
        "User chose Night Owl for the landing page headline:"
    )
    # by label too; a request that asks for nothing named adds nothing
    assert chose("suggest names for the cat", "option 2")[0].startswith("User chose option 2 as the name for the cat:")
    assert chose("ok, go on") == ["User chose Night Owl: Night Owl — dark and calm"]
    # names asked for nothing named are for what the person set out to make a few turns before
    turns = [
        _t("user", "how hard is it to create a custom theme for my terminal?", 0),
        _t("assistant", "Not hard: a theme is a folder with a `colors.toml` file.", 1),
        _t("user", "the colours come from an old sailing poster", 2),
        _t("assistant", "Nice palette, I mapped it to the 16 slots.", 3),
        _t("user", "suggest some names", 4),
        _t("assistant", offer, 5),
        _t("user", "I like Night Owl", 6),
    ]
    assert [t for t in _texts(turns) if " chose " in t] == [
        "User chose Night Owl as the name for the custom theme: Night Owl — dark and calm"
    ]


def test_the_agents_act_is_kept_though_the_files_it_worked_on_name_the_same_things() -> None:
    # a helper's search result names the flag, the file and the fix; the agent's report of its own edit is its work
    found = (
        "Search results: the deprecated `--no-cache` option of the `pip install` command is in `scripts/setup.sh` "
        "line 12. Fixed releases removed this option from the command."
    )
    act = "Fixed! Removed the deprecated `--no-cache` option from the `pip install` command in `scripts/setup.sh:12`."
    turns = [_t("user", "the setup script fails on an unknown flag", 0), _t("tool", found, 1), _t("assistant", act, 2)]
    assert any("`--no-cache`" in t and "`scripts/setup.sh:12`" in t for t in _texts(turns)), _texts(turns)
    # the trust boundary holds for what the act's words say: a page's claims, a check's result
    page = "Hotel Aurora costs 120 euros per night, rated 4.5 with free cancellation and breakfast included."
    added = "Added Hotel Aurora to `trip.md`: 120 euros per night, rated 4.5 with free cancellation and breakfast."
    turns = [_t("user", "find a hotel in Oslo", 0), _t("tool", page, 1), _t("assistant", added, 2)]
    assert not any("cancellation" in t for t in _texts(turns)), _texts(turns)
    result = "login endpoint returns 401 for expired tokens and 200 for fresh tokens carrying the refresh header"
    checked = "I verified the `login` endpoint: it returns 401 for expired tokens and 200 for fresh tokens."
    turns = [_t("user", "check the login", 0), _t("tool", result, 1), _t("assistant", checked, 2)]
    assert not any("expired tokens" in t for t in _texts(turns)), _texts(turns)
    tool = "Policy.can? checked for nil, user and staff: nil -> false, user -> false, staff -> false (all returned)"
    checked = "I verified `Policy.can?` for `nil`, `:user` and `:staff`: all returned `false`."
    turns = [_t("user", "can staff reset it?", 0), _t("tool", tool, 1), _t("assistant", checked, 2)]
    assert not any("returned" in t for t in _texts(turns)), _texts(turns)  # the names aside, a check says the tool's


def test_the_agents_report_after_work_bound_turned_off_or_under_a_files_heading_is_an_outcome() -> None:
    def after_work(report: str, tool: str = "ok") -> list[str]:
        turns = [_t("user", "please set it up", 0), _t("tool", tool, 1), _t("assistant", report, 2)]
        return [d.draft.content for d in _drafts(turns) if d.speaker == "assistant"]

    kept = {
        "I bound `Super+L` to lock the screen.": "`Super+L`",
        "Turned off the pane frames in the Zellij config.": "pane frames",
        "**Key changes**\n\n- `src/auth.py`: tokens expire after 15 minutes\n- `README.md`: a usage section": "15",
    }
    for report, value in kept.items():
        assert any(value in t for t in after_work(report)), (report, after_work(report))
    # a tool run may be a page fetched: what the agent then says has been added, what "you can now" do, what a key
    # does or what "your" plan now gives is what it read, not what its work left
    page = "React 19 notes: async transitions, form actions, the useFormStatus hook; Python 3.13: free threading"
    for news in (
        "Support for async transitions has been added in React 19.",
        "You can now disable the GIL with `--disable-gil` in Python 3.13.",
        "Press `F5` to open the new REPL.",
        "Your Plus plan now gives you two terabytes of storage.",
        "The React compiler is now stable.",
    ):
        assert after_work(news, page) == [], news


_WORDS = st.sampled_from(["the", "my", "red", "names", "theme", "font", "bar", "and", "it's", "`x`"])
_REQUEST_WORDS = st.integers(0, 12).flatmap(lambda n: st.lists(_WORDS, min_size=n, max_size=n))


@given(
    st.sampled_from(["suggest some", "can you give me a few", "recommend a", "which", "what should we call", ""]),
    _REQUEST_WORDS,
    st.sampled_from([" for ", " ", ", "]),
    _REQUEST_WORDS,
    st.sampled_from(["", "?", ".", " please"]),
)
@example("suggest some", ["names"], " for ", ["the", "red", "theme", "font", "bar", "the", "red", "theme", "font"], "")
def test_what_a_request_asked_for_is_a_short_phrase_or_nothing(
    ask: str, what: list[str], joint: str, target: list[str], end: str
) -> None:
    found = purpose(read_prose(f"{ask} {' '.join(what)}{joint}{' '.join(target)}{end}"))
    if found is None:
        return
    head, _, said_for = ("", "", found[4:]) if found.startswith("for ") else found.partition(" for ")
    assert head == "" or re.fullmatch(r"as the \S+(?: \S+)*", head), found
    assert len(head.split()) - 2 <= WHAT_WORDS and len(said_for.split()) <= FOR_WORDS, found


def test_if_your_opens_advice_not_a_finding_about_the_persons_setup() -> None:
    turns = [
        _t("user", "why does the build produce so many generated files?", 0),
        _t("assistant", "If your worry is disk space: this is normal for Rust projects with many crates.", 1),
    ]
    assert not any(d.speaker == "assistant" for d in _drafts(turns)), _drafts(turns)


def test_in_a_chat_app_only_what_the_agent_says_it_did_is_its_outcome() -> None:
    def chat_texts(turns: list[Turn], chat: bool = True) -> list[str]:
        return [d.draft.content for d in draft_turns(turns, DAY, (), chat=chat)]

    asked = _t("user", "Tell me about the spice trade and fix my retry limit", 0)
    reply = _t(
        "assistant",
        "The Moors converted many churches to mosques in the eighth century. Increased trade: the ports grew rich "
        "from the spice routes. The prices are adjusted for inflation in `prices.csv`. Your lease is the cause "
        "of the delay because of its clause. I drafted a reply to your landlord in `reply.md`.",
        1,
    )
    texts = chat_texts([asked, reply])
    assert not any("Moors" in t or "Increased trade" in t or "adjusted for inflation" in t for t in texts), texts
    assert not any("lease" in t for t in texts), texts  # a chat app looked at nothing of the person's
    assert any("I drafted a reply" in t for t in texts), texts
    # an agent that works in the person's environment (a transcript, memory_capture: tool output left out) reports
    # its work bare, and is believed
    report = _t("assistant", "Increased the retry limit to 5 in `sync.toml`.", 1)
    assert any("retry limit to 5" in t for t in chat_texts([asked, report], chat=False))
    assert not any("retry limit to 5" in t for t in chat_texts([asked, report]))


def test_a_want_that_asks_the_agent_for_help_is_no_decision_in_the_digest() -> None:
    turns = [
        _t("user", "I'd like to know more about the spice routes to India.", 0),
        _t("user", "I need help finding a good sourdough starter near Porto.", 1),
        _t("user", "I want the city detected automatically, not hardcoded.", 2),
        _t("user", "I want you to use SQLite for the cache, not JSON files.", 3),
    ]
    lines = digest(turns, _drafts(turns))
    assert not any("spice routes" in ln or "sourdough" in ln for ln in lines), lines
    assert "Decided: I want the city detected automatically, not hardcoded." in lines, lines
    assert "Decided: I want you to use SQLite for the cache, not JSON files." in lines, lines


def test_a_request_that_names_no_options_gives_a_choice_no_purpose() -> None:
    for request in (
        "Here is the list of bugs in my app. Which one should we fix first?",  # the question names nothing
        "Show me the logs from last night. Which approach do you recommend?",
        "Give me a minute to think. Which option is cheaper for the cache?",
        "Show me the logs from last night.",  # "show me" asks for no options
    ):
        assert purpose(read_prose(request)) is None, request
    assert purpose(read_prose("Suggest some names for my theme. Make them short.")) == "as the name for their theme"
    assert purpose(read_prose("Show me a few options for the cache")) == "for the cache"
