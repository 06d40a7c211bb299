"""Secrets out of captured text, before anything else sees it.

:func:`redact` replaces every secret it finds in a turn by ``[redacted: <kind>]`` (``[redacted: openai-key]``,
``[redacted: password]``…) and says how many it replaced and of which kinds, in the order of the text. Only the
secret itself is replaced: "my OpenAI key is sk-… use it for the staging bot" keeps "use it for the staging bot",
and ``postgres://admin:…@db.example.com/orion`` keeps its user, host and database.

Two detectors, because neither is enough alone, and a last net:

1. **memlane's own patterns** (:mod:`memlane.capture.secret_patterns`), for what people paste into a chat: some
   60 vendor key shapes by their prefix, JWTs, whole PEM private-key blocks, the password of a URL, ``curl -u``,
   ``Bearer``, ``Authorization: Basic``, values of a name ending in password/secret/token/…_key, passwords said
   in plain words (a passphrase of plain words whole) and in 25 other languages, passwords on the command lines
   of some twenty tools, "admin:… on the router", cookie values and base32 OTP seeds named on their line.
   detect-secrets' plugins were written for source files: its keyword plugin wants quotes in an ad-hoc scan, so
   it misses ``password=hunter2`` and "my password is hunter2", and it has none of the newer vendors' shapes.
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
tests/capture/test_capture_secrets.py cost 4x at 4x their size.
detect-secrets' own regular expressions are not linear: :mod:`memlane.capture.secret_scan` bounds them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from . import secret_patterns as pat
from .secret_scan import scanned


@dataclass(frozen=True)
class Redaction:
    """Text with its secrets replaced; how many were, and their kinds in the order they appear."""

    text: str
    count: int
    kinds: tuple[str, ...]


_Span = tuple[int, int, str]

_PLACEHOLDER = re.compile(r"\[redacted: [a-z0-9-]{1,40}\]")


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
    for kind, pattern in pat.SHAPES:
        for m in pattern.finditer(text):
            yield m.start(), m.end(), kind
    for m in pat.URL_PASSWORD.finditer(text):
        yield m.start("v"), m.end("v"), "password"  # up to its last "@": nothing to trim
    for m in pat.CURL_USER.finditer(text):
        if not _is_reference(m) and not _uid_gid(m):
            yield _trimmed(m, "password")
    for m in pat.BEARER.finditer(
        text
    ):  # "Bearer eyJ…", "token 9f8e…" (GitHub's scheme), not "token internationalization"
        if _looks_random(m["v"]) if m["bearer"] is not None else _random_run(m["v"].rstrip(pat.TRAILING)):
            yield _trimmed(m, "bearer-token")
    for m in pat.BASIC.finditer(text):
        yield _trimmed(m, "basic-auth")
    for m in pat.AWS_SECRET.finditer(text):
        yield m.start("v"), m.end("v"), "aws-secret-key"
    for m in pat.NAMED.finditer(text):
        if _named_value(m):
            yield _trimmed(m, _named_kind(m["name"]))
    for m in pat.PASSWORD.finditer(text):
        phrase = _phrase(m)
        if phrase is not None:
            yield phrase
        elif _password_value(m):
            yield _trimmed(m, "password")
    low = text.lower()  # for the plain-substring checks that spare a rule its scan of text that cannot hold it
    if not text.isascii() or any(word in low for word in pat.FOREIGN_ASCII):
        for m in pat.FOREIGN.finditer(text):
            if _foreign_value(m):
                yield _trimmed(m, "password")
    for words, pattern in pat.COMMANDS:
        if not any(word in text for word in words):
            continue  # the command's name is searched for first: 15 patterns cost 15 scans only when named
        for m in pattern.finditer(text):
            if not _is_reference(m) and not pat.MASKED.fullmatch(_value(m)):
                yield _trimmed(m, "password")
    yield from _pairs(text, low)
    yield from _cookies(text, low)
    if any(word in low for word in pat.OTP_HINTS):
        yield from _otp_seeds(text)


def _uid_gid(m: re.Match[str]) -> bool:
    """``--user 1000:1000``, ``--user app:app``: a container's user and group, not a login."""
    value = _value(m).rstrip(pat.TRAILING)
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
    for w in pat.PHRASE_WORD.finditer(text, start, min(len(text), start + 160)):
        if (words and text[words[-1].end() : w.start()] != " ") or not w[0].isalpha():
            break
        if words and w[0].casefold() in pat.PHRASE_STOP:
            break
        words.append(w)
    if len(words) < 2 or words[0].start() != start or words[0][0] != (m["v"].rstrip(pat.TRAILING) or m["v"]):
        return None  # the value's first word is the whole of its first token: "hunter2 and…" is no phrase
    plain_first = words[0][0].casefold() in pat.PHRASE_STOP
    if plain_first:
        rest = text[words[-1].end() : words[-1].end() + 2].lstrip(" ")
        if len(words) < 3 or (rest and rest[0] not in pat.TRAILING and rest[0] != "\n"):
            return None
    elif len(words) == 2 and name != "passphrase" and words[1][0].casefold() in pat.PHRASE_STOP:
        return None
    return start, words[-1].end(), "password"


