"""Secrets out of captured text, before anything else sees it.

:func:`redact` replaces every secret it finds in a turn by ``[redacted: <kind>]`` (``[redacted: openai-key]``,
``[redacted: password]``…) and says how many it replaced and of which kinds, in the order of the text. Only the
secret itself is replaced: "my OpenAI key is sk-… use it for the staging bot" keeps "use it for the staging bot",
and ``postgres://admin:…@db.example.com/orion`` keeps its user, host and database.

Two detectors, because neither is enough alone, and a last net:

1. **memlane's own patterns**, for what people paste into a chat: some 60 vendor key shapes by their prefix
   (``sk-``/``sk-proj-``/``sk-ant-``, ``AKIA``/``ASIA`` and the value of ``aws_secret_access_key`` or "the AWS
   secret key is …", ``ghp_``/``gho_``/``github_pat_``, ``glpat-``, ``xox?-``, ``sk_live_``, ``AIza``, ``hf_``,
   ``npm_``, ``pypi-``, ``SG.``, ``sq0…-``, ``gsk_``, ``xai-``, ``pplx-``, ``r8_``, ``dop_v1_``, ``ntn_``,
   ``lin_api_``, ``shpat_``, ``whsec_``, ``tskey-``, ``hvs.``, ``GOCSPX-``, ``ya29.`` and more), JWTs, whole
   PEM private-key blocks (over lines; one never closed is a secret to the end of the text), the password of a
   URL (``scheme://user:`` to ``@host``), ``curl -u user:…``, ``Bearer <token>``, ``Authorization: Basic …``,
   values of a name ending in password/passwd/pwd/pin/secret/token/api_key/…_key (``DB_PASSWORD=…``,
   ``"password": "…"``, ``export API_KEY=…``, ``--password …``, ``<password>…</password>``), "my password
   (for the VPN) is …", "the password for staging = …", "set the password to …" in plain words, a passphrase
   of plain words whole ("the wifi password is correct horse battery staple"), password words of 25 other
   languages with their own verbs ("das Passwort ist …", "パスワードは…", "密码是…"), passwords on the
   command lines of mysql, sshpass, docker/podman login, redis-cli, zip, 7z, ldapsearch, sqlcmd, openssl,
   smbclient, ssh-keygen and others, "admin:… on the router" and "login: alice / …", cookie values (a
   Cookie or Set-Cookie header's random-looking values, a session cookie's anywhere) and base32 OTP seeds
   named on their line ("the OTP secret is JBSW…", "jbsw y3dp …" in groups). detect-secrets' plugins were
   written for source files: its keyword plugin wants quotes in an ad-hoc scan, so it misses
   ``password=hunter2`` and "my password is hunter2", and it has none of the newer vendors' shapes.
2. **detect-secrets** (Yelp's maintained scanner), for what its maintainers keep adding: its vendor plugins
   and its keyword plugin, offline, a bounded amount per call (:mod:`memlane.capture.secret_scan`).
3. **An announced key**: a run of 16 to 200 key characters that looks random (digits among mixed-case letters,
   not a word, an identifier, a path, a hash or a UUID) within 48 characters after key, token, secret,
   password, credentials… (or those words in other languages) on the same line: "here's the API key: …",
   "aws secret access key …". A hexadecimal run counts too when the word is token, API key, secret or
   password and no word such as commit, sha, checksum, digest or id stands near it ("the token 3f2a…" goes;
   "the key commit was 3f2a…" and "sha256 of the token file: …" stay): a hash names something public, a
   hexadecimal credential is named one by its sentence.

The own patterns run first; detect-secrets and the announced keys then look at what they left (detect-secrets'
kind wins where both find the same span), so a secret two of them find is counted once, and spans that still
overlap are merged into one placeholder.

**Idempotent.** Placeholders already in the text are masked (their inside blanked, the brackets kept) before
anything looks, no pattern's value may hold a bracket, and a detect-secrets finding that touches a placeholder
is dropped: ``redact(redact(t).text)`` finds nothing and changes nothing.

**Linear.** Each own pattern starts with a literal or a keyword that the engine searches for (a fixed-width
look-behind then checks the character before it) and has no nested quantifiers: its repetitions are of one
character class, or bounded; a PEM block's end is searched for once; the announced-key rule looks back a bounded
distance from each run. A command's pattern runs only when its name is in the text, and its flag must come
within 160 characters of it; a passphrase is read at most 160 characters on; an OTP seed in groups is at most 41
groups of four, and its naming word is looked for a bounded distance around it. The hostile inputs of
tests/test_capture_secrets.py cost 4x at 4x their size.
detect-secrets' own regular expressions are not linear: :mod:`memlane.capture.secret_scan` bounds them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from .secret_scan import scanned


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
        # Vendors whose keys have a prefix of their own (issue 41 found the first thirteen written whole).
        ("groq-key", _after("gsk_", 4, r"\w") + r"[A-Za-z0-9]{20,}"),
        ("xai-key", _after("xai-", 4) + r"[A-Za-z0-9]{20,}"),
        ("perplexity-key", _after("pplx-", 5) + r"[A-Za-z0-9]{20,}"),
        ("replicate-token", _after("r8_", 3, r"\w") + r"[A-Za-z0-9]{20,}"),
        ("digitalocean-token", _after("do[opr]_v1_", 7, r"\w") + r"[A-Za-z0-9]{20,}"),
        ("notion-token", _after("ntn_", 4, r"\w") + r"[A-Za-z0-9]{20,}"),
        ("linear-key", _after("lin_api_", 8, r"\w") + r"[A-Za-z0-9]{20,}"),
        ("linear-key", _after("lin_oauth_", 10, r"\w") + r"[A-Za-z0-9]{20,}"),
        ("shopify-token", _after("shp(?:at|ca|pa|ss)_", 6, r"\w") + r"[A-Za-z0-9]{20,}"),
        ("webhook-secret", _after("whsec_", 6, r"\w") + r"[A-Za-z0-9+/=]{20,}"),
        ("tailscale-key", _after("tskey-", 6) + r"[A-Za-z0-9-]{20,}"),
        ("vault-token", _after(r"hv[sbr]\.", 4, r"[\w.-]") + r"[A-Za-z0-9_-]{20,}"),
        ("google-oauth-secret", _after("GOCSPX-", 7) + rf"{_KEY}{{20,}}"),
        ("google-oauth-token", _after(r"ya29\.", 5, r"[\w.-]") + rf"{_KEY}{{20,}}"),
        ("pypi-token", _after("pypi-AgE", 8) + rf"{_KEY}{{40,}}"),
        ("square-oauth-secret", _after("sq0csp-", 7) + rf"{_KEY}{{20,}}"),
        ("square-token", _after("sq0(?:atp|idp)-", 7) + rf"{_KEY}{{20,}}"),
        ("gitlab-token", _after("gl(?:dt|rt|ft)-", 5) + rf"{_KEY}{{20,}}"),
        ("gitlab-token", _after("glptt-", 6) + rf"{_KEY}{{20,}}"),
        ("atlassian-token", _after("ATATT3", 6) + r"[A-Za-z0-9_=-]{40,}"),
        ("doppler-token", _after(r"dp\.(?:pt|st|sa|ct)\.", 6, r"[\w.-]") + r"[A-Za-z0-9]{30,}"),
        ("age-key", _after("AGE-SECRET-KEY-1", 16) + r"[0-9A-Z]{40,}"),
        ("postman-key", _after("PMAK-", 5) + r"[A-Za-z0-9-]{40,}"),
        ("grafana-token", _after("glsa_", 5, r"\w") + r"[A-Za-z0-9_]{30,}"),
        ("grafana-token", _after("glc_", 4, r"\w") + r"[A-Za-z0-9+/=]{30,}"),
        ("sentry-token", _after("sntry[su]_", 7, r"\w") + r"[A-Za-z0-9+/=_]{30,}"),
        ("databricks-token", _after("dapi", 4, r"\w") + r"[a-f0-9]{32}(?:-[0-9])?"),
        ("supabase-key", _after("sbp_", 4, r"\w") + r"[A-Za-z0-9]{20,}"),
        ("supabase-key", _after("sb_secret_", 10, r"\w") + rf"{_KEY}{{20,}}"),
        ("heroku-key", _after("HRKU-", 5) + rf"{_KEY}{{20,}}"),
        ("figma-token", _after("figd_", 5, r"\w") + rf"{_KEY}{{20,}}"),
        ("fireworks-key", _after("fw_", 3, r"\w") + r"[A-Za-z0-9]{20,}"),
        ("langsmith-key", _after("lsv2_(?:pt|sk)_", 8, r"\w") + r"[A-Za-z0-9_]{20,}"),
        ("pinecone-key", _after("pcsk_", 5, r"\w") + r"[A-Za-z0-9_]{20,}"),
        ("netlify-token", _after("nfp_", 4, r"\w") + r"[A-Za-z0-9]{20,}"),
        ("render-key", _after("rnd_", 4, r"\w") + r"[A-Za-z0-9]{20,}"),
        ("buildkite-token", _after("bkua_", 5, r"\w") + r"[A-Za-z0-9]{20,}"),
        ("circleci-token", _after("CCIPAT_", 7, r"\w") + rf"{_KEY}{{20,}}"),
        ("flyio-token", _after("fo1_", 4, r"\w") + rf"{_KEY}{{20,}}"),
        ("newrelic-key", _after("NRAK-", 5) + r"[A-Z0-9]{20,}"),
        ("mailgun-key", _after("key-", 4) + r"[a-f0-9]{32}(?![A-Za-z0-9])"),
        ("airtable-token", _after("pat", 3, r"\w") + r"[A-Za-z0-9]{14}\.[a-f0-9]{64}"),
        ("mapbox-token", _after(r"sk\.eyJ", 5, r"[\w.-]") + rf"{_KEY}{{20,}}\.{_KEY}{{10,}}"),
        ("aws-session-token", _after("(?:FwoGZXIvYXdz|IQoJb3JpZ2lu)", 12, r"[\w/+]") + r"[A-Za-z0-9/+=]{40,}"),
    )
)
_PEM_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")

# Secrets in context: the named group ``v`` (or ``qv``, quoted) is the secret; the words around it stay.
_URL_PASSWORD = re.compile(r"://[^\s:/@\[\]]{0,100}:(?P<v>[^\s/\[\]]{1,200})@")
_CURL_USER = re.compile(
    r"(?:" + _after("-u", 2) + "|" + _after("--user", 6) + r")[ \t]{1,3}[\"']?(?P<u>[^\s:\"'\[\]]{1,100}):"
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
    r"(?i:aws[ _]?secret(?:[ _]?access)?[ _]?key)[\"'\]]{0,2}(?:[ \t]{0,3}[:=]|[ \t]{1,3}(?i:is|was)\b:?)?"
    r"[ \t]{0,3}[\"']?"
    r"(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
)
# A value after a name and a separator: quoted (up to its quote), or bare (a run of the given characters; a
# password's may hold any but a space, a quote or a bracket, a key's stops at "&" in a URL's query).
_VALUE = r"[ \t]{0,3}(?:(?P<q>[\"'`])(?P<qv>(?:[^\"'`\n\[\]\\]|\\[\"'`\\]){1,200})|(?P<v>%s{%d,200}))"
# Passwords by a name that ends with the word: "DB_PASSWORD=x", "password: x", '"password": "x"', "the password
# is x", "my password for the VPN was x", "--password x", "password x" (a bare value that looks random).
_PASSWORD = re.compile(
    r"(?P<name>(?i:password|passwd|passphrase|pass[ -]phrase|passcode|contrase(?:ñ|n)a|pwd|pin(?:[ _-]?code)?|pw|pass"
    r"|(?:door|gate|alarm|garage|unlock|access|security|entry|safe|locker|keypad)[ _-]?code))(?![A-Za-z0-9_-])"
    r"(?:[\"'\]]{0,2}[ \t]{0,3}(?P<sep>:=|=>|->|[:=>])"
    r"|[ \t]{1,3}(?i:for|of|on|at)\b[^:=\n]{1,40}?[ \t]{0,3}(?P<fsep>:=|=>|[:=])"
    r"|(?:[ \t]{1,3}(?i:for|to|of|on|at)\b[^:=\n]{1,40}?)?"
    r"(?:[ \t]{1,3}(?P<is>(?i:is|was|ist|est|es|é|è|era|war|jest|är))\b:?|(?P<s>['’]s\b))"
    r"|[ \t]{1,3}(?P<to>(?i:to))\b"
    r"|(?P<bare>[ \t]))" + _VALUE % (r"[^\s\"'`,;<\[\]]", 3)
)
# The ASCII spellings among them (any other is looked for when the text is not all ASCII).
_FOREIGN_ASCII_WORDS = """
    passwort kennwort passe contrase clave senha wachtwoord haslo parol losenord passord adgangskode kodeord
    salasana jelszo heslo lozinka sifre sandi laluan khau
