"""HTTP for the remote providers: one client, retries with backoff, errors that never show a key.

Retried: 429, 5xx, timeouts and dropped connections, up to ``max_retries`` times, waiting
``base * 2**attempt`` with full jitter, or the server's ``Retry-After`` when it sends one, each
wait capped at ``max_wait``. Anything else (401, 400, ...) fails at once: retrying cannot help.
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import random
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from ..errors import ProviderError

# Header names whose values are secrets: never logged, shown or hashed into the fingerprint.
_SECRET_HINTS = ("key", "token", "secret", "auth", "cookie", "password")


def is_secret_header(name: str) -> bool:
    lowered = name.lower()
    return any(hint in lowered for hint in _SECRET_HINTS)


@dataclass(frozen=True)
class Endpoint:
    """Where a provider is reached and with which credentials (``api_key`` is never printed)."""

    base_url: str
    api_key: str = field(repr=False)
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)

    def public_identity(self) -> str:
        """Base URL and non-secret headers: what the index fingerprint may hash."""
        public = sorted((k.lower(), v) for k, v in self.headers.items() if not is_secret_header(k))
        return json.dumps([self.base_url.rstrip("/"), public])

    def fingerprint(self, *parts: object) -> str:
        return hashlib.sha256(json.dumps([self.public_identity(), *map(str, parts)]).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 5
    base: float = 0.5  # seconds
    max_wait: float = 30.0  # seconds

    def wait(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_wait)
        return random.uniform(0, min(self.max_wait, self.base * 2**attempt))


def _retry_after(response: httpx.Response) -> float | None:
    raw = response.headers.get("retry-after")
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return when.timestamp() - time.time()


def _error_detail(response: httpx.Response) -> str:
    """The vendor's error message, short; both vendors send {"error": {"message": ...}}."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:200].strip()
    if isinstance(body, dict):
        err = body.get("error")
        if isinstance(err, dict) and isinstance(err.get("message"), str):
            return str(err["message"])[:300]
        if isinstance(err, str):
            return err[:300]
    return str(body)[:200]


@dataclass
class RequestStats:
    """What a provider sent: tests and benchmarks count requests by kind."""

    requests: int = 0
    retries: int = 0
    by_kind: dict[str, int] = field(default_factory=dict)


class HttpClient:
    """A thread-safe JSON client for one endpoint."""

    def __init__(
        self,
        endpoint: Endpoint,
        auth_headers: Mapping[str, str],
        name: str,
        retry: RetryPolicy,
        timeout: float,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.endpoint = endpoint
        self.name = name
        self.retry = retry
        self.timeout = timeout
        self.stats = RequestStats()
        self._sleep = sleep
        self._lock = threading.Lock()
        headers = {"user-agent": "memlane", **endpoint.headers, **auth_headers}
        self._client = httpx.Client(base_url=endpoint.base_url.rstrip("/") + "/", headers=headers)

    def close(self) -> None:
        self._client.close()

    def _count(self, kind: str, retry: bool) -> None:
        with self._lock:
            self.stats.requests += 1
            self.stats.retries += int(retry)
            self.stats.by_kind[kind] = self.stats.by_kind.get(kind, 0) + 1

    def request(
        self,
        method: str,
        path: str,
        *,
        kind: str,
        json_body: Any = None,
        files: Any = None,
        data: Any = None,
        timeout: float | None = None,
        raw: bool = False,
    ) -> Any:
        """Send with retries; the parsed JSON body (or the response text when ``raw``)."""
        url = path.lstrip("/")
        attempt = 0
        while True:
            self._count(kind, attempt > 0)
            problem: str
            retry_after: float | None = None
            try:
                response = self._client.request(
                    method, url, json=json_body, files=files, data=data, timeout=timeout or self.timeout
                )
            except httpx.TimeoutException:
                problem = f"timed out after {timeout or self.timeout:g} s"
            except httpx.TransportError as exc:
                problem = f"connection failed ({type(exc).__name__})"
            else:
                if response.status_code < 300:
                    if raw:
                        return response.text
                    try:
                        return response.json()
                    except ValueError:
                        raise ProviderError(
                            f"{self.name} {kind}: the response is not valid JSON ({response.text[:80]!r})"
                        ) from None
                problem = f"HTTP {response.status_code}: {_error_detail(response)}"
                if response.status_code != 429 and response.status_code < 500:
                    raise ProviderError(f"{self.name} {kind} failed: {problem}")
                retry_after = _retry_after(response)
            if attempt >= self.retry.max_retries:
                raise ProviderError(f"{self.name} {kind} failed after {attempt + 1} attempts: {problem}")
            self._sleep(self.retry.wait(attempt, retry_after))
            attempt += 1
