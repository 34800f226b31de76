"""What `planted-defect-fix` ships: the correct report tool (its `main`, written as the fixed file; the
operator plants it with one defect), the float formatter the `float_sum` defect plants with it, and the
tests that rebuild the report from the artifact and run the fixed tool on fresh inputs (CRLF, padded keys,
halves, values that are no decimal number). The constants are the step's parameters: `shipping.render`
sets them."""

from __future__ import annotations

import csv
import decimal
import io
import pathlib
import random
import re

from rst_synth.proposers.procedural.operators.kit.testkit import run_tool

TOOL = "/app/out/tools/report.py"
SRC = "/app/out/ledger.csv"
OUT = "/app/out/ledger_report.csv"
GROUP = "account"
VALUE = "amount"
SEED = 1000
"""Where the test's fresh inputs start: three seeds from here."""
EDGE_VALUES = ("Zürich", "a,b", 'say "hi"', "東京", "plain", "two\nlines", "ünïcödé-ß", "x")

NUMBER = re.compile(r"-?\d+(\.\d+)?")
CENT = decimal.Decimal("0.01")


def fmt(amount: decimal.Decimal) -> str:
    amount = amount.quantize(CENT, rounding=decimal.ROUND_HALF_UP)
    return str(abs(amount) if amount == 0 else amount)


# Planted as `fmt` with the float_sum defect, so that the defective tool still runs (on float totals).
def fmt_of_float_sum(amount: decimal.Decimal | float) -> str:
    if isinstance(amount, float):
        return f"{round(amount, 2):.2f}"
    amount = amount.quantize(CENT, rounding=decimal.ROUND_HALF_UP)
    return str(abs(amount) if amount == 0 else amount)


def report(src: str, dst: str, group: str, value: str) -> None:
    with open(src, encoding="utf-8", newline="") as f:
        rows = [row for row in csv.reader(f) if row]
    header, body = rows[0], rows[1:]
    g, v = header.index(group), header.index(value)
    counts, totals = {}, {}  # type: ignore[var-annotated]
    for row in body:
        if not NUMBER.fullmatch(row[v].strip()):
            continue
        key = row[g].strip()
        counts[key] = counts.get(key, 0) + 1
        totals[key] = totals.get(key, decimal.Decimal(0)) + decimal.Decimal(row[v].strip())
    order = sorted(totals, key=lambda k: (-totals[k], k))
    with open(dst, "w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow([group, "count", "total"])
        for key in order:
            writer.writerow([key, counts[key], fmt(totals[key])])


def main(argv: list[str]) -> None:
    report(argv[1], argv[2], GROUP, VALUE)


def fresh_inputs(seed: int) -> str:
    rng = random.Random(seed)
    pool = list(EDGE_VALUES) + ["north", " north ", "south"]
    filler = next(n for n in ("note", "note_") if n not in (GROUP, VALUE))
    header = [VALUE, filler, GROUP]
    rows = [[f"{rng.randint(-9000, 9000) / 100:.2f}", f"n{i}", rng.choice(pool)] for i in range(40)]
    rows += [["1.005", "half", "half-a"], ["2.675", "half", "half-b"], ["9", "int", "nine"], ["10", "int", "ten"]]
    rows += [["n/a", "skip", "north"], ["", "skip", "south"], ["-7", "neg", "south"], ["12.5", "last", "tail"]]
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator=rng.choice(["\n", "\r\n"])).writerows([header] + rows)
    return buffer.getvalue()


def expected(text: str) -> list[list[str]]:
    rows = [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    g, v = rows[0].index(GROUP), rows[0].index(VALUE)
    counts, totals = {}, {}  # type: ignore[var-annotated]
    for row in rows[1:]:
        if NUMBER.fullmatch(row[v].strip()):
            key = row[g].strip()
            counts[key] = counts.get(key, 0) + 1
            totals[key] = totals.get(key, decimal.Decimal(0)) + decimal.Decimal(row[v].strip())
    out = [[GROUP, "count", "total"]]
    for key in sorted(totals, key=lambda k: (-totals[k], k)):
        total = totals[key].quantize(decimal.Decimal("0.01"), rounding=decimal.ROUND_HALF_UP)
        out.append([key, str(counts[key]), str(abs(total) if total == 0 else total)])
    return out


def parsed(path: str | pathlib.Path) -> list[list[str]]:
    with open(path, encoding="utf-8", newline="") as f:
        return [row for row in csv.reader(f) if row]


def test_report_of_the_artifact() -> None:
    assert parsed(OUT) == expected(pathlib.Path(SRC).read_text(encoding="utf-8"))


def test_fixed_tool_on_fresh_inputs(tmp_path: pathlib.Path) -> None:
    for seed in range(3):
        text = fresh_inputs(SEED + seed)
        src, dst = tmp_path / f"in{seed}.csv", tmp_path / f"out{seed}.csv"
        src.write_bytes(text.encode("utf-8"))
        done = run_tool("python3", TOOL, src, dst)
        assert done.returncode == 0, done.stderr[-500:]
        assert parsed(dst) == expected(text), seed