"""
_FOREIGN_ASCII = tuple(_FOREIGN_ASCII_WORDS.split())
# Password words of other languages, with their own verbs ("das Passwort ist …", "le mot de passe est …",
# "a senha é …", "パスワードは…", "密码是…", "비밀번호는 …", "пароль: …"), a "for …" clause in the language's own
# words ("das Passwort für den Server ist …"). A CJK particle needs no space; the value stops at CJK text.
_FOREIGN = re.compile(
    r"(?<![^\W\d_])(?P<name>(?i:passwort|kennwort|mot[ -]de[ -]passe|contrase(?:ñ|n)a|clave|senha|palavra-passe"
    r"|wachtwoord|has(?:ł|l)o|parol(?:a|ă)|l(?:ö|o)senord|passord|adgangskode|kodeord|salasana|jelsz(?:ó|o)|heslo"
    r"|lozinka|(?:ş|s)ifre|пароль|парола|κωδικός|סיסמה|كلمة (?:المرور|السر)|पासवर्ड|m(?:ậ|a)t kh(?:ẩ|a)u|รหัสผ่าน"
    r"|kata sandi|パスワード|暗証番号|密码|密碼|口令|비밀번호|암호))"
    r"(?:[ \t]{1,3}(?i:für|fur|vom|von|de|del|da|do|dla|för|for|til|van|voor|для|от|di|per|pour|du)\b[^:=：\n]{1,40}?)?"
    r"(?:[ \t]{0,3}(?P<sep>[:=：]|->|—|–)"
    r"|[ \t]{1,3}(?P<is>(?i:ist|lautet|lautete|war|est|était|etait|es|era|é|is|was|jest|to|är|var|er|on|oli|je|e|è"
    r"|это))\b[ \t]{0,3}:?"
    r"|[ \t]{0,3}(?P<cjk>は|が|是|为|為|는|은|이|가)[ \t]{0,3}:?)"
    r"[ \t]{0,3}(?:(?P<q>[\"'`«“„「])(?P<qv>[^\"'`»”“」\n\[\]]{1,200})"
    r"|(?P<v>[A-Za-z0-9À-ÖØ-öø-ɏ!#$%&*+./:=?@^_|~-]{3,200}))"
)
# A password given to a command on its command line: "mysql -u root -pX", "sshpass -p 'X'", "docker login -p X",
# "redis-cli -a X", "zip -P X", "7z a -pX", "ldapsearch -w X", "sqlcmd -P X", "openssl … -passin pass:X",
# "smbclient -U alice%X", "ssh-keygen -N 'X'", "curl --oauth2-bearer X". The command word comes first and the
# flag within the same command (no newline, pipe, ";" or "&" between), a bounded distance on.
_CMD_VALUE = r"(?:(?P<q>[\"'])(?P<qv>[^\"'\n\[\]]{1,200})|(?P<v>[^\s\"'`\[\]]{1,200}))"
_CMD_GAP = r"\b[^\n|;&]{0,160}?(?<![\w-])"
_COMMANDS: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = tuple(
    (tuple(words.split()), re.compile(pattern))
    for words, pattern in (
        ("sshpass", r"(?<![\w-])sshpass" + _CMD_GAP + r"-p[ \t]{0,3}" + _CMD_VALUE),
        (
            "login",
            r"(?<![\w-])(?:docker|podman|nerdctl|buildah|skopeo|oras|crane|helm[ \t]{1,3}registry|az)[ \t]{1,3}login"
            + _CMD_GAP
            + r"(?:-p|--password)(?:[ \t]{1,3}|=)"
            + _CMD_VALUE,
        ),
        (
            "mysql mariadb",
            r"(?<![\w-])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mysqlshow|mysqlpump|mariadb|mariadb-dump)"
            + _CMD_GAP
            + r"-p(?=\S)"
            + _CMD_VALUE,
        ),
        ("7z rar", r"(?<![\w-])(?:7z|7za|7zz|unrar|rar)" + _CMD_GAP + r"-p(?=[^\s-])" + _CMD_VALUE),
        ("redis-cli", r"(?<![\w-])redis-cli" + _CMD_GAP + r"(?:-a|--pass)[ \t]{1,3}" + _CMD_VALUE),
        ("zip", r"(?<![\w-])(?:zip|zipcloak)" + _CMD_GAP + r"(?:-P|--password)[ \t]{1,3}" + _CMD_VALUE),
        ("ldap", r"(?<![\w-])ldap(?:search|modify|add|delete|passwd|whoami)" + _CMD_GAP + r"-w[ \t]{1,3}" + _CMD_VALUE),
        (
            "mongo",
            r"(?<![\w-])(?:mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport)"
            + _CMD_GAP
            + r"-p[ \t]{1,3}"
            + _CMD_VALUE,
        ),
        ("sqlcmd bcp osql", r"(?<![\w-])(?:sqlcmd|bcp|osql)" + _CMD_GAP + r"-P[ \t]{1,3}" + _CMD_VALUE),
        ("ssh-keygen", r"(?<![\w-])ssh-keygen" + _CMD_GAP + r"-N[ \t]{1,3}" + _CMD_VALUE),
        (
            "rabbitmqctl",
            r"(?<![\w-])rabbitmqctl[ \t]{1,3}(?:add_user|change_password)[ \t]{1,3}[^\s]{1,64}[ \t]{1,3}" + _CMD_VALUE,
        ),
        (
            "htpasswd",
            r"(?<![\w-])htpasswd[ \t]{1,3}-[A-Za-z]{0,3}b[A-Za-z]{0,3}(?:[ \t]{1,3}[^\s-][^\s]{0,200}){2}[ \t]{1,3}"
            + _CMD_VALUE,
        ),
        ("-pass", r"(?<![\w-])-pass(?:in|out)?[ \t]{1,3}pass:" + _CMD_VALUE),
        ("-U", r"(?<![\w-])-U[ \t]{0,3}[\"']?[\w.\\@-]{1,64}%" + _CMD_VALUE),
        ("--oauth2-bearer", r"(?<![\w-])--oauth2-bearer[ \t]{1,3}" + _CMD_VALUE),
    )
)
# A user and password written as "admin:X on the router", "login: alice / X", "creds alice:X".
_DEFAULT_USER_WORDS = """
    admin administrator root pi ubuntu guest user postgres sa elastic oracle ftp demo operator support superuser
    sysadmin manager default
