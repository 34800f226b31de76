"""`rst eval --multi-step` as a user runs it, on the fake sandbox (no Docker): a run's lineages as
steps, per-step rewards in the JSON report, result.json and the store; a multi-step task directory
runs as its steps without the flag."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rst_synth.export import export_dirs
from rst_synth.store import RunPaths, Store
from tests.export.lineage import three_round_run
from tests.support.cli import rst

FAKE = ["--backend", "tests.support.fakes:FakeSandbox", "--json"]
NAMES = ["r0-seed0", "r1-touch", "r2-touch", "r3-touch"]


def test_a_runs_lineages_run_as_steps_and_their_rewards_are_stored(tmp_path: Path) -> None:
    run, rows = three_round_run(tmp_path)
    result = rst("eval", str(run.root), "--agent", "oracle", "--multi-step", *FAKE)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    deepest = next(t for t in report["tasks"] if t["round"] == 3)
    assert deepest["rewards"] == [1.0] and deepest["step_rewards"] == [dict.fromkeys(NAMES, 1.0)]
    assert [r["step_credit"] for r in report["rounds"]] == [1.0] * 4

    nop = rst("eval", str(run.root), "--agent", "nop", "--multi-step", "--reward-strategy", "final", *FAKE)
    assert nop.returncode == 0, nop.stderr
    deepest = next(t for t in json.loads(nop.stdout)["tasks"] if t["round"] == 3)
    assert deepest["step_rewards"] == [{"r0-seed0": 0.0, "r1-touch": None, "r2-touch": None, "r3-touch": None}]
    store = Store(RunPaths(run.root).db)
    try:
        stored = {(a.eval_id, a.task): a for a in store.agent_attempts()}
    finally:
        store.close()
    attempt = stored[("nop", rows[-1].id)]
    assert attempt.step_rewards == deepest["step_rewards"][0] and attempt.reward == 0.0
    result_json = json.loads((run.root / attempt.path / "result.json").read_text())
    assert result_json["step_rewards"] == attempt.step_rewards


def test_a_multi_step_task_directory_runs_as_its_steps(tmp_path: Path) -> None:
    run, rows = three_round_run(tmp_path)
    export_dirs([run.root / row.path for row in rows], tmp_path / "dataset", multi_step=True)
    task = tmp_path / "dataset" / rows[-1].id
    result = rst("eval", str(task), "--agent", "oracle", "--out", str(tmp_path / "evals"), *FAKE)
    assert result.returncode == 0, result.stderr
    (only,) = json.loads(result.stdout)["tasks"]
    assert only["round"] == 3 and only["step_rewards"] == [dict.fromkeys(NAMES, 1.0)]


def test_a_bad_strategy_or_a_missing_parent_is_one_line(tmp_path: Path) -> None:
    run, rows = three_round_run(tmp_path)
    bad = rst("eval", str(run.root), "--agent", "nop", "--reward-strategy", "max", *FAKE)
    assert bad.returncode != 0 and "--reward-strategy 'max': choose from mean, final" in bad.stderr
    alone = tmp_path / "alone" / rows[2].id
    shutil.copytree(run.root / rows[2].path, alone)  # round 2 without its parent
    lone = rst("eval", str(alone), "--agent", "nop", "--multi-step", "--out", str(tmp_path / "e"), *FAKE)
    lines = [line for line in lone.stderr.splitlines() if line.strip()]
    assert lone.returncode != 0 and len(lines) == 1 and "is missing from the run" in lines[0]
