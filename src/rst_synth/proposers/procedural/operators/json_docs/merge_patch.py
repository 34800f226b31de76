"""RFC 7386 JSON merge patches for `json-merge-patch-tool`: the reference (`PATCH_PY`, the diff that gives the
smallest patch and the RFC's apply), the documents the tests make up (`FRESH_PY`), and the new version of a
document the operator plants (`new_version`)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

PATCH_PY = r"""
class NotRepresentable(Exception):
    pass


def same(a, b):
    # JSON equality: numbers by value, a boolean never equal to a number
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def whole(value):
    # a value written into a patch as it is: no object member of it may be null
    if isinstance(value, dict):
        for member in value.values():
            if member is None:
                raise NotRepresentable()
            whole(member)
    return value


def diff(old, new):
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return whole(new) if isinstance(new, dict) else new
    patch = {}
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


def apply(target, patch):
    if not isinstance(patch, dict):
        return patch
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = apply(result.get(key), value)
    return result
"""

FRESH_PY = r"""
KEYS = ["id", "name", "a/b", "~tilde", "", "Zürich", "東京", "total", "items", "meta", "nested", "x y"]


def scalar(rng):
    return rng.choice([rng.randint(-50, 500), rng.randint(0, 9999) / 100, rng.choice([True, False]),
                       rng.choice(["plain", "say \"hi\"", "ünïcödé", "", "a,b", "two\nlines"])])


def fresh(rng, depth=0):
    kind = rng.random()
    if depth < 3 and kind < 0.45:
        return {k: fresh(rng, depth + 1) for k in rng.sample(KEYS, rng.randint(1, 5))}
    if depth < 3 and kind < 0.6:
        return [fresh(rng, depth + 2) for _ in range(rng.randint(0, 3))]
    return scalar(rng)


def changed(rng, doc):
    # a new version of an object: members dropped, added, changed, nested objects edited, 1 <-> 1.0
    new = {}
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


def pairs(seed, count):
    rng = random.Random(seed)
    found = []
    while len(found) < count:
        old = {k: fresh(rng) for k in rng.sample(KEYS, rng.randint(2, 7))}
        found.append((old, changed(rng, old)))
    return found


def nulled(rng, doc):
    # a new version that no merge patch can express: a member set to null, somewhere
    new = json.loads(json.dumps(changed(rng, doc)))  # a copy: unchanged members are the old document's objects
    where = new
    while True:
        inner = [k for k, v in where.items() if isinstance(v, dict) and v]
        if not inner or rng.random() < 0.5:
            break
        where = where[rng.choice(inner)]
    where[rng.choice(KEYS)] = None
    return new
"""


def _leaves(doc: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Paths of the object members that are not objects themselves."""
    if not isinstance(doc, dict):
        return [path] if path else []
    return [p for k, v in doc.items() for p in _leaves(v, (*path, k))]


def _at(doc: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    for key in path:
        doc = doc[key]
    return doc


def _changed_value(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.randint(1, 40)
    if isinstance(value, float):
        return round(value + rng.randint(1, 900) / 100, 2)
    if isinstance(value, str):
        return f"{value} (revised)" if value else "revised"
    if isinstance(value, list):
        return value[:-1] if value else ["added"]
    return "revised"


def new_version(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """`doc` as upstream revised it: two members changed, one dropped, one added at the top and one inside a
    nested object (a new nested object where there is none); never a null where the patch would need one."""
    new = copy.deepcopy(doc)
    leaves = _leaves(new)
    rng.shuffle(leaves)
    for path in leaves[:2]:
        parent = _at(new, path[:-1])
        if parent.get(path[-1]) is not None:
            parent[path[-1]] = _changed_value(parent[path[-1]], rng)
    if len(leaves) > 3:
        gone = leaves[2]
        _at(new, gone[:-1]).pop(gone[-1], None)
    objects = [p for p in _objects(new) if p]
    inner = _at(new, rng.choice(objects)) if objects else new.setdefault("revision", {"source": "upstream"})
    inner.setdefault("revised_by", rng.choice(["import job", "ops", "Zoë"]))
    new.setdefault("revision_note", rng.choice(["late corrections", "second export", "Nachtrag"]))
    return new


def _objects(doc: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    if not isinstance(doc, dict):
        return []
    return [path, *[p for k, v in doc.items() for p in _objects(v, (*path, k))]]


def reference() -> dict[str, Any]:
    """The reference functions (`diff`, `apply`, `same`, `NotRepresentable`), for tests of the operator."""
    space: dict[str, Any] = {"json": json, "random": random}
    exec(PATCH_PY + FRESH_PY, space)
    return space
