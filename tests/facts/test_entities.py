"""Entity pages and name resolution: slugs, titles, aliases; exact matches only, near misses as hints."""

from __future__ import annotations

from memlane.facts.entities import EntityDirectory, entity_hints, parse_entity_page, suggest
from memlane.facts.retain import normalize_name


def test_aliases_from_front_matter_a_line_and_the_title() -> None:
    front = parse_entity_page(
        "bank/entities/Peter.md", "---\naliases: [Pete, 'P. Steinberger']\ntags: x\n---\n# Peter Steinberger\n"
    )
    assert front.slug == "Peter" and front.title == "Peter Steinberger"
    assert front.aliases == ("Pete", "P. Steinberger")
    block = parse_entity_page("bank/entities/The-Castle.md", "---\naliases:\n  - Castle HQ\n  - TC\n---\nbody\n")
    assert block.aliases == ("Castle HQ", "TC") and block.title is None
    line = parse_entity_page("bank/entities/warelay.md", "# warelay\n\n**Aliases:** wa-relay; the relay\n")
    assert line.aliases == ("wa-relay", "the relay")
    names = dict(front.names())
    assert names == {"peter": "slug", "petersteinberger": "title", "pete": "alias", "psteinberger": "alias"}


def test_broken_front_matter_is_no_alias_and_no_error() -> None:
    page = parse_entity_page("bank/entities/X.md", "---\naliases: [unclosed\n---\n# X\n")
    assert page.aliases == () and page.title == "X"


def _directory() -> EntityDirectory:
    names = [
        (normalize_name(n), slug, f"bank/entities/{slug}.md", how)
        for slug, n, how in [
            ("Peter", "Peter", "slug"),
            ("Peter", "Pete", "alias"),
            ("The-Castle", "The-Castle", "slug"),
            ("Iran", "Iran", "slug"),
        ]
    ]
    mentioned = {"peter": ("Peter", 3), "pete": ("Pete", 1), "tigran": ("Tigran", 2), "thecastle": ("the castle", 1)}
    return EntityDirectory(names, mentioned)


def test_resolution_is_exact_on_normalized_names_and_aliases() -> None:
    d = _directory()
    peter = d.resolve("peter")
    assert peter is not None and peter.page == "bank/entities/Peter.md"
    assert d.resolve("PETE") == peter and d.resolve("the castle") == d.resolve("The_Castle") != peter
    assert d.counts[peter.key] == 4  # @Peter x3 and @Pete x1 are one entity
    tigran = d.resolve("Tigran")
    assert tigran is not None and tigran.page is None and tigran != d.resolve("Iran")  # never a fuzzy merge
    assert d.resolve("Petra") is None


def test_entities_named_in_a_question() -> None:
    d = _directory()
    found = {e.name: words for e, words in d.named_in("What did Pete's team build at The Castle with Tigran?")}
    assert found == {"Peter": "Pete", "The-Castle": "The Castle", "Tigran": "Tigran"}
    assert d.named_in("what about the weather", frozenset({"the", "what", "about"})) == []


def test_near_misses_are_suggestions_only() -> None:
    known = {"peter": "Peter", "iran": "Iran", "john": "John"}
    assert suggest("pete", known) == "Peter"  # a prefix
    assert suggest("jon", known) == "John"  # ratio 0.86
    assert suggest("tigran", known) is None  # ratio 0.8: not close enough to even suggest
    assert suggest("peter", known) is None  # known: nothing to suggest
    hints = entity_hints(
        [("petr", "Petr", "memory/2025-11-27.md", 12), ("tigran", "Tigran", "memory/x.md", 3)],
        [("peter", "Peter", "bank/entities/Peter.md", "slug")],
    )
    assert hints == ["@Petr (memory/2025-11-27.md:12): no entity page or alias has this name; did you mean Peter?"]
