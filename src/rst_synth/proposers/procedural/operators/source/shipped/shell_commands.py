"""What `shell-script-commands` ships: the script that counts a shell script's code lines and its distinct first
words as JSON, and the test that counts them again. The constants are the step's parameters: `shipping.render`
sets them (COUNTED: first words with their counts, or only sorted)."""

from __future__ import annotations

import collections
import json
import pathlib
from typing import Any

SRC = "/app/scripts/deploy.sh"
COUNTED = True
OUT = "/app/scripts/deploy_commands.json"


def write_summary() -> None:
    counted = COUNTED

    def summarise(text: str) -> dict[str, Any]:
        lines = [l for l in text.split("\n") if l.strip() and not l.strip().startswith("#")]  # noqa: E741
        words = collections.Counter(l.split()[0] for l in lines)  # noqa: E741
        summary: dict[str, Any] = {"code_lines": len(lines)}
        if counted:
            summary["first_words"] = dict(sorted(words.items()))
        else:
            summary["first_words"] = sorted(words)
        return summary

    with open(SRC, encoding="utf-8") as f:
        result = summarise(f.read())
    with open(OUT, "w") as f:
        json.dump(result, f, indent=2)


def expected(counted: bool = COUNTED) -> dict[str, Any]:
    text = pathlib.Path(SRC).read_text(encoding="utf-8")
    lines = [l for l in text.split("\n") if l.strip() and not l.strip().startswith("#")]  # noqa: E741
    words = collections.Counter(l.split()[0] for l in lines)  # noqa: E741
    summary: dict[str, Any] = {"code_lines": len(lines)}
    if counted:
        summary["first_words"] = dict(sorted(words.items()))
    else:
        summary["first_words"] = sorted(words)
    return summary


def test_code_lines_and_first_words() -> None:
    data = json.loads(pathlib.Path(OUT).read_text())
    want = expected()
    assert set(data) == set(want)
    assert type(data["code_lines"]) is int and data["code_lines"] == want["code_lines"]
    assert data["first_words"] == want["first_words"]
