"""Reading a TOML or JSON document and writing one back in the same format: shipped by the config tools that
read and write either format (their tool and their tests), imported by their shipped modules."""

from __future__ import annotations

import json
import re
import tomllib
from typing import Any


def load_doc(path: Any) -> dict[str, Any]:
    """The document at `path`: TOML for a `.toml` name, else JSON (an object)."""
    with open(path, "rb") as f:
        data = f.read()
    doc = tomllib.loads(data.decode("utf-8")) if str(path).endswith(".toml") else json.loads(data)
    if not isinstance(doc, dict):
        raise ValueError("the document is not a table")
    return doc


def toml_key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key, ensure_ascii=False)


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{ " + ", ".join(toml_key(k) + " = " + toml_value(v) for k, v in value.items()) + " }"


def toml_text(doc: dict[str, Any]) -> str:
    lines = []

    def table(node: dict[str, Any], path: list[str]) -> None:
        if path:
            lines.extend(["", "[" + ".".join(toml_key(p) for p in path) + "]"])
        lines.extend(toml_key(k) + " = " + toml_value(v) for k, v in node.items() if not isinstance(v, dict))
        for key, value in node.items():
            if isinstance(value, dict):
                table(value, path + [key])

    table(doc, [])
    return "\n".join(lines).lstrip("\n") + "\n"


def dump_doc(doc: dict[str, Any], like: Any) -> str:
    """The document as text in the format of the file named `like`."""
    if str(like).endswith(".toml"):
        return toml_text(doc)
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
