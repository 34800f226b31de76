"""Export accepted tasks as a flat Harbor dataset with a manifest."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from rst_synth.store import RunPaths, Store, TaskRow
from rst_synth.task import Figures, Task

MANIFEST_FIELDS = (
    "id",
    "name",
    "round",
    "parent_id",
    "root_id",
    "proposer",
    "steps",
    *Figures.model_fields,
    "difficulty",
)


def export_dataset(run: RunPaths, store: Store, out: Path, rounds: set[int] | None = None) -> list[dict[str, object]]:
    """Copy the accepted tasks (of `rounds`, default all) to OUT/<id>/ and write manifest.jsonl/.csv."""
    rows = [t for t in store.tasks() if rounds is None or t.round in rounds]
    exported = {t.id for t in rows}
    solve_rates = _solve_rates(store)
    out.mkdir(parents=True, exist_ok=True)
    manifest = []
    for row in rows:
        task = Task.load(run.root / row.path)
        lineage = task.config.metadata.lineage
        if lineage is not None:
            # In the flat layout a parent sits beside its child, if it was exported at all.
            lineage.parent_path = f"../{row.parent_id}" if row.parent_id in exported else None
        if row.id in solve_rates:  # the share of `rst eval` attempts that solved it, per agent and model
            task.config.metadata.solve_rate = solve_rates[row.id]
        task.save(out / row.id, overwrite=True)
        manifest.append(_entry(row, task))
    with (out / "manifest.jsonl").open("w", encoding="utf-8") as handle:
        for entry in manifest:
            handle.write(json.dumps(entry) + "\n")
    with (out / "manifest.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=MANIFEST_FIELDS)
        writer.writeheader()
        for entry in manifest:
            writer.writerow({**entry, "steps": ";".join(entry["steps"])})  # type: ignore[arg-type]
    return manifest


def _solve_rates(store: Store) -> dict[str, dict[str, float]]:
    """task id -> {eval id: successes / attempts} over every eval stored with the run."""
    counts: dict[str, dict[str, list[int]]] = {}
    for attempt in store.agent_attempts():
        tally = counts.setdefault(attempt.task, {}).setdefault(attempt.eval_id, [0, 0])
        tally[0] += attempt.reward >= 1.0
        tally[1] += 1
    return {task: {name: round(c / n, 4) for name, (c, n) in evals.items()} for task, evals in counts.items()}


def _entry(row: TaskRow, task: Task) -> dict[str, object]:
    data = row.model_dump(exclude={"path"})
    data["difficulty"] = task.config.metadata.difficulty
    return {field: data.get(field) for field in MANIFEST_FIELDS}
