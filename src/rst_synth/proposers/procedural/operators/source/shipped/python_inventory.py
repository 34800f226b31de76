"""What `python-source-inventory` ships: the script that lists a module's top-level functions and classes as
JSON, and the test that parses the module again. The constants are the step's parameters: `shipping.render`
sets them (EXTRA: "", "end_line" or "docstring")."""

from __future__ import annotations

import ast
import json
import pathlib
from typing import Any

SRC = "/app/src/app.py"
EXTRA = "end_line"
OUT = "/app/src/app_inventory.json"


def write_inventory() -> None:
    with open(SRC, "rb") as f:
        tree = ast.parse(f.read())
    kinds = {ast.FunctionDef: "function", ast.AsyncFunctionDef: "function", ast.ClassDef: "class"}
    items = []
    for node in tree.body:
        if type(node) in kinds:
            item: dict[str, Any] = {"name": node.name, "kind": kinds[type(node)], "line": node.lineno}  # type: ignore[attr-defined]
            if EXTRA == "end_line":
                item["end_line"] = node.end_lineno
            elif EXTRA == "docstring":
                item["docstring"] = ast.get_docstring(node) is not None  # type: ignore[arg-type]
            items.append(item)
    with open(OUT, "w") as f:
        json.dump(sorted(items, key=lambda i: i["line"]), f, indent=2)


def expected() -> list[dict[str, Any]]:
    tree = ast.parse(pathlib.Path(SRC).read_bytes())
    items = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            item: dict[str, Any] = {
                "name": node.name,
                "line": node.lineno,
                "kind": "class" if isinstance(node, ast.ClassDef) else "function",
            }
            if EXTRA == "end_line":
                item["end_line"] = node.end_lineno
            elif EXTRA == "docstring":
                item["docstring"] = ast.get_docstring(node) is not None
            items.append(item)
    return sorted(items, key=lambda i: i["line"])


def test_inventory_matches_source() -> None:
    data = json.loads(pathlib.Path(OUT).read_text())
    assert isinstance(data, list)
    assert data == expected()
    for item in data:
        assert type(item["line"]) is int and type(item.get("end_line", 0)) is int
        assert type(item.get("docstring", False)) is bool
