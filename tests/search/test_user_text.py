"""The user-text keyword leg: a chunk's text less an assistant's words, matched beside its whole text
(keys.said_text, query.hybrid.userTextWeight), on both store drivers."""

from __future__ import annotations

from pathlib import Path

import pytest

import memlane
from conftest import write
from memlane.index.keys import said_text
from memlane.text.keywords import asks_about_assistant

pytestmark = pytest.mark.usefixtures("store_driver")

# An assistant's long answer that repeats the question's words, and the user's own statement of the fact.
LIST = "\n".join(
    f"  {i}. **Yoga classes at studio {i}**: gentle yoga classes, evening yoga classes and weekend classes"
    for i in range(1, 6)
)
CHAT = {
    "memory/2024-03-01.md": f"# 2024-03-01\n\n- [S1:1] user: any ideas for a new hobby?\n"
    f"- [S1:2] assistant: Many people enjoy yoga. Here are yoga classes near you:\n{LIST}\n",
    "memory/2024-03-09.md": "# 2024-03-09\n\n- [S2:1] user: I finally go to yoga classes at Serenity Yoga every "
    "Friday, and my knee feels better. Can you suggest a good stretch before bed?\n"
    "- [S2:2] assistant: Try a supine twist.\n",
}


def test_said_text_leaves_out_an_assistants_items_and_headings() -> None:
    text = "## Session 1\n\n- [S1:1] user: I grow basil\n- [S1:2] assistant: Ideas:\n  1. pesto\n- [S1:3] Ana: thanks"
    assert said_text(text) == "user: I grow basil\nAna: thanks"
    inside = "  2. a mint salad\n- [S1:3] user: thanks"  # a chunk that starts inside the assistant's answer
    assert said_text(inside, "- [S1:2] Assistant: Ideas:") == "user: thanks"
    assert said_text(inside) == "a mint salad\nuser: thanks"  # no lead given: nothing assumed
    assert said_text("# Only a heading\n") == ""
    bold = "- **User:** my bike was stolen\n- **Assistant:** I'm sorry\n- **ChatGPT**: report it\n- Aimee: ok"
    assert said_text(bold) == "**User:** my bike was stolen\nAimee: ok"  # a name that starts with "ai" is no AI


def test_a_question_about_what_the_assistant_said_is_told_apart() -> None:
    for q in (
        "What was the hiking trail you recommended?",
        "In our previous chat you suggested three names, which?",
        "Remind me of the dessert shop we talked about",
        "I was going through our previous conversation about tea",
        "Which yoga classes did you recommend to me?",
    ):
        assert asks_about_assistant(q), q
    for q in ("Can you suggest some activities for the evening?", "Where do I take yoga classes?"):
        assert not asks_about_assistant(q), q


def _top(ws: Path, query: str, weight: float | None) -> str:
    query_settings = {} if weight is None else {"query": {"hybrid": {"userTextWeight": weight}}}
    with memlane.open(ws, provider="none", **query_settings) as mem:  # type: ignore[arg-type]
        return mem.search(query, min_score=0).results[0].path


def test_the_users_own_words_outrank_an_assistants_list_on_the_same_words(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for path, text in CHAT.items():
        write(ws, path, text)
    question = "Where do I take yoga classes?"
    assert _top(ws, question, 0.0) == "memory/2024-03-01.md"  # whole text alone: the list's words win
    assert _top(ws, question, None) == "memory/2024-03-09.md"  # the default blends in the user's words
    # asked about what the assistant said, its answer keeps its full weight
    assert _top(ws, "Which yoga classes did you recommend to me?", None) == "memory/2024-03-01.md"
