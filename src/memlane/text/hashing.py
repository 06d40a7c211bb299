"""The content hash of a text: a chunk's key, a chunk row's id, the embedding cache's key and a fact's key."""

from __future__ import annotations

import hashlib


def text_hash(text: str) -> str:
    """128 bits of SHA-256 as hex: collision-free for any memory, half the bytes in every row and key."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
