"""Secrets never reach memory (issue 25): planted secrets of the common shapes are redacted, only the secret and
never the sentence around it; ordinary conversation is left alone; redacting twice changes nothing; hostile input
stays linear; detect-secrets stays offline, quiet and configured as memlane needs.

Every secret here is built at run time from pieces and a seeded generator, so that this file holds none and a
secret scanner run over the repository finds nothing in it."""

from __future__ import annotations

import json
import random
import re
import socket
import string
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder
from memlane.capture import secret_scan
from memlane.capture.secrets import Redaction, redact

_rng = random.Random(25)
ALNUM = string.ascii_letters + string.digits
UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"


def _key(n: int, alphabet: str = ALNUM) -> str:
    """n random characters of ``alphabet`` with at least a letter and a digit (as nearly every real key has)."""
    while True:
        out = "".join(_rng.choice(alphabet) for _ in range(n))
        if any(c.isdigit() for c in out) and any(c.isalpha() for c in out):
            return out


def _digits(n: int) -> str:
    return "".join(_rng.choice(string.digits) for _ in range(n))


# Words a secret scanner reads as a secret's name or a private key's header, never written whole in this file.
DASHES = "-" * 5
PRIVATE = "PRIVATE" + " KEY"
PASS = "pass"
KEY = "key"
WARM_UP = f"warm up: {PASS}word = '{_key(16)}'"  # detect-secrets is imported on first use


def _pem(label: str = "RSA ", lines: int = 6) -> str:
    body = "\n".join(_key(64, B64) for _ in range(lines))
    return f"{DASHES}BEGIN {label}{PRIVATE}{DASHES}\n{body}\n{DASHES}END {label}{PRIVATE}{DASHES}"


