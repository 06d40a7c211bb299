"""The ``memorySearch`` section: embedding provider, store, chunking, sync, query, recall, graph and the paths
indexed beside the workspace, with their documented defaults."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, field_validator, model_validator

from ..errors import ConfigError
from .base import ENV_DATABASE_URL, SettingsModel, memlane_home


class BatchSettings(SettingsModel):
    """The vendors' asynchronous batch APIs (OpenAI Batch, Gemini async batch embeddings)."""

    enabled: bool = True
    wait: bool = True  # False: submit, index the text now, collect the vectors on a later sync
    concurrency: int = Field(2, ge=1)
    poll_interval_ms: int = Field(5000, ge=0)
    timeout_minutes: float = Field(60, gt=0)
    # Fewer texts than this go through ordinary requests: a batch may take hours to finish.
    min_texts: int = Field(200, ge=1)


class RemoteSettings(SettingsModel):
    """How the primary remote provider is reached; wins over ``models.providers.*``."""

    base_url: str | None = None
    api_key: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    dimensions: int | None = Field(None, ge=1)  # output size, for models that can shorten vectors
    timeout_seconds: float = Field(120, gt=0)  # one request while indexing (and batch API calls)
    query_timeout_seconds: float = Field(60, gt=0)  # one search's query embedding
    max_retries: int = Field(5, ge=0)  # on 429, 5xx and timeouts
    retry_base_ms: int = Field(500, ge=0)  # first backoff; doubles each retry, with jitter
    retry_max_ms: int = Field(30_000, ge=0)  # cap for one wait (Retry-After included)
    batch: BatchSettings = BatchSettings()


class Price(SettingsModel):
    """US dollars per million input tokens."""

    input: float = Field(ge=0)
    batch_input: float | None = Field(None, ge=0)  # the batch APIs' price; None: same as input


# Public list prices (USD per 1M input tokens) as of 2026; override or extend with memorySearch.prices.
DEFAULT_PRICES: dict[str, Price] = {
    "text-embedding-3-small": Price(input=0.02, batch_input=0.01),
    "text-embedding-3-large": Price(input=0.13, batch_input=0.065),
    "text-embedding-ada-002": Price(input=0.10, batch_input=0.05),
    "gemini-embedding-001": Price(input=0.15, batch_input=0.075),
    "text-embedding-004": Price(input=0.0, batch_input=0.0),
}


class LocalSettings(SettingsModel):
    # A directory holding an ONNX graph and tokenizer.json; None = the bundled all-MiniLM-L6-v2.
    model_path: str | None = None
    # Where derived graphs (the int8 one) are kept; default $XDG_CACHE_HOME/memlane/models.
    model_cache_dir: str | None = None
    # "auto": the bundled model runs as int8 (about 2x faster, cosine ~0.998 to fp32); "int8" asks it of
    # a modelPath graph too; "none" runs the graph as given.
    quantize: Literal["auto", "int8", "none"] = "auto"


def _no_extension(value: str | None) -> str | None:
    if value is not None:
        raise ValueError(
            "memlane does not load sqlite-vec: vectors are searched in the process, and past annMinRows through "
            "its own HNSW graph (docs/DESIGN.md); remove extensionPath"
        )
    return value


class VectorSettings(SettingsModel):
    """OpenClaw's ``store.vector``. ``enabled``: the accelerated vector search (there sqlite-vec; here the
    HNSW graph past ``annMinRows``, on disk for SQLite or on the server for PostgreSQL); false searches
    every vector exactly in the process. ``extensionPath`` is accepted only as null (auto-detect)."""

    enabled: bool = True
    extension_path: Annotated[str | None, AfterValidator(_no_extension)] = None


class StoreSettings(SettingsModel):
    # "sqlite": one file per agent (the default); "postgres": every agent in one PostgreSQL database
    # (pip install 'memlane[postgres]'; store/postgres/).
    driver: Literal["sqlite", "postgres"] = "sqlite"
    path: str | None = None  # default: $MEMLANE_HOME/memory/{agentId}.sqlite
    # PostgreSQL: a libpq URL (postgresql://user:pass@host/db); unset: $MEMLANE_DATABASE_URL.
    url: str | None = None
    schema_: str = Field("memlane", alias="schema")  # the PostgreSQL schema holding memlane's tables
    # PostgreSQL: from this many vectors of an agent, searched on the server by HNSW instead of in process.
    ann_min_rows: int = Field(50_000, ge=0)
    busy_timeout_ms: int = Field(30_000, ge=0)  # how long a write waits for another program's lock
    vector: VectorSettings = VectorSettings()

    def approximate_from(self) -> int | None:
        """Vectors from which search goes through an HNSW graph; None: never (``vector.enabled`` false)."""
        return self.ann_min_rows if self.vector.enabled else None

    def database_url(self) -> str:
        """The PostgreSQL URL: ``url``, else ``$MEMLANE_DATABASE_URL``; a clear error when neither is set."""
        url = self.url or os.environ.get(ENV_DATABASE_URL)
        if not url:
            raise ConfigError(
                "memorySearch.store.driver is 'postgres' but no database is named: set memorySearch.store.url "
                f"or ${ENV_DATABASE_URL}"
            )
        return url