"""
_DEFAULT_USERS = tuple(_DEFAULT_USER_WORDS.split())
_USER_PAIR = re.compile(
    r"(?<![\w./@:%-])(?i:" + "|".join(_DEFAULT_USERS) + r"):(?P<v>[^\s:/\"'`\[\],;()]{3,100})(?![:/\w])"
)
_LOGIN_HINTS = ("login", "logon", "sign", "user", "account", "creds", "credentials")
_LOGIN_PAIR = re.compile(
    r"(?<![\w-])(?i:login|logon|sign[ -]?in|user(?:name)?|user id|account|creds|credentials)(?![A-Za-z])"
    r"[ \t]{0,3}[:=][ \t]{0,3}"
    r"[\w.@+-]{1,64}(?P<between>[ \t]{0,3}[/|][ \t]{0,3}|:)(?P<v>[^\s\"'`\[\],;()]{3,200})"
)
# Cookies: every value of a Cookie or Set-Cookie header that looks random (its attributes and "theme=dark" stay),
# and a session cookie's value wherever it is written ("sessionid=…", "curl -b 'PHPSESSID=…'").
_COOKIE_HEADER = re.compile(r"(?<![\w-])(?i:set-cookie|cookie)[ \t]{0,3}:[ \t]{0,3}(?P<rest>[^\n]{1,4096})")
_SESSION_HINTS = ("sess", "sid=", "csrf", "xsrf", "remember_", "__secure-", "__host-", "wordpress_", "awsalb")
_COOKIE_PAIR = re.compile(r"(?<![^\s=;,:])(?P<name>[^\s=;,]{1,80})=(?P<v>[^\s;,\"'\[\]]{1,4096})")
_COOKIE_ATTRIBUTES = frozenset(("path", "domain", "expires", "max-age", "samesite", "priority", "version"))
# Cookies that count visits or hold a setting, not a session: "_ga=GA1.2.1234567890.1234567890".
_COOKIE_NOT_SECRET = frozenset(("_ga", "_gid", "_gat", "_fbp", "_gcl_au", "theme", "lang", "locale", "consent", "tz"))
_SESSION_COOKIE = re.compile(
    r"(?<![\w-])(?i:sessionid|session_id|session|sessid|sid|phpsessid|jsessionid|connect\.sid|[a-z]{1,20}_session"
    r"|_session_id|csrftoken|csrf_token|xsrf-token|_csrf|remember_token|remember_user_token|_gh_sess|user_session"
    r"|__(?:secure|host)-[\w-]{1,40}|wordpress_logged_in_[0-9a-f]{32}|awsalb|awsalbcors)"
    r"=(?P<v>[A-Za-z0-9%._~+/=:-]{8,4096})"
)
# A one-time-password seed (base32): a run of 16 or more, or groups of four, near a word that names one.
_B32_RUN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z2-7]{16,128}={0,6}(?![A-Za-z0-9=])")
_B32_GROUPS = re.compile(r"(?<![A-Za-z0-9])[A-Za-z2-7]{4}(?:[ ][A-Za-z2-7]{4}){3,40}(?![A-Za-z0-9])")
# Four-letter words that stand beside a seed written in groups ("type abcd efgh … into Authy"): trimmed off its ends.
_BESIDE_SEED_WORDS = """
    type into seed code totp hotp with from then this that your here also just have will when them they copy
    keep save open only each once used uses need what were been some more than like make sure even next time
    also and the key for use add set app qr
