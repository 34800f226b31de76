"""`rst stats` (a run directory) and `rst export` (a run directory or task directories)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from rst_synth.agents.steps import STRATEGIES, RewardStrategy
from rst_synth.cli.common import console, fail
from rst_synth.export import LineageError, export_dataset, export_dirs
from rst_synth.proposers.procedural.operator import bookkeeping_operators
from rst_synth.report import CHECKS, QUALITY_CHECKS, RoundStats, run_stats
from rst_synth.report.passk import rounds_pass
from rst_synth.report.plot import plot_rounds
from rst_synth.store import AgentAttemptRow, RunPaths, Store
from rst_synth.task import TaskFormatError

_CHECK_SHORT = {"determinism": "determ"}


def open_run(run: Path) -> tuple[RunPaths, Store]:
    paths = RunPaths(run)
    if not paths.exists():
        raise fail(f"{paths.db}: no run here (start one with `rst synth SEEDS --out {run}`)")
    return paths, Store(paths.db)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def stats_table(stats: list[RoundStats], title: str = "rounds") -> Table:
    table = Table(title=title)
    for column in ("round", "status", "cand.", "acc.", "yield"):
        table.add_column(column, justify="right" if column != "status" else "left")
    for check in CHECKS:
        table.add_column(_CHECK_SHORT.get(check, check), justify="right")
    for column in ("med. lines", "med. cmds", "med. oracle s", "tokens/acc.", "$/acc."):
        table.add_column(column, justify="right")
    for s in stats:
        table.add_row(
            str(s.round),
            s.status,
            str(s.candidates),
            str(s.accepted),
            _pct(s.yield_rate),
            *(_pct(s.pass_rates.get(check)) for check in CHECKS),
            _num(s.median_solution_lines, 1),
            _num(s.median_executed_commands, 1),
            _num(s.median_oracle_sec, 2),
            _num(s.tokens_per_accepted),
            "-" if s.cost_per_accepted is None else f"{s.cost_per_accepted:.4f}",
        )
    return table


def quality_table(stats: list[RoundStats], title: str = "quality checks") -> Table:
    """Per round and quality check: candidates it rejected, and its pass rate over the attempts it
    ran in; then the median kill rate of the accepted tasks."""
    table = Table(title=title)
    table.add_column("round", justify="right")
    for check in QUALITY_CHECKS:
        table.add_column(f"{check}\nrejected (pass)", justify="right")
    table.add_column("med. kill rate", justify="right")
    for s in stats:
        table.add_row(
            str(s.round),
            *(f"{s.quality_rejections.get(c, 0)} ({_pct(s.pass_rates.get(c))})" for c in QUALITY_CHECKS),
            _pct(s.median_kill_rate),
        )
    return table


def steps_table(stats: list[RoundStats], title: str = "steps") -> Table:
    """Per round: the bookkeeping share of the lineages' steps and the operators the new steps used."""
    table = Table(title=title)
    for column in ("round", "bookkeeping", "operators", "most used"):
        table.add_column(column, justify="right" if column != "most used" else "left")
    for s in stats:
        top = ", ".join(f"{name} {n}" for name, n in list(s.operators.items())[:4])
        table.add_row(str(s.round), _pct(s.bookkeeping_share), str(len(s.operators)), top or "-")
    return table


def stats_command(
    run: Annotated[Path, typer.Argument(help="A run directory made by `rst synth`.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
    plot: Annotated[
        Path | None, typer.Option(help="Also draw the growth curves and yield per round to this PNG.")
    ] = None,
) -> None:
    """Per-round statistics of a run.

    Candidates, accepted, yield, pass rate of every check, medians of solution lines, executed
    commands and oracle time, tokens and cost per accepted task. Where the quality checks ran, a
    second table: candidates each rejected, its pass rate, and the median kill rate.
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
    _print_evals(evals)
    if plot is not None:
        console.print(f"plot: {plot}")
    for s in stats:
        if s.rejections:
            top = ", ".join(f"{k} x{n}" for k, n in list(s.rejections.items())[:4])
            console.print(f"round {s.round} rejections: {top}", highlight=False)


def _print_evals(rows: list[AgentAttemptRow]) -> None:
    """pass@1 and pass@k per round of every agent evaluated on the run (`rst eval RUN`), with the
    mean per-step credit beside them where the attempts have per-step rewards."""
    from rst_synth.cli.evaluate import credit_column, pass_table

    for name in sorted({row.eval_id for row in rows}):
        mine = [row for row in rows if row.eval_id == name]
        k = max(sum(1 for r in mine if r.task == row.task) for row in mine)
        rounds = rounds_pass(mine, k)
        console.print(pass_table(rounds, k, title=f"{name}: pass@k per round", credit=credit_column(mine, rounds)))


def export_command(
    paths: Annotated[list[Path], typer.Argument(help="A run directory made by `rst synth`, or task directories.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the dataset (one task directory per task).")],
    rounds: Annotated[
        str | None, typer.Option(help="A run's rounds to export, e.g. '1,2,5' or '1-3' (default: all).")
    ] = None,
    multi_step: Annotated[
        bool, typer.Option("--multi-step", help="Each task as a Harbor multi-step task: one step per round.")
    ] = False,
    reward_strategy: Annotated[
        str, typer.Option(help="--multi-step: the task's reward from its steps' (multi_step_reward_strategy).")
    ] = "mean",
) -> None:
    """Export accepted tasks as a Harbor dataset.

    One directory per task, plus manifest.jsonl and manifest.csv (one row per task: id, round,
    parent, root, figures). `harbor run -p OUT/<id>` runs a task. Flat by default: where its verifier
    allows it, a task's tests also write /logs/verifier/reward.json with the overall reward and each
    step's share of tests passed. With --multi-step, step 1 is the root seed's work and each later
    step what one round added, gated on the step before (min_reward 1); a task without lineage is
    one step, and a lineage whose parent is missing is refused.
    """
    if reward_strategy not in STRATEGIES:
        raise fail(f"--reward-strategy {reward_strategy!r}: choose from {', '.join(STRATEGIES)}")
    strategy: RewardStrategy = "final" if reward_strategy == "final" else "mean"
    run = paths[0] if len(paths) == 1 and RunPaths(paths[0]).exists() else None
    try:
        if run is not None:
            run_paths, store = open_run(run)
            try:
                manifest = export_dataset(
                    run_paths, store, out, parse_rounds(rounds), multi_step=multi_step, strategy=strategy
                )
            finally:
                store.close()
        else:
            if rounds is not None:
                raise fail("--rounds selects a run's rounds: give a run directory, or leave it out")
            manifest = export_dirs(paths, out, multi_step=multi_step, strategy=strategy)
    except (TaskFormatError, LineageError) as exc:
        raise fail(str(exc)) from None
    except ValueError as exc:  # two directories of one name
        raise fail(str(exc).splitlines()[0]) from None
    form = "multi-step" if multi_step else "flat"
    credit = sum(1 for entry in manifest if entry["task_steps"])
    detail = "" if multi_step else f"; per-step credit in reward.json: {credit} of {len(manifest)}"
    console.print(f"exported {len(manifest)} {form} tasks to {out} (manifest.jsonl, manifest.csv{detail})")


def parse_rounds(spec: str | None) -> set[int] | None:
    if spec is None:
        return None
    chosen: set[int] = set()
    try:
        for part in spec.split(","):
            low, _, high = part.strip().partition("-")
            chosen.update(range(int(low), int(high or low) + 1))
    except ValueError:
        raise fail(f"--rounds {spec!r}: expected numbers and ranges like '1,3-5'") from None
    return chosen
