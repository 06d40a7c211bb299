"""Embedding providers behind one Protocol, and the choice of which one an agent uses."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..config import AgentConfig
from ..errors import ProviderError
from .base import EmbeddingProvider, Vectors, normalize_rows, similarities
from .gemini import DEFAULT_BASE_URL as GEMINI_BASE_URL
from .http import Endpoint, HttpClient, RetryPolicy
from .keys import EmbeddingKey, embedding_key
from .openai import DEFAULT_BASE_URL as OPENAI_BASE_URL

__all__ = [
    "EmbeddingKey",
    "EmbeddingProvider",
    "ProviderChoice",
    "Vectors",
    "auto_choice",
    "embedding_key",
    "make_fallback",
    "normalize_rows",
    "resolve_endpoint",
    "resolve_provider",
    "similarities",
]


@dataclass(frozen=True)
class ProviderChoice:
    """The provider in use (None: keyword-only), why it was chosen, and any fallback taken."""

    provider: EmbeddingProvider | None
    reason: str
    fallback: dict[str, str] | None = None  # {"from": ..., "reason": ...}


OPENAI_KEY_ENV = ("OPENAI_API_KEY",)
GEMINI_KEY_ENV = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
_PROVIDER_ENTRIES = {"openai": ("openai",), "gemini": ("gemini", "google")}


def _endpoint(name: str, cfg: AgentConfig, primary: bool) -> Endpoint | None:
    """Base URL, key and headers for a remote provider; None when no key resolves.

    Order: ``memorySearch.remote.*`` (for the primary provider only), then ``models.providers.<name>``,
    then the environment. Headers merge, ``remote.headers`` winning on conflicts.
    """
    remote = cfg.memory_search.remote
    if not primary:
        return resolve_endpoint(name, cfg, None, None, {})
    return resolve_endpoint(name, cfg, remote.api_key, remote.base_url, remote.headers)


def resolve_endpoint(
    name: str, cfg: AgentConfig, api_key: str | None, base_url: str | None, headers: Mapping[str, str]
) -> Endpoint | None:
    """An ``openai`` or ``gemini`` endpoint: the given key, base URL and headers first, then
    ``models.providers.<name>``, then the environment (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ...).
    None when no key resolves. The LLM drafter resolves its endpoint the same way."""
    entries = [cfg.providers[n] for n in _PROVIDER_ENTRIES[name] if n in cfg.providers]
    env_names = OPENAI_KEY_ENV if name == "openai" else GEMINI_KEY_ENV
    keys = [api_key, *(e.api_key for e in entries), *map(os.environ.get, env_names)]
    key = next((k for k in keys if k), None)
    if key is None:
        return None
    default = OPENAI_BASE_URL if name == "openai" else GEMINI_BASE_URL
    env_base = os.environ.get("OPENAI_BASE_URL") if name == "openai" else None
    bases = [base_url, *(e.base_url for e in entries), env_base, default]
    merged: dict[str, str] = {}
    for entry in reversed(entries):
        merged.update(entry.headers)
    merged.update(headers)
    return Endpoint(next(b for b in bases if b), key, merged)


def _make(name: str, cfg: AgentConfig, primary: bool = True) -> EmbeddingProvider:
    settings = cfg.memory_search
    if name == "local":
        from .local import shared_local

        local = settings.local
        return shared_local(local.model_path, local.quantize, local.model_cache_dir)
    if name in ("openai", "gemini"):
        endpoint = _endpoint(name, cfg, primary)
        if endpoint is None:
            where = " or ".join((*(OPENAI_KEY_ENV if name == "openai" else GEMINI_KEY_ENV), "models.providers." + name))
            raise ProviderError(f"no API key for {name}: set {where}, or memorySearch.remote.apiKey")
        remote = settings.remote
        retry = RetryPolicy(remote.max_retries, remote.retry_base_ms / 1000, remote.retry_max_ms / 1000)
        # The configured model belongs to the primary provider; a fallback uses its own default.
        model = settings.model if primary and settings.model else None
        from . import gemini, openai

        cls: type[openai.OpenAIEmbedder | gemini.GeminiEmbedder]
        if name == "openai":
            cls, default_model, auth = openai.OpenAIEmbedder, openai.DEFAULT_MODEL, "authorization"
            secret = f"Bearer {endpoint.api_key}"
        else:
            cls, default_model, auth = gemini.GeminiEmbedder, gemini.DEFAULT_MODEL, "x-goog-api-key"
            secret = endpoint.api_key
        client = HttpClient(endpoint, {auth: secret}, name, retry, remote.timeout_seconds)
        dimensions = remote.dimensions if primary else None
        return cls(client, model or default_model, dimensions, remote.query_timeout_seconds)
    raise ProviderError(f"unknown embedding provider {name!r}")


def auto_choice(cfg: AgentConfig) -> tuple[str, str]:
    """``provider: auto``: a local modelPath that exists, else OpenAI or Gemini if a key resolves,
    else the bundled offline model (memlane never ends up disabled for lack of a key)."""
    path = cfg.memory_search.local.model_path
    if path and Path(path).expanduser().exists():
        return "local", f"auto: local.modelPath {path} exists"
    if _endpoint("openai", cfg, True) is not None:
        return "openai", "auto: an OpenAI key resolved"
    if _endpoint("gemini", cfg, True) is not None:
        return "gemini", "auto: a Gemini key resolved"
    return "local", "auto: no remote key found; using the bundled offline model"


def make_fallback(cfg: AgentConfig, failed: str, reason: str) -> ProviderChoice:
    """What to use after provider ``failed`` broke: the configured fallback, else (none configured, or it
    failed too) keyword-only search, ``provider`` None. Either way ``fallback`` records why."""
    fallback = cfg.memory_search.fallback
    if fallback not in ("none", failed):
        try:
            provider = _make(fallback, cfg, primary=False)
            return ProviderChoice(
                provider, f"fallback {fallback!r} after {failed!r} failed", {"from": failed, "reason": reason}
            )
        except ProviderError as exc:
            reason = f"{reason}; fallback {fallback!r} also failed: {exc}"
    return ProviderChoice(None, "no embedding provider: keyword search only", {"from": failed, "reason": reason})


def resolve_provider(cfg: AgentConfig) -> ProviderChoice:
    """Pick the agent's embedding provider; on failure try ``fallback``, else keyword-only."""
    settings = cfg.memory_search
    name: str = settings.provider
    if name == "none":
        return ProviderChoice(None, "provider is 'none': keyword search only")
    if name == "auto":
        name, reason = auto_choice(cfg)
    else:
        reason = f"provider is {name!r} in config"
    try:
        return ProviderChoice(_make(name, cfg), reason)
    except ProviderError as primary_error:
        return make_fallback(cfg, name, str(primary_error))
