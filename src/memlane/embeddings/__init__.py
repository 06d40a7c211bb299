"""Embedding providers behind one Protocol, and the choice of which one an agent uses."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..config import AgentConfig
from ..errors import ProviderError
from .base import EmbeddingProvider, Vectors, normalize_rows

__all__ = ["EmbeddingProvider", "ProviderChoice", "Vectors", "normalize_rows", "resolve_provider"]


@dataclass(frozen=True)
class ProviderChoice:
    """The provider in use (None: keyword-only), why it was chosen, and any fallback taken."""

    provider: EmbeddingProvider | None
    reason: str
    fallback: dict[str, str] | None = None  # {"from": ..., "reason": ...}


def _make(name: str, cfg: AgentConfig) -> EmbeddingProvider:
    settings = cfg.memory_search
    if name == "local":
        from .local import LocalEmbedder

        return LocalEmbedder(settings.local.model_path)
    raise ProviderError(f"embedding provider {name!r} is not available in this version of memlane")


def resolve_provider(cfg: AgentConfig) -> ProviderChoice:
    """Pick the agent's embedding provider; on failure try ``fallback``, else keyword-only."""
    settings = cfg.memory_search
    name = settings.provider
    if name == "none":
        return ProviderChoice(None, "provider is 'none': keyword search only")
    if name == "auto":
        path = settings.local.model_path
        if path and Path(path).expanduser().exists():
            name, reason = "local", f"auto: local.modelPath {path} exists"
        else:
            name, reason = "local", "auto: no remote key configured; using the bundled offline model"
    else:
        reason = f"provider is {name!r} in config"
    try:
        return ProviderChoice(_make(name, cfg), reason)
    except ProviderError as primary_error:
        fallback = settings.fallback
        if fallback != "none" and fallback != name:
            try:
                return ProviderChoice(
                    _make(fallback, cfg),
                    f"fallback {fallback!r} after {name!r} failed",
                    {"from": name, "reason": str(primary_error)},
                )
            except ProviderError as fallback_error:
                detail = f"{primary_error}; fallback {fallback!r} also failed: {fallback_error}"
                return ProviderChoice(
                    None, "no embedding provider: keyword search only", {"from": name, "reason": detail}
                )
        return ProviderChoice(
            None, "no embedding provider: keyword search only", {"from": name, "reason": str(primary_error)}
        )