def _planted() -> list[tuple[str, str, str]]:
    """(sentence, secret, kind): one fake secret of a real shape in each sentence."""
    out: list[tuple[str, str, str]] = []

    def add(template: str, secret: str, kind: str) -> None:
        out.append((template.format(s=secret), secret, kind))

    # OpenAI and Anthropic
    add("My OpenAI key is {s} use it for the staging bot.", "sk-" + _key(48), "openai-key")
    add("The project key {s} goes in the CI settings.", "sk-proj-" + _key(64, URLSAFE), "openai-key")
    add("Set OPENAI_API_KEY={s} in the .env file.", "sk-" + _key(48), "openai-key")
    add("Anthropic gave us {s} for the eval runs.", "sk-ant-api03-" + _key(80, URLSAFE), "anthropic-key")
    add("Try {s}, it's the admin one.", "sk-ant-admin01-" + _key(60), "anthropic-key")
    # AWS
    add("The AWS access key id is {s} for the backup user.", "AKIA" + _key(16, UPPER), "aws-access-key")
    add("Temporary creds start with {s} today.", "ASIA" + _key(16, UPPER), "aws-access-key")
    add("aws_secret_access_key = {s} is in ~/.aws/credentials.", _key(40, B64), "aws-secret-key")
    add('In YAML it is AWS_SECRET_ACCESS_KEY: "{s}" under env.', _key(40, B64), "aws-secret-key")
    # GitHub, GitLab
    for prefix in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_"):
        add("I pushed with {s} from my laptop.", prefix + _key(36), "github-token")
    add("The fine-grained token {s} expires in May.", "github_pat_" + _key(22) + "_" + _key(59), "github-token")
    add("Clone with https://{s}@github.com/acme/api.git for now.", "ghp_" + _key(36), "github-token")
    add("GitLab runner uses {s} now.", "glpat-" + _key(20, URLSAFE), "gitlab-token")
    # Slack
    for letter in "bpars":
        token = f"xox{letter}-" + _digits(11) + "-" + _digits(13) + "-" + _key(24)
        add("The Slack token is {s} in the vault.", token, "slack-token")
    hook = "https://hooks.slack.com/services/T" + _key(10, UPPER) + "/B" + _key(10, UPPER) + "/" + _key(24)
    add("Post alerts to {s} from the cron.", hook, "slack-webhook")
    # Stripe, Google, Hugging Face, npm, SendGrid
    add("Stripe live key {s} must never be shared.", "sk_live_" + _key(24), "stripe-key")
    add("The restricted key {s} only reads charges.", "rk_live_" + _key(24), "stripe-key")
    add("Tests use {s} against the sandbox.", "sk_test_" + _key(24), "stripe-key")
    add("Maps works with {s} on the site.", "AIza" + _key(35, URLSAFE), "google-api-key")
    add("Download models with {s} please.", "hf_" + _key(34), "huggingface-token")
    add("In CI, HF_TOKEN={s} is set.", "hf_" + _key(34), "huggingface-token")
    add("The npm publish token is {s} for CI.", "npm_" + _key(36), "npm-token")
    add("Mail goes out with {s} today.", "SG." + _key(22, URLSAFE) + "." + _key(43, URLSAFE), "sendgrid-key")
    # JWTs
    jwt = "eyJ" + _key(20) + ".eyJ" + _key(40) + "." + _key(43, URLSAFE)
    add("The session cookie was {s} when it failed.", jwt, "jwt")
    jwt = "eyJ" + _key(30) + ".eyJ" + _key(60) + "." + _key(43, URLSAFE)
    add("Cookie: session={s}; Path=/ was in the response.", jwt, "jwt")
    # Found by detect-secrets' vendor plugins only
    add("The Twilio key {s} is for SMS.", "SK" + _key(32, HEX), "twilio-key")
    discord = "M" + _key(23, URLSAFE) + "." + _key(6, URLSAFE) + "." + _key(27, URLSAFE)
    add("The Discord bot runs as {s} on the box.", discord, "discord-bot-token")
    add("Telegram bot: {s} is the token.", _digits(10) + ":" + _key(35, URLSAFE), "telegram-bot-token")
    add("Mailchimp uses {s} for the newsletter.", _key(32, HEX) + "-us12", "mailchimp-access-key")
    add("Square's secret {s} is for payments.", "sq0csp-" + _key(43, URLSAFE), "square-oauth-secret")
    # Passwords in URLs and commands
    add("The db moved to postgres://admin:{s}@db.example.com:5432/orion yesterday.", "Hunter2" + _key(8), "password")
    add("Redis is at redis://:{s}@cache.internal:6379/0 now.", _key(20), "password")
    add("Mongo: mongodb+srv://app:{s}@cluster0.mongodb.net/prod is the URI.", _key(16), "password")
    add("mysql://root:{s}@127.0.0.1:3306/shop works locally.", _key(12), "password")
    add("git remote set-url origin https://oauth2:{s}@gitlab.example.com/team/app.git worked.", _key(20), "password")
    add("The queue is amqp://guest:{s}@rabbit:5672/ for jobs.", _key(10), "password")
    add("Run curl -u deploy:{s} https://ci.example.com/api to check.", _key(14), "password")
    add("Then mysql --password {s} -h db.internal connects.", _key(12), "password")
    # Tokens in headers
    add("Call it with Authorization: Bearer {s} and it works.", _key(40), "bearer-token")
    add("curl -H 'Authorization: Bearer {s}' https://api.example.com/v1/me returns 200.", _key(32), "bearer-token")
    add("The header was Bearer {s} in the log.", _key(36, URLSAFE + "."), "bearer-token")
    add("It sent Authorization: Basic {s} on every call.", _key(22) + "==", "basic-auth")
    # Assignments by name
    add("export API_KEY={s} in your shell first.", _key(32), "api-key")
    add('In settings.py: api_key = "{s}" for now.', _key(32), "api-key")
    add("The URL is https://api.example.com/v1?apikey={s}&format=json today.", _key(24), "api-key")
    add('The config has "client_secret": "{s}" for OAuth.', _key(30), "secret")
    add('The db_key = "{s}" line is old.', _key(24), "secret")
    add("Set AUTH_TOKEN={s} before the deploy.", _key(28, HEX), "token")
    add("In the config, token: {s} is for the bot.", _key(32), "token")
    add("private_key = '{s}' was committed by mistake.", _key(40, B64), "private-key")
    # Passwords by name, in config and in words
    add("My password is {s} so do not lose it.", "Tr0ub4dor&" + _digits(4), "password")
    add("The wifi password: {s} (guest network).", _key(12), "password")
    add("PASSWORD={s} is what the old script used.", _key(10), "password")
    add('We had "password": "{s}" in the fixture.', _key(14), "password")
    add("In compose I set DB_PASSWORD={s} for the db service.", _key(16), "password")
    add("Use PGPASSWORD={s} psql -h db to connect.", _key(12), "password")
    add("the password is {s} and it is lowercase.", "blue" + "fish", "password")
    add("My password for the VPN is {s}, don't share it.", _key(12), "password")
    add("The door PIN is {s} since Monday.", _digits(4), "password")
    add("And my password's {s} on that one.", _key(10), "password")
    add("The fixture has <password>{s}</password> in it.", _key(10), "password")
    add("I set the password to {s} this morning.", _key(10), "password")
    add("Use pw: {s} for the guest account.", _key(10), "password")
    add("host=db.internal password = '{s}' dbname=mem is the DSN.", "pa ss\\'" + _key(8), "password")
    # Keys announced in words, with no name=value or vendor shape around them
    add("The API key is {s} for the weather service.", _key(32), "api-key")
    add("My datadog api key is {s} by the way.", _key(32, HEX), "api-key")
    add("The aws secret access key {s} is the old one.", _key(40, B64), "aws-secret-key")
    add("Here are the credentials: {s} for the portal.", _key(24), "secret")
    add("Try key={s} in the query.", _key(32), "secret")
    add("The Slack app token is {s} for socket mode.", "xapp-1-" + _key(11, UPPER) + "-" + _key(40), "slack-token")
    add("heroku config:set SECRET_KEY_BASE={s} did it.", _key(64, HEX), "secret")
    return out


