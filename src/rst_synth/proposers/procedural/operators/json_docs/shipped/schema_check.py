"""What `json-schema-check` ships: the JSON Schema subset (the schema a document implies, `derive`, and the
validator's error lines, `lines`), the validator tool (`main`), the script that writes the document's schema,
and the tests, which derive the schema themselves and run the tool on edited copies of the document
(`variants`) and on documents they make up (`fresh`). The constants are the step's parameters:
`shipping.render` sets them; the tests' `run_tool` is rendered from `kit/testkit.py`."""

from __future__ import annotations

import json
import pathlib
import random
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

SRC = "/app/out/summary.json"
SCHEMA = "/app/out/summary_schema.json"
TOOL = "/app/bin/summary_validate"
SEED = 1234


def kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def derive(value: Any) -> dict[str, Any]:
    name = kind(value)
    if name == "object":
        return {
            "type": "object",
            "properties": {k: derive(v) for k, v in sorted(value.items())},
            "required": sorted(value),
            "additionalProperties": False,
        }
    if name == "array":
        schema: dict[str, Any] = {"type": "array"}
        for item in value:
            schema = {
                "type": "array",
                "items": merge(schema["items"], derive(item)) if "items" in schema else derive(item),
            }
        return schema
    return {"type": name}


def names(schema: dict[str, Any]) -> list[str]:
    return schema["type"] if isinstance(schema["type"], list) else [schema["type"]]


def merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    if a == b:
        return a
    if a["type"] == b["type"] == "object":
        keys = sorted(set(a["properties"]) | set(b["properties"]))
        props = {}
        for k in keys:
            if k in a["properties"] and k in b["properties"]:
                props[k] = merge(a["properties"][k], b["properties"][k])
            else:
                props[k] = a["properties"].get(k) or b["properties"][k]
        required = sorted(set(a["required"]) & set(b["required"]))
        return {"type": "object", "properties": props, "required": required, "additionalProperties": False}
    if a["type"] == b["type"] == "array":
        if "items" in a and "items" in b:
            return {"type": "array", "items": merge(a["items"], b["items"])}
        return a if "items" in a else b
    found = set(names(a)) | set(names(b))
    if {"integer", "number"} <= found:
        found.discard("integer")
    return {"type": found.pop()} if len(found) == 1 else {"type": sorted(found)}


def fits(value: object, types: list[str]) -> bool:
    name = kind(value)
    return name in types or (name == "integer" and "number" in types)


def errors(schema: dict[str, Any], value: Any, pointer: str = "") -> list[tuple[str, str]]:
    types = names(schema)
    if not fits(value, types):
        return [(pointer, "expected " + "|".join(types))]
    found = []
    if isinstance(value, dict) and "properties" in schema:
        for key in schema["required"]:
            if key not in value:
                found.append((pointer, "missing property " + json.dumps(key, ensure_ascii=False)))
        for key, item in value.items():
            where = pointer + "/" + key.replace("~", "~0").replace("/", "~1")
            if key in schema["properties"]:
                found += errors(schema["properties"][key], item, where)
            elif schema.get("additionalProperties") is False:
                found.append((where, "unexpected property"))
    if isinstance(value, list) and "items" in schema:
        for n, item in enumerate(value):
            found += errors(schema["items"], item, f"{pointer}/{n}")
    return found


def lines(schema: dict[str, Any], value: Any) -> list[str]:
    return [json.dumps(p, ensure_ascii=False) + ": " + m for p, m in sorted(errors(schema, value))] or ["ok"]


