"""`rst export`: accepted tasks (of a run directory, or task directories) as a Harbor dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rst_synth.cli.common import console, fail, open_run
from rst_synth.cli.options import MultiStep, RewardStrategyName, reward_strategy
from rst_synth.export import LineageError, export_dataset, export_dirs
from rst_synth.store import RunPaths
from rst_synth.task import TaskFormatError


def export_command(
    paths: Annotated[list[Path], typer.Argument(help="A run directory made by `rst synth`, or task directories.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Folder for the dataset (one task directory per task).")],
    rounds: Annotated[
        str | None, typer.Option(help="A run's rounds to export, e.g. '1,2,5' or '1-3' (default: all).")
    ] = None,
    multi_step: MultiStep = False,
    strategy_name: RewardStrategyName = "mean",
) -> None:
    """Export accepted tasks as a Harbor dataset.

    One directory per task, plus manifest.jsonl and manifest.csv (one row per task: id, round,
    parent, root, figures). `harbor run -p OUT/<id>` runs a task. Flat by default: where its verifier
    allows it, a task's tests also write /logs/verifier/reward.json with the overall reward and each
    step's share of tests passed. With --multi-step, step 1 is the root seed's work and each later
    step what one round added, gated on the step before (min_reward 1); a task without lineage is
    one step, and a lineage whose parent is missing is refused.
    """
    strategy = reward_strategy(strategy_name)
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
