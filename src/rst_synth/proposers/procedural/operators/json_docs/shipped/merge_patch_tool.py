"""What `json-merge-patch-tool` ships: RFC 7386 merge patches (the `diff` that gives the smallest patch and the
RFC's `apply`), the tool (`main`), the documents the tests make up (`fresh`, `changed`, `pairs`, `nulled`), and
the tests. The constants are the step's parameters: `shipping.render` sets them; the tests' `run_tool` is
rendered from `kit/testkit.py`."""

from __future__ import annotations

import json
import pathlib
import random
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

SRC = "/app/out/summary.json"
NEW = "/app/incoming/summary_v2.json"
PATCH = "/app/out/summary_merge_patch.json"
TOOL = "/app/bin/summary_merge_patch"
SEED = 1234


class NotRepresentable(Exception):
    pass


def same(a: Any, b: Any) -> bool:
    # JSON equality: numbers by value, a boolean never equal to a number
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))  # noqa: B905  (python3 before strict=)
    return type(a) is type(b) and a == b


def whole(value: Any) -> Any:
    # a value written into a patch as it is: no object member of it may be null
    if isinstance(value, dict):
        for member in value.values():
            if member is None:
                raise NotRepresentable()
            whole(member)
    return value


def diff(old: Any, new: Any) -> Any:
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return whole(new) if isinstance(new, dict) else new
    patch: dict[str, Any] = {}
    for key in old:
        if key not in new:
            patch[key] = None
    for key, value in new.items():
        if value is None and not (key in old and old[key] is None):
            raise NotRepresentable()
        if key not in old:
            patch[key] = whole(value)
        elif isinstance(old[key], dict) and isinstance(value, dict):
            inner = diff(old[key], value)
            if inner:
                patch[key] = inner
        elif not same(old[key], value):
            patch[key] = whole(value)
    return patch


def apply(target: Any, patch: Any) -> Any:
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = apply(result.get(key), value)
    return result


