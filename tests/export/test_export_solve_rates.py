"""`rst export` carries every stored eval's solve rate, with agent, model and k, and relabels the
difficulty from it; tasks no agent ran keep their size label."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from rst_synth.export import export_dataset
from rst_synth.store import AgentAttemptRow, RunPaths
from tests.engine.test_engine_fake import fake_seeds, run_engine
from tests.support.fakes import FakeProposer


def test_export_writes_solve_rates_with_agent_model_and_k_and_relabels(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _, store = run_engine(run, fake_seeds(tmp_path, 2), FakeProposer(), rounds=1, fanout=1)
    child = store.tasks(1)[0]
    for attempt, reward in enumerate((1.0, 0.0, 0.0, 0.0)):  # solved once in four
        store.record_agent_attempt(
            AgentAttemptRow(
                eval_id="llm-big", task=child.id, round=1, attempt=attempt, reward=reward, ended="submitted",
                path=f"evals/llm-big/{child.id}/attempt-{attempt}", agent="llm", model="big",
            )
        )  # fmt: skip
    store.record_agent_attempt(  # a row of an older store: no agent, no model
        AgentAttemptRow(eval_id="oracle", task=child.id, round=1, attempt=0, reward=1.0, ended="done", path="x")
    )
    manifest = export_dataset(RunPaths(run), store, tmp_path / "out")

    metadata = tomllib.loads((tmp_path / "out" / child.id / "task.toml").read_text())["metadata"]
    assert metadata["solve_rate"] == {
        "llm-big": {"rate": 0.25, "agent": "llm", "model": "big", "k": 4},
        "oracle": {"rate": 1.0, "k": 1},
    }
    assert (metadata["difficulty"], metadata["difficulty_source"]) == ("medium", "llm-big")  # the most attempts
    seed = next(e for e in manifest if e["round"] == 0)
    assert (seed["difficulty"], seed["difficulty_source"]) == ("easy", "size")  # no agent ran on it
    lines = (tmp_path / "out" / "manifest.jsonl").read_text().splitlines()
    assert {json.loads(line)["difficulty_source"] for line in lines} == {"size", "llm-big"}
