"""The int8 graph of a big SQLite index (ann.py): chosen by size, the same results as exact search,
saved beside the index, kept in step with syncs by delta, rebuilt when it cannot be trusted."""

from __future__ import annotations

from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder, write
from memlane.search.ann import AnnVectors
from memlane.search.vectors import VectorIndex

TOPICS = ["violin", "kubernetes", "billing", "garden", "marathon", "sourdough", "invoice", "vienna", "heron"]
QUERIES = ["violin plan", "kubernetes billing list", "day 17 note 3", "garden sourdough", "heron invoice"]


def _workspace(root: Path, days: int = 30) -> Path:
    ws = root / "ws"
    for d in range(1, days + 1):
        lines = [f"# 2024-03-{d:02d}", ""]
        for i in range(8):
            a, b = TOPICS[(d + i) % len(TOPICS)], TOPICS[(d * i) % len(TOPICS)]
            lines.append(f"## Note {i}\n- Ana: day {d} note {i} about the {a} plan and the {b} list\n")
        write(ws, f"memory/2024-03-{d:02d}.md", "\n".join(lines))
    return ws


def _top(mem: memlane.Memory, q: str) -> list[tuple[str, int]]:
    return [(r.path, r.start_line) for r in mem.search(q, min_score=0).results]


def test_a_big_index_is_searched_through_the_graph_with_exact_results(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        mem.sync()
        assert isinstance(mem._vector_index(), VectorIndex)  # below annMinRows (50,000): exact, in RAM
        exact = {q: _top(mem, q) for q in QUERIES}
        chunks = mem.store.counts()["chunks"]
        index_file = mem.store.path
    with memlane.open(ws, provider=FakeEmbedder(), store={"annMinRows": 10}) as mem:
        ann = mem._vector_index()
        assert isinstance(ann, AnnVectors) and len(ann) == chunks
        for q in QUERIES:  # candidates from the graph, rescored with their exact vectors
            assert _top(mem, q) == exact[q], q
        assert mem.search("violin", min_score=0).mode == "hybrid"
    assert Path(str(index_file) + ".usearch").is_file()  # saved beside the index


def test_the_graph_follows_syncs_by_delta_and_is_reused_by_the_next_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ws = _workspace(tmp_path)
    settings = {"annMinRows": 10}
    with memlane.open(ws, provider=FakeEmbedder(), store=settings) as mem:
        mem.sync()
        mem.search("warm up")  # built here
    builds: list[int] = []
    real_build = AnnVectors._build
    monkeypatch.setattr(AnnVectors, "_build", lambda self, *a: (builds.append(1), real_build(self, *a))[1])
    with memlane.open(ws, provider=FakeEmbedder(), store=settings) as mem:
        mem.search("violin")
        assert builds == []  # loaded from the file, not rebuilt
        write(ws, "memory/2024-04-01.md", "# 2024-04-01\n\n- Ana: the quokka arrived at the zoo\n")
        (ws / "memory/2024-03-05.md").unlink()
        mem.sync()
        hits = mem.search("quokka zoo", min_score=0).results
        assert hits[0].path == "memory/2024-04-01.md" and hits[0].vector_score
        assert all(r.path != "memory/2024-03-05.md" for r in mem.search("day 5 note", min_score=0).results)
        ann = mem._vector_index()
        assert isinstance(ann, AnnVectors) and len(ann) == mem.store.counts()["chunks"]
        assert builds == []  # a delta, not a rebuild


def test_an_unreadable_graph_or_a_new_model_rebuilds_it(tmp_path: Path) -> None:
    ws = _workspace(tmp_path, days=10)
    with memlane.open(ws, provider=FakeEmbedder(), store={"annMinRows": 10}) as mem:
        mem.sync()
        before = _top(mem, "violin plan")
        graph = Path(str(mem.store.path) + ".usearch")
    graph.write_bytes(graph.read_bytes()[:100])  # truncated
    with memlane.open(ws, provider=FakeEmbedder(), store={"annMinRows": 10}) as mem:
        assert _top(mem, "violin plan") == before
    with memlane.open(ws, provider=FakeEmbedder(model="fake-2", dims=32), store={"annMinRows": 10}) as mem:
        mem.sync()  # a full reindex: a new epoch, another key and dimension
        ann = mem._vector_index()
        assert isinstance(ann, AnnVectors) and ann.dims == 32 and len(ann) == mem.store.counts()["chunks"]
        assert _top(mem, "violin plan")[0][0].startswith("memory/")


def test_the_model_still_loads_after_the_graph_in_a_fresh_process(tmp_path: Path) -> None:
    """usearch's kernels imported before onnxruntime crash the process when onnxruntime loads."""
    import subprocess
    import sys

    code = (
        "from memlane.search.ann import AnnVectors\n"
        "import memlane.search.ann as a, inspect\n"
        "src = inspect.getsource(a.AnnVectors.__init__)\n"
        "assert src.index('import onnxruntime') < src.index('from usearch')\n"
        "class S: path = 'x'; read_only = 'no'\n"
        "AnnVectors(S(), None, 8)\n"  # imports usearch the way a search does
        "import onnxruntime; print('loaded', onnxruntime.__version__)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "loaded" in done.stdout, done.stderr[-500:]