PLANTED = _planted()
PEM = _pem()

BENIGN = [
    "I'm moving to Lisbon in May with my sister Ana.",
    "Let's book the flight to Porto on the 14th and the train back on the 20th.",
    "The hotel near Alfama was 120 euros a night; breakfast was included.",
    "We decided to use SQLite for the index and PostgreSQL for teams.",
    "The bug was in src/memlane/index/sync.py around line 212.",
    "See tests/capture/test_capture.py::test_secrets_and_excluded_turns_never_reach_a_memory_file for the case.",
    "Commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed the flaky test.",
    "The short SHA is 3f2a9c1 and the tag is v0.4.2.",
    "The run id is 550e8400-e29b-41d4-a716-446655440000 in the dashboard.",
    "Docs are at https://docs.python.org/3/library/re.html#re.finditer for reference.",
    "The PR is https://github.com/acme/api/pull/4821/files?diff=split#diff-3f2a9c1d8e7b.",
    "I upgraded numpy to 2.1.3 and onnxruntime to 1.20.1.",
    "pip install detect-secrets==1.5.0 and npm install left-pad@1.3.0 both worked.",
    "The token budget is 4096 and the context window is 200k tokens.",
    "Set max_tokens: 1024 and temperature: 0.2 for the summary call.",
    "I forgot my password yesterday and had to reset it.",
    "My password is stored in 1Password, not in the repo.",
    "The password is incorrect, try the reset link.",
    "Your password was changed on 2026-05-01.",
    "The secret to good bread is a long, cold proof.",
    "Here's the secret: patience and practice.",
    "- Decided: ship the API on Friday.",
    "- [ ] rotate the API keys\n- [x] write the migration",
    "Meeting at 14:30 on 2026-05-01 in room B2.",
    "The deploy ran at 2026-05-01T10:00:00Z and took 3m12s.",
    "Her phone number ends in 4417 and she prefers texts.",
    "Use `git log --oneline | head -3` to see the last commits.",
    "The key insight was that BM25 and vectors disagree on names.",
    "API keys go in the environment, never in the Markdown.",
    "Let's rotate the tokens every 90 days.",
    "The tokenizer splits internationalization into subword tokens.",
    "The auth flow uses OAuth 2.0 with PKCE.",
    "Bearer of bad news: the build is red again.",
    "My bank card PIN reminder arrived by post.",
    "The reset pin is on the left side of the board.",
    "He ran 10km in 52:13 on Sunday.",
    "The image is ghcr.io/acme/api:v1.4.2 on amd64.",
    "sha256 of the wheel: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 matches.",
    "The digest is sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 on the registry.",
    "The ticket is JIRA-4821 and the branch is feature/capture-hooks.",
    "We read 1,540 questions across 10 conversations.",
    "Caroline went to the LGBTQ support group on 7 May 2023.",
    "I keep my notes in ~/notes/2026/work.md and back them up nightly.",
    "The recipe needs 200g flour, 5g salt and 350ml water.",
    "Postgres runs on localhost:5432 with the default user.",
    "Email me at alice@example.com or ping @bob on Slack.",
    "Clone it with git@github.com:acme/api.git and run make.",
    'password = os.environ["DB_PASSWORD"] reads it from the environment.',
    "Pass api_key=$OPENAI_API_KEY on the command line.",
    "The workflow uses token: ${{ secrets.GITHUB_TOKEN }} for the release.",
    "PWD=/home/alice/projects/memlane in the shell.",
    "The password field is required and the form says Password: required.",
    "My ssh key is ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl alice@laptop.",
    "The build number is 20260501.4 and the job id is 987654321.",
    "The token limit is 128000 for this model.",
    "Use the --token flag to pass it in.",
    "token = tokenizer.encode(text)",
    "api_key: str | None = None",
    "password: str = Field(..., min_length=8)",
    "if password == confirm_password:",
    "self.secret = secret",
    "secret_key = settings.SECRET_KEY",
    "secret = endpoint.api_key",
    "SECRET_KEY = get_random_secret_key()",
    "Authorization: Bearer <token>",
    'curl -H "Authorization: Bearer $OPENAI_API_KEY" https://api.openai.com/v1/models',
    "password_hash = bcrypt.hashpw(pw, salt)",
    "The password is case-sensitive.",
    "Password: none, it's an open network.",
    "The reset flow is password -> forgot -> email.",
    "I need the password to the staging server, can you send it on Signal?",
    "The pass rate went up to 97.5% after the fix.",
    "Boarding pass: 14A, gate K12.",
    "pwd shows /home/alice",
    "the key is to keep it simple",
    "access_token_expires_in: 3600",
    '"token_type": "Bearer", "expires_in": 3600',
    "The key class is OAuth2ClientCredentialsFlow in auth/flows.py.",
    "The key commit was 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 last week.",
    "The API key id is 123e4567-e89b-12d3-a456-426614174000 in the console.",
    "Token usage: prompt_tokens=1523, completion_tokens=201, total_tokens=1724",
    "The secret management doc is at docs/security/SecretsManagement2024.md",
    "The key file is at ~/.config/gcloud/application_default_credentials.json",
    "The token is stored in the macOS keychain under com.example.cli.",
    "The key takeaway: use HNSW with efSearch=64 and M=16.",
    "Redis runs at redis://localhost:6379/0 and Postgres at postgres://localhost/mydb.",
    "Is the token valid? The token expired at noon.",
    "ok",
    "",
]


