"""TOML documents as data: the schema of a parsed document (dotted key paths and their types), writing
it back as text, and a broken variant of it, for the config-check-tool operator."""

from __future__ import annotations

import copy
import datetime
import json
import math
import re
import tomllib
from typing import Any

from rst_synth.proposers.artifacts import Artifact
from rst_synth.proposers.procedural.operator import StepContext

MAX_KEYS = 120
"""More key paths than this make an instruction that is mostly a schema listing."""
SCALARS = ("string", "integer", "float", "boolean")
_BARE = re.compile(r"[A-Za-z0-9_-]+")


def schema_of(doc: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Every dotted key path of a parsed TOML document with its type (arrays are not entered)."""
    found: dict[str, str] = {}
    for key, value in doc.items():
        path = prefix + key
        found[path] = _type_name(value)
        if isinstance(value, dict):
            found.update(schema_of(value, path + "."))
    return found


def _bare(doc: dict[str, Any]) -> bool:
    """Whether every key of the document and its tables is a bare key (letters, digits, `_`, `-`)."""
    return all(_BARE.fullmatch(k) and (not isinstance(v, dict) or _bare(v)) for k, v in doc.items())


def _type_name(value: Any) -> str:
    for kind, types in (("boolean", bool), ("integer", int), ("float", float), ("string", str)):
        if isinstance(value, types):
            return kind
    return "array" if isinstance(value, list) else "table" if isinstance(value, dict) else "datetime"


def toml_text(doc: dict[str, Any]) -> str:
    """A parsed TOML document written back: top-level keys, then one [header] per table."""
    lines: list[str] = []

    def table(node: dict[str, Any], path: list[str]) -> None:
        if path:
            lines.extend(["", "[" + ".".join(_key(p) for p in path) + "]"])
        lines.extend(f"{_key(k)} = {_value(v)}" for k, v in node.items() if not isinstance(v, dict))
        for key, value in node.items():
            if isinstance(value, dict):
                table(value, [*path, key])

    table(doc, [])
    return "\n".join(lines).lstrip("\n") + "\n"


def _key(key: str) -> str:
    return key if _BARE.fullmatch(key) else json.dumps(key, ensure_ascii=False)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else "inf" if value > 0 else "-inf"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"


def parsed(artifact: Artifact) -> dict[str, Any] | None:
    """The artifact's TOML document when the operator can use it, else None."""
    sample = artifact.sample
    if artifact.details.get("format") != "toml" or not sample or artifact.size > len(sample.encode("utf-8")):
        return None
    try:
        doc = tomllib.loads(sample)
    except tomllib.TOMLDecodeError:
        return None
    schema = schema_of(doc)
    if sum(t in SCALARS for t in schema.values()) < 3 or len(schema) > MAX_KEYS:
        return None
    if not _bare(doc):
        return None  # a quoted key with a dot or a space would make the dotted paths ambiguous
    try:
        same = tomllib.loads(toml_text(doc)) == doc  # the broken variant is written back the same way
    except tomllib.TOMLDecodeError:
        return None
    return doc if same else None


def broken_variant(doc: dict[str, Any], schema: dict[str, str], ctx: StepContext) -> dict[str, Any]:
    """The document with one key dropped, one key of another type, one unknown key and one unknown table."""
    broken = copy.deepcopy(doc)

    def node_of(path: str) -> dict[str, Any]:
        node = broken
        for part in path.split(".") if path else []:
            node = node[part]
        return node

    gone, bent = ctx.rng.sample(sorted(p for p, t in schema.items() if t != "table"), 2)
    del node_of(gone.rpartition(".")[0])[gone.rpartition(".")[2]]
    others: dict[str, Any] = {"string": "changed", "integer": 42, "boolean": True, "array": [1, 2]}
    choices = [k for k in others if k != schema[bent] and not (schema[bent] == "float" and k == "integer")]
    node_of(bent.rpartition(".")[0])[bent.rpartition(".")[2]] = others[ctx.rng.choice(choices)]
    tables = [""] + sorted(p for p, t in schema.items() if t == "table")
    for base, value in (("legacy_option", 7), ("extra_section", {"enabled": True, "level": 3})):
        where = ctx.rng.choice(tables)
        node, n = node_of(where), 1
        while f"{base}_{n}" in node or f"{where}.{base}_{n}".lstrip(".") in schema:
            n += 1
        node[f"{base}_{n}"] = value
    return broken
