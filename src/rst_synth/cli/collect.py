"""`rst collect`: solved `rst eval` trajectories as fine-tuning data, a run's tasks as SkyRL rows."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich.table import Table

from rst_synth.cli.common import console, fail
from rst_synth.export.collect import FORMATS, CollectOptions, CollectReport, collect
from rst_synth.export.sources import CollectError


def collect_command(
    paths: Annotated[
        list[Path], typer.Argument(help="Run directories or `rst eval` folders (skyrl: runs, exports or task dirs).")
    ],
    out: Annotated[Path, typer.Option("--out", "-o", help="Where the dataset goes.")],
    formats: Annotated[
        list[str] | None, typer.Option("--format", "-f", help=f"{', '.join(FORMATS)} (default trl); repeatable.")
    ] = None,
    min_reward: Annotated[float, typer.Option(help="Keep attempts with at least this reward.")] = 1.0,
    max_per_task: Annotated[int | None, typer.Option(min=1, help="Keep at most N trajectories per task.")] = None,
    max_tokens: Annotated[
        int, typer.Option(min=1, help="Drop trajectories longer than this (tokens as 4 characters).")
    ] = 32_768,
    split_by: Annotated[
        str, typer.Option(help="none, or lineage: whole root-seed families go to validation.")
    ] = "none",
    validation_fraction: Annotated[float, typer.Option(help="With --split-by lineage: share of root seeds.")] = 0.1,
    parquet: Annotated[bool, typer.Option("--parquet", help="Parquet through HF datasets instead of JSONL.")] = False,
    evals: Annotated[
        list[str] | None, typer.Option("--eval", help="Only this eval (<agent>-<model>); repeatable.")
    ] = None,
    max_turns: Annotated[
        int | None,
        typer.Option(min=1, help="skyrl: commands per episode. [default: no count; the task's time bounds it]"),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the counts as JSON.")] = False,
) -> None:
    """Turn solved agent trajectories into fine-tuning data (rejection sampling), or tasks into RL rows.

    From the attempts `rst eval` stored (a run directory, RUN/evals/<eval>, or an `rst eval --out`
    folder) it keeps those with reward >= --min-reward and drops malformed ones, identical duplicates
    and those over the token budget. Formats: trl (TRL's conversational format with tools), sharegpt
    (LLaMA-Factory, with dataset_info.json), openai (chat fine-tuning JSONL), skyrl (one RL row per
    task of a run, an export or task directories). Writes OUT/<format>/train.jsonl (validation.jsonl
    with --split-by lineage), OUT/samples.jsonl and a dataset card, OUT/README.md.
    """
    try:
        options = CollectOptions(
            formats=formats or ["trl"],
            min_reward=min_reward,
            max_per_task=max_per_task,
            max_tokens=max_tokens,
            split_by=split_by,  # checked by the model
            validation_fraction=validation_fraction,
            parquet=parquet,
            evals=evals or [],
            max_turns=max_turns,
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        raise fail(f"--{str(error['loc'][0]).replace('_', '-')}: {error['msg']}") from None
    try:
        report = collect(paths, out, options)
    except CollectError as exc:
        raise fail(str(exc)) from None
    if as_json:
        print(json.dumps(_summary(report), indent=2))
        return
    console.print(_table(report, out))
    if report.dropped:
        console.print("left out: " + ", ".join(f"{r} {n}" for r, n in sorted(report.dropped.items())), highlight=False)
    console.print(f"card: {out / 'README.md'}", highlight=False)


def _summary(report: CollectReport) -> dict[str, object]:
    return {
        "attempts": report.attempts,
        "kept": len(report.samples),
        "tasks": len(report.tasks),
        "dropped": report.dropped,
        "records": report.records,
        "files": report.files,
    }


def _table(report: CollectReport, out: Path) -> Table:
    kept = [f"{len(report.samples)} of {report.attempts} attempts kept"] if report.attempts else []
    rows = [f"{len(report.tasks)} tasks as RL rows"] if report.tasks else []
    table = Table(title="rst collect: " + ", ".join(kept + rows or ["nothing found"]))
    for column in ("format", "train", "validation", "files"):
        table.add_column(column, justify="left" if column in ("format", "files") else "right")
    for fmt, counts in report.records.items():
        files = ", ".join(str(out / f) for f in report.files.get(fmt, []))
        table.add_row(fmt, str(counts.get("train", 0)), str(counts.get("validation", 0)), files)
    return table