def _foreign_value(m: re.Match[str]) -> bool:
    value = _value(m)
    bare = value.rstrip(pat.TRAILING) or value
    if _is_reference(m) or pat.MASKED.fullmatch(bare) or not any(c.isalnum() for c in value):
        return False
    if m["sep"] == "=" or _quoted(m):
        return True
    if bare.casefold() in pat.NOT_A_PASSWORD_FOREIGN or bare.casefold() in pat.NOT_A_PASSWORD:
        return False
    # "la clave es importante": clave is also "the key (point)"; only a value that looks like one counts
    return not m["name"].lower().startswith("clave") or not bare.isalpha()


def _pair_value(value: str) -> bool:
    """The password half of "admin:X": not a plain word ("chown root:root", "user:group"), a mask or a port."""
    bare = value.rstrip(pat.TRAILING) or value
    if len(bare) < 3 or pat.MASKED.fullmatch(bare) or bare.casefold() in pat.NOT_A_PASSWORD:
        return False
    if bare.isdigit():
        return 4 <= len(bare) <= 12 and not (len(bare) in (4, 5) and bare.startswith(("80", "44", "30", "50")))
    return not (bare.isalpha() and bare.islower()) and pat.REFERENCE.match(bare) is None


def _pairs(text: str, low: str) -> Iterator[_Span]:
    if any(user + ":" in low for user in pat.DEFAULT_USERS):
        for m in pat.USER_PAIR.finditer(text):
            if _pair_value(m["v"]):
                yield _trimmed(m, "password")
    if not any(word in low for word in pat.LOGIN_HINTS):
        return
    for m in pat.LOGIN_PAIR.finditer(text):
        bare = m["v"].rstrip(pat.TRAILING) or m["v"]
        if m["between"] == "/" and "/" in bare:
            continue  # "Login: alice/bob/carol": names in a list, or a path
        if (
            pat.REFERENCE.match(bare) is None
            and not pat.MASKED.fullmatch(bare)
            and bare.casefold() not in pat.NOT_A_PASSWORD
        ):
            yield _trimmed(m, "password")


def _cookie_secret(name: str, value: str) -> bool:
    if (
        name.lower() in pat.COOKIE_ATTRIBUTES
        or name.lower() in pat.COOKIE_NOT_SECRET
        or len(value) < 8
        or pat.REFERENCE.match(value) is not None
    ):
        return False
    if value.isdigit():
        return len(value) >= 12
    return _looks_random(value) or (len(value) >= 20 and not value.isalpha())


def _cookies(text: str, low: str) -> Iterator[_Span]:
    if "=" not in text:
        return
    if "cookie" in low:
        for header in pat.COOKIE_HEADER.finditer(text):
            for m in pat.COOKIE_PAIR.finditer(text, header.start("rest"), header.end("rest")):
                if _cookie_secret(m["name"], m["v"]):
                    yield m.start("v"), m.end("v"), "cookie"
    if not any(word in low for word in pat.SESSION_HINTS):
        return
    for m in pat.SESSION_COOKIE.finditer(text):
        if _cookie_secret("", m["v"]):
            yield _trimmed(m, "cookie")


def _otp_seeds(text: str) -> Iterator[_Span]:
    """Base32 one-time-password seeds ("JBSWY3DPEHPK3PXP", "jbsw y3dp ehpk 3pxp") named on their line."""
    for m in pat.B32_RUN.finditer(text):
        if _seed_like(m[0].rstrip("="), [m[0]]) and _otp_named(text, m.start(), m.end()):
            yield m.start(), m.end(), "otp-seed"
    for m in pat.B32_GROUPS.finditer(text):
        groups = m[0].split(" ")
        first, last = 0, len(groups)
        while first < last and groups[first].lower() in pat.BESIDE_SEED:
            first += 1
        while last > first and groups[last - 1].lower() in pat.BESIDE_SEED:
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
    if pat.DIGIT.search(seed):
        return True
    # an upper-case run of 16 is no word; lower-case groups are random when some have no vowel
    return seed.isupper() or (len(groups) >= 4 and not all(pat.VOWELS & set(g) for g in groups))


def _otp_named(text: str, start: int, end: int) -> bool:
    lo = max(start - pat.OTP_BEFORE, text.rfind("\n", 0, start) + 1)
    hi = text.find("\n", end, end + pat.OTP_AFTER)
    return pat.OTP_WORD.search(text, lo, end + pat.OTP_AFTER if hi < 0 else hi) is not None


