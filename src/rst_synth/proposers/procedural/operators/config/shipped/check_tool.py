"""What `config-check-tool` ships: the validator tool (`main`, comparing a TOML document with SCHEMA) and the
tests, which check its saved reports and run it on documents they make up from SCHEMA (reordered, missing,
mistyped, unknown). The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import pathlib
import random
import sys
import tomllib
from collections.abc import Callable
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/app_check"
SRC = "/app/config/app.toml"
VARIANT = "/app/incoming/r1s1/app_broken.toml"
OUT_OK = "/app/config/app_check.txt"
OUT_BAD = "/app/config/app_check_broken.txt"
SEED = 1
SCHEMA: dict[str, str] = {"name": "string", "port": "integer", "server": "table", "server.ratio": "float"}


def type_name(value: object) -> str:
    for name, kind in (("boolean", bool), ("integer", int), ("float", float), ("string", str)):
        if isinstance(value, kind):
            return name
    return "array" if isinstance(value, list) else "table" if isinstance(value, dict) else "datetime"


def problems(doc: dict[str, Any], schema: dict[str, str]) -> list[str]:
    found = []

    def walk(node: dict[str, Any], prefix: str) -> None:
        for key, value in node.items():
            path = prefix + key
            want, got = None if "." in key else schema.get(path), type_name(value)
            if want is None:
                found.append((path, "unknown"))
            elif got != want and not (want == "float" and got == "integer"):
                found.append((path, f"expected {want}, got {got}"))
            elif got == "table":
                walk(value, path + ".")
        for path in schema:
            parent, _, key = path.rpartition(".")
            if parent == prefix[:-1] and key not in node:
                found.append((path, "missing"))

    walk(doc, "")
    return [f"{path}: {what}" for path, what in sorted(found)]


def main() -> int:
    try:
        with open(sys.argv[1], "rb") as f:
            doc = tomllib.load(f)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        print("invalid TOML: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    lines = problems(doc, SCHEMA)
    print("\n".join(lines or ["ok"]))
    return 1 if lines else 0


WRONG = {
    "string": ("integer", "12"),
    "integer": ("boolean", "true"),
    "float": ("string", '"1.5"'),
    "boolean": ("integer", "1"),
    "array": ("string", '"1, 2"'),
    "datetime": ("string", '"1979-05-27"'),
}
FRESH: dict[str, Callable[[random.Random], str]] = {
    "string": lambda rng: rng.choice(['"plain"', '"say \\"hi\\""', '"Zürich"', '"a = b"', '""']),
    "integer": lambda rng: str(rng.randint(-1000, 100000)),
    "float": lambda rng: f"{rng.randint(-9999, 99999) / 100:.2f}",
    "boolean": lambda rng: rng.choice(["true", "false"]),
    "array": lambda rng: "[" + ", ".join(str(rng.randint(0, 99)) for _ in range(rng.randint(0, 4))) + "]",
    "datetime": lambda rng: "1979-05-27T07:32:00Z",
}


def node_at(tree: Any, path: str) -> Any:
    for part in path.split(".") if path else []:
        tree = tree[part]
    return tree


def parent_of(tree: Any, path: str) -> tuple[Any, str]:
    where, _, key = path.rpartition(".")
    return node_at(tree, where), key


def fresh_tree(rng: random.Random) -> dict[str, Any]:
    # A valid document of SCHEMA: tables are dicts, other values their TOML text.
    root: dict[str, Any] = {}
    for path in sorted(SCHEMA):
        node, key = parent_of(root, path)
        node[key] = {} if SCHEMA[path] == "table" else FRESH[SCHEMA[path]](rng)
    return root


def toml_text(tree: dict[str, Any], rng: random.Random) -> str:
    # Top-level keys first, then one [header] per table; keys and tables in shuffled order.
    sections = []

    def walk(node: dict[str, Any], path: list[str]) -> None:
        for key, value in node.items():
            if isinstance(value, dict):
                sections.append(path + [key])
                walk(value, path + [key])

    def leaves(node: dict[str, Any]) -> list[str]:
        keys = [k for k in node if not isinstance(node[k], dict)]
        rng.shuffle(keys)
        return [f"{k} = {node[k]}" for k in keys]

    walk(tree, [])
    rng.shuffle(sections)
    lines = leaves(tree)
    for path in sections:
        lines += ["", "[" + ".".join(path) + "]"] + leaves(node_at(tree, ".".join(path)))
    return "\n".join(lines) + "\n"


def broken_cases(seed: int) -> list[tuple[str, str, list[str]]]:
    # (name, TOML text, expected stdout lines) of documents with known problems, made from SCHEMA.
    rng = random.Random(seed)
    leaves = sorted(p for p, t in SCHEMA.items() if t != "table")
    tables = sorted(p for p, t in SCHEMA.items() if t == "table")

    def drop(tree: dict[str, Any], path: str) -> list[tuple[str, str]]:
        node, key = parent_of(tree, path)
        del node[key]
        return [(path, "missing")]

    def bend(tree: dict[str, Any], path: str, got: str | None = None, text: str | None = None) -> list[tuple[str, str]]:
        node, key = parent_of(tree, path)
        got, text = (got, text) if text else WRONG[SCHEMA[path]]
        node[key] = text
        return [(path, f"expected {SCHEMA[path]}, got {got}")]

    def unknown(tree: dict[str, Any]) -> list[tuple[str, str]]:
        found = []
        for where in [""] + rng.sample(tables, min(1, len(tables))):
            node, prefix = node_at(tree, where), where + "." if where else ""
            for base, value in (("extra_key", "1"), ("extra_table", {"a": '"x"', "inner": {"b": "2"}})):
                n = 1
                while f"{base}_{n}" in node or f"{prefix}{base}_{n}" in SCHEMA:
                    n += 1
                node[f"{base}_{n}"] = value
                found.append((f"{prefix}{base}_{n}", "unknown"))
        return found

    def table_vs_value(tree: dict[str, Any]) -> list[tuple[str, str]]:
        path = rng.choice(tables)
        outside = [p for p in leaves if not p.startswith(path + ".")]
        found = bend(tree, path, "integer", "3")
        return found + (bend(tree, rng.choice(outside), "table", "{ x = 1 }") if outside else [])

    def int_for_float(
        tree: dict[str, Any],
    ) -> list[tuple[str, str]]:  # an integer where a float is expected is accepted: no lines
        for path in (p for p in leaves if SCHEMA[p] == "float"):
            bend(tree, path, "", str(rng.randint(-5, 500)))
        return []

    def mixed(tree: dict[str, Any]) -> list[tuple[str, str]]:
        gone, bent = rng.sample(leaves, 2)
        return drop(tree, gone) + bend(tree, bent) + unknown(tree)

    kinds = sorted({SCHEMA[p] for p in leaves})
    edits: dict[str, Callable[[dict[str, Any]], list[tuple[str, str]]]] = {
        "missing_keys": lambda t: [line for p in rng.sample(leaves, 2) for line in drop(t, p)],
        "wrong_types": lambda t: [
            line for k in kinds for line in bend(t, rng.choice([p for p in leaves if SCHEMA[p] == k]))
        ],
        "int_for_float": int_for_float,
        "bool_for_int": lambda t: [
            line for p in leaves if SCHEMA[p] == "integer" for line in bend(t, p, "boolean", "false")
        ],
        "unknown_keys_and_tables": unknown,
        "mixed": mixed,
    }
    if tables:
        edits["missing_table"] = lambda t: drop(t, rng.choice(tables))
        edits["table_vs_value"] = table_vs_value
    cases = []
    for name, edit in edits.items():
        tree = fresh_tree(rng)
        found = edit(tree)
        cases.append((name, toml_text(tree, rng), [f"{p}: {w}" for p, w in sorted(found)] or ["ok"]))
    return cases


def expected(path: str) -> list[str]:
    with open(path, "rb") as f:
        return problems(tomllib.load(f), SCHEMA) or ["ok"]


def test_check_of_the_config() -> None:
    assert pathlib.Path(OUT_OK).read_text(encoding="utf-8").splitlines() == expected(SRC)


def test_check_of_the_broken_copy() -> None:
    assert pathlib.Path(OUT_BAD).read_text(encoding="utf-8").splitlines() == expected(VARIANT)


def test_tool_accepts_a_reordered_valid_document(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    path = tmp_path / "valid.toml"
    path.write_text(toml_text(fresh_tree(rng), rng), encoding="utf-8")
    done = run_tool(TOOL, path)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.decode("utf-8").splitlines() == ["ok"]


def test_tool_reports_each_problem(tmp_path: pathlib.Path) -> None:
    for name, text, want in broken_cases(SEED + 1):
        path = tmp_path / (name + ".toml")
        path.write_text(text, encoding="utf-8")
        done = run_tool(TOOL, path)
        assert done.stdout.decode("utf-8").splitlines() == want, (name, text)
        assert done.returncode == (0 if want == ["ok"] else 1), (name, done.stderr[-500:])


def test_tool_rejects_invalid_toml(tmp_path: pathlib.Path) -> None:
    bad = {
        "syntax": b"key = = 1\n",
        "unclosed_header": b"[server\nport = 1\n",
        "duplicate_key": b"a = 1\na = 2\n",
        "not_utf8": b'name = "\xff"\n',
    }
    for name, data in bad.items():
        path = tmp_path / (name + ".toml")
        path.write_bytes(data)
        done = run_tool(TOOL, path)
        assert_usage_error(done, name)
