"""`rst eval` on a run directory: per-round pass@k, shown by `rst stats`, carried by `rst export`."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from tests.engine.test_engine_fake import fake_seeds, run_engine
from tests.support.cli import rst
from tests.support.fakes import FakeProposer

pytestmark = pytest.mark.docker


def test_eval_of_a_run_reports_rounds_and_feeds_stats_and_export(tmp_path: Path) -> None:
    # A run made on the fake sandbox: its tasks (touch a file, test that it exists) are real tasks.
    run = tmp_path / "run"
    _, store = run_engine(run, fake_seeds(tmp_path, 2), FakeProposer(), rounds=1, fanout=1)
    store.close()
    result = rst("eval", str(run), "--agent", "oracle", "-k", "2", "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert [(r["round"], r["tasks"], r["pass@1"], r["pass@2"]) for r in report["rounds"]] == [
        (0, 2, 1.0, 1.0),
        (1, 2, 1.0, 1.0),
    ]
    assert (run / "evals" / "oracle").is_dir()
    # The flat form's verifier reports each step's share of tests passed (real pytest, reward.json).
    credit = {Path(t["path"]).name: t["step_rewards"] for t in report["tasks"]}
    assert credit["seed0"] == [{"r0-seed0": 1.0}] * 2
    child = next(name for name in credit if name.startswith("seed1-r1"))
    assert credit[child] == [{"r0-seed1": 1.0, "r1-touch": 1.0}] * 2
    assert all(r["step_credit"] == 1.0 for r in report["rounds"])

    nop = rst("eval", str(run), "--agent", "nop", "-k", "1", "--json")
    assert nop.returncode == 0, nop.stderr
    assert {json.dumps(t["step_rewards"]) for t in json.loads(nop.stdout)["tasks"] if "-r1-" in t["path"]} == {
        json.dumps([{f"r0-{seed}": 0.0, "r1-touch": 0.0}]) for seed in ("seed0", "seed1")
    }
    stats = rst("stats", str(run))
    assert stats.returncode == 0, stats.stderr
    assert "oracle: pass@k per round" in stats.stdout and "nop: pass@k per round" in stats.stdout
    assert "step credit" in stats.stdout

    exported = rst("export", str(run), "--out", str(tmp_path / "dataset"))
    assert exported.returncode == 0, exported.stderr
    task_toml = next((tmp_path / "dataset").glob("*/task.toml"))
    metadata = tomllib.loads(task_toml.read_text())["metadata"]
    assert metadata["solve_rate"] == {
        "oracle": {"rate": 1.0, "agent": "oracle", "k": 2},
        "nop": {"rate": 0.0, "agent": "nop", "k": 1},
    }
    assert (metadata["difficulty"], metadata["difficulty_source"]) == ("easy", "oracle")  # the most attempts
