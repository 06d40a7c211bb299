"""memlane.langchain: retrievers over search and recall, with the real langchain-core."""

from __future__ import annotations

import asyncio
import datetime as dt
from pathlib import Path

from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda

import memlane
from conftest import write
from memlane.langchain import MemlaneRecallRetriever, MemlaneRetriever


def _ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    write(ws, "memory/2026-01-06.md", "# 2026-01-06\n\n- We chose PostgreSQL over MongoDB for the billing service.\n")
    write(
        ws,
        "memory/2026-02-01.md",
        "# 2026-02-01\n## Retain\n- W @Peter: Lives in Berlin.\n",
    )
    write(ws, "memory/2026-03-01.md", "# 2026-03-01\n## Retain\n- W @Peter: Moved to Lisbon.\n")
    return ws


def test_search_retriever_returns_documents_with_sources(tmp_path: Path) -> None:
    with memlane.open(_ws(tmp_path), provider="none") as mem:
        retriever = MemlaneRetriever(memory=mem, k=3, min_score=0)
        docs = retriever.invoke("which database for billing")
        assert docs and isinstance(docs[0], Document)
        assert "PostgreSQL" in docs[0].page_content
        assert docs[0].metadata["source"].startswith("memory/2026-01-06.md#L")
        assert docs[0].metadata["score"] > 0 and docs[0].metadata["path"] == "memory/2026-01-06.md"
        # it composes like any retriever, sync and async
        chain = retriever | RunnableLambda(lambda ds: [d.metadata["source"] for d in ds])
        assert chain.invoke("billing database")[0] == docs[0].metadata["source"]
        assert asyncio.run(retriever.ainvoke("which database for billing"))[0].page_content == docs[0].page_content


def test_recall_retriever_puts_the_current_fact_first(tmp_path: Path) -> None:
    with memlane.open(_ws(tmp_path), provider="none") as mem:
        mem.sync()
        docs = MemlaneRecallRetriever(memory=mem, k=5).invoke("where does Peter live?")
        assert docs[0].page_content == "Moved to Lisbon." and docs[0].metadata["kind"] == "world"
        stale = next(d for d in docs if d.page_content == "Lives in Berlin.")
        assert stale.metadata["valid_to"] == "2026-03-01"
        assert stale.metadata["superseded_by"]["source"] == "memory/2026-03-01.md#L3"
        assert dt.date.fromisoformat(docs[0].metadata["day"]) == dt.date(2026, 3, 1)