def _announced(text: str) -> Iterator[_Span]:
    """A random-looking run of key characters shortly after a word such as key, token, secret or password."""
    for run in pat.RUN.finditer(text):
        start = run.start()
        lo = max(0, start - pat.NEAR - 16)
        lo = text.rfind("\n", lo, start) + 1 or lo  # on the run's own line
        word = None
        for m in pat.SECRET_WORD.finditer(text, lo, start):
            if m.end() >= start - pat.NEAR:
                word = m  # the nearest one names the kind
        if word is None or not (_random_run(run[0]) or _hex_secret(text, run, word, lo)):
            continue
        name = word[0].lower()
        kind = "password" if pat.PASSWORD_WORD.match(name) else "token" if name.startswith("token") else "secret"
        yield start, run.end(), "api-key" if name.startswith("api") else kind


def _hex_secret(text: str, run: re.Match[str], word: re.Match[str], lo: int) -> bool:
    """A hexadecimal run announced as a credential ("token 3f2a…", "the API key is: 9c1d…"), not a hash: no word
    such as commit, sha, checksum or id near it, and after "key" alone only "is", ":" or "=" between."""
    if not (16 <= len(run[0]) <= 128) or not pat.HEXY.fullmatch(run[0]) or "-" in run[0]:
        return False
    between = text[word.end() : run.start()]
    if pat.HASH_WORD.search(text, max(lo, word.start() - 24), run.start()):
        return False
    if word[0].lower() in ("key", "keys"):
        return pat.COPULA.fullmatch(between) is not None
    return True


def _pem_blocks(text: str) -> Iterator[_Span]:
    """Whole private-key blocks; one never closed is a secret to the end of the text."""
    pos = 0
    while (begin := pat.PEM_BEGIN.search(text, pos)) is not None:
        end = pat.PEM_END.search(text, begin.end())
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
        end = start + len(m[group].rstrip(pat.TRAILING) or m[group])
    return start, end, kind


def _is_reference(m: re.Match[str]) -> bool:
    """A value that names where a secret is (``os.environ["X"]``, ``${{ secrets.X }}``) rather than holding it."""
    value = _value(m)
    after = m.string[m.end() : m.end() + 1]
    if after in ("[", "(") or "(" in value or pat.REFERENCE.match(value) is not None:
        return True
    # A bare name in code: "secret = endpoint.api_key", "password=user_password" (no digit, a "_" or a ".").
    return not _quoted(m) and ("_" in value or "." in value) and pat.CODE_NAME.fullmatch(value) is not None


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
    if pat.HEXY.fullmatch(run) and (len(run) != 32 or "-" in run):
        return False
    if run.startswith("AAAA") or ("/" in run and all(len(p) <= 3 or _wordy(p) >= 0.5 for p in run.split("/"))):
        return False  # an SSH public key ("ssh-ed25519 AAAAC3Nz…"); a path ("docs/security/Secrets2024")
    parts = pat.PARTS.split(run)
    if len(parts) >= 3 and max(len(part) for part in parts) < 12:
        return False
    if sum(len(word) for word in pat.LOWER_WORD.findall(run)) * 4 >= len(run):
        return False
    if not pat.DIGIT.search(run):
        return len(run) >= 20 and pat.LOWER_WORD.search(run) is None and _wordy(run) < 0.3
    return True


def _wordy(run: str) -> float:
    """How much of ``run`` is in word-like runs: 0.25 for a random base62 key, 0.9 for an identifier."""
    return sum(len(word) for word in pat.WORDY.findall(run)) / len(run)


def _looks_random(value: str) -> bool:
    """A digit and a letter, or upper case after the first letter: a key, not a word."""
    return bool(pat.DIGIT.search(value) and pat.LETTER.search(value)) or any(c.isupper() for c in value[1:])


def _named_value(m: re.Match[str]) -> bool:
    value = _value(m)
    if _is_reference(m) or pat.MASKED.fullmatch(value) or not any(c.isalnum() for c in value):
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
    bare = value.rstrip(pat.TRAILING) or value
    name = m["name"].lower()
    if _is_reference(m) or pat.MASKED.fullmatch(bare) or not any(c.isalnum() for c in value):
        return False  # a reference, a mask, or punctuation ('password:",' at the end of a string in code)
    if name in ("pin", "pwd", "pw", "pass") and m.string[m.start() - 1 : m.start()].isalnum():
        return False  # "spin", "cmdpwd", "bypass": only a name's own word ("PIN", "SIM_PIN", "DB_PWD") counts
    if (name.startswith("pin") or (name.endswith("code") and name != "passcode")) and not pat.DIGIT.search(bare):
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
    if word in pat.NOT_A_PASSWORD or word in pat.NOT_A_PASSWORD_FOREIGN:
        return False
    # "the password is expired / rotated weekly / case-sensitive": a plain word with a word's ending.
    return not (word.replace("-", "").isalpha() and word.islower() and word.endswith(pat.NOT_A_PASSWORD_ENDINGS))
