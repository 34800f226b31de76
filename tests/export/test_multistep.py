"""`rst export --multi-step`: a lineage as a Harbor multi-step task, one step per round, and the bad
input the issue names (a seed without lineage is one step, a missing parent is refused)."""

from __future__ import annotations

import json
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from rst_synth.agents.steps import load_task_dir, step_path, task_steps
from rst_synth.export import LineageError, export_dataset, export_dirs, task_form
from rst_synth.export.multistep import lineage_of, setup_lines
from rst_synth.store import Store
from rst_synth.task import Task
from tests.export.lineage import three_round_run
from tests.support.cli import rst
from tests.support.harbor import harbor_python
from tests.support.tasks import write_task

HARBOR_CHECK = """
import json, sys
from harbor.models.task.task import Task
found = {}
for path in sys.argv[1:]:
    task = Task(path)
    found[path] = {
        "valid": Task.is_valid_dir(path),
        "steps": [s.name for s in task.config.steps or []],
        "gates": [s.min_reward for s in task.config.steps or []],
        "strategy": task.config.multi_step_reward_strategy and task.config.multi_step_reward_strategy.value,
        "first": task.step_instruction(task.config.steps[0].name) if task.has_steps else task.instruction,
    }
print(json.dumps(found))
"""


def test_a_three_round_lineage_exports_as_four_steps(tmp_path: Path) -> None:
    run, rows = three_round_run(tmp_path)
    store = Store(run.db)
    try:
        manifest = export_dataset(run, store, tmp_path / "out", multi_step=True, strategy="final")
    finally:
        store.close()
    deepest, tasks = rows[-1], [Task.load(run.root / row.path) for row in rows]
    out = tmp_path / "out" / deepest.id
    assert sorted(p.name for p in out.iterdir()) == ["environment", "steps", "task.toml"]  # no root instruction
    config = tomllib.loads((out / "task.toml").read_text())
    names = ["r0-seed0", "r1-touch", "r2-touch", "r3-touch"]
    assert [s["name"] for s in config["steps"]] == names
    assert [s.get("min_reward") for s in config["steps"]] == [1.0, 1.0, 1.0, None]  # the last gates nothing
    assert config["multi_step_reward_strategy"] == "final"
    assert [s["agent"]["timeout_sec"] for s in config["steps"]] == [t.config.agent.timeout_sec for t in tasks]
    assert next(e for e in manifest if e["id"] == deepest.id)["task_steps"] == names

    for index, (name, task) in enumerate(zip(names, tasks, strict=True)):
        step = out / "steps" / name
        # A step's verifier is its round's task's: its own module and every earlier step's.
        assert {p.name: p.read_bytes() for p in (step / "tests").iterdir()} == {
            Path(rel).name: body for rel, body in task.files.items() if rel.startswith("tests/")
        }
        if index == 0:
            assert (step / "instruction.md").read_text() == task.instruction
            assert (step / "solution" / "solve.sh").read_text() == task.solve_sh
            continue
        added = task.config.metadata.lineage.added[0]  # type: ignore[union-attr]
        first, last = added.instruction_lines
        assert (step / "instruction.md").read_text() == "\n".join(
            task.instruction.splitlines()[first - 1 : last]
        ) + "\n"
        solve = (step / "solution" / "solve.sh").read_text()
        first, last = added.solution_lines
        assert solve.startswith("#!/bin/bash\n") and "set -e\n" in solve  # the seed's setup line
        assert solve.endswith("\n".join(task.solve_sh.splitlines()[first - 1 : last]) + "\n")
        assert "touch /app/seed0" not in solve  # earlier work is not redone

    loaded = load_task_dir(out)
    assert [s.name for s in task_steps(loaded)] == names
    assert loaded.instruction == tasks[0].instruction
    seed = tmp_path / "out" / rows[0].id
    assert [s["name"] for s in tomllib.loads((seed / "task.toml").read_text())["steps"]] == ["r0-seed0"]


