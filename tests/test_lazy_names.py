"""The packages that load their names on first use (PEP 562: memlane, memlane.config, memlane.capture) still
offer every name they did: each of ``__all__`` resolves and is listed by ``dir``; a lazy name is a public one (or
the one private name tests reach); a misspelt name is an AttributeError; `import memlane` still reaches its
subpackages as attributes."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

LAZY_PACKAGES = ("memlane", "memlane.config", "memlane.capture")


@pytest.mark.parametrize("name", LAZY_PACKAGES)
def test_every_public_name_resolves_and_is_listed(name: str) -> None:
    module = importlib.import_module(name)
    for attr in module.__all__:
        assert getattr(module, attr) is not None, f"{name}.{attr}"
    lazy = set(module._LAZY)
    assert lazy <= set(module.__all__) | {"_warned"}, sorted(lazy - set(module.__all__))
    with pytest.raises(AttributeError):
        module.AgentConfg  # noqa: B018  (a misspelling)


def test_dir_lists_the_names_before_they_load() -> None:
    probe = (
        "import importlib, json\n"
        f"mods = [importlib.import_module(m) for m in {LAZY_PACKAGES!r}]\n"
        "print(json.dumps({m.__name__: sorted(set(m.__all__) - set(dir(m))) for m in mods}))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout) == {name: [] for name in LAZY_PACKAGES}, done.stderr


def test_import_memlane_still_reaches_its_subpackages() -> None:
    probe = "import memlane; print(memlane.config.resolve.__name__, memlane.store.__name__, memlane.errors.__name__)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == ["resolve", "memlane.store", "memlane.errors"], done.stderr
