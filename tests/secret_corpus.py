"""A corpus of secrets as people write them, and of look-alikes that must survive (issue 41).

Real secrets cannot come from real data, so every secret here is generated at run time from a seeded generator,
in the shape its vendor or tool gives it, and set in a sentence people write: prose in several languages, command
lines, config snippets, URLs, connection strings, cookies, OTP seeds, private keys. Nothing in this file is a
secret, and no line of it looks like one to a scanner (prefixes and key headers are joined at run time).

``planted()`` gives :class:`Planted` cases: a text and the secret in it; ``lookalikes()`` texts that hold no
secret. Which hexadecimal strings are look-alikes: a hash or an identifier of something public or shared (a git
commit, a file's checksum, an image digest, a colour, a key's fingerprint, a UUID, a request id) gives no access
and is what a memory of the work should keep, so it survives; a hexadecimal run the sentence itself names a
token, an API key, a secret or a password is a credential, and goes.

Run ``PYTHONPATH=src python tests/secret_corpus.py`` for the figures (secrets missed, look-alikes redacted).
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

SEED = 41
ALNUM = string.ascii_letters + string.digits
LOWER_ALNUM = string.ascii_lowercase + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"
B32 = string.ascii_uppercase + "234567"
SYMBOLS = "!#$%&*+-.?@^_~"
DASHES = "-" * 5
PRIVATE = "PRIVATE" + " KEY"


@dataclass(frozen=True)
class Planted:
    """A text with one secret in it; ``shape`` names the kind of case for the report."""

    text: str
    secret: str
    shape: str

    def fragments(self) -> list[str]:
        """What must not be left of the secret: each word of a passphrase; a short secret whole; of a longer one
        every run of 8 characters (so a secret cut in two still counts as missed)."""
        if " " in self.secret.strip():
            return [w for w in self.secret.split() if len(w) >= 3]
        if len(self.secret) <= 10:
            return [self.secret]
        return sorted({self.secret[i : i + 8] for i in range(0, len(self.secret) - 7)})

    def leaked(self, written: str) -> list[str]:
        return [f for f in self.fragments() if f in written]


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def key(self, n: int, alphabet: str = ALNUM) -> str:
        """n characters of ``alphabet``, with a letter and a digit when the alphabet has both (as keys do)."""
        while True:
            out = "".join(self.rng.choice(alphabet) for _ in range(n))
            has_digit = any(c.isdigit() for c in alphabet)
            has_letter = any(c.isalpha() for c in alphabet)
            if (not has_digit or any(c.isdigit() for c in out)) and (not has_letter or any(c.isalpha() for c in out)):
                return out

    def digits(self, n: int) -> str:
        while True:
            out = "".join(self.rng.choice(string.digits) for _ in range(n))
            if not out.startswith(("19", "20")) and out[0] != "0":  # never a year of a date around it
                return out

    def password(self) -> str:
        """A password as people make them: a word, digits, maybe a symbol; or random characters."""
        kind = self.rng.randrange(4)
        if kind == 0:
            return self.key(self.rng.randrange(10, 20), ALNUM + SYMBOLS.replace(".", "").replace("?", ""))
        word = self.rng.choice(WORDS)
        word = word.capitalize() if self.rng.random() < 0.6 else word
        tail = self.digits(self.rng.randrange(2, 5))
        sym = self.rng.choice("!#$%&*@") if kind != 3 else ""
        return word + tail + sym if kind != 2 else word + sym + tail

    def phrase(self, n: int) -> str:
        return " ".join(self.rng.sample(PHRASE_WORDS, n))

    def choice(self, items: list[str]) -> str:
        return self.rng.choice(items)


WORDS = [
    "falcon", "otter", "granite", "juniper", "maple", "cobalt", "saffron", "tundra", "walrus", "zephyr", "orchid",
    "pepper", "quartz", "raven", "sierra", "tango", "umber", "violet", "willow", "yonder", "harbor", "lantern",
]  # fmt: skip
PHRASE_WORDS = [
    "horse", "battery", "staple", "purple", "monkey", "dishwasher", "lemon", "bicycle", "glacier", "trumpet",
    "pickle", "volcano", "hammock", "penguin", "saxophone", "meadow", "biscuit", "cactus", "lobster", "galaxy",
    "pebble", "kettle", "noodle", "comet", "banjo", "walnut", "igloo", "teapot", "wizard", "marble",
]  # fmt: skip


def _pem(g: _Gen, label: str) -> str:
    body = "\n".join(g.key(64, B64) for _ in range(g.rng.randrange(3, 8)))
    return f"{DASHES}BEGIN {label}{PRIVATE}{DASHES}\n{body}\n{DASHES}END {label}{PRIVATE}{DASHES}"


def _jwt(g: _Gen) -> str:
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    claims = f'{{"sub":"{g.digits(8)}","name":"{g.choice(WORDS)}","iat":{g.digits(10)}}}'
    payload = base64.urlsafe_b64encode(claims.encode()).decode().rstrip("=")
    return f"{header}.{payload}.{g.key(43, URLSAFE)}"


# Vendor keys: (name, a maker of one key).
def _vendor_keys() -> list[tuple[str, Callable[[_Gen], str]]]:
    return [
        ("openai", lambda g: "sk-" + g.key(48)),
        ("openai-project", lambda g: "sk-proj-" + g.key(80, URLSAFE)),
        ("anthropic", lambda g: "sk-ant-api03-" + g.key(93, URLSAFE) + "AA"),
        ("openrouter", lambda g: "sk-or-v1-" + g.key(64, HEX)),
        ("groq", lambda g: "gsk_" + g.key(52)),
        ("xai", lambda g: "xai-" + g.key(80)),
        ("perplexity", lambda g: "pplx-" + g.key(48)),
        ("replicate", lambda g: "r8_" + g.key(37)),
        ("digitalocean", lambda g: "dop_v1_" + g.key(64, HEX)),
        ("notion", lambda g: "ntn_" + g.key(46)),
        ("linear", lambda g: "lin_api_" + g.key(40)),
        ("shopify", lambda g: "shpat_" + g.key(32, HEX)),
        ("webhook", lambda g: "whsec_" + g.key(32, B64)),
        ("tailscale", lambda g: "tskey-auth-" + g.key(17) + "-" + g.key(33)),
        ("vault", lambda g: "hvs." + g.key(90, URLSAFE)),
        ("google-oauth-secret", lambda g: "GOCSPX-" + g.key(28, URLSAFE)),
        ("google-oauth-token", lambda g: "ya29." + g.key(150, URLSAFE)),
        ("github-classic", lambda g: "ghp_" + g.key(36)),
        ("github-oauth", lambda g: "gho_" + g.key(36)),
        ("github-fine", lambda g: "github_pat_" + g.key(22) + "_" + g.key(59)),
        ("gitlab", lambda g: "glpat-" + g.key(20, URLSAFE)),
        ("slack-bot", lambda g: "xoxb-" + g.digits(11) + "-" + g.digits(13) + "-" + g.key(24)),
        (
            "slack-user",
            lambda g: "xoxp-" + g.digits(11) + "-" + g.digits(12) + "-" + g.digits(13) + "-" + g.key(32, HEX),
        ),
        ("aws-access-key", lambda g: "AKIA" + g.key(16, UPPER_ALNUM)),
        ("aws-temp-key", lambda g: "ASIA" + g.key(16, UPPER_ALNUM)),
        ("google-api", lambda g: "AIza" + g.key(35, URLSAFE)),
        ("huggingface", lambda g: "hf_" + g.key(34)),
        ("npm", lambda g: "npm_" + g.key(36)),
        ("pypi", lambda g: "pypi-AgEIcHlwaS5vcmc" + g.key(70, URLSAFE)),
        ("sendgrid", lambda g: "SG." + g.key(22, URLSAFE) + "." + g.key(43, URLSAFE)),
        ("square", lambda g: "sq0csp-" + g.key(43, URLSAFE)),
        ("stripe-live", lambda g: "sk_live_" + g.key(99)),
        ("stripe-restricted", lambda g: "rk_live_" + g.key(99)),
        ("jwt", _jwt),
        ("pinecone", lambda g: "pcsk_" + g.key(6) + "_" + g.key(60)),
        ("langsmith", lambda g: "lsv2_pt_" + g.key(32, HEX) + "_" + g.key(10, HEX)),
        ("databricks", lambda g: "dapi" + g.key(32, HEX)),
        ("atlassian", lambda g: "ATATT3xFfGF0" + g.key(180, URLSAFE)),
        ("age", lambda g: "AGE-SECRET-KEY-1" + g.key(58, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L")),
        ("postman", lambda g: "PMAK-" + g.key(24, HEX) + "-" + g.key(34, HEX)),
        ("supabase", lambda g: "sbp_" + g.key(40, HEX)),
        ("doppler", lambda g: "dp.st." + g.key(43)),
        ("sentry", lambda g: "sntrys_" + g.key(60, B64)),
        ("grafana", lambda g: "glsa_" + g.key(32) + "_" + g.key(8, HEX)),
    ]


VENDOR_SENTENCES = [
    "My key is {s} use it for the staging bot.",
    "I pasted {s} into the CI settings, hope that's fine.",
    "export API_TOKEN={s}",
    "Here you go: {s}",
    "The new one is `{s}` (the old one was revoked).",
    "Can you check why {s} gets a 401?",
    "Der Schlüssel lautet {s}, bitte nicht weitergeben.",
    "Voici la clé : {s} pour le serveur de test.",
    "La clave es {s} y caduca el viernes.",
    "A chave é {s} para o ambiente de homologação.",
    "キーは {s} です。",
    "密钥是 {s}，别外传。",
    '  api_key: "{s}"',
    "curl -H 'X-Api-Key: {s}' https://api.example.com/v1/me",
]


def _vendor(g: _Gen) -> list[Planted]:
    out: list[Planted] = []
    for name, make in _vendor_keys():
        for template in g.rng.sample(VENDOR_SENTENCES, 3):
            secret = make(g)
            out.append(Planted(template.format(s=secret), secret, f"vendor:{name}"))
    return out


PASSWORD_SENTENCES = [
    "My password is {s} so don't lose it.",
    "the password for staging = {s}",
    "The password for the staging box is {s}.",
    "The wifi password: {s} (guest network).",
    "I set the password to {s} this morning.",
    "PASSWORD={s}",
    'DB_PASSWORD="{s}"',
    "  password: {s}",
    '{{"user": "app", "password": "{s}"}}',
    "Use pw: {s} for the guest account.",
    "password {s}",
    "The VPN password was {s} until Monday.",
    "And my password's {s} on that one.",
    "<password>{s}</password>",
    "The router's admin password is {s}, change it.",
    "spring.datasource.password={s}",
    "machine api.example.com login alice password {s}",
]
PIN_SENTENCES = [
    "The door code is {s} since Monday.",
    "My PIN is {s}.",
    "SIM PIN: {s}",
    "The alarm code is {s}, don't tell anyone.",
    "Le code PIN est {s}.",
    "Die PIN ist {s}.",
]
PHRASE_SENTENCES = [
    "the wifi password is {s}",
    "my passphrase is {s}",
    "The passphrase for the backup key is {s}.",
    "The password is {s}, all lower case.",
    "Our wifi password is {s}",
    'passphrase: "{s}"',
]
FOREIGN_SENTENCES = [
    "Das Passwort ist {s}.",
    "Mein Passwort für den Server lautet {s}",
    "Kennwort: {s}",
    "Le mot de passe est {s}.",
    "mot de passe : {s}",
    "La contraseña es {s}",
    "contraseña: {s}",
    "A senha é {s}.",
    "senha: {s}",
    "Het wachtwoord is {s}.",
    "Hasło: {s}",
    "Hasło to {s}",
    "Пароль: {s}",
    "пароль от wifi: {s}",
    "パスワードは{s}です。",
    "パスワード：{s}",
    "密码是{s}",
    "密码：{s}",
    "비밀번호는 {s} 입니다.",
    "비밀번호: {s}",
    "La password è {s}",
    "Lösenordet är {s}" if False else "Lösenord: {s}",
    "Salasana: {s}",
    "Şifre: {s}",
]
COMMAND_SENTENCES = [
    "mysql -u root -p{s} shop",
    "mysqldump -uadmin -p{s} --all-databases > all.sql",
    "sshpass -p '{s}' ssh pi@192.168.1.20",
    "sshpass -p {s} scp backup.tar.gz deploy@host:/srv/",
    "docker login -u alice -p {s} registry.example.com",
    "echo done && docker login --username bob --password {s} ghcr.io",
    "podman login -u ci -p '{s}' quay.io",
    "redis-cli -h cache.internal -a {s} ping",
    "zip -P {s} -r secrets.zip notes/",
    "7z a -p{s} archive.7z docs/",
    "ldapsearch -x -D cn=admin,dc=example,dc=org -w {s} -b dc=example,dc=org",
    "sqlcmd -S db.internal -U sa -P {s} -Q 'select 1'",
    "openssl pkcs12 -in cert.p12 -passin pass:{s} -nodes",
    "smbclient //nas/share -U alice%{s}",
    "ssh-keygen -t ed25519 -N '{s}' -f ~/.ssh/deploy",
    "mongosh --host db -u admin -p {s}",
    "az login -u alice@example.com -p {s}",
    "curl -u deploy:{s} https://ci.example.com/api/json",
    "wget --user=alice --password={s} https://files.example.com/report.pdf",
    "psql postgresql://app:{s}@db.internal:5432/orders",
    "PGPASSWORD={s} psql -h db -U app",
    "htpasswd -bc .htpasswd alice {s}",
    "rabbitmqctl add_user alice {s}",
]
URL_SENTENCES = [
    "The db moved to postgres://admin:{s}@db.example.com:5432/orion yesterday.",
    "Redis is at redis://:{s}@cache.internal:6379/0 now.",
    "MONGO_URL=mongodb+srv://app:{s}@cluster0.abcde.mongodb.net/prod?retryWrites=true",
    "git remote set-url origin https://oauth2:{s}@gitlab.example.com/team/app.git",
    "amqp://guest:{s}@rabbit:5672/ is the broker",
    "Server=db.internal;Database=shop;User Id=sa;Password={s};",
    "jdbc:mysql://db.internal:3306/shop?user=app&password={s}",
    "Data Source=db;Initial Catalog=crm;User ID=crm;Pwd={s};",
    "pip install --index-url https://ci:{s}@pypi.example.com/simple pkg",
    "ftp://backup:{s}@nas.local/archive",
    "The proxy is http://alice:{s}@proxy.corp:3128",
]
HEADER_SENTENCES = [
    ("Authorization: Bearer {s}", lambda g: g.key(40, URLSAFE)),
    ("curl -H 'Authorization: Bearer {s}' https://api.example.com/v1/me", lambda g: g.key(64, HEX)),
    (
        "It sent Authorization: Basic {s} on every call.",
        lambda g: base64.b64encode(f"alice:{g.key(12)}".encode()).decode(),
    ),
    ("Authorization: token {s}", lambda g: g.key(40, HEX)),
    ("curl --oauth2-bearer {s} https://api.example.com", lambda g: g.key(40)),
]
HEX_TOKEN_SENTENCES = [
    "the token {s} works for the deploy",
    "The API key is: {s}",
    "Here's my datadog api key {s}",
    "token: {s}",
    "The secret is {s}, keep it.",
    "access token = {s}",
]
PAIR_SENTENCES = [
    "admin:{s} on the router",
    "login: alice / {s}",
    "Login: bob | {s}",
    "root:{s} is the default on the camera",
    "creds: deploy:{s}",
    "user: carol / {s} for the portal",
    "pi:{s} for the raspberry",
]
COOKIE_SENTENCES = [
    ("Cookie: sessionid={s}; csrftoken=abc", lambda g: g.key(32, LOWER_ALNUM)),
    ("Set-Cookie: session={s}; Path=/; HttpOnly; Secure", lambda g: g.key(40, URLSAFE)),
    ("curl -b 'PHPSESSID={s}' https://shop.example.com/cart", lambda g: g.key(26, LOWER_ALNUM)),
    ("my sessionid={s} from the browser", lambda g: g.key(32, LOWER_ALNUM)),
    ("Cookie: _gh_sess={s}; logged_in=yes", lambda g: g.key(60, B64)),
    ("JSESSIONID={s}", lambda g: g.key(32, "0123456789ABCDEF")),
    ("Set-Cookie: connect.sid=s%3A{s}; Path=/", lambda g: g.key(32, URLSAFE)),
    ("Cookie: theme=dark; __Secure-next-auth.session-token={s}", lambda g: g.key(60, URLSAFE)),
    ("document.cookie = 'laravel_session={s}'", lambda g: g.key(40)),
]
OTP_SENTENCES = [
    "the OTP secret is {s}",
    "2FA seed: {s}",
    "TOTP setup key {s} (type it into Authy)",
    "otpauth://totp/Acme:alice?secret={s}&issuer=Acme",
    "Authenticator key: {s}",
    "Type {s} into Google Authenticator if the QR code fails.",
]
AWS_SENTENCES = [
    "aws_secret_access_key = {s}",
    "The AWS secret key is {s} for the backup user.",
    'AWS_SECRET_ACCESS_KEY: "{s}"',
    "secret key {s}",
]
PEM_SENTENCES = [
    "Here is the deploy key:\n{s}\nIt is for Orion.",
    "{s}",
    "cat ~/.ssh/id_ed25519 printed\n{s}",
]
PEM_LABELS = ["RSA ", "OPENSSH ", "EC ", "", "ENCRYPTED ", "DSA "]


def planted(seed: int = SEED) -> list[Planted]:
    """Every secret case, reproducible from ``seed``."""
    g = _Gen(seed)
    out = _vendor(g)
    for template in PASSWORD_SENTENCES:
        for _ in range(3):
            secret = g.password()
            out.append(Planted(template.format(s=secret), secret, "password:prose-config"))
    for template in PIN_SENTENCES:
        for _ in range(2):
            secret = g.digits(g.rng.randrange(4, 9))
            out.append(Planted(template.format(s=secret), secret, "password:pin"))
    for template in PHRASE_SENTENCES:
        for _ in range(3):
            secret = g.phrase(g.rng.randrange(3, 6))
            out.append(Planted(template.format(s=secret), secret, "password:passphrase"))
    for template in FOREIGN_SENTENCES:
        for _ in range(2):
            secret = g.password()
            out.append(Planted(template.format(s=secret), secret, "password:other-language"))
    for template in COMMAND_SENTENCES:
        for _ in range(2):
            secret = g.password().replace("'", "")
            out.append(Planted(template.format(s=secret), secret, "password:command-line"))
    for template in URL_SENTENCES:
        for _ in range(2):
            secret = g.key(g.rng.randrange(10, 24), ALNUM + "!*-_~")
            out.append(Planted(template.format(s=secret), secret, "password:url-connection-string"))
    for template, make in HEADER_SENTENCES:
        for _ in range(3):
            secret = make(g)
            out.append(Planted(template.format(s=secret), secret, "header"))
    for template in HEX_TOKEN_SENTENCES:
        for n in (32, 40, 64):
            secret = g.key(n, HEX)
            out.append(Planted(template.format(s=secret), secret, "hex-token"))
    for template in PAIR_SENTENCES:
        for _ in range(2):
            secret = g.password()
            out.append(Planted(template.format(s=secret), secret, "password:user-pair"))
    for template, make in COOKIE_SENTENCES:
        for _ in range(2):
            secret = make(g)
            out.append(Planted(template.format(s=secret), secret, "cookie"))
    for template in OTP_SENTENCES:
        for _ in range(3):
            seed32 = g.key(g.rng.choice((16, 32)), B32)
            grouped = g.rng.random() < 0.4 and "otpauth" not in template
            secret = " ".join(seed32[i : i + 4] for i in range(0, len(seed32), 4)) if grouped else seed32
            secret = secret.lower() if grouped and g.rng.random() < 0.5 else secret
            out.append(Planted(template.format(s=secret), secret, "otp-seed"))
    for template in AWS_SENTENCES:
        for _ in range(2):
            secret = g.key(40, B64)
            out.append(Planted(template.format(s=secret), secret, "aws-secret-key"))
    for template in PEM_SENTENCES:
        for label in g.rng.sample(PEM_LABELS, 3):
            block = _pem(g, label)
            body = block.split("\n", 1)[1].rsplit("\n", 1)[0]
            out.append(Planted(template.format(s=block), body, "private-key"))
    return out


def _sha(g: _Gen, n: int = 40) -> str:
    return g.key(n, HEX)


def _uuid(g: _Gen) -> str:
    h = g.key(32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


LOOKALIKE_TEMPLATES: list[tuple[str, Callable[[_Gen], str]]] = [
    # git
    ("commit {s} fixed it", _sha),
    ("Commit {s} fixed the flaky test.", _sha),
    ("git show {s} | head", _sha),
    ("I reverted {s} because it broke the build.", _sha),
    ("git cherry-pick {s}", _sha),
    ("The short SHA is {s} and the tag is v0.4.2.", lambda g: _sha(g, 7)),
    ("Merged in {s}, see the PR.", lambda g: _sha(g, 12)),
    ("HEAD is now at {s} Fix the parser", lambda g: _sha(g, 7)),
    ("The key commit was {s} last week.", _sha),
    ("git rebase --onto main {s}", _sha),
    # ids
    ("The run id is {s} in the dashboard.", _uuid),
    ("request_id={s} failed with 502", _uuid),
    ("The API key id is {s} in the console.", _uuid),
    ("Trace {s} shows the slow span.", lambda g: _sha(g, 32)),
    ("The instance is i-{s} in eu-west-1.", lambda g: _sha(g, 17)),
    # checksums and digests
    ("sha256sum: {s}  memlane-0.4.2.tar.gz", lambda g: _sha(g, 64)),
    ("The checksum is {s} for the installer.", lambda g: _sha(g, 64)),
    ("md5: {s}", lambda g: _sha(g, 32)),
    ("The image digest is sha256:{s}", lambda g: _sha(g, 64)),
    ("{s}  ./dist/app.whl", lambda g: _sha(g, 64)),
    ("The GPG key fingerprint is {s}.", lambda g: _sha(g, 40).upper()),
    ('ETag: "{s}"', lambda g: _sha(g, 32)),
    # colours, versions, paths, data URLs
    ("Use {s} for the header background.", lambda g: "#" + _sha(g, 6)),
    ("color: #{s};", lambda g: _sha(g, 6)),
    (
        "I upgraded to v{s} yesterday.",
        lambda g: f"{g.rng.randrange(1, 30)}.{g.rng.randrange(40)}.{g.rng.randrange(40)}",
    ),
    ("pip install memlane=={s}", lambda g: f"0.{g.rng.randrange(30)}.{g.rng.randrange(9)}"),
    ("Node {s} and npm 10.2.4 are installed.", lambda g: f"v{g.rng.randrange(14, 23)}.{g.rng.randrange(20)}.1"),
    ("The build is 1.4.2-beta.{s}+exp.sha.5114f85", lambda g: str(g.rng.randrange(1, 99))),
    (
        "The bug was in src/memlane/{s}.py around line 212.",
        lambda g: g.choice(["capture/secrets", "index/sync", "files/writer"]),
    ),
    ("See /var/log/{s}/error.log for details.", lambda g: g.choice(["nginx", "postgresql", "memlane"])),
    (
        "The icon is data:text/plain;base64,{s}",
        lambda g: base64.b64encode(f"hello {g.choice(WORDS)} and {g.choice(WORDS)}".encode()).decode(),
    ),
    (
        "The snippet decodes as base64 {s} (it says 'meeting at noon').",
        lambda g: base64.b64encode(f"meeting at noon with {g.choice(WORDS)}".encode()).decode(),
    ),
    # ports, times, user:group
    ("Postgres runs on localhost:{s} with the default user.", lambda g: str(g.rng.randrange(5000, 9000))),
    ("We meet at {s} on Tuesday.", lambda g: f"{g.rng.randrange(8, 18)}:{g.rng.choice(['00', '15', '30', '45'])}"),
    ("chown {s} /srv/app", lambda g: g.choice(["root:root", "www-data:www-data", "alice:staff", "app:app"])),
    ("docker run --user {s} image", lambda g: g.choice(["1000:1000", "root", "app:app"])),
    # commands without a secret
    ("ssh -p {s} alice@host", lambda g: str(g.rng.randrange(2000, 3000))),
    ("mkdir -p {s}", lambda g: g.choice(["/srv/app/logs", "build/out", "~/.config/memlane"])),
    ("docker run -p {s}:80 nginx", lambda g: str(g.rng.randrange(8000, 9000))),
    ("git add -p {s}", lambda g: g.choice(["src/", "README.md", "."])),
    ("mysql -u root -p {s}", lambda g: g.choice(["shop", "-h db.internal", "< dump.sql"])),
    ("docker login {s}", lambda g: g.choice(["ghcr.io", "registry.example.com", "-u alice --password-stdin"])),
    ("sshpass -f {s} ssh pi@host", lambda g: g.choice(["~/.pw", "/run/secrets/pw"])),
    ("zip -r {s}.zip notes/", lambda g: g.choice(WORDS)),
    ("redis-cli -h {s} ping", lambda g: g.choice(["cache.internal", "localhost"])),
    # cookies without a session
    ("Cookie: theme={s}; lang=en", lambda g: g.choice(["dark", "light", "solarized"])),
    ("Set-Cookie: consent={s}; Path=/; Max-Age=31536000", lambda g: g.choice(["yes", "no", "essential"])),
]
PLAIN_LOOKALIKES = [
    "The password field is required.",
    "Reset your password from the login page.",
    "I forgot my password yesterday and had to reset it.",
    "My password is stored in 1Password, not in the repo.",
    "The password is incorrect, try the reset link.",
    "The password is correct now.",
    "The password is too short.",
    "The password must be at least 12 characters.",
    "Passwords don't match.",
    "Change the password every 90 days.",
    "Password: required",
    "The password manager syncs across devices.",
    "Use a password manager like Bitwarden.",
    "The password is case-sensitive.",
    "The password is stored securely in Vault.",
    "Your password was changed on 2026-05-01.",
    "The password reset email never arrived.",
    "Don't share your password with anyone.",
    "The password for the staging box is in the vault.",
    "The password for the router is on the sticker.",
    "Password: none, it's an open network.",
    "I need the password to the staging server, can you send it on Signal?",
    "The password is expired, ask IT for a new one.",
    "The password is the same as before.",
    "Enter the password and press enter.",
    "password_hash = bcrypt.hashpw(pw, salt)",
    'password = os.environ["DB_PASSWORD"]',
    "password: ${{ secrets.DB_PASSWORD }}",
    "export PGPASSWORD=$DB_PASSWORD",
    "The passphrase prompt appears on every push.",
    "My passphrase is long enough, I checked.",
    "The wifi password is on the fridge.",
    "The wifi password is written on the router.",
    "Das Passwort ist falsch.",
    "Passwort vergessen?",
    "Das Passwort ist abgelaufen.",
    "Le mot de passe est incorrect.",
    "Mot de passe oublié ?",
    "La contraseña es obligatoria.",
    "La clave es importante para entender el problema.",
    "A senha é inválida.",
    "Esqueci a senha do e-mail.",
    "Het wachtwoord is onjuist.",
    "Hasło jest nieprawidłowe.",
    "Пароль неверный.",
    "パスワードを忘れました。",
    "パスワードが違います。",
    "密码错误，请重试。",
    "忘记密码了。",
    "비밀번호를 잊어버렸어요.",
    "The token budget is 4096 and the context window is 200k tokens.",
    "Set max_tokens: 1024 and temperature: 0.2 for the summary call.",
    "The tokenizer splits internationalization into subword tokens.",
    "The key insight was that BM25 and vectors disagree on names.",
    "API keys go in the environment, never in the Markdown.",
    "Let's rotate the tokens every 90 days.",
    "The secret to good bread is a long, cold proof.",
    "Here's the secret: patience and practice.",
    "Secret Santa is on Friday.",
    "The key takeaway: use HNSW with efSearch=64 and M=16.",
    "The token is stored in the macOS keychain under com.example.cli.",
    "Is the token valid? The token expired at noon.",
    "The OTP is sent by SMS to the number on file.",
    "Turn on 2FA for every admin account.",
    "The authenticator app is on my old phone.",
    "My SSH key is ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop",
    "The Stripe publishable key starts with pk_live_ and is fine in the page.",
    "Clone it with git@github.com:acme/api.git and run make.",
    "Email me at alice@example.com or ping @bob on Slack.",
    "Redis runs at redis://localhost:6379/0 and Postgres at postgres://localhost/mydb.",
    "https://alice@example.com/repo.git asks for a password.",
    "The admin: panel moved to /settings.",
    "user: alice (the one from marketing)",
    "Login: with Google or GitHub",
    "The ratio is 16:9 on the new screens.",
    "The ARN is arn:aws:iam::123456789012:user/alice.",
    "PWD=/home/alice/projects/memlane in the shell.",
    "Authorization: Bearer <token>",
    'curl -H "Authorization: Bearer $OPENAI_API_KEY" https://api.openai.com/v1/models',
    "Use the --password-stdin flag instead of -p.",
    "The pass rate went up to 97.5% after the fix.",
    "Boarding pass: 14A, gate K12.",
    "The door code is on the fridge.",
    "The pin is loose on the left hinge.",
    "The ticket is JIRA-4821 and the branch is feature/capture-hooks.",
    "The image is ghcr.io/acme/api:v1.4.2 on amd64.",
    "I keep my notes in ~/notes/2026/work.md and back them up nightly.",
    "Meeting at 14:30 on 2026-05-01 in room B2.",
    "The sessions page lists every session by date.",
    "Session: 42 minutes, 3 breaks.",
    "The cookie banner says we use essential cookies only.",
    "The 2FA setup took five minutes with the YubiKey.",
    "The TOTP window is thirty seconds wide.",
    "the secret recipe uses MORE BUTTER THAN FLOUR",
    # shapes that a first version of issue 41's rules redacted in the real transcripts of the bench
    "Please read /Users/alice/projects/take-home, it is my take-home project.",
    "The session file is /Users/bob/.claude/projects/app/session.jsonl",
    "- User roles / permission differentiation",
    "- Critical user journeys / flows",
    "- **User story/feature inventory**: discrete user actions",
    "Pass `--number N+1` and `--short-name` to the script.",
    "Pass --verbose to see the requests.",
    "The login page / sign-up flow needs a redesign.",
    "Account / billing settings moved to the sidebar.",
    "Username: the same as your email address.",
    "Cookie: the banner text needs a review.",
    "sessionid is set by Django after login.",
    "The session=None default means a new session.",
    "The OTP secret is shown once as a QR code.",
    "2FA: enable it in Settings > Security.",
    "Mein Passwort für den Server ist im Tresor.",
    "Le mot de passe est dans le coffre-fort.",
    "La contraseña está en el gestor de contraseñas.",
    "The token 'Bearer' is the scheme name.",
    "The API key is in the vault under payments/stripe.",
    # written after reading the rules, to find their edges
    "admin:read and admin:write are the scopes we need.",
    "Use user:email scope for the GitHub app.",
    "Login: alice/bob/carol are the test accounts.",
    "root:x:0:0:root:/root:/bin/bash",
    "Cookie: _ga=GA1.2.1234567890.1234567890; theme=dark",
    "set-cookie: lang=en-US; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT",
    "the token 7 is the end-of-sequence token",
    "the api key is: stored in 1Password",
    "mysql -u root -p < schema.sql",
    "mysql -u root -p -e 'show databases'",
    "7z x archive.7z -o./out",
    "ssh-keygen -t ed25519 -C alice@example.com",
    "UserID: 12345 / Group: staff",
    "The password policy: min 12 chars, 1 digit.",
    "Das Passwort lautet wie immer.",
    "La contraseña es la misma de siempre.",
    "パスワードは同じです。",
    "密码是什么？",
    "The sha256 token of the file: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    'passphrase: see the vault entry "backup"',
    "my password is the same as my email password",
]


def lookalikes(seed: int = SEED) -> list[str]:
    """Texts with no secret in them, reproducible from ``seed``."""
    g = _Gen(seed + 1)
    out = list(PLAIN_LOOKALIKES)
    for template, make in LOOKALIKE_TEMPLATES:
        for _ in range(5):
            out.append(template.format(s=make(g)))
    return out


def figures(seed: int = SEED) -> tuple[list[tuple[Planted, list[str]]], list[str], int, int]:
    """(missed cases with what was left, redacted look-alikes, secrets, look-alikes) under today's redactor."""
    from memlane.capture.secrets import redact

    cases = planted(seed)
    missed = [(p, left) for p in cases if (left := p.leaked(redact(p.text).text))]
    texts = lookalikes(seed)
    redacted = [t for t in texts if redact(t).count]
    return missed, redacted, len(cases), len(texts)


if __name__ == "__main__":
    missed, redacted, n_secrets, n_lookalikes = figures()
    for p, left in missed:
        print(f"MISSED [{p.shape}] {p.text!r} left {left[:3]}")
    from memlane.capture.secrets import redact

    for t in redacted:
        print(f"REDACTED {t!r} -> {redact(t).text!r}")
    print(f"secrets: {n_secrets}, missed: {len(missed)}")
    print(f"look-alikes: {n_lookalikes}, redacted: {len(redacted)} ({100 * len(redacted) / n_lookalikes:.1f}%)")
