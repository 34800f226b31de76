"""Export accepted tasks as a Harbor dataset with a manifest: flat (the default, with per-step credit
where the verifier allows it) or as multi-step tasks (`--multi-step`)."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from rst_synth.agents.steps import RewardStrategy, credit_keys, task_steps
from rst_synth.export.credit import with_step_credit, without_step_credit
from rst_synth.export.multistep import LineageError, lineage_of, lineage_steps, multi_step_task, save_multi_step
from rst_synth.store import AgentAttemptRow, RunPaths, Store
from rst_synth.task import Figures, SolveRate, Task, TaskConfig, TaskPaths
from rst_synth.task.metrics import label_difficulty

MANIFEST_FIELDS = (
    "id",
    "name",
    "round",
    "parent_id",
    "root_id",
    "proposer",
    "steps",
    "task_steps",
    *Figures.model_fields,
    "difficulty",
    "difficulty_source",
)
"""`steps`: the operators the task's round added; `task_steps`: its Harbor steps (multi-step form) or
the per-step keys of its reward.json (flat form), empty where it has neither."""


def task_form(
    task_dir: Path, *, multi_step: bool, strategy: RewardStrategy = "mean", load: Callable[[Path], Task] = Task.load
) -> Task:
    """The task as `rst export` writes it (and `rst eval` runs it): the lineage as a multi-step task,
    or the flat task with per-step credit where its verifier allows it. LineageError (one line) when
    the multi-step form misses a parent; the flat form then goes without credit."""
    if multi_step:
        return multi_step_task(lineage_of(task_dir), strategy, load)
    task = Task.load(task_dir)
    without_step_credit(task)
    try:
        with_step_credit(task, {step.name: step.modules for step in lineage_steps(lineage_of(task_dir))})
    except LineageError:
        pass  # the flat task is whole without its ancestors; only the per-step report needs them
    return task


def export_dataset(
    run: RunPaths,
    store: Store,
    out: Path,
    rounds: set[int] | None = None,
    *,
    multi_step: bool = False,
    strategy: RewardStrategy = "mean",
) -> list[dict[str, object]]:
    """Copy the accepted tasks (of `rounds`, default all) to OUT/<id>/ and write manifest.jsonl/.csv."""
    rows = [t for t in store.tasks() if rounds is None or t.round in rounds]
    exported = {t.id for t in rows}
    solve_rates = _solve_rates(store)
    if multi_step:
        check_lineages([run.root / row.path for row in rows])
    load = lru_cache(maxsize=32)(Task.load)  # siblings share their ancestors, read once
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for row in rows:
        task = task_form(run.root / row.path, multi_step=multi_step, strategy=strategy, load=load)
        lineage = task.config.metadata.lineage
        if lineage is not None:
            # In the flat layout a parent sits beside its child, if it was exported at all.
            lineage.parent_path = f"../{row.parent_id}" if row.parent_id in exported else None
        if row.id in solve_rates:  # the share of the agents' attempts that solved it, and the label it gives
            metadata = task.config.metadata
            metadata.solve_rate = {**(metadata.solve_rate or {}), **solve_rates[row.id]}
            label_difficulty(metadata)
        _save(task, out / row.id)
        manifest.append(_entry(row.model_dump(exclude={"path"}), task))
    _write_manifest(out, manifest)
    return manifest


def export_dirs(
    dirs: list[Path], out: Path, *, multi_step: bool = False, strategy: RewardStrategy = "mean"
) -> list[dict[str, object]]:
    """Task directories exported as `export_dataset` exports a run's tasks, each to OUT/<dir name>/;
    a parent found through the lineage stays the parent of its exported child where it is exported
    too. ValueError (one line) for two directories of one name."""
    names = [d.name for d in dirs]
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})[0]
        raise ValueError(f"two task directories are named {twice}: OUT/<name> would hold only one")
    chosen = {d.resolve(): d.name for d in dirs}
    if multi_step:
        check_lineages(dirs)
    load = lru_cache(maxsize=32)(Task.load)
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for directory in dirs:
        task = task_form(directory, multi_step=multi_step, strategy=strategy, load=load)
        config = TaskConfig.load(directory / TaskPaths.CONFIG)
        lineage = task.config.metadata.lineage
        parent_id = None
        if lineage is not None and lineage.parent_path:
            parent_id = chosen.get((directory / lineage.parent_path).resolve())
            lineage.parent_path = f"../{parent_id}" if parent_id else None
        _save(task, out / directory.name)
        manifest.append(_entry(_row_of(directory, config, parent_id), task))
    _write_manifest(out, manifest)
    return manifest


def check_lineages(dirs: list[Path]) -> None:
    """Refuse a lineage with a missing parent (LineageError) before anything is written."""
    for directory in dirs:
        lineage_steps(lineage_of(directory))


def _save(task: Task, target: Path) -> None:
    if task_steps(task):
        save_multi_step(task, target)
    else:
        task.save(target, overwrite=True)


def _row_of(directory: Path, config: TaskConfig, parent_id: str | None) -> dict[str, object]:
    """A task directory's manifest fields, from its task.toml (a run's come from its store)."""
    lineage = config.metadata.lineage
    name = config.task.name if config.task is not None else directory.name
    figures = config.metadata.metrics.model_dump(include=set(Figures.model_fields)) if config.metadata.metrics else {}
    return {
        **figures,
        "id": directory.name,
        "name": name,
        "round": lineage.round if lineage else 0,
        "parent_id": parent_id,
        "root_id": (lineage.root if lineage and lineage.root else name).rsplit("/", 1)[-1],
        "proposer": lineage.proposer if lineage else None,
        "steps": lineage.steps if lineage else [],
    }


def _write_manifest(out: Path, manifest: list[dict[str, object]]) -> None:
    with (out / "manifest.jsonl").open("w", encoding="utf-8") as handle:
        for entry in manifest:
            handle.write(json.dumps(entry) + "\n")
    with (out / "manifest.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=MANIFEST_FIELDS)
        writer.writeheader()
        for entry in manifest:
            lists = {key: ";".join(entry[key]) for key in ("steps", "task_steps")}  # type: ignore[arg-type]
            writer.writerow({**entry, **lists})


def _solve_rates(store: Store) -> dict[str, dict[str, SolveRate]]:
    """task id -> {eval id: its solve rate} over every eval stored with the run (`rst eval` and the
    solver): successes / attempts, with the agent, the model and k = the attempts."""
    by_task: dict[str, dict[str, list[AgentAttemptRow]]] = {}
    for attempt in store.agent_attempts():
        by_task.setdefault(attempt.task, {}).setdefault(attempt.eval_id, []).append(attempt)
    return {
        task: {
            name: SolveRate(
                rate=round(sum(1 for a in rows if a.reward >= 1.0) / len(rows), 4),
                agent=rows[0].agent,
                model=rows[0].model,
                k=len(rows),
            )
            for name, rows in evals.items()
        }
        for task, evals in by_task.items()
    }


def _entry(data: dict[str, object], task: Task) -> dict[str, object]:
    data = {**data, "task_steps": [step.name for step in task_steps(task)] or credit_keys(task)}
    data["difficulty"] = task.config.metadata.difficulty
    data["difficulty_source"] = task.config.metadata.difficulty_source
    return {field: data.get(field) for field in MANIFEST_FIELDS}