"""
_BESIDE_SEED = frozenset(_BESIDE_SEED_WORDS.split())
_OTP_WORD = re.compile(
    r"(?i:otp|totp|hotp|2fa|mfa|two[- ]factor|2[- ]step|authenticator|authy|seed|setup[ -]key|secret|otpauth"
    r"|one[- ]time|recovery[ -]code|backup[ -]code)"
)
_OTP_HINT_WORDS = "otp 2fa mfa factor 2-step authenticator authy seed setup secret one-time recovery backup"
_OTP_HINTS = (*_OTP_HINT_WORDS.split(), "2 step", "one time")
_OTP_BEFORE, _OTP_AFTER = 80, 48  # characters from the seed where its word may be, on its line
_VOWELS = frozenset("aeiouy")
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
    r"|credentials?|creds|passwort|kennwort|wachtwoord|senha|contrase(?:ñ|n)a|mot de passe|has(?:ł|l)o|пароль"
    r"|パスワード|密码|비밀번호|schlüssel|clé|clave|chave|sleutel|klucz|ключ|токен|トークン|キー|密钥|令牌|토큰|키)"
    r"(?![A-Za-z])"
)
_PASSWORD_WORD = re.compile(
    r"pass|pw|passwort|kennwort|wachtwoord|senha|contrase|mot de passe|has|пароль|パスワード|密码|비밀번호"
)
# Words that make a hexadecimal run a hash or an identifier, not a credential (see _hex_secret).
_HASH_WORD = re.compile(
    r"(?<![A-Za-z])(?i:commit|sha\d*|hash|checksum|digest|md5|revision|rev|blob|tree|object|fingerprint|etag|ids?"
    r"|uuid|build|version|color|colour|merge|cherry-pick|revert|hex|hmac|nonce|salt|iv|trace|span|request)(?![A-Za-z])"
)
_COPULA = re.compile(r"[ \t]{0,3}(?:(?i:is|was)\b)?[ \t]{0,3}[:=]?[ \t]{0,3}")
_PHRASE_WORD = re.compile(r"[^\W_]{2,24}")
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
    see ask check use look find get call contact refer read via per tbd todo unchanged later below above
    the a an my your our their his her its this that these those not no still also now just only always never
    usually probably definitely really actually literally exactly about like as same different stored saved kept
    written set changed reset expired wrong incorrect invalid valid correct right required needed missing empty
    blank too very long short strong weak secure insecure fine ok okay good bad great simple easy hard new old
    there here somewhere something nothing anything everything in on at for from with to of by into being going
    what which why how where when case-sensitive important sufficient insufficient unknown known obvious hidden
    visible one none null optional mandatory same-as
"""
_NOT_A_PASSWORD = frozenset(_NOT_A_PASSWORD_WORDS.split())
# The same in the languages _FOREIGN reads: "das Passwort ist falsch", "le mot de passe est incorrect".
_NOT_A_PASSWORD_FOREIGN_WORDS = """
    wie immer gleich dasselbe dieselbe comme même como igual mismo misma zelfde hetzelfde jak так
    dans sur chez sous les une des auf bei unter der die das ein eine los las una uma het een для в на
    falsch richtig korrekt abgelaufen erforderlich notwendig geändert vergessen ungültig gültig leer sicher
    unsicher zu nicht neu alt lang kurz stark schwach geheim gespeichert hier da incorrect correct expiré requis
    obligatoire oublié invalide valide vide trop pas nouveau faible fort sécurisé changé enregistré ici
    incorrecta correcta incorrecto correcto obligatoria caducada inválida válida vacía demasiado nueva segura
    débil fuerte olvidada importante secreta necesaria incorreta correta obrigatória expirada inválida vazia
    muito nova fraca forte esquecida errada onjuist fout juist verplicht verlopen ongeldig leeg te nieuw zwak
    sterk vergeten błędne nieprawidłowe poprawne wymagane wygasło nieważne puste zbyt nowe słabe silne неверный
    неправильный верный правильный обязателен истёк пустой слишком новый слабый надёжный errata corretta
    obbligatoria scaduta sbagliata vuota troppo nuova debole sicura fel rätt obligatoriskt tomt för nytt svagt
    starkt feil riktig
"""
_NOT_A_PASSWORD_FOREIGN = frozenset(_NOT_A_PASSWORD_FOREIGN_WORDS.split())
# Words a passphrase is not made of: after its first word, one of these ends it ("… is blue fish and …").
_PHRASE_STOP_WORDS = """
    and or but so because if then than is are was were be been it you we they he she i me him them us will would
    can could should must may might do does did has have had not no yes all any some every each both more most
    less enough again today tomorrow yesterday please thanks thank ok which who whom whose since until while
    after before during also too very super quite pretty rather sent shared emailed texted given told written
    printed case sensitive
"""
_PHRASE_STOP = _NOT_A_PASSWORD | frozenset(_PHRASE_STOP_WORDS.split())
_NOT_A_PASSWORD_ENDINGS = ("ed", "ing", "ly", "ive", "able", "ible", "ful", "less", "ous")
_TRAILING = ".,;:!?)]}>\"'"
_DIGIT = re.compile(r"[0-9]")
_LETTER = re.compile(r"[A-Za-z]")


