"""Secrets out of captured text, before anything else sees it.

:func:`redact` replaces every secret it finds in a turn by ``[redacted: <kind>]`` (``[redacted: openai-key]``,
``[redacted: password]``…) and says how many it replaced and of which kinds, in the order of the text. Only the
secret itself is replaced: "my OpenAI key is sk-… use it for the staging bot" keeps "use it for the staging bot",
and ``postgres://admin:…@db.example.com/orion`` keeps its user, host and database.

Two detectors, because neither is enough alone, and a last net:

1. **memlane's own patterns**, for what people paste into a chat: ``sk-``/``sk-proj-``/``sk-ant-`` keys,
   ``AKIA``/``ASIA`` key ids and the value of ``aws_secret_access_key``, ``ghp_``/``gho_``/``ghu_``/``ghs_``/
   ``ghr_``/``github_pat_``, ``glpat-``, ``xox[abprse]-``/``xapp-`` and Slack webhooks, ``sk_live_``/
   ``rk_live_``/``sk_test_``, ``AIza…``, Hugging Face, npm and SendGrid tokens, JWTs, whole PEM private-key
   blocks (over lines; one never closed is a secret to the end of the text), the password of a
   URL (``scheme://user:`` to ``@host``), ``curl -u user:…``, ``Bearer <token>``, ``Authorization: Basic
   …``, values of a name ending in password/passwd/pwd/pin/secret/token/api_key/…_key (``DB_PASSWORD=…``,
   ``"password": "…"``, ``export API_KEY=…``, ``--password …``, ``<password>…</password>``), and "my password
   (for the VPN) is …", "set the password to …" in plain words. detect-secrets' plugins were written for source
   files: its keyword plugin wants quotes in an ad-hoc scan, so it misses ``password=hunter2`` and "my password
   is hunter2", and it has no Anthropic, Google or Hugging Face shapes.
2. **detect-secrets** (Yelp's maintained scanner), for what its maintainers keep adding: its vendor plugins
   (AWS, Azure storage, Artifactory, Cloudant, Discord, GitHub, GitLab, IBM, Mailchimp, npm, OpenAI, PyPI,
   SendGrid, Slack, SoftLayer, Square, Stripe, Telegram, Twilio, JWTs, private keys, basic-auth URLs) and its
   keyword plugin (``contraseña = "…"``). Its high-entropy plugins (base64 4.5, hex 3.0) are left out: in an
   ad-hoc scan they look at every bare word, and a git commit hash (hex entropy about 3.7) or a sha256 quoted
   in prose passes their limits, so they would redact what a memory should keep. Its public-IP plugin is left
   out too (an address is not a secret). It never verifies a secret over the network (its verification filter
   is taken out of its settings before each scan), and importing it leaves Python's warnings alone (its logger
   calls ``logging.captureWarnings(True)``; ``warnings.showwarning`` is put back).
3. **An announced key**: a run of 16 to 200 key characters that looks random (digits among mixed-case letters,
   not a word, an identifier, a path, a hash or a UUID) within 48 characters after key, token, secret,
   password, credentials… on the same line: "here's the API key: …", "aws secret access key …".

The own patterns run first; detect-secrets and the announced keys then look at what they left (detect-secrets'
kind wins where both find the same span), so a secret two of them find is counted once, and spans that still
overlap are merged into one placeholder.

**Idempotent.** Placeholders already in the text are masked (their inside blanked, the brackets kept) before
anything looks, no pattern's value may hold a bracket, and a detect-secrets finding that touches a placeholder
is dropped: ``redact(redact(t).text)`` finds nothing and changes nothing.

**Linear.** Each own pattern starts with a literal or a keyword that the engine searches for (a fixed-width
look-behind then checks the character before it) and has no nested quantifiers: its repetitions are of one
character class, or bounded; a PEM block's end is searched for once; the announced-key rule looks back a bounded
distance from each run.
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

import bisect
import re
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

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


@dataclass(frozen=True)
class Redaction:
    """Text with its secrets replaced; how many were, and their kinds in the order they appear."""

    text: str
    count: int
    kinds: tuple[str, ...]


_Span = tuple[int, int, str]

_PLACEHOLDER = re.compile(r"\[redacted: [a-z0-9-]{1,40}\]")


def _after(prefix: str, width: int, before: str = r"[\w-]") -> str:
    """``prefix`` (``width`` characters long) where no ``before`` character precedes it: the literal comes first
    so that the engine searches for it fast, and a fixed-width look-behind then checks the character before."""
    return rf"{prefix}(?<!{before}.{{{width}}})"


# Key shapes: the whole match is the secret, and it cannot start inside a longer word.
_KEY = r"[A-Za-z0-9_-]"
_SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        ("anthropic-key", _after("sk-ant-", 7) + rf"{_KEY}{{20,}}"),
        ("openai-key", _after("sk-", 3) + rf"(?:proj-|svcacct-|admin-)?{_KEY}{{20,}}"),
        ("stripe-key", _after("[sr]k_", 3, r"\w") + r"(?:live|test)_[A-Za-z0-9]{16,}"),
        ("aws-access-key", _after("(?:AKIA|ASIA|ABIA|ACCA)", 4, "[A-Z0-9]") + r"[0-9A-Z]{16}(?![A-Z0-9])"),
        ("github-token", _after("gh[pousr]_", 4, r"\w") + r"[A-Za-z0-9]{30,}"),
        ("github-token", _after("github_pat_", 11, r"\w") + r"[A-Za-z0-9_]{22,}"),
        ("gitlab-token", _after("glpat-", 6) + rf"{_KEY}{{20,}}"),
        ("slack-token", _after("xox[abprse]-", 5) + r"[A-Za-z0-9-]{10,}"),
        ("slack-token", _after("xapp-", 5) + r"[0-9]-[A-Za-z0-9-]{10,}"),
        ("slack-webhook", r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
        ("google-api-key", _after("AIza", 4) + rf"{_KEY}{{35,}}"),
        ("huggingface-token", _after("hf_", 3, r"\w") + r"[A-Za-z0-9]{30,}"),
        ("npm-token", _after("npm_", 4, r"\w") + r"[A-Za-z0-9]{36,}"),
        ("sendgrid-key", _after(r"SG\.", 3, r"\w") + r"[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
        ("jwt", _after("eyJ", 3) + rf"{_KEY}{{8,}}\.eyJ{_KEY}{{8,}}\.{_KEY}{{8,}}"),
    )
)
_PEM_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")

# Secrets in context: the named group ``v`` (or ``qv``, quoted) is the secret; the words around it stay.
_URL_PASSWORD = re.compile(r"://[^\s:/@\[\]]{0,100}:(?P<v>[^\s/\[\]]{1,200})@")
_CURL_USER = re.compile(
    r"(?:" + _after("-u", 2) + "|" + _after("--user", 6) + r")[ \t]{1,3}[\"']?[^\s:\"'\[\]]{1,100}:"
    r"(?P<v>[^\s\"'`\[\]]{1,200})"
)
_BEARER = re.compile(
    r"(?:(?P<bearer>" + _after("(?i:bearer)", 6) + ")|" + _after("(?i:token)", 5) + r")[ \t]{1,5}"
    r"(?P<v>[A-Za-z0-9._~+/=-]{16,})"
)
_BASIC = re.compile(
    _after("(?i:authorization)", 13) + r"[ \t]{0,3}:[ \t]{0,3}(?i:basic)[ \t]{1,3}(?P<v>[A-Za-z0-9+/=]{8,})"
)
_AWS_SECRET = re.compile(
    r"(?i:aws_?secret(?:_?access)?_?key)[\"'\]]{0,2}[ \t]{0,3}[:=][ \t]{0,3}[\"']?"
    r"(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
)
# A value after a name and a separator: quoted (up to its quote), or bare (a run of the given characters; a
# password's may hold any but a space, a quote or a bracket, a key's stops at "&" in a URL's query).
_VALUE = r"[ \t]{0,3}(?:(?P<q>[\"'`])(?P<qv>(?:[^\"'`\n\[\]\\]|\\[\"'`\\]){1,200})|(?P<v>%s{%d,200}))"
# Passwords by a name that ends with the word: "DB_PASSWORD=x", "password: x", '"password": "x"', "the password
# is x", "my password for the VPN was x", "--password x", "password x" (a bare value that looks random).
_PASSWORD = re.compile(
    r"(?P<name>(?i:password|passwd|passphrase|passcode|contrase(?:ñ|n)a|pwd|pin|pw|pass))(?![A-Za-z0-9_-])"
    r"(?:[\"'\]]{0,2}[ \t]{0,3}(?P<sep>:=|=>|->|[:=>])"
    r"|(?:[ \t]{1,3}(?i:for|to|of|on|at)\b[^:=\n]{1,40}?)?(?:[ \t]{1,3}(?P<is>(?i:is|was))\b:?|(?P<s>['’]s\b))"
    r"|[ \t]{1,3}(?P<to>(?i:to))\b"
    r"|(?P<bare>[ \t]))" + _VALUE % (r"[^\s\"'`,;<\[\]]", 3)
)
# Other secrets by a name that ends with the word: "API_KEY=…", "token: …", '"client_secret": "…"'.
_NAMED = re.compile(
    r"(?P<name>(?i:(?:api|auth|service|account|db|database|priv|private|client|access|secret|signing|encryption"
    r"|master)[_-]?key|secret|token|(?:db|database|key)[_-]?pass)(?:[_-](?i:base|b64|base64|hex|value))?)"
    r"(?![A-Za-z0-9_-])[\"'\]]{0,2}[ \t]{0,3}(?P<sep>:=|=>|[:=])" + _VALUE % (r"[A-Za-z0-9_./+=:~-]", 8)
)
# Code and templates that name a secret without holding it: "$DB_PASSWORD", "${{ secrets.X }}", "{{ pw }}",
# "os.environ[…]", "getenv(…)", "<your password>", "%(password)s".
_REFERENCE = re.compile(
    r"\$\{?[A-Z_][A-Z0-9_]*\}?$|\$\{\{|\{\{|\{%|%\(|<"
    r"|(?i:(?:os\.)?environ|(?:os\.)?getenv|process\.env)\b"
    r"|(?i:env|config|settings|secrets|self|this|args|opts|options)[.\[(]"
)
# A key-like run of characters a few words after a word that announces one (the API key is X; here's my token,
# X; aws secret access key X). The run must look random (see _random_run).
_SECRET_WORD = re.compile(
    r"(?<![A-Za-z])(?i:api[ _-]?keys?|keys?|tokens?|secrets?|passwords?|passwd|passcode|passphrase|pw|pass"
    r"|credentials?|creds)(?![A-Za-z])"
)
_RUN = re.compile(r"(?<![A-Za-z0-9_+/.-])[A-Za-z0-9_+/-]{16,}={0,3}")  # "=" only as base64's padding
_NEAR = 48  # characters after the word where such a run may start
_WORDY = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}")
_HEXY = re.compile(r"[0-9a-f-]+|[0-9A-F-]+")
_PARTS = re.compile(r"[-_]")
_LOWER_WORD = re.compile(r"[a-z]{6,}")
_CODE_NAME = re.compile(r"[A-Za-z_]+(?:\.[A-Za-z_]+)*")
_MASKED = re.compile(  # what stands where a value would: "password: ****", "api_key: None", "password: str"
    r"[*•.]+|[xX]{3,}|\[?redacted\]?"
    r"|(?i:none|null|nil|true|false|undefined|required|optional|empty|str|string|bytes|secretstr|text|any)"
)
# Words that follow "password is" / "password:" without being one: "my password is stored in 1Password".
_NOT_A_PASSWORD_WORDS = """
    the a an my your our their his her its this that these those not no still also now just only always never
    usually probably definitely really actually literally exactly about like as same different stored saved kept
    written set changed reset expired wrong incorrect invalid valid correct right required needed missing empty
    blank too very long short strong weak secure insecure fine ok okay good bad great simple easy hard new old
    there here somewhere something nothing anything everything in on at for from with to of by into being going
    what which why how where when case-sensitive important sufficient insufficient unknown known obvious hidden
    visible one none null optional mandatory same-as