class ChunkingSettings(SettingsModel):
    tokens: int = Field(400, ge=16)
    overlap: int = Field(80, ge=0)
    # Also embed each item of a chunk with its neighbours (keys.py): ~3x the texts to embed. "auto": with the
    # bundled local model only, where embedding costs nothing but time; a paid API must be asked for it.
    keys: bool | Literal["auto"] = "auto"
    # Keys for an assistant's items too ("assistant: ..." lines of transcripts and chat logs). They were 70% of
    # the keys of real chat logs and changed no ranking they were measured on (docs/DESIGN.md §15): off.
    assistant_keys: bool = False

    @model_validator(mode="after")
    def _overlap_below_tokens(self) -> ChunkingSettings:
        if self.overlap >= self.tokens:
            raise ValueError("chunking.overlap must be smaller than chunking.tokens")
        return self


class SessionDeltaSettings(SettingsModel):
    delta_bytes: int = Field(100_000, ge=0)
    delta_messages: int = Field(50, ge=0)


class SyncSettings(SettingsModel):
    on_session_start: bool = True
    on_search: bool = True
    watch: bool = True
    watch_debounce_ms: int = Field(1500, ge=0)
    interval_minutes: float = Field(0, ge=0)
    sessions: SessionDeltaSettings = SessionDeltaSettings()


class MmrSettings(SettingsModel):
    enabled: bool = False
    # 1.0 = pure relevance, 0.0 = pure diversity.
    lambda_: float = Field(0.7, ge=0, le=1, alias="lambda")


class FeedbackSettings(SettingsModel):
    """Pseudo-relevance feedback on the keyword leg (feedback.py): off while ``weight`` is 0."""

    weight: float = Field(0.0, ge=0, le=1)  # share of the text score from the feedback query
    docs: int = Field(5, ge=1)  # best keyword hits read for words
    terms: int = Field(10, ge=1)  # words in the feedback query


class HybridSettings(SettingsModel):
    enabled: bool = True
    vector_weight: float = Field(0.7, ge=0)
    # A chunk's vector score: this share from its best key (keys.py), the rest from its own vector.
    key_weight: float = Field(0.7, ge=0, le=1)
    # An assistant's key ("assistant: ..." in a transcript or chat log) counts this many times its cosine.
    assistant_weight: float = Field(0.6, ge=0, le=1)
    text_weight: float = Field(0.3, ge=0)
    # The keyword score's share from matching the chunks' text less an assistant's words (keys.said_text);
    # not for a question about what the assistant said ("you recommended", "our last chat"). 0: off.
    user_text_weight: float = Field(0.5, ge=0, le=1)
    candidate_multiplier: int = Field(4, ge=1)
    # On indexes of 5,000+ chunks in hybrid mode, query terms found in more than this share of them are left
    # out of the keyword query while three rarer ones remain (search.keyword_match). 1 (the default) keeps
    # every term: 0.1 cut real-text search p95 from 55 to 40 ms but cost 1.6 points of R@5 on LoCoMo pooled.
    max_term_share: float = Field(1.0, gt=0, le=1)
    fusion: Literal["weighted", "rrf"] = "weighted"
    rrf_k: int = Field(60, ge=1)
    mmr: MmrSettings = MmrSettings()
    feedback: FeedbackSettings = FeedbackSettings()

    @model_validator(mode="after")
    def _some_weight(self) -> HybridSettings:
        if self.vector_weight + self.text_weight <= 0:
            raise ValueError("vectorWeight + textWeight must be greater than 0")
        return self

    @property
    def weights(self) -> tuple[float, float]:
        """(vector, text) weights normalised to sum to 1."""
        total = self.vector_weight + self.text_weight
        return self.vector_weight / total, self.text_weight / total


