"""What `text-pattern-count` and `text-unique-counts` ship: the scripts that write the numbered lines holding a
token with their count, and each distinct line with how often it occurs, and the tests that compute them again
from the source's lines. The constants are the steps' parameters: `shipping.render` sets them; the operators
call `unique_counts` themselves for the output they know."""

from __future__ import annotations

import collections
import pathlib

from rst_synth.proposers.procedural.operators.kit.testkit import assert_same_text

SRC = "/app/data/app.log"
TOKEN = "error"
OUT = "/app/data/app_error_lines.txt"
COUNT = "/app/data/app_error_count.txt"


def src_lines(path: str) -> list[str]:
    lines = pathlib.Path(path).read_bytes().decode("utf-8").split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def matches() -> list[str]:
    return [f"{n}:{line}\n" for n, line in enumerate(src_lines(SRC), 1) if TOKEN in line]


def unique_counts(lines: list[str]) -> str:
    counts = collections.Counter(lines)
    return "".join(f"{n}\t{line}\n" for line, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))


def write_matches() -> None:
    hits = [f"{n}:{line}\n" for n, line in enumerate(src_lines(SRC), 1) if TOKEN in line]
    pathlib.Path(OUT).write_bytes("".join(hits).encode("utf-8"))
    pathlib.Path(COUNT).write_text(f"{len(hits)}\n")


def write_unique_counts() -> None:
    pathlib.Path(OUT).write_bytes(unique_counts(src_lines(SRC)).encode("utf-8"))


def test_numbered_matching_lines() -> None:
    assert_same_text(OUT, "".join(matches()))


def test_match_count() -> None:
    assert pathlib.Path(COUNT).read_text().strip() == str(len(matches()))


def test_distinct_lines_with_counts() -> None:
    assert_same_text(OUT, unique_counts(src_lines(SRC)))
