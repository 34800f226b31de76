"""What `csv-rollup-tool` ships: the reusable tool that rolls up any CSV with the two named columns (its
`main`, written to an executable file), and the tests that roll the artifact up again and run the tool on
fresh inputs (quoted fields, non-ASCII text, CRLF, other column orders, empty input). The constants are
the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import decimal
import io
import pathlib
import random
import sys

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/sales_rollup"
SRC = "/app/data/sales.csv"
OUT = "/app/data/sales_rollup.csv"
GROUP = "region"
VALUE = "amount"
EDGE_VALUES = ("Zürich", "a,b", 'say "hi"', "東京", "plain", "two\nlines", "ünïcödé-ß", "x")
SEED = 4242


def rollup(text: str, group: str, value: str) -> list[list[str]] | None:
    rows = [row for row in csv.reader(io.StringIO(text, newline="")) if row]
    head = [group, "rows", "total"]
    if not rows:
        return [head]
    if group not in rows[0] or value not in rows[0]:
        return None
    g, v = rows[0].index(group), rows[0].index(value)
    counts, totals = {}, {}  # type: ignore[var-annotated]
    for row in rows[1:]:
        counts[row[g]] = counts.get(row[g], 0) + 1
        amount = decimal.Decimal(row[v]) if row[v].strip() else decimal.Decimal(0)
        totals[row[g]] = totals.get(row[g], decimal.Decimal(0)) + amount
    cent = decimal.Decimal("0.01")
    out = [head]
    for key in sorted(counts, key=lambda k: (-totals[k], k)):
        total = totals[key].quantize(cent, rounding=decimal.ROUND_HALF_UP)
        out.append([key, str(counts[key]), str(abs(total) if total == 0 else total)])
    return out


def main() -> int:
    with open(sys.argv[1], encoding="utf-8", newline="") as f:
        table = rollup(f.read(), GROUP, VALUE)
    if table is None:
        print("missing column " + GROUP + " or " + VALUE, file=sys.stderr)
        return 2
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerows(table)
    return 0


def generated_inputs(group: str, value: str, seed: int) -> dict[str, str]:
    rng = random.Random(seed)
    pool = list(EDGE_VALUES) + [f"g{i}" for i in range(6)]
    filler = [name for name in ("id", "note", "id_", "note_") if name not in (group, value)]
    header = [filler[0], value, filler[1], group]
    rows = [
        [str(i), f"{rng.randint(-50000, 90000) / 100:.2f}", rng.choice(pool), rng.choice(pool)]
        for i in range(rng.randint(30, 60))
    ]
    rows[3][1] = ""
    rows.append([str(len(rows)), "7", "last row", rows[0][3]])

    def text(records: list[list[str]], end: str = "\n") -> str:
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator=end).writerows(records)
        return buffer.getvalue()

    return {
        "quoted_unicode": text([header] + rows),
        "crlf": text([header] + rows, "\r\n"),
        "other_order": text([[group, filler[0], value]] + [[r[3], r[2], r[1]] for r in rows]),
        "header_only": text([header]),
        "empty": "",
    }


def parsed(text: str) -> list[list[str]]:
    return [row for row in csv.reader(io.StringIO(text, newline="")) if row]


def test_rollup_of_the_artifact() -> None:
    want = rollup(pathlib.Path(SRC).read_text(encoding="utf-8"), GROUP, VALUE)
    assert parsed(pathlib.Path(OUT).read_text(encoding="utf-8")) == want


def test_tool_on_fresh_inputs(tmp_path: pathlib.Path) -> None:
    for case, text in generated_inputs(GROUP, VALUE, SEED).items():
        path = tmp_path / (case + ".csv")
        path.write_bytes(text.encode("utf-8"))
        done = run_tool(TOOL, path)
        assert done.returncode == 0, (case, done.stderr[-500:])
        got = done.stdout.decode("utf-8")
        assert "\r" not in got, case
        assert parsed(got) == rollup(text, GROUP, VALUE), case


def test_tool_rejects_a_missing_column(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "missing.csv"
    path.write_text(GROUP + ",other\nx,1\n", encoding="utf-8")
    done = run_tool(TOOL, path)
    assert_usage_error(done)
