"""Settings: the spec's ``memorySearch`` shape, its defaults, per-agent merging and file loading.

A config file (JSON, or TOML by extension) looks like::

    {"agents": {"defaults": {"workspace": "~/clawd", "memorySearch": {...}},
                "list": [{"id": "peter", "memorySearch": {"provider": "local"}}]}}

Resolution for one agent: built-in defaults <- ``agents.defaults`` <- that agent's entry
in ``agents.list`` <- arguments of the call. Unknown keys and wrong types raise
:class:`~memlane.errors.ConfigError` naming the dotted key.
"""

from __future__ import annotations

import copy
import difflib
import logging
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic.alias_generators import to_camel

from . import configfile
from .configfile import deep_merge
from .errors import ConfigError

ENV_HOME = "MEMLANE_HOME"
ENV_DATABASE_URL = "MEMLANE_DATABASE_URL"


def memlane_home() -> Path:
    """The directory for memlane's own state: ``$MEMLANE_HOME`` or ``~/.memlane``."""
    raw = os.environ.get(ENV_HOME)
    return Path(raw).expanduser() if raw else Path.home() / ".memlane"


class _Model(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="forbid", frozen=True)


class BatchSettings(_Model):
    """The vendors' asynchronous batch APIs (OpenAI Batch, Gemini async batch embeddings)."""

    enabled: bool = True
    wait: bool = True  # False: submit, index the text now, collect the vectors on a later sync
    concurrency: int = Field(2, ge=1)
    poll_interval_ms: int = Field(5000, ge=0)
    timeout_minutes: float = Field(60, gt=0)
    # Fewer texts than this go through ordinary requests: a batch may take hours to finish.
    min_texts: int = Field(200, ge=1)


class RemoteSettings(_Model):
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


class Price(_Model):
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


class LocalSettings(_Model):
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


class VectorSettings(_Model):
    """OpenClaw's ``store.vector``. ``enabled``: the accelerated vector search (there sqlite-vec; here the
    HNSW graph past ``annMinRows``, on disk for SQLite or on the server for PostgreSQL); false searches
    every vector exactly in the process. ``extensionPath`` is accepted only as null (auto-detect)."""

    enabled: bool = True
    extension_path: Annotated[str | None, AfterValidator(_no_extension)] = None


class StoreSettings(_Model):
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


class ChunkingSettings(_Model):
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


class SessionDeltaSettings(_Model):
    delta_bytes: int = Field(100_000, ge=0)
    delta_messages: int = Field(50, ge=0)


class SyncSettings(_Model):
    on_session_start: bool = True
    on_search: bool = True
    watch: bool = True
    watch_debounce_ms: int = Field(1500, ge=0)
    interval_minutes: float = Field(0, ge=0)
    sessions: SessionDeltaSettings = SessionDeltaSettings()


class MmrSettings(_Model):
    enabled: bool = False
    # 1.0 = pure relevance, 0.0 = pure diversity.
    lambda_: float = Field(0.7, ge=0, le=1, alias="lambda")


class FeedbackSettings(_Model):
    """Pseudo-relevance feedback on the keyword leg (feedback.py): off while ``weight`` is 0."""

    weight: float = Field(0.0, ge=0, le=1)  # share of the text score from the feedback query
    docs: int = Field(5, ge=1)  # best keyword hits read for words
    terms: int = Field(10, ge=1)  # words in the feedback query


class HybridSettings(_Model):
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


class PriorSettings(_Model):
    """Priors on fused scores (priors.py): file, query time window, recency for present-tense questions."""

    file: float = Field(0.0, ge=0, le=1)  # share of a chunk's score taken from the best chunk of its file
    time: float = Field(0.25, ge=0)  # added to chunks of daily logs inside the query's time window
    recency: float = Field(0.0, ge=0)  # up to this much added to the newest matching daily log


class RerankRemoteSettings(_Model):
    """A ``/rerank`` endpoint in the Jina / Cohere wire format (``{baseUrl}/rerank``)."""

    base_url: str
    api_key: str | None = None  # sent as a bearer token; read from here only, never from the environment
    model: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_seconds: float = Field(10, gt=0)  # one search waits this long at most per attempt
    max_retries: int = Field(1, ge=0)


class RerankSettings(_Model):
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


class QuerySettings(_Model):
    max_results: int = Field(6, ge=1)
    min_score: float = Field(0.35, ge=0)
    # Results shorter than this many lines are widened around their chunk (0: exactly the chunk).
    window: int = Field(11, ge=0)
    archive_weight: float = Field(1.0, ge=0, le=1)  # scores of memory/archive/ files are multiplied by this
    hybrid: HybridSettings = HybridSettings()
    priors: PriorSettings = PriorSettings()
    rerank: RerankSettings = RerankSettings()