"""
_NOT_A_PASSWORD = frozenset(_NOT_A_PASSWORD_WORDS.split())
_NOT_A_PASSWORD_ENDINGS = ("ed", "ing", "ly", "ive", "able", "ible", "ful", "less", "ous")
_TRAILING = ".,;:!?)]}>\"'"

# What a detect-secrets plugin could find in a window: a keyword with a quote (its keyword plugin, in an ad-hoc
# scan, wants quotes), a URL with credentials, a private key header, or a run of key characters with a
# letter and a digit (every vendor shape). The keywords are a superset of its keyword plugin's DENYLIST.
_DS_KEYWORD = re.compile(r"(?i:key|pass|pwd|secret|contrase)")
_DS_RUN = re.compile(r"[A-Za-z0-9_+/=.:-]{16,}")
_DIGIT = re.compile(r"[0-9]")
_LETTER = re.compile(r"[A-Za-z]")

_lock = threading.Lock()
_scan_line: Callable[[str], Iterable[PotentialSecret]] | None = None


def redact(text: str) -> Redaction:
    """``text`` with every secret either detector finds replaced by ``[redacted: <kind>]``."""
    own = _merged(_own_spans(_masked(text)))
    first, placed = _replaced(text, own)
    masked = _masked(first)
    held = [(start, end) for start, end, _ in _placeholders(first)]
    # detect-secrets' findings before the announced runs: on the same span its vendor's kind is the better name.
    found = _merged(span for span in (*_scanned(masked), *_announced(masked)) if not _touches(span, held))
    if not own and not found:
        return Redaction(text, 0, ())
    final, _ = _replaced(first, found)
    kinds = tuple(kind for _, _, kind in sorted([*placed, *found]))
    return Redaction(final, len(own) + len(found), kinds)


def _masked(text: str) -> str:
    """``text`` with the inside of each placeholder blanked: no detector can match in or through one."""
    if "[redacted: " not in text:
        return text
    return _PLACEHOLDER.sub(lambda m: "[" + " " * (len(m.group()) - 2) + "]", text)


def _placeholders(text: str) -> list[_Span]:
    if "[redacted: " not in text:
        return []
    return [(m.start(), m.end(), "") for m in _PLACEHOLDER.finditer(text)]


def _touches(span: _Span, held: list[tuple[int, int]]) -> bool:
    """Whether ``span`` overlaps one of the (sorted, disjoint) ``held`` ranges."""
    i = bisect.bisect_left(held, (span[1],))
    return i > 0 and held[i - 1][1] > span[0]


def _merged(spans: Iterable[_Span]) -> list[_Span]:
    """Overlapping spans as one, with the kind of the one that starts first (the longest of those)."""
    out: list[_Span] = []
    for start, end, kind in sorted(spans, key=lambda s: (s[0], -s[1])):
        if out and start < out[-1][1]:
            last = out[-1]
            out[-1] = (last[0], max(last[1], end), last[2])
        else:
            out.append((start, end, kind))
    return out


def _replaced(text: str, spans: list[_Span]) -> tuple[str, list[_Span]]:
    """``text`` with each (disjoint, sorted) span replaced by its placeholder; where those now are."""
    if not spans:
        return text, []
    out: list[str] = []
    placed: list[_Span] = []
    pos = at = 0
    for start, end, kind in spans:
        out.append(text[pos:start])
        at += start - pos
        placeholder = f"[redacted: {kind}]"
        out.append(placeholder)
        placed.append((at, at + len(placeholder), kind))
        at += len(placeholder)
        pos = end
    out.append(text[pos:])
    return "".join(out), placed


def _own_spans(text: str) -> Iterator[_Span]:
    yield from _pem_blocks(text)
    for kind, pattern in _SHAPES:
        for m in pattern.finditer(text):
            yield m.start(), m.end(), kind
    for m in _URL_PASSWORD.finditer(text):
        yield m.start("v"), m.end("v"), "password"  # up to its last "@": nothing to trim
    for m in _CURL_USER.finditer(text):
        if not _is_reference(m):
            yield _trimmed(m, "password")
    for m in _BEARER.finditer(text):  # "Bearer eyJ…", "token 9f8e…" (GitHub's scheme), not "token internationalization"
        if _looks_random(m["v"]) if m["bearer"] is not None else _random_run(m["v"].rstrip(_TRAILING)):
            yield _trimmed(m, "bearer-token")
    for m in _BASIC.finditer(text):
        yield _trimmed(m, "basic-auth")
    for m in _AWS_SECRET.finditer(text):
        yield m.start("v"), m.end("v"), "aws-secret-key"
    for m in _NAMED.finditer(text):
        if _named_value(m):
            yield _trimmed(m, _named_kind(m["name"]))
    for m in _PASSWORD.finditer(text):
        if _password_value(m):
            yield _trimmed(m, "password")


def _announced(text: str) -> Iterator[_Span]:
    """A random-looking run of key characters shortly after a word such as key, token, secret or password."""
    for run in _RUN.finditer(text):
        start = run.start()
        lo = max(0, start - _NEAR - 16)
        lo = text.rfind("\n", lo, start) + 1 or lo  # on the run's own line
        word = None
        for m in _SECRET_WORD.finditer(text, lo, start):
            if m.end() >= start - _NEAR:
                word = m[0].lower()  # the nearest one names the kind
        if word is None or not _random_run(run[0]):
            continue
        kind = "password" if word.startswith(("pass", "pw")) else "token" if word.startswith("token") else "secret"
        yield start, run.end(), "api-key" if word.startswith("api") else kind


def _pem_blocks(text: str) -> Iterator[_Span]:
    """Whole private-key blocks; one never closed is a secret to the end of the text."""
    pos = 0
    while (begin := _PEM_BEGIN.search(text, pos)) is not None:
        end = _PEM_END.search(text, begin.end())
        stop = end.end() if end is not None else len(text)
        yield begin.start(), stop, "private-key"
        if end is None:
            return
        pos = stop


def _quoted(m: re.Match[str]) -> bool:
    return "qv" in m.re.groupindex and m["qv"] is not None


def _value(m: re.Match[str]) -> str:
    return m["qv"] if _quoted(m) else m["v"]


def _trimmed(m: re.Match[str], kind: str) -> _Span:
    """The value's span: a quoted one whole, a bare one without the punctuation that ends a sentence."""
    group = "qv" if _quoted(m) else "v"
    start, end = m.span(group)
    if group == "v":
        end = start + len(m[group].rstrip(_TRAILING) or m[group])
    return start, end, kind


