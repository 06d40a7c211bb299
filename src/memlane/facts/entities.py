"""Entity pages (``bank/entities/<Slug>.md``): the names an entity is known by, and near-miss hints.

An entity is known by its page's file name (``The-Castle.md`` -> ``The-Castle``), the page's title
(its first ``#`` heading) and its aliases: a YAML front matter ``aliases`` list, or an
``aliases: Pete, P. Steinberger`` line. Names match after :func:`~memlane.facts.retain.normalize_name`
(case, spaces and dashes do not count), never by similarity: a mention that is only *close* to a
name ("@Pete" with no such alias) stays its own entity and is reported as a suggestion.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

import yaml

from ..text.markdown import front_matter_text, parse
from .retain import normalize_name

ENTITY_DIR = "bank/entities/"
_ALIAS_LINE = re.compile(r"^\s*(?:[-*+]\s+)?(?:\*\*|__)?aliases(?:\*\*|__)?\s*:(?:\*\*|__)?\s*(.*)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class EntityPage:
    slug: str  # the file name without .md: the entity's canonical name
    path: str  # workspace-relative
    title: str | None
    aliases: tuple[str, ...]

    def names(self) -> list[tuple[str, str]]:
        """(normalized name, how it is known: slug | title | alias), each name once."""
        out: dict[str, str] = {}
        for name, how in [(self.slug, "slug"), (self.title or "", "title"), *((a, "alias") for a in self.aliases)]:
            norm = normalize_name(name)
            if norm and norm not in out:
                out[norm] = how
        return list(out.items())


def is_entity_page(path: str) -> bool:
    p = PurePosixPath(path)
    return path.startswith(ENTITY_DIR) and len(p.parts) == 3 and p.suffix == ".md"


def parse_entity_page(path: str, text: str) -> EntityPage:
    """The names of one entity page; anything unreadable is simply not a name."""
    doc = parse(text)
    front = front_matter_text(doc)
    aliases = _front_matter_aliases(front) if front is not None else []
    title = next((h.text for h in doc.headings if h.level == 1 and h.text), None)
    code = doc.in_code()
    skip = range(*doc.front_matter) if doc.front_matter else range(0)
    for i, line in enumerate(doc.lines):
        if code[i] or i in skip:
            continue
        a = _ALIAS_LINE.match(line)
        if a:
            aliases.extend(_split_aliases(a.group(1)))
    unique = tuple(dict.fromkeys(a for a in aliases if normalize_name(a)))
    return EntityPage(PurePosixPath(path).stem, path, title, unique)


def _split_aliases(raw: str) -> list[str]:
    raw = raw.strip().strip("[]")
    return [a.strip().strip("\"'`*_").strip() for a in re.split(r"[,;]", raw) if a.strip().strip("\"'`*_").strip()]


def _front_matter_aliases(front: str) -> list[str]:
    """The ``aliases`` of a page's YAML front matter. Anchors and aliases (``&a``/``*a``) are refused:
    names are flat strings, and nine aliases of nine aliases expand a 321-byte page into millions of
    characters. The front matter's size is capped by :func:`memlane.text.markdown.front_matter_text`."""
    try:
        if any(getattr(event, "anchor", None) for event in yaml.parse(front, Loader=yaml.SafeLoader)):
            return []  # an anchor (or an alias of one): not a list of names
        data = yaml.safe_load(front)
    except yaml.YAMLError:
        return []
    if not isinstance(data, dict):
        return []
    value = next((v for k, v in data.items() if str(k).lower() in ("aliases", "alias")), None)
    if isinstance(value, str):
        return _split_aliases(value)
    if isinstance(value, list):
        return [str(v).strip() for v in value if isinstance(v, str | int | float) and str(v).strip()]
    return []


def suggest(norm: str, known: dict[str, str]) -> str | None:
    """A known name close to an unknown mention (``known``: normalized -> display), for a hint only.

    Close means one is a prefix of the other (Pete / Peter) or a similarity ratio of at least 0.85
    (Jon / John); "Tigran" / "Iran" (0.8) is not close."""
    if not norm or norm in known:
        return None
    best: tuple[float, str] | None = None
    for other, display in known.items():
        shorter, longer = sorted((norm, other), key=len)
        ratio = difflib.SequenceMatcher(None, norm, other).ratio()
        close = (len(shorter) >= 3 and longer.startswith(shorter) and len(longer) - len(shorter) <= 3) or ratio >= 0.85
        if close and (best is None or ratio > best[0]):
            best = (ratio, display)
    return best[1] if best else None


