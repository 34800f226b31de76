"""What `text-line-stats` ships: the script that writes a text file's line and word counts with its most
frequent words as JSON, and the test that computes them again from the source. The constants are the
step's parameters: `shipping.render` sets them; the operator calls `stats` itself for the output it knows."""

from __future__ import annotations

import collections
import json
import pathlib
import re
from typing import Any

SRC = "/app/data/notes.txt"
OUT = "/app/data/notes_stats.json"


def stats(text: str) -> dict[str, Any]:
    words = [w.lower() for w in re.findall(r"[A-Za-z0-9]+", text)]
    top = sorted(collections.Counter(words).items(), key=lambda kv: (-kv[1], kv[0]))[:5]
    return {
        "lines": len(text.split("\n")) - text.endswith("\n") if text else 0,
        "words": len(words),
        "top_words": [{"word": w, "count": n} for w, n in top],
    }


def write_stats() -> None:
    text = pathlib.Path(SRC).read_bytes().decode("utf-8")
    pathlib.Path(OUT).write_text(json.dumps(stats(text), indent=2) + "\n")


def test_line_and_word_stats() -> None:
    want = stats(pathlib.Path(SRC).read_bytes().decode("utf-8"))
    assert json.loads(pathlib.Path(OUT).read_text()) == want