class RecallSettings(_Model):
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


class PredicateSpec(_Model):
    """One predicate of ``memorySearch.graph.predicates``: one value at a time or many, and the question words
    that ask for it."""

    single: bool = True
    cues: list[str] = Field(default_factory=list)


class GraphSettings(_Model):
    """Relations between entities (memlane.graph): which predicates exist beyond the built-in ones
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


class CacheSettings(_Model):
    enabled: bool = True
    max_entries: int = Field(50_000, ge=0)


class ExperimentalSettings(_Model):
    session_memory: bool = False


class SessionSourceSettings(_Model):
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


class ExtraPath(_Model):
    """An ``extraPaths`` entry with a glob: only the ``.md`` files below ``path`` that ``pattern`` matches
    (``**`` crosses folders, ``*`` and ``?`` do not, ``{a,b}`` alternates; index/workspace.py)."""

    path: str
    pattern: Annotated[str, AfterValidator(_glob)] = "**/*.md"


class MemorySearchSettings(_Model):
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


WorkspaceAccess = Literal["rw", "ro", "none"]

DEFAULT_FLUSH_SYSTEM_PROMPT = "Session nearing compaction. Store durable memories now."
DEFAULT_FLUSH_PROMPT = (
    "Write any lasting notes to memory/YYYY-MM-DD.md (use memory_write); reply with NO_REPLY if nothing to store."
)


class MemoryFlushSettings(_Model):
    enabled: bool = True
    soft_threshold_tokens: int = Field(4000, ge=0)
    system_prompt: str = DEFAULT_FLUSH_SYSTEM_PROMPT
    prompt: str = DEFAULT_FLUSH_PROMPT


class CoreSettings(_Model):
    """MEMORY.md as the core block an agent keeps in context every session."""

    # Above this the core block warns, and an edit that would grow MEMORY.md past it is refused.
    max_chars: int = Field(5000, ge=1)


_SCHEDULE = re.compile(r"^(?:off|hourly|daily|\d+(?:\.\d+)?\s*[mhd])$")


def schedule_seconds(value: str) -> float | None:
    """A schedule setting's period in seconds: off, hourly, daily, or N minutes/hours/days ("30m", "6h",
    "1d"); None when off. Raises ValueError for anything else."""
    text = value.strip().lower()
    if not _SCHEDULE.match(text):
        raise ValueError("must be off, hourly, daily, or a period such as 30m, 6h, 1d")
    if text == "off":
        return None
    if text in ("hourly", "daily"):
        return 3600.0 if text == "hourly" else 86400.0
    return float(text[:-1].strip()) * {"m": 60, "h": 3600, "d": 86400}[text[-1]]


def _readable_schedule(value: str) -> str:
    schedule_seconds(value)
    return value


Schedule = Annotated[str, AfterValidator(_readable_schedule)]  # read with schedule_seconds()


class ReflectSettings(_Model):
    """``memlane reflect``: entity pages, opinions and MEMORY.md proposals from the facts."""

    # off, hourly, daily, or every N minutes / hours / days ("30m", "6h", "1d"): run by `memlane watch` and start()
    schedule: Schedule = "off"
    since: str = "7d"  # entities with facts this recent get their pages updated
    stale_days: int = Field(30, ge=1)  # an opinion with no evidence for this long is "stale"
    trend_days: int = Field(30, ge=1)  # strengthening / weakening: its confidence now against this long ago
    propose_min_days: int = Field(3, ge=2)  # a fact said on this many different days is proposed for MEMORY.md
    proposal_days: int = Field(90, ge=1)  # ... when its latest statement is this recent


class GitBackupSettings(_Model):
    """``memlane backup``: the memory files committed to the workspace's git repository."""

    schedule: Schedule = "off"  # as reflect.schedule: run by `memlane watch` and start()
    push: bool = False  # push after each scheduled backup
    remote: str = "origin"
    branch: str | None = None  # push HEAD to this branch; default the branch checked out
    after_flush: bool = False  # back up when a memory flush was recorded since the last backup


class BackupSettings(_Model):
    git: GitBackupSettings = GitBackupSettings()


class McpHttpSettings(_Model):
    # A bearer token every HTTP request must carry (or MEMLANE_MCP_TOKEN); required to bind beyond loopback.
    token: str | None = None


