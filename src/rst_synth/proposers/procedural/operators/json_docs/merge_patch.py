"""RFC 7386 JSON merge patches for `json-merge-patch-tool`: the new version of a document the operator plants
(`new_version`); the reference (the diff that gives the smallest patch and the RFC's apply) and the documents the
tests make up are shipped from `shipped/merge_patch_tool.py`."""

from __future__ import annotations

import copy
import random
from typing import Any

from rst_synth.proposers.procedural.operators.json_docs.shipped import merge_patch_tool


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
    """The reference functions (`diff`, `apply`, `same`, `NotRepresentable`, `pairs`...), for tests of the operator."""
    return dict(vars(merge_patch_tool))
