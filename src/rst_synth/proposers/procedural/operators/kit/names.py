"""Names a step derives from a table's columns: identifiers for its files and columns, how a delimiter is said."""

from __future__ import annotations

import re


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:24] or "col"


def delimiter_name(delimiter: str) -> str:
    return "tab" if delimiter == "\t" else f"`{delimiter}`"