class McpSettings(_Model):
    http: McpHttpSettings = McpHttpSettings()


class LlmSettings(_Model):
    """The optional LLM that drafts Retain bullets (``memlane retain --llm``): any OpenAI-compatible
    chat-completions endpoint. Key and base URL resolve as the embedding remote's: these settings, then
    ``models.providers.openai``, then OPENAI_API_KEY / OPENAI_BASE_URL."""

    base_url: str | None = None
    api_key: str | None = None
    model: str = "gpt-4o-mini"
    headers: dict[str, str] = Field(default_factory=dict)
    timeout_seconds: float = Field(120, gt=0)
    max_retries: int = Field(3, ge=0)


def _patterns(value: list[str]) -> list[str]:
    for pattern in value:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {pattern!r} ({exc})") from None
    return value


class CaptureSettings(_Model):
    """``memlane capture``: conversation turns -> a session section with Retain bullets in the daily log."""

    llm: bool = False  # draft each capture batch with one call to the `llm` endpoint instead of the offline rules
    exclude: Annotated[list[str], AfterValidator(_patterns)] = Field(default_factory=list)  # a matching turn is skipped
    user_name: str = Field("User", min_length=1, max_length=60)  # who "I" is in an unnamed user's turns
    # a drafted fact whose vector is this close to a fact memory holds about the same entity is a restatement
    duplicate_cosine: float = Field(0.9, gt=0, le=1)
    # at most 3 + 0.37 bullets a turn in one capture, the likeliest to be asked for; false keeps every draft that
    # passes the rules (a person who wants all of it, or a test of durability whose batches kills move)
    budget: bool = True
    # what one capture reads of a transcript, and an export's conversations.json unpacked: past it, a clear error
    max_transcript_bytes: int = Field(256 * 2**20, ge=2**16)
    max_export_bytes: int = Field(256 * 2**20, ge=2**16)


class CompactionSettings(_Model):
    # OpenClaw's compaction has keys of its own (mode, ...): memlane reads memoryFlush and this floor only.
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)

    reserve_tokens_floor: int = Field(20_000, ge=0)
    memory_flush: MemoryFlushSettings = MemoryFlushSettings()


# -- the file's outer shape: only validated loosely here, memorySearch is validated after merging. Keys memlane
# does not own (OpenClaw's model, channels, gateway, heartbeat, ...) are ignored; inside a section memlane owns,
# a mistake is an error naming its key.
class _Outer(_Model):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)


class _AgentEntry(_Outer):
    id: str
    default: bool = False
    workspace: str | None = None
    workspace_access: WorkspaceAccess | None = None
    compaction: dict[str, Any] | None = None
    core: dict[str, Any] | None = None
    reflect: dict[str, Any] | None = None
    capture: dict[str, Any] | None = None
    llm: dict[str, Any] | None = None
    backup: dict[str, Any] | None = None
    mcp: dict[str, Any] | None = None
    memory_search: dict[str, Any] | None = None


class _AgentDefaults(_Outer):
    workspace: str | None = None
    workspace_access: WorkspaceAccess = "rw"
    compaction: dict[str, Any] | None = None
    core: dict[str, Any] | None = None
    reflect: dict[str, Any] | None = None
    capture: dict[str, Any] | None = None
    llm: dict[str, Any] | None = None
    backup: dict[str, Any] | None = None
    mcp: dict[str, Any] | None = None
    memory_search: dict[str, Any] | None = None


class _Agents(_Outer):
    defaults: _AgentDefaults = _AgentDefaults()
    entries: list[_AgentEntry] = Field(default_factory=list, alias="list")


class _ProviderEntry(_Outer):
    api_key: str | None = None
    base_url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)


class _Models(_Outer):
    providers: dict[str, _ProviderEntry] = Field(default_factory=dict)


class ConfigFile(_Outer):
    agents: _Agents = _Agents()
    models: _Models = _Models()


class AgentConfig(BaseModel):
    """Everything memlane needs for one agent, after merging."""

    model_config = ConfigDict(frozen=True)

    agent_id: str
    workspace: Path | None
    memory_search: MemorySearchSettings
    workspace_access: WorkspaceAccess = "rw"  # ro: reads only (no writes, no flush); none: tools disabled
    compaction: CompactionSettings = CompactionSettings()
    core: CoreSettings = CoreSettings()
    reflect: ReflectSettings = ReflectSettings()
    llm: LlmSettings = LlmSettings()
    capture: CaptureSettings = CaptureSettings()
    backup: BackupSettings = BackupSettings()
    mcp: McpSettings = McpSettings()
    providers: dict[str, _ProviderEntry] = Field(default_factory=dict)


