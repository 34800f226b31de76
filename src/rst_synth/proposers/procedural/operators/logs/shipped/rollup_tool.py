"""What `jsonl-rollup-tool` ships: the tool that rolls up any JSON Lines event log by a category, tolerant of
bad lines (its `main`, written to an executable file), and the tests that roll the log up again and run
the tool on fresh logs with bad lines. The constants are the step's parameters: `shipping.render` sets
them."""

from __future__ import annotations

import csv
import decimal
import io
import json
import pathlib
import random
import re
import sys
from collections.abc import Iterable

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/events_rollup"
SRC = "/app/logs/events.jsonl"
OUT = "/app/logs/kind_rollup.csv"
GROUP = "kind"
VALUE = "amount"
EDGE_VALUES = ("Zürich", "a,b", 'say "hi"', "東京", "plain", "two\nlines", "ünïcödé-ß", "x")
SEED = 4242


def rollup(lines: Iterable[str], group: str, value: str) -> tuple[list[list[str]], int]:
    counts, totals, skipped = {}, {}, 0  # type: ignore[var-annotated]
    for line in lines:
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        amount = event.get(value) if isinstance(event, dict) else None
        if (
            not isinstance(event, dict)
            or not isinstance(event.get(group), str)
            or (amount is not None and (isinstance(amount, bool) or not isinstance(amount, (int, float))))
        ):
            skipped += 1
            continue
        key = event[group]
        counts[key] = counts.get(key, 0) + 1
        totals[key] = totals.get(key, decimal.Decimal(0)) + decimal.Decimal(str(amount or 0))
    cent = decimal.Decimal("0.01")
    rows = []
    for key in sorted(counts, key=lambda k: (-totals[k], k)):
        total = totals[key].quantize(cent, rounding=decimal.ROUND_HALF_UP)
        rows.append([key, str(counts[key]), str(abs(total) if total == 0 else total)])
    return rows, skipped


def main() -> None:
    if len(sys.argv) != 4:
        print("usage: rollup LOG GROUP VALUE", file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[1], encoding="utf-8") as f:
        rows, skipped = rollup(f, sys.argv[2], sys.argv[3])
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow([sys.argv[2], "events", "total"])
    writer.writerows(rows)
    if skipped:
        print(f"skipped {skipped} lines", file=sys.stderr)


def fresh_events(group: str, value: str, seed: int) -> str:
    rng = random.Random(seed)
    lines = []
    for i in range(400):
        roll = rng.random()
        event = {"seq": i, group: rng.choice(EDGE_VALUES), value: rng.randint(-50000, 900000) / 1000}
        if roll < 0.05:
            lines.append("{not json")
        elif roll < 0.08:
            event.pop(value)
            lines.append(json.dumps(event, ensure_ascii=rng.random() < 0.5))
        elif roll < 0.10:
            event[group] = rng.randint(1, 9)
            lines.append(json.dumps(event))
        elif roll < 0.12:
            lines.append("   ")
        else:
            lines.append(json.dumps(event, ensure_ascii=rng.random() < 0.5))
    return "\n".join(lines) + "\n"


def parsed(text: str) -> list[list[str]]:
    return [row for row in csv.reader(io.StringIO(text, newline="")) if row]


def test_rollup_of_the_log() -> None:
    with open(SRC, encoding="utf-8") as f:
        want, _ = rollup(f, GROUP, VALUE)
    assert parsed(pathlib.Path(OUT).read_text(encoding="utf-8")) == [[GROUP, "events", "total"], *want]


def test_tool_on_fresh_logs_with_bad_lines(tmp_path: pathlib.Path) -> None:
    for seed in (1, 2, 3):
        text = fresh_events("kind", "amount", SEED + seed)
        path = tmp_path / f"log{seed}.jsonl"
        path.write_bytes(text.encode("utf-8"))
        done = run_tool(TOOL, path, "kind", "amount")
        assert done.returncode == 0, done.stderr[-500:]
        want, skipped = rollup(text.splitlines(), "kind", "amount")
        assert parsed(done.stdout.decode("utf-8")) == [["kind", "events", "total"], *want], seed
        assert re.search(rf"\bskipped {skipped} lines\b", done.stderr.decode("utf-8")), done.stderr[-300:]


def test_tool_usage_error() -> None:
    done = run_tool(TOOL, SRC)
    assert_usage_error(done)
