"""The patterns of :mod:`memlane.capture.secrets`' own detector, and the word lists its rules read.

What people paste into a chat: some 60 vendor key shapes by their prefix (``sk-``/``sk-proj-``/``sk-ant-``,
``AKIA``/``ASIA`` and the value of ``aws_secret_access_key`` or "the AWS secret key is …",
``ghp_``/``gho_``/``github_pat_``, ``glpat-``, ``xox?-``, ``sk_live_``, ``AIza``, ``hf_``, ``npm_``, ``pypi-``,
``SG.``, ``sq0…-``, ``gsk_``, ``xai-``, ``pplx-``, ``r8_``, ``dop_v1_``, ``ntn_``, ``lin_api_``, ``shpat_``,
``whsec_``, ``tskey-``, ``hvs.``, ``GOCSPX-``, ``ya29.`` and more), JWTs, whole PEM private-key blocks (over lines;
one never closed is a secret to the end of the text), the password of a URL (``scheme://user:`` to ``@host``),
``curl -u user:…``, ``Bearer <token>``, ``Authorization: Basic …``, values of a name ending in
password/passwd/pwd/pin/secret/token/api_key/…_key (``DB_PASSWORD=…``, ``"password": "…"``, ``export API_KEY=…``,
``--password …``, ``<password>…</password>``), "my password (for the VPN) is …", "the password for staging = …",
"set the password to …" in plain words, a passphrase of plain words whole ("the wifi password is correct horse
battery staple"), password words of 25 other languages with their own verbs ("das Passwort ist …", "パスワードは…",
"密码是…"), passwords on the command lines of mysql, sshpass, docker/podman login, redis-cli, zip, 7z, ldapsearch,
sqlcmd, openssl, smbclient, ssh-keygen and others, "admin:… on the router" and "login: alice / …", cookie values (a
Cookie or Set-Cookie header's random-looking values, a session cookie's anywhere) and base32 OTP seeds named on
their line ("the OTP secret is JBSW…", "jbsw y3dp …" in groups).

Which match is a secret (a value, not a reference, a mask or a plain word), and how the spans are merged and
replaced, is :mod:`memlane.capture.secrets`' part.

Each pattern starts with a literal or a keyword that the engine searches for (a fixed-width look-behind then checks
the character before it) and has no nested quantifiers: see "Linear." in :mod:`memlane.capture.secrets`.
"""

from __future__ import annotations

import re


def _after(prefix: str, width: int, before: str = r"[\w-]") -> str:
    """``prefix`` (``width`` characters long) where no ``before`` character precedes it: the literal comes first
    so that the engine searches for it fast, and a fixed-width look-behind then checks the character before."""
    return rf"{prefix}(?<!{before}.{{{width}}})"