def _expected(sentence: str, secret: str, kind: str) -> str:
    return sentence.replace(secret, f"[redacted: {kind}]")


def test_the_corpus_is_what_the_issue_asks_for() -> None:
    assert len(PLANTED) >= 50 and len(BENIGN) >= 30
    assert len({kind for _, _, kind in PLANTED}) >= 20
    for sentence, secret, _ in PLANTED:
        assert sentence.count(secret) == 1, sentence


@pytest.mark.parametrize(
    ("sentence", "secret", "kind"), PLANTED, ids=[f"{k}-{i}" for i, (_, _, k) in enumerate(PLANTED)]
)
def test_a_planted_secret_is_replaced_and_its_sentence_kept(sentence: str, secret: str, kind: str) -> None:
    got = redact(sentence)
    assert secret not in got.text
    assert got == Redaction(_expected(sentence, secret, kind), 1, (kind,))


def test_all_planted_secrets_in_one_transcript_are_counted_once_each_in_order() -> None:
    tail = "That key is for the old server."
    text = "\n".join(s for s, _, _ in PLANTED) + "\n" + PEM + "\n" + tail
    got = redact(text)
    assert got.count == len(PLANTED) + 1
    assert got.kinds == (*(kind for _, _, kind in PLANTED), "private-key")
    expected = "\n".join(_expected(*p) for p in PLANTED) + "\n[redacted: private-key]\n" + tail
    assert got.text == expected
    assert not any(secret in got.text for _, secret, _ in PLANTED) and PRIVATE not in got.text


