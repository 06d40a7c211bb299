"""The floors of the house (docs/ARCHITECTURE.md): each package imports only from the floors below it.

Read from the code's own imports (every ``import`` and ``from ... import`` in every module, at any depth, lazy ones and
``TYPE_CHECKING`` ones included), so an import that runs back up fails here, and so does any circle between packages.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "memlane"

# Lowest first. A unit is a subpackage or a top-level module of memlane; "__init__"/"__main__" are the package's own.
FLOORS: tuple[tuple[str, ...], ...] = (
    ("errors",),
    ("text",),
    ("config",),
    ("workspace",),
    ("embeddings",),
    ("store",),
    ("files",),
    ("search",),
    ("facts",),
    ("index",),
    ("reflect",),
    ("capture",),
    ("report",),
    ("memory",),
    ("ui",),
    ("surface",),
    ("langchain", "__init__", "__main__"),
)
LEVEL = {unit: n for n, units in enumerate(FLOORS) for unit in units}


def unit_of(module: str) -> str:
    """``memlane.facts.graph.query`` -> ``facts``; ``memlane`` -> ``__init__``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def module_name(path: Path, root: Path) -> tuple[str, bool]:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts = parts[:-1]
    return ".".join(parts), is_package


def imports_of(path: Path, root: Path) -> list[tuple[int, str]]:
    """Every memlane module ``path`` imports, with its line."""
    name, is_package = module_name(path, root)
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.split(".")[0] == root.name]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
                if node.module is None:  # from . import x, y: each may be a module
                    found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
                    continue
            else:
                target = node.module or ""
            if target.split(".")[0] == root.name:
                found.append((node.lineno, target))
    return found


def upward_imports(root: Path) -> list[str]:
    problems = []
    for path in sorted(root.rglob("*.py")):
        name, _ = module_name(path, root)
        here = unit_of(name)
        if here not in LEVEL:
            problems.append(f"{path.relative_to(root)}: {here!r} is on no floor (add it to FLOORS and ARCHITECTURE.md)")
            continue
        for line, target in imports_of(path, root):
            there = unit_of(target)
            if there == here:
                continue
            if there not in LEVEL:
                there = unit_of(target.rsplit(".", 1)[0]) if target.count(".") > 1 else there
            if there not in LEVEL or LEVEL[there] >= LEVEL[here]:
                problems.append(f"{path.relative_to(root)}:{line}: {here} imports {target} ({there}), not below it")
    return problems


def test_every_import_runs_down_the_floors() -> None:
    assert upward_imports(SRC) == []


def test_every_unit_of_the_package_is_on_a_floor() -> None:
    units = {
        p.stem if p.is_file() else p.name for p in SRC.iterdir() if (p.suffix == ".py" or (p / "__init__.py").exists())
    }
    assert units <= set(LEVEL), sorted(units - set(LEVEL))


@pytest.mark.parametrize(
    ("where", "line"),
    [
        ("text/keywords.py", "from ..store import IndexStore\n"),  # a floor importing a higher one
        ("errors.py", "import memlane.memory\n"),  # the lowest floor importing the facade
        ("store/sqlite/bm25.py", "def f():\n    from ...search import ranking\n"),  # a lazy import, two levels deep
        ("facts/graph/query.py", "from ... import index\n"),  # from the package root
    ],
)
def test_an_import_running_back_up_is_caught(tmp_path: Path, where: str, line: str) -> None:
    root = tmp_path / "memlane"
    for path in SRC.rglob("*.py"):
        copy = root / path.relative_to(SRC)
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    assert upward_imports(root) == []
    target = root / where
    target.write_text(target.read_text(encoding="utf-8") + line, encoding="utf-8")
    problems = upward_imports(root)
    assert len(problems) == 1 and problems[0].startswith(where), problems
