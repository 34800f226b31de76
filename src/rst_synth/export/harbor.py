"""Export accepted tasks as a flat Harbor dataset with a manifest."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from rst_synth.store import AgentAttemptRow, RunPaths, Store, TaskRow
from rst_synth.task import Figures, SolveRate, Task
from rst_synth.task.metrics import label_difficulty

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
    "difficulty_source",
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
        if row.id in solve_rates:  # the share of the agents' attempts that solved it, and the label it gives
            metadata = task.config.metadata
            metadata.solve_rate = {**(metadata.solve_rate or {}), **solve_rates[row.id]}
            label_difficulty(metadata)
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


def _entry(row: TaskRow, task: Task) -> dict[str, object]:
    data = row.model_dump(exclude={"path"})
    data["difficulty"] = task.config.metadata.difficulty
    data["difficulty_source"] = task.config.metadata.difficulty_source
    return {field: data.get(field) for field in MANIFEST_FIELDS}