def redact(text: str) -> Redaction:
    """``text`` with every secret either detector finds replaced by ``[redacted: <kind>]``."""
    own = _merged(_own_spans(_masked(text)))
    first, placed = _replaced(text, own)
    masked = _masked(first)
    held = [(start, end) for start, end, _ in _placeholders(first)]
    # detect-secrets' findings before the announced runs: on the same span its vendor's kind is the better name.
    found = _merged(span for span in (*scanned(masked), *_announced(masked)) if not _touches(span, held))
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
        if not _is_reference(m) and not _uid_gid(m):
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
        phrase = _phrase(m)
        if phrase is not None:
            yield phrase
        elif _password_value(m):
            yield _trimmed(m, "password")
    low = text.lower()  # for the plain-substring checks that spare a rule its scan of text that cannot hold it
    if not text.isascii() or any(word in low for word in _FOREIGN_ASCII):
        for m in _FOREIGN.finditer(text):
            if _foreign_value(m):
                yield _trimmed(m, "password")
    for words, pattern in _COMMANDS:
        if not any(word in text for word in words):
            continue  # the command's name is searched for first: 15 patterns cost 15 scans only when named
        for m in pattern.finditer(text):
            if not _is_reference(m) and not _MASKED.fullmatch(_value(m)):
                yield _trimmed(m, "password")
    yield from _pairs(text, low)
    yield from _cookies(text, low)
    if any(word in low for word in _OTP_HINTS):
        yield from _otp_seeds(text)