def read(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        sys.exit(2)


def main() -> int:
    if len(sys.argv) != 4 or sys.argv[1] not in ("diff", "apply"):
        print("usage: merge_patch diff OLD NEW | apply DOC PATCH", file=sys.stderr)
        return 2
    first, second = read(sys.argv[2]), read(sys.argv[3])
    if sys.argv[1] == "apply":
        result = apply(first, second)
    else:
        try:
            result = diff(first, second)
        except NotRepresentable:
            print("no merge patch expresses this change (a member set to null)", file=sys.stderr)
            return 3
    print(json.dumps(result, ensure_ascii=False, indent=2))
    return 0


KEYS = ["id", "name", "a/b", "~tilde", "", "Zürich", "東京", "total", "items", "meta", "nested", "x y"]


def scalar(rng: random.Random) -> Any:
    return rng.choice(
        [
            rng.randint(-50, 500),
            rng.randint(0, 9999) / 100,
            rng.choice([True, False]),
            rng.choice(["plain", 'say "hi"', "ünïcödé", "", "a,b", "two\nlines"]),
        ]
    )


def fresh(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.random()
    if depth < 3 and kind < 0.45:
        return {k: fresh(rng, depth + 1) for k in rng.sample(KEYS, rng.randint(1, 5))}
    if depth < 3 and kind < 0.6:
        return [fresh(rng, depth + 2) for _ in range(rng.randint(0, 3))]
    return scalar(rng)


def changed(rng: random.Random, doc: dict[str, Any]) -> dict[str, Any]:
    # a new version of an object: members dropped, added, changed, nested objects edited, 1 <-> 1.0
    new: dict[str, Any] = {}
    for key, value in doc.items():
        roll = rng.random()
        if roll < 0.15:
            continue
        if isinstance(value, dict) and roll < 0.7:
            new[key] = changed(rng, value)
        elif roll < 0.35:
            new[key] = fresh(rng, 1)
        elif isinstance(value, int) and not isinstance(value, bool) and roll < 0.45:
            new[key] = float(value)
        else:
            new[key] = value
    for key in rng.sample(KEYS, 2):
        if key not in doc and rng.random() < 0.6:
            new[key] = fresh(rng, 1)
    return new


EDGE_PAIRS = [
    ({"a": 1, "b": True, "c": {"d": 0, "e": 2}}, {"a": True, "b": 1, "c": {"d": False, "e": 2.0}}),
    ({"x": {"y": {"z": 1}}, "k": [1, {"m": 2}]}, {"x": {"y": {"z": 1, "w": "new"}}, "k": [1, {"m": 2.0}]}),
    ({"a/b": "", "~": [None], "n": None}, {"a/b": "", "~": [None], "n": None, "": {"q": 1}}),
]


def pairs(seed: int, count: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    rng = random.Random(seed)
    found: list[tuple[dict[str, Any], dict[str, Any]]] = []
    while len(found) < count:
        old = {k: fresh(rng) for k in rng.sample(KEYS, rng.randint(2, 7))}
        found.append((old, changed(rng, old)))
    return found


def nulled(rng: random.Random, doc: dict[str, Any]) -> dict[str, Any]:
    # a new version that no merge patch can express: a member set to null, somewhere
    new = json.loads(json.dumps(changed(rng, doc)))  # a copy: unchanged members are the old document's objects
    where = new
    while True:
        inner = [k for k, v in where.items() if isinstance(v, dict) and v]
        if not inner or rng.random() < 0.5:
            break
        where = where[rng.choice(inner)]
    where[rng.choice(KEYS)] = None
    return new  # type: ignore[no-any-return]


def load(path: str) -> Any:
    return json.loads(pathlib.Path(path).read_text(encoding="utf-8"))


def tool(*args: object, tmp_path: pathlib.Path, docs: tuple[Any, ...] = ()) -> Any:
    paths = []
    for n, doc in enumerate(docs):
        path = tmp_path / f"doc{n}.json"
        path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        paths.append(path)
    return run_tool(TOOL, *args, *paths)


def test_patch_to_the_new_version() -> None:
    old, new, patch = load(SRC), load(NEW), load(PATCH)
    assert same(patch, diff(old, new))
    assert same(apply(old, patch), new)


def test_tool_diff_gives_the_smallest_patch(tmp_path: pathlib.Path) -> None:
    for old, new in pairs(SEED, 6) + EDGE_PAIRS:
        done = tool("diff", tmp_path=tmp_path, docs=(old, new))
        assert done.returncode == 0, (old, new, done.stderr[-300:])
        got = json.loads(done.stdout.decode("utf-8"))
        assert same(got, diff(old, new)) and same(apply(old, got), new), (old, new, got)


def test_tool_diff_refuses_what_no_patch_expresses(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED + 1)
    for old, _ in pairs(SEED + 1, 4):
        new = nulled(rng, old)
        done = tool("diff", tmp_path=tmp_path, docs=(old, new))
        assert done.returncode == 3 and done.stdout == b"", (old, new)


def test_tool_apply(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED + 2)
    cases: list[tuple[Any, Any]] = [(old, diff(old, new)) for old, new in pairs(SEED + 2, 5)]
    cases += [(fresh(rng), fresh(rng)) for _ in range(3)]
    cases += [
        ({"a": 1, "b": {"c": 2}}, {"b": {"c": None, "d": None}, "e": None, "f": {"g": None, "h": [None]}}),
        ([1, 2], {"a": {"b": None}}),
        ({"a": 1}, None),
        ({"a": [1, {"b": 2}]}, {"a": {"b": 3}}),
    ]
    for doc, patch in cases:
        done = tool("apply", tmp_path=tmp_path, docs=(doc, patch))
        assert done.returncode == 0, (doc, patch, done.stderr[-300:])
        assert same(json.loads(done.stdout.decode("utf-8")), apply(doc, patch)), (doc, patch)


def test_tool_rejects_what_is_not_json(tmp_path: pathlib.Path) -> None:
    good = tmp_path / "good.json"
    good.write_text('{"a": 1}', encoding="utf-8")
    for text in ('{"a": 1', "", "{'a': 1}"):
        bad = tmp_path / "bad.json"
        bad.write_text(text, encoding="utf-8")
        for args in (("diff", good, bad), ("apply", bad, good)):
            done = run_tool(TOOL, *args)
            assert_usage_error(done, (text, args))
    assert_usage_error(run_tool(TOOL, "apply", good, tmp_path / "missing.json"), "missing file")
