"""Issue 41's measure of the redactor on tests/secret_corpus.py: no secret missed, at most 2% of look-alikes
redacted; and each of the issue's misses by name, so a regression says which shape came back."""

from __future__ import annotations

import pytest

from memlane.capture.secrets import redact
from secret_corpus import Planted, figures, lookalikes, planted

MAX_REDACTED_LOOKALIKES = 0.02


def test_the_corpus_is_as_large_and_as_varied_as_the_issue_asks() -> None:
    cases, texts = planted(), lookalikes()
    assert len(cases) >= 300 and len(texts) >= 300
    shapes = {p.shape.split(":")[0] for p in cases}
    assert {"vendor", "password", "header", "hex-token", "cookie", "otp-seed", "private-key"} <= shapes
    assert len({p.shape for p in cases if p.shape.startswith("vendor:")}) >= 40
    assert all(p.fragments() and all(f in p.text for f in p.fragments()) for p in cases)
    assert planted() == cases and lookalikes() == texts  # seeded: the same corpus on every run


@pytest.mark.parametrize("seed", [41, 42, 43])
def test_no_secret_is_missed_and_few_lookalikes_are_redacted(seed: int) -> None:
    missed, redacted, _, n_lookalikes = figures(seed)
    assert [(p.shape, p.text) for p, _ in missed] == []
    assert len(redacted) <= MAX_REDACTED_LOOKALIKES * n_lookalikes, redacted


# Issue 41 item 1, each written whole by the redactor it reviewed. Values are joined at run time.
X = "Xq7" + "pLm2w"
HEX40 = "3f2a9c1d8e7b6a5f" + "4e3d2c1b0a9f8e7d6c5b4a39"
K = "Ab3dEf7hIj0lMn4p" + "Qr8tUv2xYz6bCd9fGh1jKl5nOp"
ISSUE_41 = [
    ("for-clause with =", f"the password for staging = {X}", X),
    ("passphrase after a not-a-password word", "the wifi password is correct horse battery staple", "battery"),
    ("passphrase whole", "my passphrase is purple monkey dishwasher", "dishwasher"),
    ("mysql -p", f"mysql -u root -p{X} shop", X),
    ("sshpass -p", f"sshpass -p '{X}' ssh pi@host", X),
    ("docker login -p", f"docker login -p {X} registry.example.com", X),
    ("admin:X in prose", f"admin:{X} on the router", X),
    ("login: user / X", f"login: alice / {X}", X),
    ("base32 OTP seed", "the OTP secret is JBSWY3DP" + "EHPK3PXP", "JBSWY3DP" + "EHPK3PXP"),
    ("40-hex after token", f"the token {HEX40} works", HEX40),
    ("40-hex after the api key is:", f"the api key is: {HEX40}", HEX40),
    ("Cookie header", f"Cookie: sessionid={K}", K),
    ("Set-Cookie header", f"Set-Cookie: session={K}; Path=/", K),
    ("session cookie alone", f"my sessionid={K} from the browser", K),
    *[
        (f"bare {prefix}", f"here: {prefix}{K}", K)
        for prefix in ("gsk_", "xai-", "pplx-", "r8_", "dop_v1_", "ntn_", "lin_api_", "shpat_", "whsec_")
    ],
    *[(f"bare {prefix}", f"here: {prefix}{K}", K) for prefix in ("tskey-auth-", "hvs.", "GOCSPX-", "ya29.")],
    ("Passwort", f"Das Passwort ist {X}.", X),
    ("Kennwort", f"Kennwort: {X}", X),
    ("mot de passe", f"le mot de passe est {X}", X),
    ("contraseña", f"la contraseña es {X}", X),
    ("senha", f"a senha é {X}", X),
    ("wachtwoord", f"het wachtwoord is {X}", X),
    ("hasło", f"hasło: {X}", X),
    ("пароль", f"пароль: {X}", X),
    ("パスワード", f"パスワードは{X}です", X),
    ("密码", f"密码是{X}", X),
    ("비밀번호", f"비밀번호는 {X}", X),
]


@pytest.mark.parametrize(("name", "text", "secret"), ISSUE_41, ids=[n for n, _, _ in ISSUE_41])
def test_each_miss_issue_41_found_is_redacted(name: str, text: str, secret: str) -> None:
    got = redact(text)
    assert secret not in got.text and got.count >= 1, got.text
    assert Planted(text, secret, name).leaked(got.text) == []


def test_a_passphrase_goes_whole_and_the_sentence_stays() -> None:
    got = redact("my passphrase is purple monkey dishwasher, and the hint is cutlery")
    assert got.text == "my passphrase is [redacted: password], and the hint is cutlery"
    got = redact("the wifi password is correct horse battery staple")
    assert got.text == "the wifi password is [redacted: password]"
    # a sentence about a password keeps its words
    for text in ("the password is correct now", "the password is too short", "the password is stored in Vault"):
        assert redact(text).count == 0, text