def _format_validation(err: ValidationError, prefix: str) -> str:
    parts = []
    for item in err.errors():
        loc = ".".join(str(p) for p in item["loc"] if p != "__root__")
        where = f"{prefix}.{loc}" if loc else prefix
        parts.append(f"{where}: {item['msg']}")
    return "; ".join(parts)


_S = TypeVar("_S", bound=BaseModel)


def _section(model: type[_S], name: str, defaults: Mapping[str, Any] | None, agent: Mapping[str, Any] | None) -> _S:
    """An agent-level settings section: defaults <- the agent's entry, validated with errors naming the key."""
    try:
        return model.model_validate(deep_merge(defaults or {}, agent or {}))
    except ValidationError as exc:
        raise ConfigError(f"invalid config: {_format_validation(exc, name)}") from None


def _keys(model: type[BaseModel]) -> set[str]:
    return {f.alias or name for name, f in model.model_fields.items()}


def _near_misses(data: Mapping[str, Any]) -> None:
    """Keys memlane does not own are ignored (an OpenClaw config has many), except one spelled almost like a
    key memlane reads at the same place (``agents.default``, ``memorySerach``): that is a mistake, named."""

    def check(obj: Any, known: set[str], where: str) -> None:
        if not isinstance(obj, Mapping):
            return
        for key in obj:
            if key in known or not isinstance(key, str):
                continue
            close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.8)
            if close:
                raise ConfigError(f"invalid config: {where}.{key}: not a key memlane reads; did you mean {close[0]!r}?")

    check(data, _keys(ConfigFile), "config")
    agents = data.get("agents")
    check(agents, _keys(_Agents), "config.agents")
    if isinstance(agents, Mapping):
        check(agents.get("defaults"), _keys(_AgentDefaults), "config.agents.defaults")
        listed = agents.get("list")
        for i, entry in enumerate(listed if isinstance(listed, list) else []):
            check(entry, _keys(_AgentEntry), f"config.agents.list[{i}]")


# memorySearch keys OpenClaw has gained since the spec that memlane accepts and does not act on (README,
# "Configuration"): each is named once per process in a warning.
IGNORED_KEYS = (
    "rememberAcrossConversations",
    "qmd",
    "multimodal",
    "inputType",
    "queryInputType",
    "documentInputType",
    "remote.nonBatchConcurrency",
    "store.fts",
    "sync.embeddingBatchTimeoutSeconds",
    "sync.sessions.postCompactionForce",
    "query.hybrid.temporalDecay",
)
_warned: set[str] = set()
log = logging.getLogger("memlane")


def _openclaw_keys(ms: dict[str, Any]) -> dict[str, Any]:
    """OpenClaw's newer memorySearch keys: ``outputDimensionality`` is ``remote.dimensions``; the keys of
    :data:`IGNORED_KEYS` are dropped with a warning, once per process."""
    ms = copy.deepcopy(dict(ms))  # popped from below: never the parsed config's own dicts
    if "outputDimensionality" in ms and isinstance(ms.get("remote") or {}, Mapping):
        ms["remote"] = deep_merge(ms.get("remote") or {}, {"dimensions": ms.pop("outputDimensionality")})
    for dotted in IGNORED_KEYS:
        *parents, last = dotted.split(".")
        node: Any = ms
        for part in parents:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict) and last in node:
            node.pop(last)
            _warn_once(f"memorySearch.{dotted}")
    return ms


def _warn_once(key: str) -> None:
    if key not in _warned:
        _warned.add(key)
        log.warning("config: %s is an OpenClaw setting memlane accepts and ignores", key)


