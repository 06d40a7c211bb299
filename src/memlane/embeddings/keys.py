"""Which model's vectors: the key every stored vector and cached embedding is filed under."""

from __future__ import annotations

from dataclasses import dataclass

from .base import EmbeddingProvider


@dataclass(frozen=True, slots=True)
class EmbeddingKey:
    """Which model's vectors: (provider, model, provider_key)."""

    provider: str
    model: str
    provider_key: str


def embedding_key(provider: EmbeddingProvider) -> EmbeddingKey:
    return EmbeddingKey(provider.provider_id, provider.model, provider.fingerprint())