def test_both_forms_are_valid_for_harbors_own_loader(tmp_path: Path) -> None:
    python = harbor_python()
    run, rows = three_round_run(tmp_path)
    store = Store(run.db)
    try:
        export_dataset(run, store, tmp_path / "flat")
        export_dataset(run, store, tmp_path / "steps", multi_step=True)
    finally:
        store.close()
    deepest = rows[-1].id
    paths = [str(tmp_path / "flat" / deepest), str(tmp_path / "steps" / deepest)]
    result = subprocess.run([str(python), "-c", HARBOR_CHECK, *paths], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    flat, steps = (json.loads(result.stdout)[p] for p in paths)
    assert flat["valid"] and flat["steps"] == [] and flat["first"].startswith("Create /app/seed0.")
    assert steps["valid"] and steps["steps"] == ["r0-seed0", "r1-touch", "r2-touch", "r3-touch"]
    assert steps["gates"] == [1.0, 1.0, 1.0, None] and steps["strategy"] == "mean"
    assert steps["first"] == "Create /app/seed0.\n"


def test_a_task_without_lineage_is_one_step(tmp_path: Path) -> None:
    imported = write_task(tmp_path / "in", name="imported")
    export_dirs([imported], tmp_path / "out", multi_step=True)
    task = load_task_dir(tmp_path / "out" / "imported")
    assert [s.name for s in task_steps(task)] == ["r0-imported"]  # named after the task
    assert task.text(step_path("r0-imported", "solution/solve.sh")) == Task.load(imported).solve_sh


def test_a_lineage_whose_parent_is_missing_is_refused_in_one_line(tmp_path: Path) -> None:
    run, rows = three_round_run(tmp_path)
    alone = tmp_path / "alone" / rows[2].id
    shutil.copytree(run.root / rows[2].path, alone)  # round 2 without its parent
    parent = Task.load(run.root / rows[1].path).name
    with pytest.raises(LineageError, match=f"its parent {parent} is missing from the run"):
        lineage_of(alone)
    result = rst("export", str(alone), "--out", str(tmp_path / "out"), "--multi-step")
    assert result.returncode != 0
    lines = [line for line in (result.stdout + result.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and parent in lines[0], lines
    assert not (tmp_path / "out").exists()  # refused before anything was written
    flat = task_form(alone, multi_step=False)  # the flat form needs no ancestor: whole, without credit
    assert "tests/conftest.py" not in flat.files


def test_a_flat_export_exported_again_as_steps_carries_no_credit_plugin(tmp_path: Path) -> None:
    run, rows = three_round_run(tmp_path)
    store = Store(run.db)
    try:
        export_dataset(run, store, tmp_path / "flat")
    finally:
        store.close()
    flat = tmp_path / "flat"
    assert (flat / rows[-1].id / "tests" / "conftest.py").is_file()
    export_dirs([flat / row.id for row in rows], tmp_path / "steps", multi_step=True)
    steps = load_task_dir(tmp_path / "steps" / rows[-1].id)
    assert not [rel for rel in steps.files if rel.endswith("conftest.py")]
    assert "step_credit" not in (steps.config.metadata.model_extra or {})


@pytest.mark.parametrize(
    "solve, setup",
    [
        ("#!/bin/bash\n# look\nset -euo pipefail\ncd /app/repo\nexport TZ=UTC\nlog=/app/a.log\ngit log > x\ncd /b\n",
         "set -euo pipefail\ncd /app/repo\nexport TZ=UTC\nlog=/app/a.log\n"),
        ("#!/bin/bash\nday=\"$(date)\"\nset -e\n", ""),  # a command substitution is work
        ("touch /app/x\n", ""),
    ],
)  # fmt: skip
def test_setup_lines_are_the_seeds_leading_shell_settings(solve: str, setup: str) -> None:
    assert setup_lines(solve) == setup