@dataclass(frozen=True, slots=True)
class Entity:
    key: str  # the normalized name facts are grouped by: the page's slug, else the mention's own key
    name: str  # how it is shown: the page's slug, else the mention as first written
    page: str | None  # bank/entities/<Slug>.md when there is one
    norms: frozenset[str]  # every normalized name it answers to (slug, title, aliases; or the mention)


_PRIORITY = {"slug": 0, "title": 1, "alias": 2}
_WORD = re.compile(r"\w+(?:[-.]\w+)*")


class EntityDirectory:
    """Every entity of the index: entity pages with their names, and mentions no page names.

    Resolution is exact on normalized names; when two pages claim a name, a page's own slug wins over
    a title, a title over an alias, and then the first page by path."""

    def __init__(self, names: list[tuple[str, str, str, str]], mentioned: dict[str, tuple[str, int]]) -> None:
        """``names``: (norm, slug, path, how) rows of entity pages; ``mentioned``: norm -> (name, facts)."""
        by_page: dict[str, list[tuple[str, str]]] = {}
        slugs: dict[str, str] = {}
        for norm, slug, path, how in names:
            by_page.setdefault(path, []).append((norm, how))
            slugs[path] = slug
        claims: dict[str, tuple[int, str]] = {}
        for path in sorted(by_page):
            for norm, how in by_page[path]:
                rank = (_PRIORITY.get(how, 3), path)
                if norm not in claims or rank < (claims[norm][0], claims[norm][1]):
                    claims[norm] = (rank[0], path)
        self._by_norm: dict[str, Entity] = {}
        pages: dict[str, Entity] = {}
        for path, slug in slugs.items():
            own = frozenset(n for n, (_, p) in claims.items() if p == path)
            entity = Entity(normalize_name(slug), slug, path, own | {normalize_name(slug)})
            pages[path] = entity
        for norm, (_, path) in claims.items():
            self._by_norm[norm] = pages[path]
        self.counts: dict[str, int] = {}
        for norm, (name, n) in mentioned.items():
            known = self._by_norm.get(norm)
            if known is None:
                known = self._by_norm[norm] = Entity(norm, name, None, frozenset({norm}))
            self.counts[known.key] = self.counts.get(known.key, 0) + n
        self.page_names = {norm: e.name for norm, e in self._by_norm.items() if e.page is not None}

    def __len__(self) -> int:
        return len({e.key for e in self._by_norm.values()})

    def resolve(self, name: str) -> Entity | None:
        return self._by_norm.get(normalize_name(name))

    def of_norm(self, norm: str) -> Entity | None:
        return self._by_norm.get(norm)

    def entities(self) -> list[Entity]:
        """Every entity once, by name."""
        return sorted({e.key: e for e in self._by_norm.values()}.values(), key=lambda e: (e.name.lower(), e.key))

    def suggest(self, name: str) -> str | None:
        """A page's name close to ``name`` (for "did you mean"), never used to resolve."""
        return suggest(normalize_name(name), self.page_names)

    def named_in(self, text: str, stopwords: frozenset[str] = frozenset()) -> list[tuple[Entity, str]]:
        """Entities a text names, longest names first ("The Castle" before "Castle"), with the words."""
        words = [re.sub(r"['’]s$", "", w) for w in _WORD.findall(text)]
        found: dict[str, tuple[Entity, str]] = {}
        used: set[int] = set()
        for size in (4, 3, 2, 1):
            for i in range(len(words) - size + 1):
                span = set(range(i, i + size))
                if span & used:
                    continue
                phrase = " ".join(words[i : i + size])
                if size == 1 and (phrase.lower() in stopwords or len(phrase) < 2):
                    continue
                entity = self._by_norm.get(normalize_name(phrase))
                if entity is not None:
                    found.setdefault(entity.key, (entity, phrase))
                    used |= span
        return list(found.values())


def entity_hints(
    unresolved: list[tuple[str, str, str, int]], names: list[tuple[str, str, str, str]], paths: set[str] | None = None
) -> list[str]:
    """ "@Pete (memory/2025-11-27.md:12): did you mean Peter?" for mentions no page names but one nearly
    does. ``unresolved``: (norm, name, path, line) of first uses; ``names``: entity pages' (norm, slug,
    path, how); ``paths``: only mentions first used in these files (None: all)."""
    known = {norm: slug for norm, slug, _, _ in names}
    hints = []
    for norm, name, path, line in unresolved:
        if paths is not None and path not in paths:
            continue
        close = suggest(norm, known)
        if close is not None:
            hints.append(f"@{name} ({path}:{line}): no entity page or alias has this name; did you mean {close}?")
    return hints
