"""Mean per-step credit per round beside pass@k: in `run_stats` and in `rst stats`."""

from __future__ import annotations

from pathlib import Path

from rst_synth.report import run_stats
from rst_synth.report.stats import attempt_credit, step_credit
from rst_synth.store import AgentAttemptRow
from tests.engine.test_engine_fake import fake_seeds, run_engine
from tests.support.cli import rst
from tests.support.fakes import FakeProposer


def row(task: str, round_: int, attempt: int, reward: float, steps: dict[str, float | None] | None) -> AgentAttemptRow:
    return AgentAttemptRow(
        eval_id="llm-m", task=task, round=round_, attempt=attempt, reward=reward, ended="submitted",
        path=f"evals/llm-m/{task}/attempt-{attempt}", agent="llm", model="m", step_rewards=steps,
    )  # fmt: skip


def test_credit_is_the_mean_of_the_steps_and_a_step_the_gate_stopped_counts_zero() -> None:
    gated = row("t", 2, 0, 0.5, {"r0-s": 1.0, "r1-a": 0.0, "r2-b": None})
    assert attempt_credit(gated) == 1 / 3  # Harbor's mean (0.5) counts only the steps that ran
    assert attempt_credit(row("t", 2, 1, 1.0, None)) is None
    rows = [gated, row("t", 2, 1, 1.0, {"r0-s": 1.0, "r1-a": 1.0, "r2-b": 1.0}), row("u", 1, 0, 0.0, None)]
    assert step_credit(rows) == {2: (1 / 3 + 1.0) / 2}  # round 1 has no attempt with steps


def test_rst_stats_shows_step_credit_beside_pass_at_k(tmp_path: Path) -> None:
    run = tmp_path / "run"
    _, store = run_engine(run, fake_seeds(tmp_path, 1), FakeProposer(), rounds=1, fanout=1)
    child = store.tasks(1)[0]
    store.record_agent_attempt(row(child.id, 1, 0, 0.0, {"r0-seed0": 1.0, "r1-touch": 0.5}))
    store.record_agent_attempt(row(child.id, 1, 1, 1.0, {"r0-seed0": 1.0, "r1-touch": 1.0}))
    stats = {s.round: s for s in run_stats(store)}
    store.close()
    assert stats[1].step_credit == {"llm-m": 0.875} and stats[0].step_credit == {}
    result = rst("stats", str(run))
    assert result.returncode == 0, result.stderr
    table = result.stdout[result.stdout.index("llm-m: pass@k per round") :]
    assert "step credit" in table and "0.875" in table
