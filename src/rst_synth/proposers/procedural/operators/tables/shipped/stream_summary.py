"""What `csv-stream-summary` ships: the generator that plants a large gzip-compressed input at build time
(`plant`), the streaming summary tool (its `main`, reading standard input, written to an executable file),
and the tests that summarise the large input again and run the tool on fresh inputs under a memory cap
(300,000 rows, CRLF, a header alone, an empty input). The constants are the step's parameters:
`shipping.render` sets them."""

from __future__ import annotations

import csv
import decimal
import gzip
import io
import os
import pathlib
import random
import sys
from collections.abc import Iterable

from rst_synth.proposers.procedural.operators.kit.testkit import run_tool

TOOL = "/app/bin/sales_stream"
BIG = "/app/incoming/r1s1/sales_large.csv.gz"
OUT = "/app/out/sales_large_summary.csv"
GROUP = "city"
VALUE = "amount"
LIMIT_MB = 64
PLANTED = "/app/incoming/r1s1"
HEADER = ["city", "amount", "note"]
GROUPS = ["Lima", "Oslo", "Zürich", "city-0", "city-1"]
ROWS = 50000
TEST_ROWS = 300000
EDGE_VALUES = ("Zürich", "a,b", 'say "hi"', "東京", "plain", "two\nlines", "ünïcödé-ß", "x")
SEED = 4242


def summarise(lines: Iterable[str], group: str, value: str) -> list[list[str]]:
    reader = csv.reader(lines)
    header = next(reader, None)
    out = [[group, "rows", "total", "min", "max"]]
    if header is None:
        return out
    g, v = header.index(group), header.index(value)
    stats = {}  # type: ignore[var-annotated]
    for row in reader:
        if not row:
            continue
        amount = decimal.Decimal(row[v])
        n, total, low, high = stats.get(row[g], (0, decimal.Decimal(0), amount, amount))
        stats[row[g]] = (n + 1, total + amount, min(low, amount), max(high, amount))
    cent = decimal.Decimal("0.01")

    def fmt(number: decimal.Decimal) -> str:
        number = number.quantize(cent, rounding=decimal.ROUND_HALF_UP)
        return str(abs(number) if number == 0 else number)

    for key in sorted(stats):
        n, total, low, high = stats[key]
        out.append([key, str(n), fmt(total), fmt(low), fmt(high)])
    return out


def main() -> None:
    stdin = io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="")
    csv.writer(sys.stdout, lineterminator="\n").writerows(summarise(stdin, GROUP, VALUE))


def generate(path: str, header: list[str], group: str, value: str, groups: list[str], rows: int, seed: int) -> None:
    rng = random.Random(seed)
    g, v = header.index(group), header.index(value)
    with gzip.open(path, "wt", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        for i in range(rows):  # noqa: B007
            row = [f"n{rng.randint(0, 999)}" for _ in header]
            row[g] = rng.choice(groups)
            row[v] = f"{rng.randint(-20000, 500000) / 100:.2f}"
            writer.writerow(row)


def plant() -> None:
    os.makedirs(PLANTED, exist_ok=True)
    generate(BIG, HEADER, GROUP, VALUE, GROUPS, ROWS, SEED)


def parsed(data: bytes) -> list[list[str]]:
    return [row for row in csv.reader(io.StringIO(data.decode("utf-8"), newline="")) if row]


def fresh_input(rows: int, seed: int, end: str = "\n") -> str:
    rng = random.Random(seed)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator=end)
    writer.writerow([next(n for n in ("note", "note_") if n not in (GROUP, VALUE)), VALUE, GROUP])
    for i in range(rows):
        writer.writerow([f"r{i}", f"{rng.randint(-9999, 99999) / 100:.2f}", rng.choice(EDGE_VALUES)])
    return buffer.getvalue()


def test_summary_of_the_large_input() -> None:
    with gzip.open(BIG, "rt", encoding="utf-8", newline="") as f:
        want = summarise(f, GROUP, VALUE)
    assert len(want) > 1
    assert parsed(pathlib.Path(OUT).read_bytes()) == want


def test_tool_streams_a_large_input_under_the_memory_cap() -> None:
    text = fresh_input(TEST_ROWS, SEED + 1)
    done = run_tool(TOOL, stdin=text.encode("utf-8"), limit_mb=LIMIT_MB, timeout=60)
    assert done.returncode == 0, done.stderr[-500:]
    assert parsed(done.stdout) == summarise(io.StringIO(text, newline=""), GROUP, VALUE)


def test_tool_on_edge_inputs() -> None:
    for text in (fresh_input(25, SEED + 2, "\r\n"), fresh_input(0, 0), ""):
        done = run_tool(TOOL, stdin=text.encode("utf-8"), limit_mb=LIMIT_MB, timeout=60)
        assert done.returncode == 0, done.stderr[-500:]
        assert parsed(done.stdout) == summarise(io.StringIO(text, newline=""), GROUP, VALUE)
