"""``memlane status``: what an agent's index holds and how it is set up, as one JSON-ready report."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..embeddings import EmbeddingProvider, embedding_key
from ..embeddings.remote import BatchProvider
from ..errors import ProviderError
from ..facts.entities import entity_hints
from ..index.batching import BatchRun
from ..index.first import FirstIndex
from ..index.keeper import IndexKeeper
from ..index.sync import effective_chunking
from ..search.ann import save_error
from ..store import IndexStore, ServerVectorSearch

if TYPE_CHECKING:
    from ..index.background import Background


def index_status(index: IndexKeeper, background: Background | None, deep: bool = False) -> dict[str, Any]:
    """The whole report; ``deep`` also embeds a probe text with the provider."""
    agent_id, workspace, config, store, choice = (
        index.config.agent_id,
        index.workspace,
        index.config,
        index.store,
        index.choice,
    )
    dirty, batch, sessions_dir = index.is_dirty(), index.batch, index.sessions_dir
    settings = config.memory_search
    counts = store.counts()
    meta = store.meta()
    provider = choice.provider
    plan = effective_chunking(settings.chunking, provider)
    info: dict[str, Any] = {
        "agent": agent_id,
        "workspace": str(workspace),
        "enabled": settings.enabled,
        "files": counts["files"],
        "chunks": counts["chunks"],
        "provider": provider.provider_id if provider else None,
        "model": provider.model if provider else None,
        "dims": provider.dims if provider else None,
        "variant": getattr(provider, "variant", None),  # the local model's "int8" or "fp32" graph
        "providerReason": choice.reason,
        "fallback": choice.fallback,
        "store": {"driver": store.driver, "path": store.location, "bytes": store.size_bytes()},
        "indexed": "fingerprint" in meta,
        "dirty": dirty,
        "firstIndex": marker.to_dict() if (marker := FirstIndex.read(meta)) is not None else None,
        "cacheEntries": counts["cache_entries"],
        "cache": {"enabled": settings.cache.enabled, "maxEntries": settings.cache.max_entries},
        "vector": _vector_backend(store, provider is not None),
        "batch": batch_status(store, provider, batch),
        "workspaceAccess": config.workspace_access,
        "sessions": {
            "enabled": settings.sessions_enabled,
            "dir": str(sessions_dir),
            "indexed": sum(1 for s in store.file_states().values() if s.source == "sessions"),
        },
        "background": background_status(background),
        "fts": {"enabled": True, "tokenizer": store.text_search, "cjk": "bigrams"},
        "facts": facts_status(store),
        "chunking": {
            "tokens": plan.tokens,
            "overlap": plan.overlap,
            "keys": {
                "enabled": plan.keys,
                "assistant": plan.assistant_keys,
                "count": counts["chunk_keys"],
                "withoutVector": store.keys_without_vectors(embedding_key(provider)) if provider else 0,
            },
            "configured": settings.chunking.model_dump(by_alias=True),
        },
    }
    if store.recovered:
        info["recovered"] = store.recovered
    if deep:
        info["probe"] = probe(provider)
    return info


def facts_status(store: IndexStore) -> dict[str, Any]:
    """The fact index: how many facts and entities, Retain bullets that could not be read, entity hints."""
    facts = store.facts
    names = [(n.norm, n.slug, n.path, n.how) for n in facts.entity_names()]
    return {
        **facts.counts(),
        "problemLines": [f"{path}:{line}: {message}" for path, line, message in facts.problems()],
        "hints": entity_hints(facts.unresolved_mentions(), names),
    }


def background_status(bg: Background | None) -> dict[str, Any]:
    """The background worker's state: running, syncs done, watcher events, last sync and error, failing watches."""
    if bg is None or not bg.running:
        return {"running": False}
    return {
        "running": True,
        "syncs": bg.syncs,
        "events": bg.events,
        "lastSync": bg.last_sync,
        "lastError": bg.last_error,
        "watchErrors": dict(bg.watch_errors),  # directories whose watch keeps failing (retried with back-off)
    }


def batch_status(store: IndexStore, provider: EmbeddingProvider | None, run: BatchRun) -> dict[str, Any]:
    """The vendor batch API: whether it is in use, its failures this run, jobs not yet collected."""
    if provider is None or not isinstance(provider, BatchProvider):
        return {"available": False}
    jobs = store.batch_jobs(embedding_key(provider))
    return {
        "available": True,
        "enabled": run.settings.enabled,
        "active": run.active,
        "failures": run.failures,
        "disabled": run.disabled,
        "pendingJobs": list(jobs),
        "pendingTexts": sum(len(h) for h in jobs.values()),
    }


def probe(provider: EmbeddingProvider | None) -> dict[str, Any]:
    """Embed one text now: whether the provider answers, with how many dimensions, how fast."""
    if provider is None:
        return {"ok": False, "error": "no embedding provider"}
    t = time.perf_counter()
    try:
        vec = provider.embed_batch(["memlane probe"])
    except ProviderError as exc:
        return {"ok": False, "error": str(exc)}
    return {"ok": True, "dims": int(vec.shape[1]), "ms": round((time.perf_counter() - t) * 1000, 1)}


def _vector_backend(store: IndexStore, embedding: bool) -> dict[str, object]:
    if not embedding:
        return {"backend": "none", "why": "no embedding provider"}
    if isinstance(store, ServerVectorSearch):
        graph, buffers = store.hnsw_memory()
        out: dict[str, object] = {
            "backend": f"numpy exact below {store.ann_min_rows:,} vectors, pgvector HNSW on the server from there",
            "why": "memorySearch.store.annMinRows (docs/DESIGN.md §20)",
            "hnswMb": round(graph / 1e6, 1),
            "sharedBuffersMb": round(buffers / 1e6, 1),
        }
        if graph > buffers:
            out["warning"] = (
                "the HNSW index is bigger than the server's shared_buffers: every search reads its pages again "
                "from the OS cache (about 1.5x slower); raise shared_buffers above it (docs/DESIGN.md §24)"
            )
        return out
    out = {
        "backend": "numpy (in-process exact cosine)",
        "why": "faster than sqlite-vec's scan on this hardware (docs/DESIGN.md)",
    }
    failed = save_error(store.path) if store.driver == "sqlite" else None
    if failed:  # past annMinRows: a graph this process could not save (ann.py), rebuilt by every process
        out["annSaveError"] = failed
    return out