class PriorSettings(SettingsModel):
    """Priors on fused scores (priors.py): file, query time window, recency for present-tense questions."""

    file: float = Field(0.0, ge=0, le=1)  # share of a chunk's score taken from the best chunk of its file
    time: float = Field(0.25, ge=0)  # added to chunks of daily logs inside the query's time window
    recency: float = Field(0.0, ge=0)  # up to this much added to the newest matching daily log


class RerankRemoteSettings(SettingsModel):
    """A ``/rerank`` endpoint in the Jina / Cohere wire format (``{baseUrl}/rerank``)."""

    base_url: str
    api_key: str | None = None  # sent as a bearer token; read from here only, never from the environment
    model: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_seconds: float = Field(10, gt=0)  # one search waits this long at most per attempt
    max_retries: int = Field(1, ge=0)


class RerankSettings(SettingsModel):
    """An optional cross-encoder over the best fused candidates (rerank.py); off unless one is given."""

    model_path: str | None = None  # an ONNX cross-encoder; relative paths are read from the workspace
    tokenizer_path: str | None = None  # its tokenizer.json; default: beside the model
    remote: RerankRemoteSettings | None = None
    top_n: int = Field(20, ge=2)  # candidates the reranker reads
    weight: float = Field(0.5, ge=0, le=1)  # its share of the blended rank position
    max_tokens: int = Field(512, ge=16)  # query + text, per pair (the ONNX model)

    @model_validator(mode="after")
    def _one_way(self) -> RerankSettings:
        if self.model_path and self.remote:
            raise ValueError("rerank: set modelPath or remote, not both")
        return self

    @property
    def enabled(self) -> bool:
        return bool(self.model_path or self.remote)


class QuerySettings(SettingsModel):
    max_results: int = Field(6, ge=1)
    min_score: float = Field(0.35, ge=0)
    # Results shorter than this many lines are widened around their chunk (0: exactly the chunk).
    window: int = Field(11, ge=0)
    archive_weight: float = Field(1.0, ge=0, le=1)  # scores of memory/archive/ files are multiplied by this
    hybrid: HybridSettings = HybridSettings()
    priors: PriorSettings = PriorSettings()
    rerank: RerankSettings = RerankSettings()


class RecallSettings(SettingsModel):
    """The fact ranker (``memlane recall``): how its signals add up. docs/DESIGN.md has the sweeps."""

    k: int = Field(25, ge=1)  # facts returned by default
    candidate_multiplier: int = Field(4, ge=1)  # each pool brings k x this many candidates
    vector_weight: float = Field(0.7, ge=0)  # cosine of the fact to the query
    text_weight: float = Field(0.3, ge=0)  # BM25 over the fact (and its context), scaled by the best
    context_weight: float = Field(0.5, ge=0)  # how well the log lines the fact came from match the query
    entity_weight: float = Field(0.2, ge=0)  # the fact is about an entity the query names
    related_weight: float = Field(0.05, ge=0)  # ... about an entity often mentioned with it
    time_weight: float = Field(0.3, ge=0)  # the fact's time falls in the query's time words
    dated_weight: float = Field(0.1, ge=0)  # the fact names its own time, for a "when" question
    opinion_weight: float = Field(0.15, ge=0)  # an opinion, for a preference question (x confidence)
    relation_weight: float = Field(0.3, ge=0)  # the fact states a relation the question asks for ("where ... live")
    hop_weight: float = Field(0.1, ge=0)  # about an entity the named one is related to (multi-hop)


class PredicateSpec(SettingsModel):
    """One predicate of ``memorySearch.graph.predicates``: one value at a time or many, and the question words
    that ask for it."""

    single: bool = True
    cues: list[str] = Field(default_factory=list)


class GraphSettings(SettingsModel):
    """Relations between entities (memlane.facts.graph): which predicates exist beyond the built-in ones
    (``lives_in``, ``works_at``, ``role``, ``status``, ``partner``, ``located_in`` single-valued; ``likes``,
    ``dislikes``, ``prefers``, ``uses``, ``owns``, ``knows`` multi-valued), and how far a walk may go."""

    predicates: dict[str, PredicateSpec] = Field(default_factory=dict)  # extend or change the built-in list
    fanout: int = Field(50, ge=1)  # a node with more relations is reached but not walked through
    max_nodes: int = Field(200, ge=1)  # a neighbourhood returns at most this many entities

    @field_validator("predicates")
    @classmethod
    def _names(cls, value: dict[str, PredicateSpec]) -> dict[str, PredicateSpec]:
        for name in value:
            if not re.fullmatch(r"[a-z][a-z0-9_]{0,39}", name):
                raise ValueError(f"a predicate name is lower_snake_case (a-z, 0-9, _), got {name!r}")
        return value