def _uid_gid(m: re.Match[str]) -> bool:
    """``--user 1000:1000``, ``--user app:app``: a container's user and group, not a login."""
    value = _value(m).rstrip(_TRAILING)
    return value == m["u"] or (value.isdigit() and len(value) <= 6 and m["u"].isdigit())


def _phrase(m: re.Match[str]) -> _Span | None:
    """A password that is a phrase of plain words, whole: "the wifi password is correct horse battery staple",
    "my passphrase is purple monkey dishwasher". Its words run to the clause's end or to the first word a
    phrase is not made of ("my password is blue fish and …" keeps "and …"). Two words are a phrase when the
    first is not such a word; three or more always, but when the first is one ("correct") only up to the
    clause's end ("the password is correct now" is a sentence)."""
    sep = m["sep"] or m["fsep"]
    if _quoted(m) or m["v"] is None or (sep is not None and sep != ":") or m["to"] is not None or m["bare"]:
        return None
    name = m["name"].lower().replace(" ", "")
    if name not in ("password", "passwd", "passphrase") or _is_reference(m):
        return None
    text, start = m.string, m.start("v")
    words: list[re.Match[str]] = []
    for w in _PHRASE_WORD.finditer(text, start, min(len(text), start + 160)):
        if (words and text[words[-1].end() : w.start()] != " ") or not w[0].isalpha():
            break
        if words and w[0].casefold() in _PHRASE_STOP:
            break
        words.append(w)
    if len(words) < 2 or words[0].start() != start or words[0][0] != (m["v"].rstrip(_TRAILING) or m["v"]):
        return None  # the value's first word is the whole of its first token: "hunter2 and…" is no phrase
    plain_first = words[0][0].casefold() in _PHRASE_STOP
    if plain_first:
        rest = text[words[-1].end() : words[-1].end() + 2].lstrip(" ")
        if len(words) < 3 or (rest and rest[0] not in _TRAILING and rest[0] != "\n"):
            return None
    elif len(words) == 2 and name != "passphrase" and words[1][0].casefold() in _PHRASE_STOP:
        return None
    return start, words[-1].end(), "password"


