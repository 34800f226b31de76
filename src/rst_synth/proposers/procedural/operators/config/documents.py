"""Configuration documents as data, for the configuration operators: which TOML or JSON files are an
application's configuration (tables of keys without dots; in TOML plain keys and scalar or array values, in
JSON any values), their leaves and fresh values of a leaf's type. The reader and TOML writer that a step's
tool and its tests share are shipped source: `config/shipped/documents.py`."""

from __future__ import annotations

import json
import math
import re
import tomllib
from pathlib import PurePosixPath
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git, work_root

MAX_BYTES = 32 * 1024
MAX_LEAVES = 80
KEY = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
"""Keys the operators handle: lower case words joined by single `_` (an environment variable can name them)."""
_MANIFESTS = frozenset({"project", "tool", "package", "dependencies", "workspace", "build-system"})
"""Top-level tables of a build manifest (pyproject.toml, Cargo.toml): not an application's configuration."""
_CONFIG_NAME = re.compile(r"conf|config|settings|cfg|env|profile", re.IGNORECASE)


def _plain(value: Any) -> bool:
    """A value the operators handle: a finite scalar, an array of one scalar type, or a table of them."""
    if isinstance(value, bool | int | str):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_plain(v) and not isinstance(v, list | dict) for v in value) and len({type(v) for v in value}) <= 1
    if isinstance(value, dict):
        return all(isinstance(k, str) and KEY.fullmatch(k) and _plain(v) for k, v in value.items())
    return False


def _json_plain(value: Any) -> bool:
    """A JSON document the operators handle: object keys without `.` (dotted paths stay unambiguous)."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and k and "." not in k and _json_plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_json_plain(v) for v in value)
    return not isinstance(value, float) or math.isfinite(value)


def simple(value: Any) -> bool:
    """A leaf an overlay or a variable may set: a scalar, or an array of scalars of one type."""
    if isinstance(value, list):
        return all(isinstance(v, bool | int | float | str) for v in value) and len({type(v) for v in value}) <= 1
    return isinstance(value, bool | int | float | str)


def addressable(path: str) -> bool:
    """Whether an environment variable can name the key path (every key a plain lower-case word)."""
    return all(KEY.fullmatch(part) for part in path.split("."))


def leaves(doc: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every non-table value of the document by its dotted key path, in document order."""
    found: dict[str, Any] = {}
    for key, value in doc.items():
        if isinstance(value, dict):
            found.update(leaves(value, f"{prefix}{key}."))
        else:
            found[f"{prefix}{key}"] = value
    return found


def tables(doc: dict[str, Any], prefix: str = "") -> list[str]:
    """Dotted paths of every table of the document (not the root), in document order."""
    found: list[str] = []
    for key, value in doc.items():
        if isinstance(value, dict):
            found.append(f"{prefix}{key}")
            found.extend(tables(value, f"{prefix}{key}."))
    return found


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    for name, kind in (("boolean", bool), ("integer", int), ("float", float), ("string", str), ("array", list)):
        if isinstance(value, kind):
            return name
    return "table"


def config_document(artifact: Artifact) -> dict[str, Any] | None:
    """The artifact's document when it is an application's configuration the operators handle, else None:
    a whole TOML file or a JSON object whose name says it is a configuration, with at least one table and
    four leaves, plain keys, and values of plain types."""
    sample = artifact.sample
    if not sample or artifact.size > MAX_BYTES or len(sample.encode("utf-8")) != artifact.size:
        return None
    doc: Any
    try:
        if artifact.kind is Kind.CONFIG and artifact.details.get("format") == "toml":
            doc = tomllib.loads(sample)
        elif artifact.kind is Kind.JSON and artifact.details.get("type") == "object":
            parts = PurePosixPath(artifact.path).parts[-3:]
            if not any(_CONFIG_NAME.search(p) for p in parts):
                return None
            doc = json.loads(sample)
        else:
            return None
    except (tomllib.TOMLDecodeError, ValueError):
        return None
    plain = _plain(doc) if artifact.kind is Kind.CONFIG else _json_plain(doc)
    if not isinstance(doc, dict) or _MANIFESTS & set(doc) or not plain:
        return None
    found = leaves(doc)
    if not tables(doc) or not 4 <= len(found) <= MAX_LEAVES or sum(map(simple, found.values())) < 3:
        return None
    return doc


def places_ok(artifact: Artifact, discovery: Discovery, *folders: str) -> bool:
    """Whether the artifact and the folders a step writes under the work root lie outside every git work tree."""
    root = work_root(discovery)
    return not any(inside_git(p, discovery) for p in (artifact.path, *(f"{root}/{f}/x" for f in folders)))


def doc_ext(artifact: Artifact) -> str:
    return "toml" if artifact.kind is Kind.CONFIG else "json"


def document_output(path: str, ext: str, *, end_result: bool = False) -> Artifact:
    """A configuration a step writes in the format `ext` (`doc_ext`) of the one it read."""
    if ext == "toml":
        return Artifact(path=path, kind=Kind.CONFIG, end_result=end_result, details={"format": "toml"})
    return Artifact(path=path, kind=Kind.JSON, end_result=end_result, details={"type": "object"})


STRINGS = ("Zürich", 'say "hi"', "a = b # not a comment", "plain", "", "tab\there", "東京", "x,y")


def fresh_value(kind: str, old: Any, rng: Any) -> Any:
    """A value of type `kind` different from `old` (for an overlay, a generated document, a default)."""
    for _ in range(20):
        value: Any
        if kind == "boolean":
            value = not old if isinstance(old, bool) else rng.choice([True, False])
        elif kind == "integer":
            value = rng.randint(-50, 50000)
        elif kind == "float":
            value = rng.randint(-9999, 99999) / 100
        elif kind == "array":
            item = type_name(old[0]) if isinstance(old, list) and old else "string"
            value = [fresh_value(item, None, rng) for _ in range(rng.randint(0, 3))]
        else:
            value = rng.choice(STRINGS)
        if value != old:
            return value
    return value


def json_literal(value: Any) -> str:
    """A value as JSON text (what an instruction shows for a default)."""
    return json.dumps(value, ensure_ascii=False)
