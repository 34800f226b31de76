"""What `config-migrate-tool` ships: the migration tool (`main`: a document read, migrated by the stated rules
and printed in its own format) and the tests, which check the saved migration and run the tool on fresh
documents shaped like the configuration. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import copy
import decimal
import json
import pathlib
import random
import sys
import tomllib
from typing import Any

from rst_synth.proposers.procedural.operators.config.shipped.documents import dump_doc, load_doc
from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/app_migrate"
SRC = "/app/config/app.toml"
OUT = "/app/migrated/app_v3.toml"
SEED = 1
VERSION_KEY = "config_version"
SOURCE = 2
TARGET = 3
MOVES: list[tuple[str, str]] = [("logging", "log"), ("http.port", "http.listen_port")]
CONVERT: list[tuple[str, str]] = [("database.timeout", "database.timeout_ms")]
REMOVE: list[str] = ["http.debug"]
DEFAULTS: list[tuple[str, Any]] = [("http.retries", 3)]
SHAPE = {
    "config_version": "integer",
    "http.host": "string",
    "http.port": "integer",
    "http.debug": "boolean",
    "database.timeout": "float",
    "logging.level": "string",
}
"""Every leaf of the configuration by its dotted path, with the kind of value a fresh document puts there."""


class MigrationError(Exception):
    pass


def parent_of(doc: dict[str, Any], path: str) -> dict[str, Any] | None:
    node: Any = doc
    for part in path.split(".")[:-1]:
        node = node.get(part) if isinstance(node, dict) else None
    return node if isinstance(node, dict) and path.split(".")[-1] in node else None


def put(doc: dict[str, Any], path: str, value: Any) -> None:
    node = doc
    for part in path.split(".")[:-1]:
        if not isinstance(node.setdefault(part, {}), dict):
            raise MigrationError(path + ": inside a value that is not a table")
        node = node[part]
    node[path.split(".")[-1]] = value


def milliseconds(value: Any, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise MigrationError(path + ": not a number of seconds")
    exact = decimal.Decimal(repr(value)) * 1000
    return int(exact.quantize(decimal.Decimal(1), rounding=decimal.ROUND_HALF_UP))


def migrate(doc: dict[str, Any]) -> dict[str, Any]:
    version = doc.get(VERSION_KEY, 1)
    if isinstance(version, bool) or not isinstance(version, int):
        raise MigrationError(VERSION_KEY + ": not an integer")
    if version == TARGET:
        return doc
    if version != SOURCE:
        raise MigrationError(f"version {version}: only version {SOURCE} migrates")
    for _, new in MOVES + CONVERT:
        if parent_of(doc, new) is not None:
            raise MigrationError(new + ": already present")
    out = copy.deepcopy(doc)
    for old, new in MOVES:
        parent = parent_of(out, old)
        if parent is not None:
            put(out, new, parent.pop(old.split(".")[-1]))
    for old, new in CONVERT:
        parent = parent_of(out, old)
        if parent is not None:
            put(out, new, milliseconds(parent.pop(old.split(".")[-1]), old))
    for path in REMOVE:
        parent = parent_of(out, path)
        if parent is not None:
            del parent[path.split(".")[-1]]
    for path, value in DEFAULTS:
        if parent_of(out, path) is None:
            put(out, path, value)
    out[VERSION_KEY] = TARGET
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: " + argv[0] + " FILE", file=sys.stderr)
        return 2
    try:
        text = dump_doc(migrate(load_doc(argv[1])), argv[1])
    except (OSError, UnicodeDecodeError, ValueError, MigrationError) as exc:
        print("error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


def fresh_leaf(rng: random.Random, kind: str, path: str) -> Any:
    if any(path == old for old, _ in CONVERT):
        return rng.choice([30, 0, 2.5, 2.0075, -0.5105, 0.0015, rng.randint(1, 900), rng.randint(1, 9999) / 100])
    if kind == "string":
        return rng.choice(["Zürich", 'say "hi"', "a = b", "plain", "", "東京"])
    if kind == "integer":
        return rng.randint(-100, 100000)
    if kind == "float":
        return rng.randint(-999, 99999) / 100
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "array:integer":
        return [rng.randint(0, 99) for _ in range(rng.randint(0, 3))]
    if kind == "null":
        return None
    return [rng.choice(["a", "b c", "ü"]) for _ in range(rng.randint(0, 3))]


def fresh_doc(rng: random.Random, version: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {}
    for path, kind in SHAPE.items():
        if path != VERSION_KEY and rng.random() < 0.85:
            put(doc, path, fresh_leaf(rng, kind, path))
    if version is not None:
        doc[VERSION_KEY] = version
    return doc


def fresh_cases(seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    cases = [fresh_doc(rng, SOURCE if VERSION_KEY in SHAPE or k % 2 else None) for k in range(8)]
    for old, _ in CONVERT:  # halves that binary floating point gets wrong
        for doc, seconds in zip(cases, (2.0035, -0.5015, 0.0145, 30), strict=False):
            put(doc, old, seconds)
    cases += [fresh_doc(rng, TARGET), fresh_doc(rng, SOURCE + 2), fresh_doc(rng, str(SOURCE))]
    for _, new in MOVES + CONVERT:
        clash = fresh_doc(rng, SOURCE)
        put(clash, new, 1)
        cases.append(clash)
    for old, _ in CONVERT:
        for bad in ("30", True):
            wrong = fresh_doc(rng, SOURCE)
            put(wrong, old, bad)
            cases.append(wrong)
    return cases


def test_migrated_configuration() -> None:
    want = migrate(load_doc(SRC))
    assert want[VERSION_KEY] == TARGET
    assert load_doc(OUT) == want


def test_tool_on_fresh_documents(tmp_path: pathlib.Path) -> None:
    for k, doc in enumerate(fresh_cases(SEED)):
        ext = (".toml", ".json")[k % 2]
        path = tmp_path / f"doc{k}{ext}"
        path.write_text(dump_doc(doc, ext), encoding="utf-8")
        try:
            want = migrate(load_doc(path))
        except MigrationError:
            want = None
        done = run_tool(TOOL, path)
        if want is None:
            assert_usage_error(done, (k, doc))
        else:
            assert done.returncode == 0, (k, done.stderr[-500:])
            text = done.stdout.decode("utf-8")
            assert (tomllib.loads(text) if ext == ".toml" else json.loads(text)) == want, (k, doc)


def test_tool_rejects_unreadable_files(tmp_path: pathlib.Path) -> None:
    for name, data in {"bad.toml": b"[a\n", "bad.json": b"{", "list.json": b"[1, 2]", "none.toml": None}.items():
        path = tmp_path / name
        if data is not None:
            path.write_bytes(data)
        done = run_tool(TOOL, path)
        assert_usage_error(done, name)
