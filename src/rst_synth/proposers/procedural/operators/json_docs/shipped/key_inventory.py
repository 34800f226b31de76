"""What `json-key-inventory` ships: the script that lists a document's key paths, and the test that lists
them again (the operator also calls `key_paths` to know the output ahead). The constants are the step's
parameters: `shipping.render` sets them."""

from __future__ import annotations

import json
import pathlib

from rst_synth.proposers.procedural.operators.kit.testkit import assert_same_text

SRC = "/app/data/items.json"
OUT = "/app/data/items_key_paths.txt"


def key_paths(value: object, prefix: str = "", found: set[str] | None = None) -> set[str]:
    found = set() if found is None else found
    if isinstance(value, dict):
        for key, item in value.items():
            path = f"{prefix}.{key}" if prefix else key
            found.add(path)
            key_paths(item, path, found)
    elif isinstance(value, list):
        for item in value:
            key_paths(item, prefix + "[]", found)
    return found


def write_key_paths() -> None:
    doc = json.loads(pathlib.Path(SRC).read_text(encoding="utf-8"))
    pathlib.Path(OUT).write_text("".join(p + "\n" for p in sorted(key_paths(doc))), encoding="utf-8")


def test_sorted_key_paths() -> None:
    doc = json.loads(pathlib.Path(SRC).read_text(encoding="utf-8"))
    assert_same_text(OUT, "".join(p + "\n" for p in sorted(key_paths(doc))))
