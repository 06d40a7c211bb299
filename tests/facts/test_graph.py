"""The time-aware graph: relations read from bullets, supersession, as-of and known-at, walks, both stores."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

import memlane
from conftest import index_sql, write
from memlane.facts.graph.extract import ANY, from_page, from_text, relations_of
from memlane.facts.graph.predicates import Predicates
from memlane.facts.graph.settle import Stated, settle
from memlane.facts.retain import Mention

pytestmark = pytest.mark.usefixtures("store_driver")
NOW = dt.datetime(2026, 2, 1, 12)
PETER = Mention("Peter", "peter")
DAY = dt.date(2025, 5, 10)


def rel(text: str) -> list[tuple[str, str, bool]]:
    return [(r.predicate, r.object_name, r.ends) for r in from_text(text, PETER, 1, DAY)]


# -- extraction -----------------------------------------------------------------------------------------------


@pytest.mark.no_store
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Moved to Lisbon.", [("lives_in", "Lisbon", False)]),
        ("Has been living in São Paulo since March 2023.", [("lives_in", "São Paulo", False)]),
        (
            "Joined Vantor Labs as a staff engineer.",
            [("works_at", "Vantor Labs", False), ("role", "staff engineer", False)],
        ),
        ("No longer works at Acme.", [("works_at", "Acme", True)]),
        ("Left Acme last week.", [(ANY, "Acme", True)]),
        ("Married Tom Alvarez.", [("partner", "Tom Alvarez", False)]),
        ("Split up with Tom Alvarez.", [("partner", "Tom Alvarez", True)]),
        ("Tom Alvarez is now his ex-partner.", [("partner", "Tom Alvarez", True)]),
        ("Has been really into rock climbing lately.", [("likes", "rock climbing", False)]),
        ("No longer likes jazz.", [("likes", "jazz", True)]),
        ("Switched from Notion to Obsidian.", [(ANY, "Notion", True), ("=", "Obsidian", False)]),
        ("Her title is now principal engineer.", [("role", "principal engineer", False)]),
        ("The deadline is now May 3.", [("deadline", "May 3", False)]),
        ("Doesn't live in Berlin anymore.", [("lives_in", "Berlin", True)]),
        ("Calls Lisbon home.", [("lives_in", "Lisbon", False)]),
        ("Just settled into a flat in Porto.", [("lives_in", "Porto", False)]),
        ("Is a designer at Vantor Labs.", [("works_at", "Vantor Labs", False), ("role", "designer", False)]),
        ("Took an analyst position at Acme.", [("works_at", "Acme", False), ("role", "analyst", False)]),
        ("Started working at Acme as a nurse.", [("works_at", "Acme", False), ("role", "nurse", False)]),
        ("Now works at Acme as a chef.", [("works_at", "Acme", False), ("role", "chef", False)]),
        ("Stepped down from her role at Acme.", [(ANY, "Acme", True)]),
        ("Left Acme for Globex.", [(ANY, "Acme", True), ("=", "Globex", False)]),
        ("Is married to Tom Alvarez.", [("partner", "Tom Alvarez", False)]),
        ("Is in a relationship with Tom Alvarez.", [("partner", "Tom Alvarez", False)]),
        ("Got together with Tom Alvarez.", [("partner", "Tom Alvarez", False)]),
        ("Is no longer with Tom Alvarez.", [("partner", "Tom Alvarez", True)]),
        ("Is not into jazz anymore.", [(ANY, "jazz", True)]),
        # nothing is stated about Peter by these
        ("His sister moved to Rome.", []),
        ("Might move to Porto next year.", []),
        ("Does he live in Berlin?", []),
        ("Never worked at Google.", []),
        ("Lives with his cat.", []),
        ("Is not into jazz.", []),  # never was: nothing ends
        ("Calls Anna every week.", []),
    ],
)
def test_offline_patterns(text: str, expected: list[tuple[str, str, bool]]) -> None:
    assert rel(text) == expected


@pytest.mark.no_store
def test_inline_fields_win_over_prose_and_date_the_statement() -> None:
    got = relations_of(
        "Contract done. [!works_at:: @[Vantor Labs]] [lives_in:: @Lisbon] [since:: 2024-02-01]",
        (PETER,),
        3,
        DAY,
    )
    assert [(r.predicate, r.object_name, r.entity, r.ends, r.since, r.how) for r in got] == [
        ("works_at", "Vantor Labs", True, True, dt.date(2024, 2, 1), "field"),
        ("lives_in", "Lisbon", True, False, dt.date(2024, 2, 1), "field"),
    ]
    assert relations_of("Moved to Lisbon.", (), 1, DAY) == []  # no subject, no relation


@pytest.mark.no_store
def test_entity_page_lines_outside_code() -> None:
    page = "# Peter\n\nlives_in:: @Lisbon\n- [role:: designer]\n\n```\nworks_at:: Nope\n```\n"
    got = [(r.predicate, r.object_name, r.line, r.how) for r in from_page("Peter", page)]
    assert got == [("lives_in", "Lisbon", 3, "page"), ("role", "designer", 4, "page")]


@pytest.mark.no_store
def test_patterns_are_linear_on_hostile_text() -> None:
    from test_linear_time import quadruples_linearly  # growth as a ratio of CPU time, not a wall-clock ceiling

    def hostile(n: int) -> str:
        return "moved to " * n + "A " * n + "Left " * n

    assert quadruples_linearly(lambda t: from_text(t, PETER, 1, DAY), hostile(2_500), hostile(10_000)) is None


# -- the supersession rule as a table -------------------------------------------------------------------------


def _s(seq: int, subject: str, predicate: str, obj: str, valid: str, known: str | None = None, ends: bool = False,
       until: str | None = None) -> Stated:  # fmt: skip
    return Stated(seq, subject, predicate, obj, ends, valid, until, known or valid, f"f{seq}")


def _settled(rows: list[Stated], known_at: str | None = None) -> dict[int, tuple[str | None, int | None]]:
    p = Predicates()
    return {s.seq: (s.valid_to, s.closed_by) for s in settle(rows, p.single, known_at, p.slot)}


@pytest.mark.no_store
@pytest.mark.parametrize(
    ("case", "rows", "expected"),
    [
        (
            "same subject, single-valued: the later value closes the earlier",
            [_s(1, "peter", "lives_in", "berlin", "2024-01-01"), _s(2, "peter", "lives_in", "lisbon", "2025-05-01")],
            {1: ("2025-05-01", 2), 2: (None, None)},
        ),
        (
            "another subject's value closes nothing",
            [_s(1, "peter", "lives_in", "berlin", "2024-01-01"), _s(2, "anna", "lives_in", "lisbon", "2025-05-01")],
            {1: (None, None), 2: (None, None)},
        ),
        (
            "multi-valued: a second like closes nothing",
            [_s(1, "peter", "likes", "jazz", "2024-01-01"), _s(2, "peter", "likes", "rock", "2025-05-01")],
            {1: (None, None), 2: (None, None)},
        ),
        (
            "the same value again is a restatement",
            [_s(1, "peter", "lives_in", "berlin", "2024-01-01"), _s(2, "peter", "lives_in", "berlin", "2025-01-01")],
            {1: (None, None), 2: (None, None)},
        ),
        (
            "a late arrival takes its place in valid time and does not overturn the newer value",
            [
                _s(1, "peter", "lives_in", "berlin", "2023-01-01"),
                _s(2, "peter", "lives_in", "lisbon", "2025-05-01"),
                _s(3, "peter", "lives_in", "porto", "2024-09-01", known="2026-01-10"),
            ],
            {1: ("2024-09-01", 3), 3: ("2025-05-01", 2), 2: (None, None)},
        ),
        (
            "an explicit end closes the value it names, of any predicate for 'left X'",
            [
                _s(1, "peter", "works_at", "acme", "2024-01-01"),
                _s(2, "peter", "likes", "jazz", "2024-01-01"),
                _s(3, "peter", ANY, "acme", "2025-03-01", ends=True),
            ],
            {1: ("2025-03-01", 3), 2: (None, None), 3: ("2025-03-01", None)},
        ),
        (
            "an end of another object closes nothing",
            [
                _s(1, "peter", "works_at", "acme", "2024-01-01"),
                _s(2, "peter", "works_at", "globex", "2025-03-01", ends=True),
            ],
            {1: (None, None), 2: ("2025-03-01", None)},
        ),
        (
            "one slot: a move closes where the subject was 'based', and only that",
            [
                _s(1, "peter", "located_in", "berlin", "2024-01-01"),
                _s(2, "peter", "works_at", "acme", "2024-01-01"),
                _s(3, "peter", "lives_in", "lisbon", "2025-05-01"),
            ],
            {1: ("2025-05-01", 3), 2: (None, None), 3: (None, None)},
        ),
        (
            "until closes at its date",
            [_s(1, "peter", "works_at", "acme", "2024-01-01", until="2024-06-30")],
            {1: ("2024-06-30", None)},
        ),
    ],
)
def test_supersession_rule(case: str, rows: list[Stated], expected: dict[int, tuple[str | None, int | None]]) -> None:
    assert _settled(rows) == expected, case


@pytest.mark.no_store
def test_known_at_settles_among_what_was_known() -> None:
    rows = [
        _s(1, "peter", "lives_in", "berlin", "2023-01-01"),
        _s(2, "peter", "lives_in", "lisbon", "2025-05-01"),
        _s(3, "peter", "lives_in", "porto", "2024-09-01", known="2026-01-10"),
    ]
    assert _settled(rows, known_at="2025-12-31") == {1: ("2025-05-01", 2), 2: (None, None)}


# -- through the index, both stores ---------------------------------------------------------------------------

LOGS = {
    "memory/2024-03-01.md": "# 2024-03-01\n## Retain\n- W @Peter: Lives in Berlin.\n"
    "- W @Peter: Joined Acme as a staff engineer.\n- W @Anna: Joined Acme.\n- W @Acme: Acme is based in Munich.\n",
    "memory/2025-05-10.md": "# 2025-05-10\n## Retain\n- W @Peter: Moved to Lisbon in May. [lives_in:: @Lisbon]\n"
    "- W @Anna: Her brother moved to Rome.\n",
    "memory/2026-01-10.md": "# 2026-01-10\n## Retain\n- W @Peter: Moved to Porto on 2024-09-01.\n",
}


@pytest.fixture
def graph_ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    for path, text in LOGS.items():
        write(ws, path, text)
    return ws


def test_recall_puts_the_current_value_first_and_labels_the_superseded(graph_ws: Path) -> None:
    with memlane.open(graph_ws, provider="none") as mem:
        resp = mem.recall("where does Peter live now?", k=10, now=NOW)
        lives = [f for f in resp.facts if "Lives" in f.content or "Moved" in f.content]
        assert lives[0].content.startswith("Moved to Lisbon") and lives[0].valid_to is None
        stale = {f.content: f for f in lives[1:]}
        assert stale["Lives in Berlin."].valid_to == "2024-09-01"  # closed by the late Porto fact
        assert stale["Lives in Berlin."].superseded_by == {
            "content": "Moved to Porto on 2024-09-01.",
            "source": "memory/2026-01-10.md#L3",
        }
        assert stale["Moved to Porto on 2024-09-01."].valid_to == "2025-05-01"
        payload = resp.to_dict()["facts"]
        assert "superseded_by" in payload[-1] and "superseded_by" not in payload[0]
        # Anna's brother moving closed nothing of Anna's, and nobody else's
        assert index_sql(mem, "SELECT count(*) FROM relations WHERE subject = 'anna' AND predicate = 'lives_in'") == [
            (0,)
        ]


def test_the_named_entitys_own_statement_answers_and_the_asked_relation_decides(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(
        ws,
        "memory/2024-01-05.md",
        "# 2024-01-05\n## Retain\n- W @Leo: Joined Acme as an accountant.\n- W @Mia: Got together with @Leo.\n",
    )
    write(
        ws,
        "memory/2025-02-01.md",
        "# 2025-02-01\n## Retain\n- W @Leo: Started a new job at Globex as an accountant.\n"
        "- W @Sam: Works at Initech now, where Leo once worked.\n",
    )
    with memlane.open(ws, provider="none") as mem:
        facts = mem.recall("Where does Leo work now?", k=5, now=NOW).facts
        # Mia's fact names Leo and Sam's has the question's words; neither says where Leo works
        assert facts[0].content.startswith("Started a new job at Globex")
        # still an accountant, but no longer at Acme: for this question the Acme fact is superseded
        acme = next(f for f in facts if "Acme" in f.content)
        assert acme.valid_to == "2025-02-01" and facts.index(acme) > 0
        # a question that does not ask where he works finds the Acme fact current (he is still an accountant)
        anyway = mem.recall("What is Leo's role?", k=5, now=NOW).facts
        assert next(f for f in anyway if "Acme" in f.content).valid_to is None


def test_as_of_and_known_at(graph_ws: Path) -> None:
    with memlane.open(graph_ws, provider="none") as mem:
        top = mem.recall("where did Peter live?", k=3, now=NOW, as_of="2024-06-01").facts[0]
        assert top.content == "Lives in Berlin."
        top = mem.recall("where did Peter live?", k=3, now=NOW, as_of="2024-12-01").facts[0]
        assert top.content == "Moved to Porto on 2024-09-01."
        # memory did not hold the Porto fact before 2026-01-10: on 2025-12-01 it knew Berlin, then Lisbon
        known = mem.recall("where did Peter live?", k=5, now=NOW, as_of="2024-12-01", known_at="2025-12-01")
        assert known.facts[0].content == "Lives in Berlin."
        assert all("Porto" not in f.content for f in known.facts)
        assert (
            mem.recall("where does Peter live?", k=3, now=NOW, known_at="2025-12-01")
            .facts[0]
            .content.startswith("Moved to Lisbon")
        )


def test_graph_walk_timeline_and_paths(graph_ws: Path) -> None:
    with memlane.open(graph_ws, provider="none") as mem:
        hood = mem.graph("Anna", depth=2, now=NOW)
        names = {n["name"]: n["depth"] for n in hood["nodes"]}
        assert names["Acme"] == 1 and names["Peter"] == 2 and names["Munich"] == 2
        assert "Rome" not in names  # her brother's move is not hers
        edge = next(e for e in hood["edges"] if e["subject"] == "Anna")
        assert edge == {
            "subject": "Anna",
            "predicate": "works_at",
            "object": "Acme",
            "valid_from": "2024-03-01",
            "valid_to": None,
            "source": "memory/2024-03-01.md#L5",
        }
        assert mem.graph("Peter", depth=1, now=NOW, as_of="2024-06-01")["nodes"][1:] == [
            {"name": "Acme", "key": "acme", "depth": 1, "path": ["Peter", "Acme"]},
            {"name": "Berlin", "key": "berlin", "depth": 1, "path": ["Peter", "Berlin"]},
        ]
        path = mem.graph("Peter", to="Munich", now=NOW)["paths"][0]["text"]
        assert path == "Peter → works_at → Acme → located_in → Munich"
        tl = mem.timeline("Peter")
        assert tl["now"] == {"works_at": ["Acme"], "role": ["staff engineer"], "lives_in": ["Lisbon"]}
        berlin = next(r for r in tl["relations"] if r["object"] == "Berlin")
        assert berlin["valid_to"] == "2024-09-01" and berlin["closed_by"] == "memory/2026-01-10.md#L3"
        with pytest.raises(memlane.MemlaneError, match="no entity"):
            mem.graph("Nobody")


def test_multi_hop_recall_shows_the_path(graph_ws: Path) -> None:
    with memlane.open(graph_ws, provider="none") as mem:
        resp = mem.recall("Peter", k=20, now=NOW)
        hop = next(f for f in resp.facts if f.path)
        assert hop.path == "Peter → works_at → Acme → located_in → Munich"


def test_a_new_log_settles_only_what_it_touches_and_deleting_it_reopens(graph_ws: Path) -> None:
    with memlane.open(graph_ws, provider="none") as mem:
        mem.sync()
        write(graph_ws, "memory/2026-01-20.md", "# 2026-01-20\n## Retain\n- W @Peter: Left Acme.\n")
        mem.sync()
        assert mem.timeline("Peter")["now"].get("works_at") is None
        assert mem.timeline("Anna")["now"]["works_at"] == ["Acme"]
        (graph_ws / "memory/2026-01-20.md").unlink()
        mem.sync()
        assert mem.timeline("Peter")["now"]["works_at"] == ["Acme"]


def test_an_alias_on_an_entity_page_joins_the_statements(graph_ws: Path) -> None:
    write(graph_ws, "memory/2026-01-15.md", "# 2026-01-15\n## Retain\n- W @Pete: Moved to Madrid.\n")
    with memlane.open(graph_ws, provider="none") as mem:
        assert mem.timeline("Peter")["now"]["lives_in"] == ["Lisbon"]  # Pete is someone else so far
        write(graph_ws, "bank/entities/Peter.md", "# Peter\n\naliases: Pete\n")
        mem.sync()
        assert mem.timeline("Peter")["now"]["lives_in"] == ["Madrid"]


def test_graph_cli_and_mcp_tool(graph_ws: Path, tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "-m", "memlane", "--workspace", str(graph_ws), "timeline", "Peter", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["now"]["lives_in"] == ["Lisbon"]
    with memlane.open(graph_ws, provider="none") as mem:
        from memlane.surface.tools import run_tool

        got = run_tool(mem, "memory_graph", {"entity": "Peter", "to": "Munich"})
        assert got["paths"][0]["text"] == "Peter → works_at → Acme → located_in → Munich"
        assert "error" in run_tool(mem, "memory_graph", {"entity": "Peter", "depth": 9})
        rec = run_tool(mem, "memory_recall", {"query": "where did Peter live", "as_of": "2024-06-01", "k": 1})
        assert rec["facts"][0]["content"] == "Lives in Berlin."


# -- record time from git -------------------------------------------------------------------------------------


def _commit(ws: Path, day: str, message: str) -> None:
    when = f"{day}T12:00:00+00:00"
    env = {
        "GIT_AUTHOR_DATE": when,
        "GIT_COMMITTER_DATE": when,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "PATH": "/usr/bin:/bin",
        "HOME": str(ws),
    }
    subprocess.run(["git", "add", "-A"], cwd=ws, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", message], cwd=ws, check=True, env=env)


def test_record_time_and_retraction_by_deletion_under_git(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "memory/2024-03-01.md", "# 2024-03-01\n## Retain\n- W @Peter: Lives in Berlin.\n")
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    _commit(ws, "2024-03-01", "import")
    # logged on 2025-05-10, but memory held it only from the commit of 2025-06-20
    write(ws, "memory/2025-05-10.md", "# 2025-05-10\n## Retain\n- W @Peter: Moved to Lisbon.\n")
    _commit(ws, "2025-06-20", "lisbon")
    # a bullet added to an old log: its log says 2024-03-01, memory learned it on 2025-07-01
    berlin_and_acme = "# 2024-03-01\n## Retain\n- W @Peter: Lives in Berlin.\n- W @Peter: Works at Acme.\n"
    write(ws, "memory/2024-03-01.md", berlin_and_acme)
    _commit(ws, "2025-07-01", "acme")
    # the Lisbon bullet was wrong: deleted on 2025-09-01
    write(ws, "memory/2025-05-10.md", "# 2025-05-10\n## Retain\n- W @Peter: Went to the dentist.\n")
    _commit(ws, "2025-09-01", "retract")

    def answers(mem: memlane.Memory) -> tuple[object, ...]:
        now = mem.recall("where does Peter live?", k=5, now=NOW).facts
        july = mem.recall("where did Peter live?", k=5, now=NOW, known_at="2025-07-15").facts
        june = mem.recall("where did Peter live?", k=5, now=NOW, known_at="2025-06-01").facts
        work = mem.recall("where does Peter work?", k=5, now=NOW, known_at="2025-06-01").facts
        return (
            [(f.content, f.valid_to) for f in now],
            [(f.content, f.valid_to, f.superseded_by) for f in july],
            [(f.content, f.valid_to) for f in june],
            [f.content for f in work],
        )

    with memlane.open(ws, provider="none") as mem:
        now, july, june, work = answers(mem)
        # today: the retraction leaves Berlin current; the deleted bullet is nowhere
        assert now[0] == ("Lives in Berlin.", None) and all("Lisbon" not in c for c, _ in now)
        # on 2025-07-15 memory held Lisbon (committed 2025-06-20): Berlin was superseded by it then
        berlin = next(f for f in july if f[0] == "Lives in Berlin.")
        assert berlin[1] == "2025-05-10"
        assert berlin[2] == {
            "content": "Peter → lives_in → Lisbon",
            "source": "memory/2025-05-10.md#L3",
            "retracted": "2025-09-01",
        }
        # on 2025-06-01 the log of 2025-05-10 existed in nobody's history yet
        assert june[0] == ("Lives in Berlin.", None)
        # Acme was written into the 2024 log only on 2025-07-01
        assert "Works at Acme." not in work
        timeline = mem.timeline("Peter")
        gone = [r for r in timeline["relations"] if r.get("retracted")]
        assert [(r["object"], r["retracted"]) for r in gone] == [("Lisbon", "2025-09-01")]
        assert timeline["now"]["lives_in"] == ["Berlin"]
        before = answers(mem)
        mem.sync(force=True)  # a rebuild from the files and their history gives the same answers
        assert answers(mem) == before
        # a commit that changes nothing of memory moves nothing; a new one is read on the next sync
        write(ws, "memory/2025-10-01.md", "# 2025-10-01\n## Retain\n- W @Peter: Moved to Porto.\n")
        _commit(ws, "2025-10-02", "porto")
        mem.sync()
        assert index_sql(mem, "SELECT known_from FROM relations WHERE object = 'porto'") == [("2025-10-02",)]


@pytest.mark.sqlite_only
def test_a_version_5_index_gains_known_to(graph_ws: Path) -> None:
    with memlane.open(graph_ws, provider="none") as mem:
        mem.sync()
        db = mem.store.path
        before = mem.recall("where does Peter live?", k=3, now=NOW).facts[0].content
    conn = sqlite3.connect(db)  # what memlane wrote before record time: no known_to column
    conn.execute("ALTER TABLE relations DROP COLUMN known_to")
    conn.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    conn.commit()
    conn.close()
    with memlane.open(graph_ws, provider="none") as mem:
        assert mem.store.migrated == ["index schema 5 -> 6", "index schema 6 -> 7"]
        assert mem.recall("where does Peter live?", k=3, now=NOW).facts[0].content == before


def test_reflect_writes_now_and_changes_on_entity_pages(graph_ws: Path) -> None:
    with memlane.open(graph_ws, provider="none") as mem:
        mem.reflect(now=NOW)
        page = (graph_ws / "bank/entities/Peter.md").read_text(encoding="utf-8")
        now = page.split("### Now\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert now == [
            "- lives_in: Lisbon (since 2025-05-01; memory/2025-05-10.md#L3)",
            "- role: staff engineer (since 2024-03-01; memory/2024-03-01.md#L4)",
            "- works_at: Acme (since 2024-03-01; memory/2024-03-01.md#L4)",
        ]
        changes = page.split("### Changes\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert changes == [
            "- 2025-05-01: lives_in Porto → Lisbon (memory/2025-05-10.md#L3); was from 2024-09-01 "
            "(memory/2026-01-10.md#L3)",
            "- 2024-09-01: lives_in Berlin → Porto (memory/2026-01-10.md#L3); was from 2024-03-01 "
            "(memory/2024-03-01.md#L3)",
        ]
        # the page's own lines state nothing new (no field syntax): the graph is the same after indexing it
        assert mem.timeline("Peter")["now"]["lives_in"] == ["Lisbon"]
        assert not mem.reflect(now=NOW).changed  # the same facts write the same bytes
