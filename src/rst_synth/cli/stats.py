"""`rst stats`: per-round statistics of a run directory."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from rst_synth.cli.common import console, open_run
from rst_synth.cli.options import RunDir
from rst_synth.cli.tables import (
    chat_stage_table,
    print_evals,
    quality_table,
    stage_table,
    stats_table,
    steps_table,
)
from rst_synth.proposers.procedural.library import bookkeeping_operators
from rst_synth.report import QUALITY_CHECKS, run_stats
from rst_synth.report.plot import plot_rounds


def stats_command(
    run: RunDir,
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
    plot: Annotated[
        Path | None, typer.Option(help="Also draw the growth curves and yield per round to this PNG.")
    ] = None,
) -> None:
    """Per-round statistics of a run.

    Candidates, accepted, yield, pass rate of every check, the share of candidates whose second
    solution passed (where it ran), medians of solution lines, executed commands and oracle time,
    tokens and cost per accepted task (also by candidate stage, and by the llm proposer's chat
    stage). Where the quality checks ran, a second table: candidates each rejected, its pass rate,
    and the median kill rate.
    """
    _, store = open_run(run)
    try:
        stats = run_stats(store, bookkeeping_operators())
        evals = store.agent_attempts()
    finally:
        store.close()
    if plot is not None:
        plot_rounds(stats, plot, title=f"run {run.name}")
    if as_json:
        print(json.dumps([s.model_dump(by_alias=True) for s in stats], indent=2))
        return
    console.print(stats_table(stats, title=f"run {run}"))
    if any(s.operators for s in stats):
        console.print(steps_table(stats))
    if any(s.pass_rates.get(c) is not None for s in stats for c in QUALITY_CHECKS):
        console.print(quality_table(stats))
    if any(s.stage_tokens_per_accepted for s in stats):
        console.print(stage_table(stats))
    if any(s.chat_stage_tokens_per_accepted for s in stats):
        console.print(chat_stage_table(stats))
    print_evals(evals)
    if plot is not None:
        console.print(f"plot: {plot}")
    for s in stats:
        if s.rejections:
            top = ", ".join(f"{k} x{n}" for k, n in list(s.rejections.items())[:4])
            console.print(f"round {s.round} rejections: {top}", highlight=False)