def _foreign_value(m: re.Match[str]) -> bool:
    value = _value(m)
    bare = value.rstrip(_TRAILING) or value
    if _is_reference(m) or _MASKED.fullmatch(bare) or not any(c.isalnum() for c in value):
        return False
    if m["sep"] == "=" or _quoted(m):
        return True
    if bare.casefold() in _NOT_A_PASSWORD_FOREIGN or bare.casefold() in _NOT_A_PASSWORD:
        return False
    # "la clave es importante": clave is also "the key (point)"; only a value that looks like one counts
    return not m["name"].lower().startswith("clave") or not bare.isalpha()


def _pair_value(value: str) -> bool:
    """The password half of "admin:X": not a plain word ("chown root:root", "user:group"), a mask or a port."""
    bare = value.rstrip(_TRAILING) or value
    if len(bare) < 3 or _MASKED.fullmatch(bare) or bare.casefold() in _NOT_A_PASSWORD:
        return False
    if bare.isdigit():
        return 4 <= len(bare) <= 12 and not (len(bare) in (4, 5) and bare.startswith(("80", "44", "30", "50")))
    return not (bare.isalpha() and bare.islower()) and _REFERENCE.match(bare) is None


def _pairs(text: str, low: str) -> Iterator[_Span]:
    if any(user + ":" in low for user in _DEFAULT_USERS):
        for m in _USER_PAIR.finditer(text):
            if _pair_value(m["v"]):
                yield _trimmed(m, "password")
    if not any(word in low for word in _LOGIN_HINTS):
        return
    for m in _LOGIN_PAIR.finditer(text):
        bare = m["v"].rstrip(_TRAILING) or m["v"]
        if m["between"] == "/" and "/" in bare:
            continue  # "Login: alice/bob/carol": names in a list, or a path
        if _REFERENCE.match(bare) is None and not _MASKED.fullmatch(bare) and bare.casefold() not in _NOT_A_PASSWORD:
            yield _trimmed(m, "password")


def _cookie_secret(name: str, value: str) -> bool:
    if (
        name.lower() in _COOKIE_ATTRIBUTES
        or name.lower() in _COOKIE_NOT_SECRET
        or len(value) < 8
        or _REFERENCE.match(value) is not None
    ):
        return False
    if value.isdigit():
        return len(value) >= 12
    return _looks_random(value) or (len(value) >= 20 and not value.isalpha())


def _cookies(text: str, low: str) -> Iterator[_Span]:
    if "=" not in text:
        return
    if "cookie" in low:
        for header in _COOKIE_HEADER.finditer(text):
            for m in _COOKIE_PAIR.finditer(text, header.start("rest"), header.end("rest")):
                if _cookie_secret(m["name"], m["v"]):
                    yield m.start("v"), m.end("v"), "cookie"
    if not any(word in low for word in _SESSION_HINTS):
        return
    for m in _SESSION_COOKIE.finditer(text):
        if _cookie_secret("", m["v"]):
            yield _trimmed(m, "cookie")


