"""Secrets never reach memory (issue 25): planted secrets of the common shapes are redacted, the sentence
around each is kept, ordinary conversation is left alone, and hostile input stays linear."""

from __future__ import annotations

import json
import random
import string
import time
from pathlib import Path

import pytest

import memlane
from conftest import FakeEmbedder
from memlane.capture.secrets import redact

_rng = random.Random(25)


def _rand(n: int, alphabet: str = string.ascii_letters + string.digits) -> str:
    return "".join(_rng.choice(alphabet) for _ in range(n))


UPPER = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"


def _planted() -> list[tuple[str, str, str]]:
    """(sentence, secret, kind): fake secrets of real shapes, built here so that this file holds none."""
    out: list[tuple[str, str, str]] = []

    def add(template: str, secret: str, kind: str) -> None:
        out.append((template.format(s=secret), secret, kind))

    for _ in range(3):
        add("My OpenAI key is {s} use it for the staging bot.", "sk-" + _rand(48), "openai-key")
        add(
            "The project key {s} goes in the CI settings.",
            "sk-proj-" + _rand(40, string.ascii_letters + "_-"),
            "openai-key",
        )
        add("Anthropic gave us {s} for the eval runs.", "sk-ant-api03-" + _rand(60), "anthropic-key")
        add("The AWS access key id is {s} for the backup user.", "AKIA" + _rand(16, UPPER), "aws-access-key")
        add("Temporary creds start with {s} today.", "ASIA" + _rand(16, UPPER), "aws-access-key")
        add("I pushed with {s} from my laptop.", "ghp_" + _rand(36), "github-token")
        add("The fine-grained token {s} expires in May.", "github_pat_" + _rand(22) + "_" + _rand(59), "github-token")
        add("GitLab runner uses {s} now.", "glpat-" + _rand(20), "gitlab-token")
        add(
            "The Slack bot token is {s} in the vault.",
            "xoxb-" + _rand(11, string.digits) + "-" + _rand(24),
            "slack-token",
        )
        add("Stripe live key {s} must never be shared.", "sk_live_" + _rand(24), "stripe-key")
        add(
            "Maps works with {s} on the site.",
            "AIza" + _rand(35, string.ascii_letters + string.digits + "_-"),
            "google-api-key",
        )
        add("Download models with {s} please.", "hf_" + _rand(34), "huggingface-token")
    jwt = "eyJ" + _rand(20) + ".eyJ" + _rand(40) + "." + _rand(43, string.ascii_letters + string.digits + "_-")
    add("The session cookie was {s} when it failed.", jwt, "jwt")
    add("Call it with Authorization: Bearer {s} and it works.", _rand(40), "bearer-token")
    add("The db moved to postgres://admin:{s}@db.example.com:5432/orion yesterday.", "Hunter2" + _rand(8), "password")
    add("Redis is at redis://default:{s}@cache.internal:6379 now.", _rand(20), "password")
    add("Mongo: mongodb+srv://app:{s}@cluster0.mongodb.net/prod is the URI.", _rand(16), "password")
    add("export API_KEY={s} in your shell first.", _rand(32), "secret")
    add('The config has "client_secret": "{s}" for OAuth.', _rand(30), "secret")
    add("Set AUTH_TOKEN={s} before the deploy.", _rand(28, HEX), "secret")
    add(
        "aws_secret_access_key = {s} is in ~/.aws/credentials.",
        _rand(40, string.ascii_letters + "/+"),
        "aws-secret-key",
    )
    add("My password is {s} so do not lose it.", "Tr0ub4dor&" + _rand(4, string.digits), "password")
    add("The wifi password: {s} (guest network).", _rand(12), "password")
    add("PASSWORD={s} is what the old script used.", _rand(10), "password")
    add('We had "password": "{s}" in the fixture.', _rand(14), "password")
    add("The Twilio key {s} is for SMS.", "SK" + _rand(32, HEX), "twilio")
    add("The npm publish token is {s} for CI.", "npm_" + _rand(36), "npm-token")
    add(
        "Post alerts to {s} from the cron.",
        "https://hooks.slack.com/services/T" + _rand(10, UPPER) + "/B" + _rand(10, UPPER) + "/" + _rand(24),
        "slack-webhook",
    )
    return out


PLANTED = _planted()
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    + "\n".join(_rand(64, string.ascii_letters + string.digits + "+/") for _ in range(6))
    + "\n-----END RSA PRIVATE KEY-----"
)

