"""Values compared with their types, for the config tests that check a document value by value: `1`, `1.0`,
`true` and `"1"` all differ, key order does not matter. Imported by the shipped modules that need it."""

from __future__ import annotations

from typing import Any


def typed(value: Any) -> Any:
    """The value with each scalar tagged by its type, so that `==` compares types too."""
    if isinstance(value, dict):
        return {key: typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [typed(item) for item in value]
    return (type(value).__name__, value)
