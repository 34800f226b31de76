#!/usr/bin/env python3
"""Draw the picture of the parts in docs/architecture.md from the code: the layers of the import
contract in pyproject.toml (`[tool.importlinter]`, which `lint-imports` enforces) and each part's
imports, read from src/rst_synth with `ast` (imports inside functions and under TYPE_CHECKING count,
as they do for the contract).

usage: python3 scripts/architecture.py           rewrite the picture in docs/architecture.md
       python3 scripts/architecture.py --check   exit 1 when the committed picture is not the code's,
                                                 or when an import breaks the layers

A part is a package (or a module) directly under rst_synth. Exit status 1 also when an arrow points
up or sideways: a part importing a part of a higher layer, or of its own layer (the parts of one
layer are independent), or a part that is in no layer.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = "rst_synth"
DOC = REPO / "docs" / "architecture.md"
BEGIN = "<!-- parts: drawn by scripts/architecture.py; do not edit by hand -->"
END = "<!-- end of parts -->"


def layers(pyproject: Path = REPO / "pyproject.toml") -> list[list[str]]:
    """The contract's layers, highest first, each a list of parts."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    contract = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    return [[part.strip() for part in layer.split("|")] for layer in contract["layers"]]


def imports(src: Path = REPO / "src") -> dict[str, set[str]]:
    """Part -> the other parts its modules import."""
    found: dict[str, set[str]] = defaultdict(set)
    root = src / PACKAGE
    for path in sorted(root.rglob("*.py")):
        module = path.relative_to(src).with_suffix("").parts
        if module == (PACKAGE, "__init__"):
            continue
        part = module[1]
        found.setdefault(part, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            for name in _imported(node, module):
                target = name.split(".")
                if target[0] == PACKAGE and len(target) > 1 and target[1] != part:
                    found[part].add(target[1])
    return {part: targets & found.keys() for part, targets in found.items()}  # `from rst_synth import __version__`


def _imported(node: ast.AST, module: tuple[str, ...]) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        if node.level:  # relative: from the module's package upward
            base = list(module[: len(module) - node.level])
            return [".".join([*base, node.module] if node.module else base)]
        if node.module == PACKAGE:  # `from rst_synth import part`
            return [f"{PACKAGE}.{alias.name}" for alias in node.names]
        return [node.module or ""]
    return []


def violations(edges: dict[str, set[str]], stack: list[list[str]]) -> list[str]:
    """Every import that breaks the layers, in words."""
    level = {part: index for index, layer in enumerate(stack) for part in layer}
    found = [f"{part} is in no layer of the contract" for part in sorted(edges) if part not in level]
    for part, targets in sorted(edges.items()):
        for target in sorted(targets):
            if part in level and target in level and level[target] <= level[part]:
                where = "its own layer" if level[target] == level[part] else "a higher layer"
                found.append(f"{part} imports {target}, a part of {where}")
    return found


def picture(edges: dict[str, set[str]], stack: list[list[str]]) -> str:
    """The layers, highest first, each part with the parts it imports."""
    width = max(len(part) for layer in stack for part in layer)
    lines = []
    for index, layer in enumerate(stack, start=1):
        for position, part in enumerate(layer):
            number = f"{index:>2}" if position == 0 else "  "
            targets = " ".join(sorted(edges.get(part, ())))
            lines.append((f"{number}  {part:<{width}}" + (f"  ─> {targets}" if targets else "")).rstrip())
    return "\n".join(lines)


def block(edges: dict[str, set[str]], stack: list[list[str]]) -> str:
    return f"{BEGIN}\n```text\n{picture(edges, stack)}\n```\n{END}"


def committed(doc: Path = DOC) -> str:
    text = doc.read_text(encoding="utf-8")
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[start:end]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when out of date")
    args = parser.parse_args()
    edges, stack = imports(), layers()
    broken = violations(edges, stack)
    for line in broken:
        print(f"layers: {line}", file=sys.stderr)
    drawn = block(edges, stack)
    if args.check:
        if committed() != drawn:
            print(f"{DOC.relative_to(REPO)}: the picture of the parts is out of date; run {__file__}", file=sys.stderr)
            return 1
        return 1 if broken else 0
    text = DOC.read_text(encoding="utf-8")
    old = committed()
    DOC.write_text(text.replace(old, drawn), encoding="utf-8")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