BENIGN = [
    "I'm moving to Lisbon in May with my sister Ana.",
    "We decided to use SQLite for the index and PostgreSQL for teams.",
    "The bug was in src/memlane/index/sync.py around line 212.",
    "Commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39 fixed the flaky test.",
    "The run id is 550e8400-e29b-41d4-a716-446655440000 in the dashboard.",
    "Docs are at https://docs.python.org/3/library/re.html#re.finditer for reference.",
    "I upgraded numpy to 2.1.3 and onnxruntime to 1.20.1.",
    "The token budget is 4096 and the context window is 200k tokens.",
    "I forgot my password yesterday and had to reset it.",
    "My password is stored in 1Password, not in the repo.",
    "The secret to good bread is a long, cold proof.",
    "- Decided: ship the API on Friday.",
    "Meeting at 14:30 on 2026-05-01 in room B2.",
    "Her phone number ends in 4417 and she prefers texts.",
    "Use `git log --oneline | head -3` to see the last commits.",
    "The key insight was that BM25 and vectors disagree on names.",
    "API keys go in the environment, never in the Markdown.",
    "Let's rotate the tokens every 90 days.",
    "The auth flow uses OAuth 2.0 with PKCE.",
    "Bearer of bad news: the build is red again.",
    "My bank card PIN reminder arrived by post.",
    "He ran 10km in 52:13 on Sunday.",
    "The image is ghcr.io/acme/api:v1.4.2 on amd64.",
    "sha256 of the wheel: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 matches.",
    "The ticket is JIRA-4821 and the branch is feature/capture-hooks.",
    "We read 1,540 questions across 10 conversations.",
    "Caroline went to the LGBTQ support group on 7 May 2023.",
    "I keep my notes in ~/notes/2026/work.md and back them up nightly.",
    "The recipe needs 200g flour, 5g salt and 350ml water.",
    "Postgres runs on localhost:5432 with the default user.",
    "ok",
    "",
]


def test_fifty_planted_secrets_are_redacted_and_their_sentences_kept() -> None:
    assert len(PLANTED) >= 50
    for sentence, secret, kind in PLANTED:
        got = redact(sentence)
        assert secret not in got.text, (kind, got.text)
        assert got.count == 1, (sentence, got)
        assert "[redacted: " in got.text
        before, _, after = sentence.partition(secret)
        assert got.text.startswith(before.rstrip()[:10]) and got.text.endswith(after.strip()[-10:]), got.text


def test_all_planted_secrets_in_one_transcript_are_counted_once_each() -> None:
    text = "\n".join(s for s, _, _ in PLANTED) + "\n" + PEM + "\nThat key is for the old server."
    got = redact(text)
    assert got.count == len(PLANTED) + 1 and len(got.kinds) == got.count
    assert not any(secret in got.text for _, secret, _ in PLANTED)
    assert "PRIVATE KEY" not in got.text and "That key is for the old server." in got.text
    assert "private-key" in got.kinds and "openai-key" in got.kinds and "password" in got.kinds


@pytest.mark.parametrize("line", BENIGN)
def test_ordinary_conversation_is_left_alone(line: str) -> None:
    got = redact(line)
    assert got.text == line and got.count == 0 and got.kinds == ()


def test_redacting_twice_changes_nothing() -> None:
    for sentence, _, _ in [*PLANTED, (PEM, "", "")]:
        once = redact(sentence)
        twice = redact(once.text)
        assert twice.text == once.text and twice.count == 0, once.text


def test_a_connection_string_keeps_its_host_and_a_key_block_never_closed_is_dropped() -> None:
    got = redact("Use postgres://admin:Sup3rS3cret!@db.example.com/orion for staging.")
    assert got.text == "Use postgres://admin:[redacted: password]@db.example.com/orion for staging."
    half = redact("Here it is:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n")
    assert half.text == "Here it is:\n[redacted: private-key]" and half.kinds == ("private-key",)


@pytest.mark.parametrize(
    "hostile",
    [
        "a" * 1_000_000,
        "password=" * 100_000,
        "-----BEGIN RSA PRIVATE KEY-----" * 20_000,
        "Bearer " + " " * 500_000 + "x",
        "postgres://" + "u" * 200_000 + ":" * 200_000,
        ("sk-" + "a" * 30 + " ") * 20_000,
        "token: " * 100_000,
    ],
)
def test_hostile_input_stays_linear(hostile: str) -> None:
    started = time.perf_counter()
    redact(hostile)
    assert time.perf_counter() - started < 8  # a guard against a quadratic blow-up, not a benchmark


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
    leaked = [secret for _, secret, _ in PLANTED if secret in text]
    assert leaked == [] and "PRIVATE KEY" not in text
    assert "[redacted: " in text and "staging bot" in text
