"""An incremental batch folded in idempotently: a tool that folds CSV batches into a JSON ledger, each
batch once (a rerun counts nothing twice) and a malformed batch not at all."""

from __future__ import annotations

import csv
import io
import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.columns import Use, words
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import (
    EDGE_VALUES,
    CsvShape,
    contract_tool,
    csv_pairs,
    csv_shape,
    fresh_path,
    inside_git,
    known_rows,
    open_pairs,
    plant,
    planted_dir,
    work_root,
)
from rst_synth.proposers.procedural.operators.tables.shipped import incremental_fold
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render

CENTS = re.compile(r"-?\d+(\.\d{1,2})?")


MONEY_WORDS = frozenset(
    "amount amounts revenue cost costs sales spend spent paid payment payments fee fees tax income expense "
    "expenses budget profit balance credit debit total totals usd eur dollars value".split()
)
"""A ledger keeps `total_cents`: it folds money written in units with cents, never quantities or counts."""


def _foldable(artifact: Artifact) -> list[tuple[str, str]]:
    found = known_rows(artifact)
    if found is None:
        return []
    header, body = found[0][0], found[0][1:]
    return [
        (g, v)
        for g, v in csv_pairs(artifact)
        if set(words(v)) & MONEY_WORDS
        and all(row[header.index(g)].strip() and CENTS.fullmatch(row[header.index(v)]) for row in body)
    ]


def _batches(shape: CsvShape, ctx: StepContext) -> list[str]:
    """Three batches of the same kind of rows as the artifact: its keys, amounts in its range (negative ones
    only where it has refunds), so the ledger totals one kind of money per key."""
    rng = ctx.rng
    keys = list(shape.groups[:6])
    amounts = [round(float(row[shape.header.index(shape.value)]) * 100) for row in shape.rows]
    low, high = (min(amounts), max(amounts)) if amounts else (0, 50000)
    low, high = min(low, high - 1), max(high, low + 1)
    filler = next(n for n in ("note", "remark") if n not in (shape.group, shape.value))
    texts = []
    for number in range(3):
        rows = [[rng.choice(keys), f"{rng.randint(low, high) / 100:.2f}", f"n{i}"] for i in range(rng.randint(4, 9))]
        if number == 1:
            rows[rng.randrange(len(rows))][1] = rng.choice(["12,50", "n/a", "1e3", "3.14159"])
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\r\n" if number == 2 else "\n")
        writer.writerows([[shape.group, shape.value, filler], *rows])
        texts.append(buffer.getvalue())
    return texts


@register
class CsvIncrementalFold(ToolOperator):
    """Fold the artifact and arriving batches into a SQLite ledger, idempotently."""

    name = "csv-incremental-fold"
    purpose = Purpose.PREPARE
    uses = (Use.GROUP, Use.SUM)
    kinds = (Kind.CSV,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return (
            bool(open_pairs(_foldable(artifact), discovery, discovery.paths(), "bin", "fold"))
            and not inside_git(artifact.path, discovery)
            and not inside_git(f"{work_root(discovery)}/bin/x", discovery)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        pairs = _foldable(artifact)
        shape = csv_shape(artifact, ctx, open_pairs(pairs, ctx.discovery, ctx.taken_paths, "bin", "fold") or pairs)
        group, value = shape.group, shape.value
        incoming = f"{planted_dir(ctx)}/batches"
        batches = [f"{incoming}/batch-{n:03d}.csv" for n in range(1, 4)]
        tool = contract_tool(ctx.discovery, "bin", group, value, "fold")
        tool = fresh_path(ctx, tool.rsplit("/", 1)[0], tool.rsplit("/", 1)[1]) if tool in ctx.taken_paths else tool
        ctx.taken_paths.add(tool)
        db = ctx.output_path(artifact, "ledger", "json")
        files = [artifact.path, *batches]
        params = {"GROUP": group, "VALUE": value}
        run = f"""{q(tool)} {q(db)} {" ".join(q(f) for f in files)} || [ $? -eq 1 ]"""
        solution = self.tool_solution(tool, render(incremental_fold, ["main"], **params), "sys.exit(main())", run)
        tests = render(
            incremental_fold,
            [
                "test_ledger_holds_each_good_batch_once",
                "test_rerun_counts_nothing_twice",
                "test_tool_folds_fresh_batches_incrementally",
            ],
            tag=ctx.tag,
            TOOL=tool,
            LEDGER=db,
            FILES=files,
            **params,
            EDGE_VALUES=EDGE_VALUES,
        )
        instruction = (
            f"New batches of `{group}`/`{value}` data arrive in `{incoming}` "
            f"({', '.join(f'`{b}`' for b in batches)}). "
            f"Write a tool `{tool}` (an executable file with a `#!` line): `{tool} LEDGER FILE...` folds each FILE, "
            "a batch, into the JSON ledger LEDGER (created when missing, always written, even when nothing was "
            "applied), a JSON object with exactly the keys `applied` (an object mapping each applied batch to its "
            'number of data rows) and `totals` (an object mapping each key to `{"rows": <integer>, "total_cents": '
            "<integer>}`); the ledger is replaced atomically (written to a temporary file in its folder, then "
            "renamed over it) after each applied batch. A batch is a UTF-8 CSV (RFC 4180 quoting, "
            f"LF or CRLF, blank lines skipped) whose header has the columns `{group}` and `{value}` among others; "
            "an empty file (0 bytes) is a batch with no rows. A batch is known by its file name without the "
            "folder: one already listed in `applied` is skipped, so rerunning never counts anything twice. A "
            f"batch is malformed when a row has not as many fields as the header, an empty `{group}` (once "
            f"surrounding whitespace is removed), or a `{value}` that is not an optional `-`, digits and optionally "
            "`.` with one or two digits (surrounding whitespace allowed), or when a column is missing: nothing of a "
            "malformed batch is applied, it is not listed in `applied`, the tool prints `rejected NAME` to standard "
            f"error and goes on. Each row of a good batch adds 1 to `rows` and 100 times its `{value}` (an exact "
            f"integer) to `total_cents` of the entry whose key is its `{group}` with surrounding whitespace "
            "removed; the batch is then listed in `applied` with its number of data rows. The tool exits 1 "
            f"when it rejected a batch in this run, else 0. Then fold `{artifact.path}` and the batches, in the "
            f"order listed above, into `{db}`."
        )
        produced = Artifact(
            path=db,
            kind=Kind.JSON,
            details={"type": "object", "keys": ["applied", "totals"], "numeric_keys": [], "string_keys": []},
        )
        planted = "".join(plant(path, text) for path, text in zip(batches, _batches(shape, ctx), strict=True))
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=planted,
            produces=[produced, self.executable(tool)],
        )