@pytest.mark.parametrize("line", BENIGN)
def test_ordinary_conversation_is_left_alone(line: str) -> None:
    assert redact(line) == Redaction(line, 0, ())


def test_the_benign_corpus_as_one_text_is_left_alone() -> None:
    text = "\n".join(BENIGN)
    assert redact(text) == Redaction(text, 0, ())


def test_redacting_twice_changes_nothing() -> None:
    texts = [s for s, _, _ in PLANTED] + [PEM, "\n".join(s for s, _, _ in PLANTED), *BENIGN]
    for text in texts:
        once = redact(text)
        twice = redact(once.text)
        assert twice == Redaction(once.text, 0, ()), once.text


def test_placeholders_already_in_the_text_are_left_alone() -> None:
    text = (
        "Key [redacted: openai-key] and password: [redacted: password], "
        'then "api_key": "[redacted: api-key]" and postgres://u:[redacted: password]@db/x.'
    )
    assert redact(text) == Redaction(text, 0, ())
    key = "sk-" + _key(40)
    got = redact(f"Old [redacted: openai-key] and new {key}.")
    assert got == Redaction("Old [redacted: openai-key] and new [redacted: openai-key].", 1, ("openai-key",))


def test_a_placeholder_is_inert() -> None:
    """The kind in a placeholder never names nor announces what follows it (redacting twice relies on it)."""
    text = f"[redacted: api-key] {_key(24)} and [redacted: {PASS}word]: {_key(10)}"
    assert redact(text) == Redaction(text, 0, ())


def test_a_connection_string_keeps_its_user_host_and_database() -> None:
    value = "Sup3r" + _key(8) + "!"
    got = redact(f"Use postgres://admin:{value}@db.example.com:5432/orion?sslmode=require for staging.")
    assert (
        got.text == "Use postgres://admin:[redacted: password]@db.example.com:5432/orion?sslmode=require for staging."
    )
    assert got.kinds == ("password",)
    at_sign = "p@ss" + _key(6)  # an unencoded "@" in the password: up to the last one before the host
    got = redact(f"mysql://root:{at_sign}@db.internal/shop")
    assert got.text == "mysql://root:[redacted: password]@db.internal/shop"


def test_a_private_key_block_is_removed_whole_over_its_lines() -> None:
    got = redact("Here is the deploy key:\n" + PEM + "\nIt is for Orion.")
    assert got == Redaction("Here is the deploy key:\n[redacted: private-key]\nIt is for Orion.", 1, ("private-key",))
    two = redact(_pem("OPENSSH ") + "\nand the old one\n" + _pem("EC ", 3) + "\nthanks")
    assert two == Redaction(
        "[redacted: private-key]\nand the old one\n[redacted: private-key]\nthanks", 2, ("private-key",) * 2
    )
    for label in ("", "ENCRYPTED ", "DSA ", "PGP "):
        block = (
            _pem(label, 2)
            if label != "PGP "
            else _pem(label, 2).replace(f"{PRIVATE}{DASHES}", f"{PRIVATE} BLOCK{DASHES}")
        )
        assert redact(f"x\n{block}\ny").text == "x\n[redacted: private-key]\ny", label


