"""LangChain retrievers over memlane (``pip install 'memlane[langchain]'``).

``MemlaneRetriever`` runs :meth:`memlane.Memory.search` (hybrid search over the Markdown), and
``MemlaneRecallRetriever`` runs :meth:`memlane.Memory.recall` (typed facts from Retain bullets). Each returns
LangChain ``Document`` objects whose text is the snippet or the fact, with the source and the score in
their metadata, so that a chain can cite where a memory came from::

    mem = memlane.open("~/clawd")
    docs = MemlaneRetriever(memory=mem, k=5).invoke("what did we decide about the database?")
    docs[0].metadata["source"]   # "memory/2026-01-06.md#L12-L18"
"""

from __future__ import annotations

from typing import Any

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError("memlane.langchain needs langchain-core: pip install 'memlane[langchain]'") from exc
from pydantic import ConfigDict, Field

from .memory import Memory


class MemlaneRetriever(BaseRetriever):
    """Hybrid search over an agent's Markdown memory (``Memory.search``): one Document per result."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Memory
    k: int = Field(6, ge=1)
    min_score: float | None = None

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        resp = self.memory.search(query, max_results=self.k, min_score=self.min_score)
        return [
            Document(
                page_content=r.snippet,
                metadata={
                    "source": r.cite,
                    "origin": r.source,  # memory files or session transcripts
                    "path": r.path,
                    "start_line": r.start_line,
                    "end_line": r.end_line,
                    "score": r.score,
                    **({"agent": r.agent} if r.agent else {}),
                },
            )
            for r in resp.results
        ]


class MemlaneRecallRetriever(BaseRetriever):
    """Facts from Retain bullets (``Memory.recall``), current ones first: one Document per fact."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memory: Memory
    k: int = Field(10, ge=1)
    since: str | None = None
    entity: str | None = None

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        resp = self.memory.recall(query, k=self.k, since=self.since, entity=self.entity)
        docs = []
        for f in resp.facts:
            meta: dict[str, Any] = {
                "source": f.source,
                "kind": f.kind,
                "day": f.day,
                "entities": list(f.entities),
                "score": f.score,
            }
            if f.valid_to is not None:
                meta["valid_to"] = f.valid_to
                meta["superseded_by"] = f.superseded_by
            docs.append(Document(page_content=f.content, metadata=meta))
        return docs


__all__ = ["MemlaneRecallRetriever", "MemlaneRetriever"]