def _otp_seeds(text: str) -> Iterator[_Span]:
    """Base32 one-time-password seeds ("JBSWY3DPEHPK3PXP", "jbsw y3dp ehpk 3pxp") named on their line."""
    for m in _B32_RUN.finditer(text):
        if _seed_like(m[0].rstrip("="), [m[0]]) and _otp_named(text, m.start(), m.end()):
            yield m.start(), m.end(), "otp-seed"
    for m in _B32_GROUPS.finditer(text):
        groups = m[0].split(" ")
        first, last = 0, len(groups)
        while first < last and groups[first].lower() in _BESIDE_SEED:
            first += 1
        while last > first and groups[last - 1].lower() in _BESIDE_SEED:
            last -= 1
        if last - first < 4:
            continue
        # the seed's case, from its middle: trim what differs (a group of digits fits either)
        upper = "".join(groups[first:last]).upper() == "".join(groups[first:last])
        upper = groups[(first + last) // 2].isupper() or (upper and not groups[(first + last) // 2].islower())
        while first < last and groups[first].isupper() != upper and groups[first].islower() == upper:
            first += 1
        while last > first and groups[last - 1].isupper() != upper and groups[last - 1].islower() == upper:
            last -= 1
        start, end = m.start() + 5 * first, m.start() + 5 * last - 1
        seed = groups[first:last]
        if len(seed) >= 4 and _seed_like("".join(seed), seed) and _otp_named(text, start, end):
            yield start, end, "otp-seed"


def _seed_like(seed: str, groups: list[str]) -> bool:
    if not (seed.isupper() or seed.islower()):
        return False  # base32 is written in one case
    if _DIGIT.search(seed):
        return True
    # an upper-case run of 16 is no word; lower-case groups are random when some have no vowel
    return seed.isupper() or (len(groups) >= 4 and not all(_VOWELS & set(g) for g in groups))


def _otp_named(text: str, start: int, end: int) -> bool:
    lo = max(start - _OTP_BEFORE, text.rfind("\n", 0, start) + 1)
    hi = text.find("\n", end, end + _OTP_AFTER)
    return _OTP_WORD.search(text, lo, end + _OTP_AFTER if hi < 0 else hi) is not None


def _announced(text: str) -> Iterator[_Span]:
    """A random-looking run of key characters shortly after a word such as key, token, secret or password."""
    for run in _RUN.finditer(text):
        start = run.start()
        lo = max(0, start - _NEAR - 16)
        lo = text.rfind("\n", lo, start) + 1 or lo  # on the run's own line
        word = None
        for m in _SECRET_WORD.finditer(text, lo, start):
            if m.end() >= start - _NEAR:
                word = m  # the nearest one names the kind
        if word is None or not (_random_run(run[0]) or _hex_secret(text, run, word, lo)):
            continue
        name = word[0].lower()
        kind = "password" if _PASSWORD_WORD.match(name) else "token" if name.startswith("token") else "secret"
        yield start, run.end(), "api-key" if name.startswith("api") else kind


def _hex_secret(text: str, run: re.Match[str], word: re.Match[str], lo: int) -> bool:
    """A hexadecimal run announced as a credential ("token 3f2a…", "the API key is: 9c1d…"), not a hash: no word
    such as commit, sha, checksum or id near it, and after "key" alone only "is", ":" or "=" between."""
    if not (16 <= len(run[0]) <= 128) or not _HEXY.fullmatch(run[0]) or "-" in run[0]:
        return False
    between = text[word.end() : run.start()]
    if _HASH_WORD.search(text, max(lo, word.start() - 24), run.start()):
        return False
    if word[0].lower() in ("key", "keys"):
        return _COPULA.fullmatch(between) is not None
    return True


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
    if (name.startswith("pin") or (name.endswith("code") and name != "passcode")) and not _DIGIT.search(bare):
        return False  # "the pin is loose", "the door code is on the fridge"
    if name == "pwd" and (bare in ("~", ".", "..") or bare.startswith(("/", "~/", "./", "../"))):
        return False  # PWD=/home/alice: the shell's working directory
    if m["qv"] is not None and name not in ("pw", "pass"):
        return True
    if name in ("pw", "pass") and bare.startswith("-"):
        return False  # "Pass `--number N+1`": a command's flag
    if m["bare"] is not None or m["to"] is not None or m["sep"] == "->" or name in ("pw", "pass"):
        # "password hunter2", "set the password to hunter2", "pass: hunter2", but not "password manager",
        # "the password to the server", "password -> forgot -> email", "boarding pass: 14A",
        # "pass api_key=$KEY on the command line".
        return len(bare) >= 6 and "=" not in bare and _looks_random(bare)
    if (m["sep"] or m["fsep"]) in ("=", ":=", "=>", ">"):
        return True
    word = bare.casefold()
    if word in _NOT_A_PASSWORD or word in _NOT_A_PASSWORD_FOREIGN:
        return False
    # "the password is expired / rotated weekly / case-sensitive": a plain word with a word's ending.
    return not (word.replace("-", "").isalpha() and word.islower() and word.endswith(_NOT_A_PASSWORD_ENDINGS))