def test_a_private_key_block_never_closed_is_a_secret_to_the_end() -> None:
    half = redact(f"Here it is:\n{DASHES}BEGIN OPENSSH {PRIVATE}{DASHES}\nb3BlbnNzaC1rZXktdjEAAAAA\nmore lines\n")
    assert half == Redaction("Here it is:\n[redacted: private-key]", 1, ("private-key",))


def test_a_secret_two_detectors_find_counts_once() -> None:
    key = "sk-" + _key(48)
    got = redact(f'OPENAI_API_KEY="{key}"')  # the key shape, the name pattern and detect-secrets' keyword plugin
    assert got == Redaction('OPENAI_API_KEY="[redacted: openai-key]"', 1, ("openai-key",))
    password = _key(12)
    got = redact(f"https://deploy:{password}@ci.example.com/x")  # the URL pattern and detect-secrets' basic auth
    assert got == Redaction("https://deploy:[redacted: password]@ci.example.com/x", 1, ("password",))
    got = redact(f'db_pass = "{password}"')  # the name pattern and detect-secrets' keyword plugin
    assert got == Redaction('db_pass = "[redacted: password]"', 1, ("password",))


def test_kinds_are_reported_in_the_order_of_the_text() -> None:
    aws, ghp, pw = "AKIA" + _key(16, UPPER), "ghp_" + _key(36), _key(10)
    got = redact(f"first {ghp}, then password: {pw}, then {aws}, then {ghp} again")
    assert got.kinds == ("github-token", "password", "aws-access-key", "github-token") and got.count == 4


def test_past_the_scan_budget_the_own_patterns_still_see_everything() -> None:
    stem = _key(12)
    noise = "\n".join(f"db_{KEY} = '{stem}{n:04d}'" for n in range(20_000))  # each line worth a scan
    key = "sk-" + _key(48)
    got = redact(noise + f"\nand the new key is {key} for Orion")
    assert key not in got.text and got.text.endswith("and the new key is [redacted: openai-key] for Orion")
    assert got.count == 20_001


def test_detect_secrets_never_verifies_over_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    from detect_secrets.settings import get_settings

    redact(WARM_UP)
    verify = "detect_secrets.filters.common.is_ignored_due_to_verification_policies"
    get_settings().filters[verify] = {"min_level": 2}

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("redact opened a connection")

    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket.socket, "connect", refuse)
    slack = "xoxb-" + _digits(11) + "-" + _digits(13) + "-" + _key(24)
    twilio = "SK" + _key(32, HEX)
    got = redact(f"Slack {slack} and Twilio {twilio} and https://u:{_key(10)}@example.com/")
    assert got.count == 3 and verify not in get_settings().filters


def test_detect_secrets_settings_reset_elsewhere_are_set_again() -> None:
    from detect_secrets.settings import transient_settings

    twilio = "SK" + _key(32, HEX)
    sha = "Commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed it."
    with transient_settings({"plugins_used": [{"name": "HexHighEntropyString", "limit": 1.0}]}):
        assert redact(sha).count == 0  # memlane's plugins, not the ones set here
        assert redact(f"Twilio {twilio}").kinds == ("twilio-key",)
    assert redact(f"Twilio {twilio}").kinds == ("twilio-key",)  # and again once they are put back


