"""detect-secrets, the second detector of :mod:`memlane.capture.secrets`, run offline and within a budget.

detect-secrets (Yelp's maintained scanner), for what its maintainers keep adding: its vendor plugins
(AWS, Azure storage, Artifactory, Cloudant, Discord, GitHub, GitLab, IBM, Mailchimp, npm, OpenAI, PyPI,
SendGrid, Slack, SoftLayer, Square, Stripe, Telegram, Twilio, JWTs, private keys, basic-auth URLs) and its
keyword plugin (``contraseña = "…"``). Its high-entropy plugins (base64 4.5, hex 3.0) are left out: in an
ad-hoc scan they look at every bare word, and a git commit hash (hex entropy about 3.7) or a sha256 quoted
in prose passes their limits, so they would redact what a memory should keep. Its public-IP plugin is left
out too (an address is not a secret). It never verifies a secret over the network (its verification filter
is taken out of its settings before each scan), and importing it leaves Python's warnings alone (its logger
calls ``logging.captureWarnings(True)``; ``warnings.showwarning`` is put back).

detect-secrets' regular expressions are not linear (its keyword patterns are quadratic in a line), so it is
handed at most :data:`SCAN_CHARS` characters at a time (a longer line in overlapping windows), only windows
that could hold what its plugins look for (a keyword and a quote, ``://…@``, ``PRIVATE KEY``, or a run of 16
key characters with a letter and a digit), and at most :data:`SCAN_BUDGET` of them per call (each window also
costing :data:`SCAN_CALL_COST`, its fixed price). Past the budget only the own patterns and the announced-key
rule run. A chat turn is far below it; a megabyte of minified JSON or base64 is not, and takes well under a
second.

detect-secrets' settings are process-global: they are checked, set and used only under a lock.
"""

from __future__ import annotations

import re
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from .secret_patterns import DIGIT, LETTER

if TYPE_CHECKING:
    from detect_secrets.core.potential_secret import PotentialSecret

SCAN_CHARS = 4096  # of a line handed to detect-secrets at once (a longer line goes in overlapping windows)
SCAN_BUDGET = 131_072  # characters detect-secrets is handed per call, counting SCAN_CALL_COST per window
SCAN_CALL_COST = 256  # what one detect-secrets call costs besides its characters (24 plugins, ~0.3 ms)
_OVERLAP = 256  # between windows: a secret up to this long is always whole in one of them

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
_PLUGIN_CONFIG: dict[str, dict[str, object]] = {name: {} for name in _PLUGINS}
# With this filter in its settings detect-secrets calls the vendor's API to verify what it found.
_VERIFY_FILTER = "detect_secrets.filters.common.is_ignored_due_to_verification_policies"
_KINDS = {  # detect-secrets' secret types, as a placeholder names them (the rest: lower case, dashes)
    "AWS Access Key": "aws-access-key",
    "Basic Auth Credentials": "password",
    "Secret Keyword": "secret",
    "Private Key": "private-key",
    "JSON Web Token": "jwt",
    "OpenAI Token": "openai-key",
    "Stripe Access Key": "stripe-key",
    "NPM tokens": "npm-token",
    "Twilio API Key": "twilio-key",
    "Azure Storage Account access key": "azure-storage-key",
}

Span = tuple[int, int, str]  # start, end, kind

# What a detect-secrets plugin could find in a window: a keyword with a quote (its keyword plugin, in an ad-hoc
# scan, wants quotes), a URL with credentials, a private key header, or a run of key characters with a
# letter and a digit (every vendor shape). The keywords are a superset of its keyword plugin's DENYLIST.
_DS_KEYWORD = re.compile(r"(?i:key|pass|pwd|secret|contrase)")
_DS_RUN = re.compile(r"[A-Za-z0-9_+/=.:-]{16,}")

_lock = threading.Lock()
_scan_line: Callable[[str], Iterable[PotentialSecret]] | None = None


def scanned(text: str) -> Iterator[Span]:
    """What detect-secrets finds, line by line, as spans of ``text`` (placeholders already masked)."""
    if not worth_scanning(text):
        return
    budget = SCAN_BUDGET
    start = 0
    for line in text.split("\n"):
        for offset in range(0, max(len(line) - _OVERLAP, 1), SCAN_CHARS - _OVERLAP):
            window = line[offset : offset + SCAN_CHARS]
            if not worth_scanning(window):
                continue
            budget -= len(window) + SCAN_CALL_COST
            if budget < 0:
                return  # the rest is left to the own patterns, which have already seen it
            for kind, value in detected(window):
                at = window.find(value)
                while at >= 0:
                    yield start + offset + at, start + offset + at + len(value), kind
                    at = window.find(value, at + len(value))
        start += len(line) + 1


def worth_scanning(window: str) -> bool:
    if ('"' in window or "'" in window or "`" in window) and _DS_KEYWORD.search(window):
        return True
    if ("://" in window and "@" in window) or "PRIVATE KEY" in window:
        return True
    return any(DIGIT.search(run[0]) and LETTER.search(run[0]) for run in _DS_RUN.finditer(window))


def detected(window: str) -> list[tuple[str, str]]:
    """(kind, value) of each secret detect-secrets finds in one window."""
    with _lock:
        scan = _configured()
        found = [(s.type, s.secret_value) for s in scan(window)]
    out: list[tuple[str, str]] = []
    for secret_type, value in found:
        if not isinstance(value, str) or len(value) < 6:
            continue  # a plugin's partial match ("ghp" of a GitHub token): the own patterns have it
        if any(c.isspace() for c in value):
            continue  # its keyword plugin over prose: "`llm.apiKey`, `llm.model`" is not a key
        name, eq, rest = value.partition("=")
        if eq and rest and name.isidentifier():
            value = rest  # "AccountKey=…": the name stays readable
        out.append((_KINDS.get(secret_type) or secret_type.lower().replace(" ", "-"), value))
    return out


def _configured() -> Callable[[str], Iterable[PotentialSecret]]:
    """detect-secrets' ``scan_line``, its global settings set to the plugins above (the caller holds the lock).

    Checked on every call, not set once: anything in the process that resets detect-secrets' settings (its
    ``transient_settings`` makes a new settings object on the way out) would otherwise leave it scanning with
    no plugins, or with the verification filter that sends secrets to vendors' APIs.
    """
    global _scan_line
    if _scan_line is None:
        showwarning = warnings.showwarning
        try:
            from detect_secrets.core.scan import scan_line
        finally:
            warnings.showwarning = showwarning  # its logger calls logging.captureWarnings(True) on import
        _scan_line = scan_line
    from detect_secrets.settings import get_settings

    settings = get_settings()
    if settings.plugins != _PLUGIN_CONFIG:
        settings.disable_plugins(*list(settings.plugins))
        settings.configure_plugins([{"name": name, **config} for name, config in _PLUGIN_CONFIG.items()])
    if _VERIFY_FILTER in settings.filters:
        settings.disable_filters(_VERIFY_FILTER)
    return _scan_line
