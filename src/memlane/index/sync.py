"""The terms of a sync, shared by the memory files' pass (sync_pass.py) and the transcripts' (sessions.py): what
a sync reports and tells before it embeds, how chunks follow the model, the index fingerprint, and a file's chunk
rows with the texts they embed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..config import ChunkingSettings, ExtraPath
from ..embeddings import EmbeddingProvider
from ..facts.derive import FACTS_VERSION
from ..facts.graph import GRAPH_VERSION, Predicates
from ..store import ChunkRow, fingerprint_json
from ..text.hashing import text_hash
from ..text.keywords import cjk_terms
from ..workspace import differs_from
from .chunking import Chunk
from .keys import KEYS_VERSION, chunk_keys, lead_line, said_text

# Bump when chunking changes in a way that must rebuild existing indexes.
CHUNKER_VERSION = 2  # 2: rows carry their text less an assistant's words (keys.said_text)

Progress = Callable[[int, int], None]  # (texts embedded so far, texts to embed)


@dataclass(frozen=True)
class EmbedPlan:
    """What a sync is about to embed, told before it starts (the CLI prints it before a paid run)."""

    provider: str
    model: str
    texts: int
    tokens: int
    batch: bool  # whether the texts go through a batch API
    usd: float | None  # estimated price; None when free (local) or not in the price table


PlanHook = Callable[[EmbedPlan], None]


@dataclass
class SyncReport:
    files_added: int = 0
    files_changed: int = 0
    files_removed: int = 0
    files_unchanged: int = 0
    chunks_written: int = 0
    chunks_removed: int = 0
    embedded: int = 0  # texts the provider embedded (ordinary requests and batch jobs)
    cached: int = 0  # chunk texts whose vector came from the cache
    batch_jobs: int = 0  # batch jobs this sync submitted
    batch_embedded: int = 0  # texts whose vector came from a batch job
    batch_pending: int = 0  # texts in batch jobs still running (collected by a later sync)
    tokens: int = 0  # estimated tokens of the texts to embed
    estimated_usd: float | None = None  # their estimated price (None: free or unknown)
    sessions_indexed: int = 0  # transcripts that got new chunks
    facts_written: int = 0  # Retain facts derived from changed files
    fact_problems: int = 0  # Retain bullets in changed files that could not be read
    full_reindex: bool = False
    reason: str = ""
    seconds: float = 0.0
    left_be: bool = False  # another process is embedding the first index: this sync did nothing (first.py)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return asdict(self)

    def absorb(self, later: SyncReport) -> None:
        """Add a later pass of the same sync to this report."""
        for name, value in asdict(later).items():
            if isinstance(value, int) and not isinstance(value, bool):
                setattr(self, name, getattr(self, name) + value)
        if later.estimated_usd is not None:
            self.estimated_usd = (self.estimated_usd or 0.0) + later.estimated_usd
        self.full_reindex = self.full_reindex or later.full_reindex
        self.notes.extend(later.notes)


@dataclass(frozen=True)
class ChunkPlan:
    """How chunk size follows the model: the cap and overlap actually used."""

    tokens: int
    overlap: int
    keys: bool = False  # chunks carry keys (keys.py): only with a provider to embed them
    assistant_keys: bool = False  # an assistant's items are keyed too


def effective_chunking(settings: ChunkingSettings, provider: EmbeddingProvider | None) -> ChunkPlan:
    """Cap chunks at what the model embeds (its limit less [CLS]/[SEP]); overlap keeps its ratio; keys with
    the local model unless set."""
    if provider is None:
        return ChunkPlan(settings.tokens, settings.overlap)
    keys = provider.provider_id == "local" if settings.keys == "auto" else settings.keys
    limit = max(provider.max_tokens - 2, 8)
    assistant = keys and settings.assistant_keys
    if settings.tokens <= limit:
        return ChunkPlan(settings.tokens, settings.overlap, keys, assistant)
    return ChunkPlan(limit, round(settings.overlap * limit / settings.tokens), keys, assistant)


def index_fingerprint(
    provider: EmbeddingProvider | None, plan: ChunkPlan, workspace: Path, predicates: Predicates | None = None
) -> dict[str, object]:
    return {
        "provider": provider.provider_id if provider else "none",
        "model": provider.model if provider else "",
        "providerKey": provider.fingerprint() if provider else "",
        "dims": provider.dims if provider else 0,
        "chunkTokens": plan.tokens,
        "chunkOverlap": plan.overlap,
        "chunker": CHUNKER_VERSION,
        # an index keyed before assistant keys could be left out had them all: it keeps its number
        "keys": (KEYS_VERSION if plan.assistant_keys else f"{KEYS_VERSION}-user") if plan.keys else 0,
        "facts": FACTS_VERSION,
        # which predicates hold one value at a time decides every relation's validity
        "relations": f"{GRAPH_VERSION}:{text_hash((predicates or Predicates()).fingerprint())[:12]}",
        "workspace": str(workspace.resolve()),
    }


def chunk_rows(
    path: str, source: str, lines: list[str], chunks: list[Chunk], plan: ChunkPlan, base: int = 0
) -> list[ChunkRow]:
    """The rows of a file's chunks (numbered ``base`` lines further down), with the keys ``plan`` asks for;
    ``lines`` are the text the chunks were cut from."""
    rows = []
    for c in chunks:
        s, e = c.start_line + base, c.end_line + base
        cid = text_hash(f"{source}:{path}:{s}:{e}:{c.hash}")
        keys: tuple[tuple[str, str, bool], ...] = ()
        lead = lead_line(lines, c.start_line - 1)
        if plan.keys:
            found = chunk_keys(c.text, lead)
            keys = tuple(
                (text_hash(k.text), k.text, k.assistant) for k in found if plan.assistant_keys or not k.assistant
            )
        said = said_text(c.text, lead)
        rows.append(ChunkRow(cid, path, source, s, e, c.hash, c.text, cjk_terms(c.text), keys, said, cjk_terms(said)))
    return rows


def texts_to_embed(rows: Iterable[ChunkRow]) -> dict[str, str]:
    """hash -> text of every chunk and key of ``rows``."""
    texts: dict[str, str] = {}
    for r in rows:
        texts[r.hash] = r.text
        texts.update((h, t) for h, t, _ in r.keys)
    return texts


def files_differ(
    indexed_fingerprint: str | None,
    states: Mapping[str, tuple[int, int]],
    workspace: Path,
    fingerprint: dict[str, object],
    extra_paths: Sequence[str | ExtraPath] = (),
) -> bool:
    """True when the index (its fingerprint and file states, path -> (mtime_ns, size)) does not match the
    settings and the files."""
    if indexed_fingerprint != fingerprint_json(fingerprint):
        return True
    return differs_from(workspace, states, extra_paths)
