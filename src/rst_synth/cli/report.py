"""`rst report`: a run as static HTML."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rst_synth.cli.common import console, open_run
from rst_synth.report.html import write_report


def report_command(
    run: Annotated[Path, typer.Argument(help="A run directory made by `rst synth`.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for index.html, its figures and task pages.")],
    lineage_limit: Annotated[
        int, typer.Option(min=1, help="Most tasks with a page of their own (whole lineages, deepest first).")
    ] = 1000,
    top: Annotated[int, typer.Option(min=1, help="Rows of the slowest and most-rejected candidate tables.")] = 15,
) -> None:
    """Write a run's report as a static site: open OUT/index.html from disk.

    Per round: the statistics of `rst stats` with the quartiles of solution lines and executed
    commands, figures (growth, spread, check pass rates, cost, pass@k per agent where `rst eval`
    ran, rejections by check and reason); the slowest and most-rejected candidates with their
    reasons; and a lineage browser from each root seed, with a page per task showing its
    instruction, figures and its added steps as a diff of its solution against its parent's.
    """
    paths, store = open_run(run)
    try:
        index = write_report(paths, store, out, lineage_limit=lineage_limit, top=top)
    finally:
        store.close()
    console.print(f"report: {index}", highlight=False)