def _is_reference(m: re.Match[str]) -> bool:
    """A value that names where a secret is (``os.environ["X"]``, ``${{ secrets.X }}``) rather than holding it."""
    value = _value(m)
    after = m.string[m.end() : m.end() + 1]
    if after in ("[", "(") or "(" in value or _REFERENCE.match(value) is not None:
        return True
    # A bare name in code: "secret = endpoint.api_key", "password=user_password" (no digit, a "_" or a ".").
    return not _quoted(m) and ("_" in value or "." in value) and _CODE_NAME.fullmatch(value) is not None


def _random_run(run: str) -> bool:
    """A run of key characters that is a key, not a word, an identifier, a name, a path or a hash.

    16 to 200 characters, both cases (or 24 characters or more); not hexadecimal unless 32 long (an API key; a
    git hash is 40 or 7-12, a UUID has dashes); not a path, an SSH public key's blob, or short parts joined by
    dashes or underscores (``all-MiniLM-L6-v2``, ``x86_64-unknown-linux-gnu``); less than a quarter of it in
    lower-case words of six letters or more (``OAuth2ClientCredentials``, ``ResNet50V2Backbone``); and a digit,
    unless it is 20 long with hardly a word in it. A random base62 key of 16 passes nine times in ten, of 32 or
    more 98 times in a hundred.
    """
    if not 16 <= len(run) <= 200:
        return False
    upper, lower = run.lower() != run, run.upper() != run
    if not (upper and lower) and (len(run) < 24 or not (upper or lower)):
        return False
    if _HEXY.fullmatch(run) and (len(run) != 32 or "-" in run):
        return False
    if run.startswith("AAAA") or ("/" in run and all(len(p) <= 3 or _wordy(p) >= 0.5 for p in run.split("/"))):
        return False  # an SSH public key ("ssh-ed25519 AAAAC3Nz…"); a path ("docs/security/Secrets2024")
    parts = _PARTS.split(run)
    if len(parts) >= 3 and max(len(part) for part in parts) < 12:
        return False
    if sum(len(word) for word in _LOWER_WORD.findall(run)) * 4 >= len(run):
        return False
    if not _DIGIT.search(run):
        return len(run) >= 20 and _LOWER_WORD.search(run) is None and _wordy(run) < 0.3
    return True