# Key shapes: the whole match is the secret, and it cannot start inside a longer word.
_KEY = r"[A-Za-z0-9_-]"
SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
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
        ("mapbox-token", _after(r"sk\.eyJ", 6, r"[\w.-]") + rf"{_KEY}{{20,}}\.{_KEY}{{10,}}"),
        ("aws-session-token", _after("(?:FwoGZXIvYXdz|IQoJb3JpZ2lu)", 12, r"[\w/+]") + r"[A-Za-z0-9/+=]{40,}"),
    )
)
PEM_BEGIN = re.compile(r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")
PEM_END = re.compile(r"-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----")

# Secrets in context: the named group ``v`` (or ``qv``, quoted) is the secret; the words around it stay.
URL_PASSWORD = re.compile(r"://[^\s:/@\[\]]{0,100}:(?P<v>[^\s/\[\]]{1,200})@")
CURL_USER = re.compile(
    r"(?:" + _after("-u", 2) + "|" + _after("--user", 6) + r")[ \t]{1,3}[\"']?(?P<u>[^\s:\"'\[\]]{1,100}):"
    r"(?P<v>[^\s\"'`\[\]]{1,200})"
)
BEARER = re.compile(
    r"(?:(?P<bearer>" + _after("(?i:bearer)", 6) + ")|" + _after("(?i:token)", 5) + r")[ \t]{1,5}"
    r"(?P<v>[A-Za-z0-9._~+/=-]{16,})"
)
BASIC = re.compile(
    _after("(?i:authorization)", 13) + r"[ \t]{0,3}:[ \t]{0,3}(?i:basic)[ \t]{1,3}(?P<v>[A-Za-z0-9+/=]{8,})"
)
AWS_SECRET = re.compile(
    r"(?i:aws[ _]?secret(?:[ _]?access)?[ _]?key)[\"'\]]{0,2}(?:[ \t]{0,3}[:=]|[ \t]{1,3}(?i:is|was)\b:?)?"
    r"[ \t]{0,3}[\"']?"
    r"(?P<v>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
)
# A value after a name and a separator: quoted (up to its quote), or bare (a run of the given characters; a
# password's may hold any but a space, a quote or a bracket, a key's stops at "&" in a URL's query).
_VALUE = r"[ \t]{0,3}(?:(?P<q>[\"'`])(?P<qv>(?:[^\"'`\n\[\]\\]|\\[\"'`\\]){1,200})|(?P<v>%s{%d,200}))"
# Passwords by a name that ends with the word: "DB_PASSWORD=x", "password: x", '"password": "x"', "the password
# is x", "my password for the VPN was x", "--password x", "password x" (a bare value that looks random).
PASSWORD = re.compile(
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
FOREIGN_ASCII = tuple(_FOREIGN_ASCII_WORDS.split())
# Password words of other languages, with their own verbs ("das Passwort ist …", "le mot de passe est …",
# "a senha é …", "パスワードは…", "密码是…", "비밀번호는 …", "пароль: …"), a "for …" clause in the language's own
# words ("das Passwort für den Server ist …"). A CJK particle needs no space; the value stops at CJK text.
FOREIGN = re.compile(
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
COMMANDS: tuple[tuple[tuple[str, ...], re.Pattern[str]], ...] = tuple(
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
DEFAULT_USERS = tuple(_DEFAULT_USER_WORDS.split())
USER_PAIR = re.compile(
    r"(?<![\w./@:%-])(?i:" + "|".join(DEFAULT_USERS) + r"):(?P<v>[^\s:/\"'`\[\],;()]{3,100})(?![:/\w])"
)
LOGIN_HINTS = ("login", "logon", "sign", "user", "account", "creds", "credentials")
LOGIN_PAIR = re.compile(
    r"(?<![\w-])(?i:login|logon|sign[ -]?in|user(?:name)?|user id|account|creds|credentials)(?![A-Za-z])"
    r"[ \t]{0,3}[:=][ \t]{0,3}"
    r"[\w.@+-]{1,64}(?P<between>[ \t]{0,3}[/|][ \t]{0,3}|:)(?P<v>[^\s\"'`\[\],;()]{3,200})"
)
# Cookies: every value of a Cookie or Set-Cookie header that looks random (its attributes and "theme=dark" stay),
# and a session cookie's value wherever it is written ("sessionid=…", "curl -b 'PHPSESSID=…'").
COOKIE_HEADER = re.compile(r"(?<![\w-])(?i:set-cookie|cookie)[ \t]{0,3}:[ \t]{0,3}(?P<rest>[^\n]{1,4096})")
SESSION_HINTS = ("sess", "sid=", "csrf", "xsrf", "remember_", "__secure-", "__host-", "wordpress_", "awsalb")
COOKIE_PAIR = re.compile(r"(?<![^\s=;,:])(?P<name>[^\s=;,]{1,80})=(?P<v>[^\s;,\"'\[\]]{1,4096})")
COOKIE_ATTRIBUTES = frozenset(("path", "domain", "expires", "max-age", "samesite", "priority", "version"))
# Cookies that count visits or hold a setting, not a session: "_ga=GA1.2.1234567890.1234567890".
COOKIE_NOT_SECRET = frozenset(("_ga", "_gid", "_gat", "_fbp", "_gcl_au", "theme", "lang", "locale", "consent", "tz"))
SESSION_COOKIE = re.compile(
    r"(?<![\w-])(?i:sessionid|session_id|session|sessid|sid|phpsessid|jsessionid|connect\.sid|[a-z]{1,20}_session"
    r"|_session_id|csrftoken|csrf_token|xsrf-token|_csrf|remember_token|remember_user_token|_gh_sess|user_session"
    r"|__(?:secure|host)-[\w-]{1,40}|wordpress_logged_in_[0-9a-f]{32}|awsalb|awsalbcors)"
    r"=(?P<v>[A-Za-z0-9%._~+/=:-]{8,4096})"
)
# A one-time-password seed (base32): a run of 16 or more, or groups of four, near a word that names one.
B32_RUN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z2-7]{16,128}={0,6}(?![A-Za-z0-9=])")
B32_GROUPS = re.compile(r"(?<![A-Za-z0-9])[A-Za-z2-7]{4}(?:[ ][A-Za-z2-7]{4}){3,40}(?![A-Za-z0-9])")
# Four-letter words that stand beside a seed written in groups ("type abcd efgh … into Authy"): trimmed off its ends.
_BESIDE_SEED_WORDS = """
    type into seed code totp hotp with from then this that your here also just have will when them they copy
    keep save open only each once used uses need what were been some more than like make sure even next time
    also and the key for use add set app qr
"""
BESIDE_SEED = frozenset(_BESIDE_SEED_WORDS.split())
OTP_WORD = re.compile(
    r"(?i:otp|totp|hotp|2fa|mfa|two[- ]factor|2[- ]step|authenticator|authy|seed|setup[ -]key|secret|otpauth"
    r"|one[- ]time|recovery[ -]code|backup[ -]code)"
)
_OTP_HINT_WORDS = "otp 2fa mfa factor 2-step authenticator authy seed setup secret one-time recovery backup"
OTP_HINTS = (*_OTP_HINT_WORDS.split(), "2 step", "one time")
OTP_BEFORE, OTP_AFTER = 80, 48  # characters from the seed where its word may be, on its line
VOWELS = frozenset("aeiouy")
# Other secrets by a name that ends with the word: "API_KEY=…", "token: …", '"client_secret": "…"'.
NAMED = re.compile(
    r"(?P<name>(?i:(?:api|auth|service|account|db|database|priv|private|client|access|secret|signing|encryption"
    r"|master)[_-]?key|secret|token|(?:db|database|key)[_-]?pass)(?:[_-](?i:base|b64|base64|hex|value))?)"
    r"(?![A-Za-z0-9_-])[\"'\]]{0,2}[ \t]{0,3}(?P<sep>:=|=>|[:=])" + _VALUE % (r"[A-Za-z0-9_./+=:~-]", 8)
)
# Code and templates that name a secret without holding it: "$DB_PASSWORD", "${{ secrets.X }}", "{{ pw }}",
# "os.environ[…]", "getenv(…)", "<your password>", "%(password)s".
REFERENCE = re.compile(
    r"\$\{?[A-Z_][A-Z0-9_]*\}?$|\$\{\{|\{\{|\{%|%\(|<"
    r"|(?i:(?:os\.)?environ|(?:os\.)?getenv|process\.env)\b"
    r"|(?i:env|config|settings|secrets|self|this|args|opts|options)[.\[(]"
)
# A key-like run of characters a few words after a word that announces one (the API key is X; here's my token,
# X; aws secret access key X). The run must look random (see _random_run).
SECRET_WORD = re.compile(
    r"(?<![A-Za-z])(?i:api[ _-]?keys?|keys?|tokens?|secrets?|passwords?|passwd|passcode|passphrase|pw|pass"
    r"|credentials?|creds|passwort|kennwort|wachtwoord|senha|contrase(?:ñ|n)a|mot de passe|has(?:ł|l)o|пароль"
    r"|パスワード|密码|비밀번호|schlüssel|clé|clave|chave|sleutel|klucz|ключ|токен|トークン|キー|密钥|令牌|토큰|키)"
    r"(?![A-Za-z])"
)
PASSWORD_WORD = re.compile(
    r"pass|pw|passwort|kennwort|wachtwoord|senha|contrase|mot de passe|has|пароль|パスワード|密码|비밀번호"
)
# Words that make a hexadecimal run a hash or an identifier, not a credential (see _hex_secret).
HASH_WORD = re.compile(
    r"(?<![A-Za-z])(?i:commit|sha\d*|hash|checksum|digest|md5|revision|rev|blob|tree|object|fingerprint|etag|ids?"
    r"|uuid|build|version|color|colour|merge|cherry-pick|revert|hex|hmac|nonce|salt|iv|trace|span|request)(?![A-Za-z])"
)
COPULA = re.compile(r"[ \t]{0,3}(?:(?i:is|was)\b)?[ \t]{0,3}[:=]?[ \t]{0,3}")
PHRASE_WORD = re.compile(r"[^\W_]{2,24}")
RUN = re.compile(r"(?<![A-Za-z0-9_+/.-])[A-Za-z0-9_+/-]{16,}={0,3}")  # "=" only as base64's padding
NEAR = 48  # characters after the word where such a run may start
WORDY = re.compile(r"[A-Z]?[a-z]{3,}|[A-Z]{4,}")
HEXY = re.compile(r"[0-9a-f-]+|[0-9A-F-]+")
PARTS = re.compile(r"[-_]")
LOWER_WORD = re.compile(r"[a-z]{6,}")
CODE_NAME = re.compile(r"[A-Za-z_]+(?:\.[A-Za-z_]+)*")
MASKED = re.compile(  # what stands where a value would: "password: ****", "api_key: None", "password: str"
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
NOT_A_PASSWORD = frozenset(_NOT_A_PASSWORD_WORDS.split())
# The same in the languages FOREIGN reads: "das Passwort ist falsch", "le mot de passe est incorrect".
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
NOT_A_PASSWORD_FOREIGN = frozenset(_NOT_A_PASSWORD_FOREIGN_WORDS.split())
# Words a passphrase is not made of: after its first word, one of these ends it ("… is blue fish and …").
_PHRASE_STOP_WORDS = """
    and or but so because if then than is are was were be been it you we they he she i me him them us will would
    can could should must may might do does did has have had not no yes all any some every each both more most
    less enough again today tomorrow yesterday please thanks thank ok which who whom whose since until while
    after before during also too very super quite pretty rather sent shared emailed texted given told written
    printed case sensitive
"""
PHRASE_STOP = NOT_A_PASSWORD | frozenset(_PHRASE_STOP_WORDS.split())
NOT_A_PASSWORD_ENDINGS = ("ed", "ing", "ly", "ive", "able", "ible", "ful", "less", "ous")
TRAILING = ".,;:!?)]}>\"'"
DIGIT = re.compile(r"[0-9]")
LETTER = re.compile(r"[A-Za-z]")