def load(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        sys.exit(2)


def main() -> None:
    if len(sys.argv) != 3:
        print("usage: validate SCHEMA DOCUMENT", file=sys.stderr)
        sys.exit(2)
    schema, value = load(sys.argv[1]), load(sys.argv[2])  # not `document`: that names the tests' reader
    found = lines(schema, value)
    print("\n".join(found))
    sys.exit(0 if found == ["ok"] else 1)


def write_schema() -> None:
    with open(SRC, encoding="utf-8") as f:
        schema = derive(json.load(f))
    with open(SCHEMA, "w", encoding="utf-8") as f:
        json.dump(schema, f, ensure_ascii=False, indent=2)
        f.write("\n")


KEYS = ["id", "a/b", "~x", "Zürich", "", "total", "items", "meta"]


def fresh(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth < 3 and roll < 0.4:
        return {k: fresh(rng, depth + 1) for k in rng.sample(KEYS, rng.randint(1, 4))}
    if depth < 3 and roll < 0.55:
        item = fresh(rng, depth + 1)
        return [json.loads(json.dumps(item)) for _ in range(rng.randint(1, 3))]
    return rng.choice([rng.randint(-9, 99), rng.randint(0, 999) / 8, "text", True, None])


def places(value: Any, path: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Paths (keys and indexes) of every value in the document, the root first."""
    found = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            found += places(v, path + (k,))
    elif isinstance(value, list):
        for n, v in enumerate(value):
            found += places(v, path + (n,))
    return found


def at(value: Any, path: tuple[str | int, ...]) -> Any:
    for step in path:
        value = value[step]
    return value


def variants(doc: Any, seed: int, count: int) -> list[Any]:
    """Copies of `doc`, each with a few edits: a member dropped or added, a value of another type, an
    integer written as 2.0 (still an integer), a float where an integer was."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        copy = json.loads(json.dumps(doc))
        for _ in range(rng.randint(1, 3)):
            spots = places(copy)
            path = rng.choice(spots)
            target = at(copy, path)
            roll = rng.random()
            if isinstance(target, dict) and target and roll < 0.3:
                del target[rng.choice(sorted(target))]
            elif isinstance(target, dict) and roll < 0.5:
                target[rng.choice(["extra", "a/b~c", "Zoë"])] = rng.choice([1, "x", None])
            elif path and roll < 0.85:
                parent = at(copy, path[:-1])
                old = parent[path[-1]]
                parent[path[-1]] = rng.choice(
                    [
                        float(old) if kind(old) == "integer" else 7,
                        old + 0.5 if kind(old) == "integer" else "7",
                        {"k": 1},
                        [1],
                        None,
                        False,
                    ]
                )
            elif isinstance(target, list):
                target.append(rng.choice([1, "x", {"z": None}]))
        out.append(copy)
    return out


def check(tmp_path: pathlib.Path, name: str, schema: dict[str, Any], doc: Any) -> None:
    schema_file, doc_file = tmp_path / (name + ".schema.json"), tmp_path / (name + ".json")
    schema_file.write_text(json.dumps(schema, ensure_ascii=False), encoding="utf-8")
    doc_file.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    done = run_tool(TOOL, schema_file, doc_file)
    want = lines(schema, doc)
    assert done.stdout.decode("utf-8").splitlines() == want, (name, doc)
    assert done.returncode == (0 if want == ["ok"] else 1), (name, done.stderr[-300:])


def document() -> Any:
    return json.loads(pathlib.Path(SRC).read_text(encoding="utf-8"))


def test_schema_of_the_document() -> None:
    assert json.loads(pathlib.Path(SCHEMA).read_text(encoding="utf-8")) == derive(document())


def test_validator_on_the_document_and_edited_copies(tmp_path: pathlib.Path) -> None:
    doc = document()
    schema = derive(doc)
    done = run_tool(TOOL, SCHEMA, SRC)
    assert (done.returncode, done.stdout.decode("utf-8").splitlines()) == (0, ["ok"])
    for n, variant in enumerate(variants(doc, SEED, 6)):
        check(tmp_path, f"variant{n}", schema, variant)


def test_validator_on_documents_of_other_shapes(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED + 1)
    for n in range(5):
        doc = {k: fresh(rng) for k in rng.sample(KEYS, 3)}
        schema = derive(doc)
        for m, variant in enumerate([doc, *variants(doc, SEED + n, 1)]):
            check(tmp_path, f"fresh{n}_{m}", schema, variant)
    merged = derive([{"a": 1, "b": "x"}, {"a": 2.5, "c": None}, {"a": 3, "b": None}])
    check(tmp_path, "merged", merged, [{"a": 1.0}, {"a": "1", "b": 2, "d": 0}, {"c": {"x": 1}}, 5])


def test_validator_rejects_what_is_not_json(tmp_path: pathlib.Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"a": 1', encoding="utf-8")
    for args in ((SCHEMA, bad), (bad, SRC), (SCHEMA, tmp_path / "missing.json")):
        done = run_tool(TOOL, *args)
        assert_usage_error(done, args)