def test_redact_is_quiet(capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("DEBUG")
    text = "\n".join(s for s, _, _ in PLANTED) + "\n" + "\n".join(BENIGN)
    redact(text)
    assert capsys.readouterr() == ("", "") and caplog.records == []


def test_importing_detect_secrets_leaves_python_warnings_alone() -> None:
    """detect-secrets' logger calls logging.captureWarnings(True) when imported; memlane puts it back."""
    code = (
        "import warnings\n"
        "before = warnings.showwarning\n"
        "from memlane.capture.secrets import redact\n"
        f"assert redact({WARM_UP!r}).count == 1\n"
        "import detect_secrets.core.scan\n"
        "print(warnings.showwarning is before)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "True" and out.stderr == ""


def test_redact_from_many_threads_at_once() -> None:
    lines = [s for s, _, _ in PLANTED]
    want = [redact(line) for line in lines]
    got: dict[int, list[Redaction]] = {}

    def work(n: int) -> None:
        got[n] = [redact(line) for line in lines]

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(got[n] == want for n in range(4))


def test_the_prefilter_never_hides_what_detect_secrets_finds() -> None:
    """Only windows that could hold a secret are handed to detect-secrets: none it would find something in."""
    for line in [s for s, _, _ in PLANTED] + BENIGN + [PEM]:
        for window in line.split("\n"):
            if secret_scan.detected(window):
                assert secret_scan.worth_scanning(window), window


# Each hostile input at 1/k of its full size (k = 1: a megabyte or so).
HOSTILE: dict[str, Callable[[int], str]] = {
    "a megabyte of one letter": lambda k: "a" * (1_000_000 // k),
    "password= 100k times": lambda k: "password=" * (100_000 // k),
    "password is 100k times": lambda k: "password is " * (100_000 // k),
    "token: 100k times": lambda k: "token: " * (100_000 // k),
    "api_key= 100k times": lambda k: "api_key=" * (100_000 // k),
    "a key header 20k times, never closed": lambda k: f"{DASHES}BEGIN RSA {PRIVATE}{DASHES}" * (20_000 // k),
    "a key header and a megabyte, never closed": lambda k: (
        f"{DASHES}BEGIN RSA {PRIVATE}{DASHES}\n" + "A" * (1_000_000 // k)
    ),
    "Bearer and half a megabyte of spaces": lambda k: "Bearer " + " " * (500_000 // k) + "x",
    "a URL that never reaches its @": lambda k: "postgres://" + "u" * (200_000 // k) + ":" * (200_000 // k),
    "a URL of @s": lambda k: "https://u:" + "p@" * (300_000 // k),
    "20k keys": lambda k: ("sk-" + "a" * 30 + " ") * (20_000 // k),
    "a megabyte of minified JSON": lambda k: f'{{"{PASS}word": "{_key(10)}", "id": "{_key(16)}"}}, ' * (20_000 // k),
    "a megabyte of base64": lambda k: "QUJDRGFiY2QxMjM0" * (65_536 // k),
    "a million newlines": lambda k: "\n" * (1_000_000 // k),
    "a million quotes": lambda k: "'\"" * (500_000 // k),
    "half a million words": lambda k: "a " * (500_000 // k),
    "prose, a megabyte": lambda k: "hello world this is a sentence about tokens and keys\n" * (20_000 // k),
    "curl -u 300k times": lambda k: "-u " * (300_000 // k),
    # issue 41's rules: commands, pairs, cookies, OTP seeds, passphrases, other languages
    "mysql, a megabyte without its -p": lambda k: "mysql " + "x " * (500_000 // k),
    "mysql -p 100k times": lambda k: "mysql -p" * (100_000 // k),
    "sshpass 100k times": lambda k: "sshpass -p " * (100_000 // k),
    "docker login 50k times": lambda k: "docker login -u a " * (50_000 // k),
    "admin: 200k times": lambda k: "admin:" * (200_000 // k),
    "login: a / 100k times": lambda k: "login: a / " * (100_000 // k),
    "a Cookie header of a megabyte": lambda k: "Cookie: " + "a=b; " * (200_000 // k),
    "Cookie: 100k times": lambda k: "Cookie:" * (100_000 // k),
    "sessionid= 100k times": lambda k: "sessionid=" * (100_000 // k),
    "base32 groups, a megabyte": lambda k: "the otp seed " + "ABCD " * (200_000 // k) + "ABCDE",
    "base32 groups of words": lambda k: "the 2fa code " + "type " * (200_000 // k),
    "a base32 run of a megabyte": lambda k: "totp " + "A2" * (500_000 // k),
    "the password is word word …": lambda k: "the password is " + "word " * (200_000 // k),
    "password is 100k times with words": lambda k: "password is horse battery " * (50_000 // k),
    "das Passwort für 100k times": lambda k: "das Passwort für " * (100_000 // k),
    "パスワードは 100k times": lambda k: "パスワードは" * (100_000 // k),
    "token and hex, 50k times": lambda k: ("token " + "ab" * 20 + " ") * (50_000 // k),
    "a for-clause never closed": lambda k: "the password for " + "x" * (500_000 // k),
}
# Under this, a megabyte was redacted too fast for any quadratic step to be hiding in it (a million squared is
# 10^12); over it, the full size must cost about 4x a quarter of it (a quadratic step would cost 16x).
FAST_S = 0.5


def _seconds(text: str) -> float:
    started = time.perf_counter()
    redact(text)
    return time.perf_counter() - started


@pytest.mark.parametrize("hostile", list(HOSTILE.values()), ids=list(HOSTILE))
def test_hostile_input_stays_linear(hostile: Callable[[int], str]) -> None:
    """Linear, not timed against the clock: a loaded machine slows both sizes alike."""
    redact(WARM_UP)  # detect-secrets is imported on first use
    full = _seconds(hostile(1))
    if full >= FAST_S:
        full = min(full, _seconds(hostile(1)))  # a busy machine slows one run: the better of two, as for a quarter
        quarter = min(_seconds(hostile(4)) for _ in range(2))
        assert full < 8 * quarter, (full, quarter)


def _in(secret: str, text: str) -> bool:
    """A PIN counts as a number of its own: the state's keyed tags are random hex, and may hold any 4 digits."""
    if secret.isdigit():
        return re.search(rf"(?<![0-9a-f]){secret}(?![0-9a-f])", text) is not None
    return secret in text


def test_no_planted_secret_reaches_any_memory_file(tmp_path: Path) -> None:
    """The issue's measure: 50+ planted secrets in a transcript, captured as a host would; then every file
    capture wrote (logs, its state) is searched for each secret."""
    ws = tmp_path / "ws"
    ws.mkdir()
    log = tmp_path / "session.jsonl"
    turns = [
        {"role": "user", "content": s, "timestamp": f"2026-05-01T10:{k % 60:02d}:00"}
        for k, (s, _, _) in enumerate(PLANTED)
    ]
    turns.append({"role": "user", "content": "My deploy key:\n" + PEM + "\nIt is for Orion."})
    log.write_text("".join(json.dumps(t) + "\n" for t in turns))
    with memlane.open(ws, provider=FakeEmbedder()) as mem:
        report = mem.capture_transcript(log, "jsonl")
        written = [p for p in [*ws.rglob("*"), *mem.sessions_dir.rglob("*")] if p.is_file()]
    assert report.secrets_redacted == len(PLANTED) + 1 and report.facts_written >= 5
    text = "\n".join(p.read_text(errors="replace") for p in written)
    leaked = [secret for _, secret, _ in PLANTED if _in(secret, text)]
    assert leaked == [] and PRIVATE not in text
    assert "[redacted: " in text and "staging bot" in text


def test_a_mapbox_secret_token_is_redacted_and_a_word_ending_in_it_is_not() -> None:
    """The look-behind of a key shape spans its whole literal: with one character short it checked the literal's
    own first letter, and a bare ``sk.eyJ...`` token was never matched."""
    token = "sk.eyJ1IjoiZGFuYSIsImEiOiJjbHg5OHZ6a2QwMDAxMmtwYmZ3dGQ4bXQ3In0.Xq3pYv9dW2mR7sT1uK4nBw"
    got = redact(f"the mapbox token is {token} for the tiles")
    assert token not in got.text and got.kinds == ("mapbox-token",)
    assert redact("xsk.eyJ" + token[6:]).kinds != ("mapbox-token",)
