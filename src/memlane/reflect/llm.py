"""The optional LLM drafter for ``memlane retain --llm``: any OpenAI-compatible chat-completions endpoint.

One request per daily log: the log and the entity names memlane knows go in; Retain bullets in the
spec's format come out. The answer is read with the same Retain parser as any memory file: lines that do
not parse are dropped (and counted), so a model's chatter or a malformed line never reaches a log.
Retries, timeouts and key hygiene are the embedding remote's (:mod:`memlane.embeddings.http`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from ..config import AgentConfig
from ..embeddings import resolve_endpoint
from ..embeddings.http import HttpClient, RetryPolicy
from ..errors import ProviderError
from ..facts.retain import parse_retain
from .extract import Draft

SYSTEM_PROMPT = """You maintain an AI agent's memory. From the daily log you are given, write the facts worth
remembering as Retain bullets, one per line, and nothing else:

- W @Entity: a fact about the world (people, places, projects, events, plans with their dates)
- B @Entity: something the agent or the log's author did, in the first person
- O(c=0.0..1.0) @Entity: an opinion or preference, with how confident the log is about it
- S: a short summary of the day

Each bullet is narrative and self-contained: it must make sense alone, months later (write names, not
pronouns; write dates, not "yesterday"). Mention entities with @Name, or @[Two Words] for names with
spaces; reuse the known entity names given. At most 12 bullets."""


class LlmDrafter:
    """Drafts Retain bullets with a chat-completions model; ``close()`` it when done."""

    def __init__(self, cfg: AgentConfig) -> None:
        llm = cfg.llm
        endpoint = resolve_endpoint("openai", cfg, llm.api_key, llm.base_url, llm.headers)
        if endpoint is None:
            raise ProviderError(
                "no API key for the LLM: set llm.apiKey, models.providers.openai.apiKey or OPENAI_API_KEY"
            )
        self.model = llm.model
        retry = RetryPolicy(llm.max_retries, 0.5, 30.0)
        self.client = HttpClient(
            endpoint, {"authorization": f"Bearer {endpoint.api_key}"}, "llm", retry, llm.timeout_seconds
        )
        self.dropped = 0  # answer lines that were not valid Retain bullets

    def close(self) -> None:
        self.client.close()

    def draft(self, text: str, day: dt.date | None, known: Sequence[str], system: str = SYSTEM_PROMPT) -> list[Draft]:
        user = f"Day: {day.isoformat() if day else 'undated'}\nKnown entities: {', '.join(known) or 'none'}\n\n{text}"
        body = {
            "model": self.model,
            "temperature": 0,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
        }
        answer = self.client.request("POST", "chat/completions", kind="chat.completions", json_body=body)
        return self._read(answer)

    def _read(self, answer: Any) -> list[Draft]:
        try:
            content = answer["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ProviderError("llm chat.completions: the answer has no choices[0].message.content") from None
        if not isinstance(content, str):
            raise ProviderError("llm chat.completions: the answer's message content is not text")
        candidates = [ln.strip() for ln in content.splitlines() if ln.strip().startswith(("-", "*"))]
        facts, problems = parse_retain("## Retain\n" + "\n".join(candidates))
        chatter = sum(1 for ln in content.splitlines() if ln.strip() and not ln.strip().startswith(("-", "*")))
        self.dropped += len(problems) + chatter
        return [Draft(f.kind, f.content, tuple(m.name for m in f.mentions), 0, f.confidence) for f in facts]