class CacheSettings(SettingsModel):
    enabled: bool = True
    max_entries: int = Field(50_000, ge=0)


class ExperimentalSettings(SettingsModel):
    session_memory: bool = False


class SessionSourceSettings(SettingsModel):
    # Where the agent's transcripts (*.jsonl) are; default $MEMLANE_HOME/agents/{agentId}/sessions.
    dir: str | None = None


ProviderName = Literal["auto", "local", "openai", "gemini", "none"]


_BRACES = re.compile(r"\{([^{}]*,[^{}]*)\}")  # a brace with a comma alternates; "{a}" stays as written
MAX_ALTERNATIVES = 64


def glob_alternatives(pattern: str) -> list[str]:
    """``pattern`` with its ``{a,b}`` braces expanded (index/workspace.py matches each); ValueError past
    :data:`MAX_ALTERNATIVES`, counted before any is made."""
    count = 1
    for brace in _BRACES.finditer(pattern):
        count *= len(brace.group(1).split(","))
        if count > MAX_ALTERNATIVES:
            raise ValueError(f"pattern {pattern!r} expands to more than {MAX_ALTERNATIVES} alternatives")
    alternatives = [pattern]
    while any(_BRACES.search(a) for a in alternatives):
        expanded = []
        for alt in alternatives:
            m = _BRACES.search(alt)
            if m is None:
                expanded.append(alt)
            else:
                expanded += [alt[: m.start()] + choice + alt[m.end() :] for choice in m.group(1).split(",")]
        alternatives = expanded
    return alternatives


def _glob(pattern: str) -> str:
    if not pattern.strip() or pattern.startswith("/") or "\\" in pattern or ".." in pattern.split("/"):
        raise ValueError(f"pattern must be a glob relative to its folder, such as '**/*.md': {pattern!r}")
    glob_alternatives(pattern)
    return pattern


class ExtraPath(SettingsModel):
    """An ``extraPaths`` entry with a glob: only the ``.md`` files below ``path`` that ``pattern`` matches
    (``**`` crosses folders, ``*`` and ``?`` do not, ``{a,b}`` alternates; index/workspace.py)."""

    path: str
    pattern: Annotated[str, AfterValidator(_glob)] = "**/*.md"


class MemorySearchSettings(SettingsModel):
    """The resolved ``memorySearch`` settings of one agent."""

    enabled: bool = True
    sources: list[Literal["memory", "sessions"]] = Field(default_factory=lambda: ["memory"])  # type: ignore[arg-type]
    provider: ProviderName = "auto"
    model: str | None = None
    fallback: Literal["openai", "gemini", "local", "none"] = "none"
    remote: RemoteSettings = RemoteSettings()
    local: LocalSettings = LocalSettings()
    store: StoreSettings = StoreSettings()
    chunking: ChunkingSettings = ChunkingSettings()
    sync: SyncSettings = SyncSettings()
    query: QuerySettings = QuerySettings()
    recall: RecallSettings = RecallSettings()
    graph: GraphSettings = GraphSettings()
    cache: CacheSettings = CacheSettings()
    experimental: ExperimentalSettings = ExperimentalSettings()
    sessions: SessionSourceSettings = SessionSourceSettings()
    prices: dict[str, Price] = Field(default_factory=dict)  # model -> price; merged over DEFAULT_PRICES
    # Other agents whose memory this one searches read-only (shared.py): names, or "*" for every index found
    # beside this agent's. Empty: nothing of another agent is visible.
    shared: list[str] | Literal["*"] = Field(default_factory=list)
    # Further Markdown files or folders to index, read-only (workspace-relative or absolute): index/workspace.py.
    # An entry may be {path, pattern}: a glob choosing among the folder's Markdown files.
    extra_paths: list[str | ExtraPath] = Field(default_factory=list)

    def price(self, model: str) -> Price | None:
        return self.prices.get(model) or DEFAULT_PRICES.get(model)

    def sessions_dir(self, agent_id: str) -> Path:
        raw = self.sessions.dir or str(memlane_home() / "agents" / "{agentId}" / "sessions")
        return Path(raw.replace("{agentId}", agent_id)).expanduser()

    @property
    def sessions_enabled(self) -> bool:
        return "sessions" in self.sources and self.experimental.session_memory

    def store_path(self, agent_id: str) -> Path:
        raw = self.store.path or str(memlane_home() / "memory" / "{agentId}.sqlite")
        return Path(raw.replace("{agentId}", agent_id)).expanduser()