def _current_shape(data: Mapping[str, Any]) -> dict[str, Any]:
    """OpenClaw 2026.8+ keeps memory search at top-level ``memory.search`` and agents in ``agents.entries`` (an
    object keyed by id, ``default`` retired: a single agent is the default); older configs have
    ``agents.defaults.memorySearch`` (or a top-level ``memorySearch``) and ``agents.list[]``. Both are read as
    the older shape. With both ``entries`` and ``list``, ``entries`` wins, as OpenClaw's own migration does."""
    out = dict(data)
    agents = out.get("agents")
    agents = dict(agents) if isinstance(agents, Mapping) else {}
    memory = out.get("memory")
    search = memory.get("search") if isinstance(memory, Mapping) else None
    top = out.pop("memorySearch", None)
    if (isinstance(search, Mapping) or isinstance(top, Mapping)) and isinstance(agents.get("defaults") or {}, Mapping):
        defaults = dict(agents.get("defaults") or {})
        ms = deep_merge(defaults.get("memorySearch") or {}, top if isinstance(top, Mapping) else {})
        defaults["memorySearch"] = deep_merge(ms, search if isinstance(search, Mapping) else {})
        agents["defaults"] = defaults
    entries = agents.pop("entries", None)
    if isinstance(entries, Mapping):
        listed: list[dict[str, Any]] = []
        for agent_id, entry in entries.items():
            if not isinstance(entry, Mapping):
                raise ConfigError(f"invalid config: config.agents.entries.{agent_id}: not an object")
            e = dict(entry)
            e["id"] = agent_id
            own = e.pop("memory", None)
            if isinstance(own, Mapping) and isinstance(own.get("search"), Mapping):
                e["memorySearch"] = deep_merge(e.get("memorySearch") or {}, own["search"])
            listed.append(e)
        if len(listed) == 1 and "default" not in listed[0]:
            listed[0]["default"] = True
        agents["list"] = listed
    if agents or "agents" in out:
        out["agents"] = agents
    return out


def read_config_file(path: Path) -> dict[str, Any]:
    """A config file: JSON5 (JSON included) or TOML, ``$include`` followed, ``${VAR}`` substituted."""
    return configfile.read(path)


def resolve(
    config: str | os.PathLike[str] | Mapping[str, Any] | None = None,
    agent: str | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> AgentConfig:
    """Resolve one agent's settings from a config file path, a mapping, or the one discovered
    (:func:`memlane.configfile.discover`: memlane's own, else OpenClaw's).

    ``agent`` None: the ``agents.list`` entry with ``default: true``, else ``main``. ``overrides`` is a
    ``memorySearch``-shaped mapping applied last (call arguments).
    """
    found: configfile.Found | None
    if config is None:
        found = configfile.discover(memlane_home())
        data = read_config_file(found.path) if found is not None and found.path.exists() else {}
    elif isinstance(config, Mapping):
        found, data = None, dict(config)
    else:
        found = configfile.kind_of(Path(config).expanduser())
        data = read_config_file(found.path)

    data = _current_shape(data)
    _near_misses(data)
    try:
        parsed = ConfigFile.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid config: {_format_validation(exc, 'config')}") from None

    if agent is None:
        agent = next((e.id for e in parsed.agents.entries if e.default), "main")
    entry = next((e for e in parsed.agents.entries if e.id == agent), None)
    merged: dict[str, Any] = {}
    if found is not None and found.openclaw and found.state_dir is not None:
        # OpenClaw keeps each agent's session transcripts in its state folder
        merged = {"sessions": {"dir": str(found.state_dir / "agents" / "{agentId}" / "sessions")}}
    merged = deep_merge(merged, parsed.agents.defaults.memory_search or {})
    if entry is not None:
        merged = deep_merge(merged, entry.memory_search or {})
    merged = deep_merge(merged, overrides or {})
    merged = _openclaw_keys(merged)
    try:
        settings = MemorySearchSettings.model_validate(merged)
    except ValidationError as exc:
        raise ConfigError(f"invalid config: {_format_validation(exc, 'memorySearch')}") from None

    workspace = (entry.workspace if entry and entry.workspace else None) or parsed.agents.defaults.workspace
    compaction = _section(
        CompactionSettings, "compaction", parsed.agents.defaults.compaction, entry.compaction if entry else None
    )
    core = _section(CoreSettings, "core", parsed.agents.defaults.core, entry.core if entry else None)
    reflect = _section(ReflectSettings, "reflect", parsed.agents.defaults.reflect, entry.reflect if entry else None)
    llm = _section(LlmSettings, "llm", parsed.agents.defaults.llm, entry.llm if entry else None)
    capture = _section(CaptureSettings, "capture", parsed.agents.defaults.capture, entry.capture if entry else None)
    backup = _section(BackupSettings, "backup", parsed.agents.defaults.backup, entry.backup if entry else None)
    mcp = _section(McpSettings, "mcp", parsed.agents.defaults.mcp, entry.mcp if entry else None)
    access = (entry.workspace_access if entry else None) or parsed.agents.defaults.workspace_access
    return AgentConfig(
        agent_id=agent,
        workspace=Path(workspace).expanduser() if workspace else None,
        memory_search=settings,
        workspace_access=access,
        compaction=compaction,
        core=core,
        reflect=reflect,
        llm=llm,
        capture=capture,
        backup=backup,
        mcp=mcp,
        providers=dict(parsed.models.providers),
    )
