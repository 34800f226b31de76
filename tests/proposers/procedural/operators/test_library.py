"""The operator library's layout: a folder per domain, every module loaded by walking the package, a
module's name leading to its operators, and helpers shared through kit/ or a domain's helper module,
never through another module's private names."""

from __future__ import annotations

import ast
import pkgutil
import sys
from pathlib import Path

import rst_synth.proposers.procedural.operators as library
from rst_synth.proposers.procedural.library import OPERATORS

ROOT = Path(library.__file__).parent


def _words(name: str) -> set[str]:
    return {w[:-1] if w.endswith("s") else w for w in name.replace("-", "_").split("_") if w}


def test_walking_the_package_loads_every_module() -> None:
    found = {info.name for info in pkgutil.walk_packages(library.__path__, prefix=f"{library.__name__}.")}
    files = {
        f"{library.__name__}." + ".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for p in ROOT.rglob("*.py")
        if p.name != "__init__.py" or p.parent != ROOT
    }
    assert files <= found, files - found
    assert all(name in sys.modules for name in found)
    assert library.load_all() == sorted(found)


def test_every_operator_lives_in_a_domain_folder_named_for_it() -> None:
    assert len(OPERATORS) >= 70
    for name, operator in OPERATORS.items():
        module = type(operator).__module__.removeprefix(f"{library.__name__}.")
        domain, _, stem = module.partition(".")
        assert domain != "kit" and stem and "." not in stem, (name, module)
        assert _words(stem) & _words(name), f"{name} is in {module}: its name does not lead to the file"


def test_no_module_imports_another_modules_private_names() -> None:
    found = []
    for path in ROOT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(library.__name__):
                found += [f"{path.relative_to(ROOT)}: {a.name}" for a in node.names if a.name.startswith("_")]
    assert found == []
