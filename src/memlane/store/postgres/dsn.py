"""Connection strings made printable: every password in a PostgreSQL URL or ``key=value`` string replaced by
``***`` before it reaches a message, ``status`` or ``doctor``."""

from __future__ import annotations

import contextlib
import re
from urllib.parse import unquote

try:
    import psycopg
    from psycopg.conninfo import conninfo_to_dict, make_conninfo
except ImportError:  # pragma: no cover - the extra is not installed
    psycopg = None  # type: ignore[assignment]

_URL = re.compile(r"^postgres(?:ql)?://", re.IGNORECASE)
_UNREADABLE = "(a PostgreSQL connection string memlane cannot read, not shown)"


def _secret_key(key: str) -> bool:
    """Whether a connection option holds a secret: password, sslpassword, and misspellings of them."""
    key = key.strip().lower()
    return key != "passfile" and any(word in key for word in ("pas", "pw", "secret"))


def redact(dsn: str) -> str:
    """``dsn`` for messages, every password replaced by ``***``: ``user:password@`` and ``?password=`` of a
    ``postgresql://`` URL, ``password=`` (quoted or not) of a ``key=value`` string. The one place a connection
    string is made printable; a string that cannot be read is not shown at all (its password could be anywhere)."""
    if _URL.match(dsn):
        return _redact_url(dsn)[0]
    if psycopg is not None:  # libpq's own reading of the string, when the extra is installed
        try:
            options = conninfo_to_dict(dsn)
        except psycopg.Error:
            pass  # not one libpq reads either: the careful parse below, else nothing is shown
        else:
            return make_conninfo("", **{k: "***" if _secret_key(k) else v for k, v in options.items()})
    parsed = _redact_keywords(dsn)
    return parsed[0] if parsed is not None else _UNREADABLE


def scrub(text: str, dsn: str) -> str:
    """``text`` (a driver's error message about ``dsn``) with any password of ``dsn`` in it replaced by ``***``."""
    found: list[str] = []
    if _URL.match(dsn):
        found += _redact_url(dsn)[1]
    else:
        parsed = _redact_keywords(dsn)
        found += parsed[1] if parsed is not None else []
    if psycopg is not None:
        with contextlib.suppress(psycopg.Error):
            found += [str(v) for k, v in conninfo_to_dict(dsn).items() if _secret_key(k)]
    for secret in sorted({f for s in found for f in (s, unquote(s)) if f}, key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def _redact_url(url: str) -> tuple[str, list[str]]:
    """(``url`` with its passwords as ``***``, the passwords). The user info ends at the last '@' before the
    query, so that a '/' or '@' left unencoded in a password is still taken for part of it."""
    scheme, rest = url.split("://", 1)
    query_at = rest.find("?")
    head, tail = (rest, "") if query_at < 0 else (rest[:query_at], rest[query_at:])
    secrets: list[str] = []
    if "@" in head:
        userinfo, hosts = head.rsplit("@", 1)
        user, colon, password = userinfo.partition(":")
        if colon:
            secrets.append(password)
            head = f"{user}:***@{hosts}"
    if tail:
        params = []
        for param in tail[1:].split("&"):
            key, eq, value = param.partition("=")
            if eq and _secret_key(unquote(key)):
                secrets.append(value)
                param = f"{key}=***"
            params.append(param)
        tail = "?" + "&".join(params)
    return f"{scheme}://{head}{tail}", secrets


def _redact_keywords(dsn: str) -> tuple[str, list[str]] | None:
    """(``dsn`` with the values of its secret options as ``***``, those values), read by libpq's rules for
    ``key = value`` strings (a value unquoted up to a space, or single-quoted; a backslash escapes the next
    character); None when the string does not follow them."""
    out: list[str] = []
    secrets: list[str] = []
    i, n = 0, len(dsn)
    while i < n:
        if dsn[i].isspace():
            out.append(dsn[i])
            i += 1
            continue
        start = i
        while i < n and dsn[i] != "=" and not dsn[i].isspace():
            i += 1
        key = dsn[start:i]
        while i < n and dsn[i].isspace():
            i += 1
        if i == n or dsn[i] != "=" or not key:
            return None
        i += 1
        while i < n and dsn[i].isspace():
            i += 1
        value_at = i
        if i < n and dsn[i] == "'":
            i += 1
            while i < n and dsn[i] != "'":
                i += 2 if dsn[i] == "\\" else 1
            if i >= n:
                return None  # an unterminated quote
            i += 1
        else:
            while i < n and not dsn[i].isspace():
                i += 2 if dsn[i] == "\\" else 1
            i = min(i, n)
        value = dsn[value_at:i]
        if _secret_key(key):
            quoted = value[1:-1] if value.startswith("'") else value
            secrets += [quoted, re.sub(r"\\(.)", r"\1", quoted)]  # as written, and as libpq reads it
            value = "***"
        out.append(dsn[start:value_at] + value)
    return "".join(out), secrets