def _wordy(run: str) -> float:
    """How much of ``run`` is in word-like runs: 0.25 for a random base62 key, 0.9 for an identifier."""
    return sum(len(word) for word in _WORDY.findall(run)) / len(run)


def _looks_random(value: str) -> bool:
    """A digit and a letter, or upper case after the first letter: a key, not a word."""
    return bool(_DIGIT.search(value) and _LETTER.search(value)) or any(c.isupper() for c in value[1:])


def _named_value(m: re.Match[str]) -> bool:
    value = _value(m)
    if _is_reference(m) or _MASKED.fullmatch(value) or not any(c.isalnum() for c in value):
        return False
    # "secret: patience" is a sentence; "SECRET=patience", '"secret": "…"' and "token: 9f8e…" are not.
    return m["qv"] is not None or m["sep"] != ":" or _looks_random(value)


def _named_kind(name: str) -> str:
    """The placeholder's kind for a name: api-key, token, password (``DB_PASS``), private-key, else secret."""
    word = name.lower()
    for part, kind in (("api", "api-key"), ("token", "token"), ("pass", "password"), ("priv", "private-key")):
        if part in word:
            return kind
    return "secret"


def _password_value(m: re.Match[str]) -> bool:
    value = _value(m)
    bare = value.rstrip(_TRAILING) or value
    name = m["name"].lower()
    if _is_reference(m) or _MASKED.fullmatch(bare) or not any(c.isalnum() for c in value):
        return False  # a reference, a mask, or punctuation ('password:",' at the end of a string in code)
    if name in ("pin", "pwd", "pw", "pass") and m.string[m.start() - 1 : m.start()].isalnum():
        return False  # "spin", "cmdpwd", "bypass": only a name's own word ("PIN", "SIM_PIN", "DB_PWD") counts
    if name == "pin" and not _DIGIT.search(bare):
        return False  # "the pin is loose"
    if name == "pwd" and bare[:1] in "/~.":
        return False  # PWD=/home/alice: the shell's working directory
    if m["qv"] is not None and name not in ("pw", "pass"):
        return True
    if m["bare"] is not None or m["to"] is not None or m["sep"] == "->" or name in ("pw", "pass"):
        # "password hunter2", "set the password to hunter2", "pass: hunter2", but not "password manager",
        # "the password to the server", "password -> forgot -> email", "boarding pass: 14A",
        # "pass api_key=$KEY on the command line".
        return len(bare) >= 6 and "=" not in bare and _looks_random(bare)
    if m["sep"] in ("=", ":=", "=>", ">"):
        return True
    word = bare.casefold()
    if word in _NOT_A_PASSWORD:
        return False
    # "the password is expired / rotated weekly / case-sensitive": a plain word with a word's ending.
    return not (word.replace("-", "").isalpha() and word.islower() and word.endswith(_NOT_A_PASSWORD_ENDINGS))


def _scanned(text: str) -> Iterator[_Span]:
    """What detect-secrets finds, line by line, as spans of ``text`` (placeholders already masked)."""
    if not _worth_scanning(text):
        return
    budget = SCAN_BUDGET
    start = 0
    for line in text.split("\n"):
        for offset in range(0, max(len(line) - _OVERLAP, 1), SCAN_CHARS - _OVERLAP):
            window = line[offset : offset + SCAN_CHARS]
            if not _worth_scanning(window):
                continue
            budget -= len(window) + SCAN_CALL_COST
            if budget < 0:
                return  # the rest is left to the own patterns, which have already seen it
            for kind, value in _detected(window):
                at = window.find(value)
                while at >= 0:
                    yield start + offset + at, start + offset + at + len(value), kind
                    at = window.find(value, at + len(value))
        start += len(line) + 1


def _worth_scanning(window: str) -> bool:
    if ('"' in window or "'" in window or "`" in window) and _DS_KEYWORD.search(window):
        return True
    if ("://" in window and "@" in window) or "PRIVATE KEY" in window:
        return True
    return any(_DIGIT.search(run[0]) and _LETTER.search(run[0]) for run in _DS_RUN.finditer(window))


def _detected(window: str) -> list[tuple[str, str]]:
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
