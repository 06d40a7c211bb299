"""Secrets out of captured text, before anything else sees it.

Two detectors, and a span either finds is replaced by ``[redacted: <kind>]``:

- **detect-secrets** (Yelp's maintained scanner) with its vendor and keyword plugins: AWS, Azure,
  GitHub, GitLab, Slack, Stripe, Twilio, SendGrid, npm, PyPI, OpenAI, JWTs, private keys, basic-auth
  URLs, ``password = "…"`` in code, and more as its maintainers add them. Its high-entropy plugins are
  left out: scanning prose with them redacts git commit hashes and UUIDs, which a memory should keep.
- **memlane's own patterns** for the shapes people paste into a chat and that the scanner's plugins,
  written for source files, do not all catch: ``sk-``/``sk-proj-``/``sk-ant-`` keys, ``AKIA…``,
  ``ghp_…``, ``glpat-…``, ``xox…-``, ``sk_live_…``, ``AIza…``, Hugging Face tokens, JWTs, whole PEM
  private-key blocks (over lines), the password of a ``scheme://user:password@host`` URL (the rest of
  the URL is kept), ``Bearer <token>``, ``password: …`` / ``API_KEY=…`` assignments, and "my password
  is …" in plain words.

Only the secret is replaced: the sentence around it is kept, so the fact it was part of still reads.
The placeholder matches no pattern, so redacting twice changes nothing. Every pattern is linear: its
repetitions are bounded or over one character class, and a PEM block's end is looked for once.
detect-secrets is handed only lines that could hold a secret (a keyword, a URL, or a run of 16 key
characters) and at most :data:`SCAN_CHARS` characters of each, since its plugins were written for
source lines; the own patterns see everything. Its settings are process-global: they are set once,
under a lock.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

SCAN_CHARS = 4096  # of a line, handed to detect-secrets in windows of this size
_OVERLAP = 256

_PLUGINS = (
    "AWSKeyDetector",
    "ArtifactoryDetector",
    "AzureStorageKeyDetector",
    "BasicAuthDetector",
    "CloudantDetector",
    "DiscordBotTokenDetector",
    "GitHubTokenDetector",
    "GitLabTokenDetector",
    "IbmCloudIamDetector",
    "IbmCosHmacDetector",
    "JwtTokenDetector",
    "KeywordDetector",
    "MailchimpDetector",
    "NpmDetector",
    "OpenAIDetector",
    "PrivateKeyDetector",
    "PypiTokenDetector",
    "SendGridDetector",
    "SlackDetector",
    "SoftlayerDetector",
    "SquareOAuthDetector",
    "StripeDetector",
    "TelegramBotTokenDetector",
    "TwilioKeyDetector",
)
_KINDS = {  # detect-secrets' secret types, as a placeholder names them
    "AWS Access Key": "aws-access-key",
    "Basic Auth Credentials": "password",
    "Secret Keyword": "secret",
    "Private Key": "private-key",
    "JSON Web Token": "jwt",
}


@dataclass(frozen=True)
class Redaction:
    """Text with its secrets replaced; how many were, and their kinds in the order they appear."""

    text: str
    count: int
    kinds: tuple[str, ...]


_KEY = r"[A-Za-z0-9_-]"
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("anthropic-key", rf"(?<![\w-])sk-ant-{_KEY}{{20,}}"),
        ("openai-key", rf"(?<![\w-])sk-(?:proj-|svcacct-|admin-)?{_KEY}{{20,}}"),
        ("stripe-key", r"(?<!\w)[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
        ("aws-access-key", r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Z0-9])"),
        ("github-token", r"(?<!\w)(?:gh[pousr]_[A-Za-z0-9]{30,255}|github_pat_[A-Za-z0-9_]{22,255})"),
        ("gitlab-token", rf"(?<![\w-])glpat-{_KEY}{{20,}}"),
        ("slack-token", r"(?<![\w-])xox[abprse]-[A-Za-z0-9-]{10,}"),
        ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
        ("google-api-key", rf"(?<![\w-])AIza{_KEY}{{35}}"),
        ("huggingface-token", r"(?<!\w)hf_[A-Za-z0-9]{30,}"),
        ("npm-token", r"(?<!\w)npm_[A-Za-z0-9]{36}"),
        ("jwt", rf"(?<![\w-])eyJ{_KEY}{{8,}}\.eyJ{_KEY}{{8,}}\.{_KEY}{{8,}}"),
    )
)
# The secret is group 1 of these; the words around it stay.
_URL_PASSWORD = re.compile(r"\b[A-Za-z][A-Za-z0-9+.-]{1,20}://[^\s:/@\[\]]{1,100}:([^\s@/\[\]]{1,200})@")
_BEARER = re.compile(r"\b(?:[Bb]earer|BEARER|[Tt]oken)\s{1,5}([A-Za-z0-9._~+/=-]{20,})")
_BASIC = re.compile(r"\b(?i:authorization)\s*:\s*(?i:basic)\s+([A-Za-z0-9+/=]{8,})")
_AWS_SECRET = re.compile(r"(?i:aws_?secret(?:_?access)?_?key)\W{1,4}([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])")
# Passwords: "password: x", "PASSWORD=x", "the password is x", "passwd x" in a config line.
_PASSWORD = re.compile(
    r"(?i:\b(?:password|passwd|passphrase|passcode|pwd|pin)\b)[\"']?\s{0,3}(?:[:=]|(?i:is|was)\b)\s{0,3}"
    r"[\"']?(?!\[redacted)([^\s\"'`,;\[\]]{3,200})"
)
# Other secrets by name: "API_KEY=…", "token: …", "client_secret": "…" (a value that looks like a key).
_NAMED = re.compile(
    r"(?i:\b(?:[a-z0-9]{1,20}[_-])?(?:api[_-]?key|apikey|secret[_-]?key|secret|client[_-]?secret|"
    r"access[_-]?token|auth[_-]?token|refresh[_-]?token|token|private[_-]?key)\b)[\"']?\s{0,3}[:=]\s{0,3}"
    r"[\"']?(?!\[redacted)([A-Za-z0-9_./+=:-]{8,200})"
)
_PEM_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
# Words that follow "password is" without being one: "my password is stored in 1Password".
_NOT_A_PASSWORD = frozenset(
    (
        "the",
        "a",
        "an",
        "my",
        "your",
        "our",
        "their",
        "his",
        "her",
        "its",
        "this",
        "that",
        "not",
        "still",
        "also",
        "now",
        "just",
        "stored",
        "saved",
        "kept",
        "written",
        "set",
        "changed",
        "reset",
        "expired",
        "wrong",
        "correct",
        "right",
        "same",
        "different",
        "too",
        "very",
        "long",
        "short",
        "strong",
        "weak",
        "secure",
        "fine",
        "ok",
        "there",
        "here",
        "somewhere",
        "required",
        "needed",
        "missing",
        "empty",
        "blank",
        "in",
        "on",
        "at",
        "for",
        "from",
        "with",
    )
)
_TRAILING = ".,;:!?)]}>\"'"
# A line detect-secrets is worth asking about: a keyword, a URL with credentials, a key-like run.
_HINT = re.compile(
    r"(?i:pass|pwd|secret|token|key|auth|credential|bearer|://|-----)|[A-Za-z0-9_+/=.-]{16}",
)

_lock = threading.Lock()
_settings: Any = None


def redact(text: str) -> Redaction:
    """``text`` with every secret either detector finds replaced by ``[redacted: <kind>]``."""
    spans = sorted(_spans(text), key=lambda s: (s[0], -s[1]))
    merged: list[tuple[int, int, str]] = []
    for start, end, kind in spans:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            merged[-1] = (last[0], max(last[1], end), last[2])
        else:
            merged.append((start, end, kind))
    if not merged:
        return Redaction(text, 0, ())
    out: list[str] = []
    pos = 0
    for start, end, kind in merged:
        out.append(text[pos:start])
        out.append(f"[redacted: {kind}]")
        pos = end
    out.append(text[pos:])
    return Redaction("".join(out), len(merged), tuple(k for _, _, k in merged))


def _spans(text: str) -> Iterator[tuple[int, int, str]]:
    yield from _pem_blocks(text)
    for kind, pattern in _SHAPES:
        for m in pattern.finditer(text):
            yield m.start(), m.end(), kind
    for kind, pattern in (
        ("password", _URL_PASSWORD),
        ("bearer-token", _BEARER),
        ("basic-auth", _BASIC),
        ("aws-secret-key", _AWS_SECRET),
        ("secret", _NAMED),
    ):
        for m in pattern.finditer(text):
            if "[redacted" not in m.group(1):  # a URL's password ends at its "@": nothing to trim
                yield (m.start(1), m.end(1), kind) if pattern is _URL_PASSWORD else _trimmed(m, kind)
    for m in _PASSWORD.finditer(text):
        if m.group(1).rstrip(_TRAILING).casefold() not in _NOT_A_PASSWORD:
            yield _trimmed(m, "password")
    yield from _scanned(text)


def _trimmed(m: re.Match[str], kind: str) -> tuple[int, int, str]:
    value = m.group(1)
    kept = value.rstrip(_TRAILING) or value
    return m.start(1), m.start(1) + len(kept), kind


def _pem_blocks(text: str) -> Iterator[tuple[int, int, str]]:
    """Whole private-key blocks; one never closed is a secret to the end of the text."""
    pos = 0
    while (begin := _PEM_BEGIN.search(text, pos)) is not None:
        end = _PEM_END.search(text, begin.end())
        stop = end.end() if end is not None else len(text)
        yield begin.start(), stop, "private-key"
        if end is None:
            return
        pos = stop


def _scanned(text: str) -> Iterator[tuple[int, int, str]]:
    """What detect-secrets finds, line by line, as spans of ``text``."""
    from detect_secrets.core.scan import scan_line

    start = 0
    for line in text.split("\n"):
        if _HINT.search(line):
            for offset in range(0, max(len(line) - _OVERLAP, 1), SCAN_CHARS - _OVERLAP):
                window = line[offset : offset + SCAN_CHARS]
                with _lock:
                    _configure()
                    found = [(s.type, s.secret_value) for s in scan_line(window)]
                for kind, value in found:
                    if not isinstance(value, str) or len(value) < 6 or "[redacted" in value:
                        continue  # a plugin's partial match ("ghp"): the own patterns have it
                    at = window.find(value)
                    while at >= 0:
                        yield start + offset + at, start + offset + at + len(value), _kind(kind)
                        at = window.find(value, at + len(value))
        start += len(line) + 1


def _kind(secret_type: str) -> str:
    return _KINDS.get(secret_type) or secret_type.lower().replace(" ", "-")


def _configure() -> None:
    """detect-secrets' global settings, with the plugins above (once; the caller holds the lock)."""
    global _settings
    if _settings is None:
        from detect_secrets.settings import configure_settings_from_baseline

        _settings = configure_settings_from_baseline({"plugins_used": [{"name": name} for name in _PLUGINS]})
