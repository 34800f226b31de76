"""A three-round lineage for the multi-step tests: the engine on the fake sandbox grows one seed for
three rounds at fanout 1 (real task directories: `touch` steps, tests that check the files exist),
so the round-3 task has four steps. Shared by the export, attempt, RL and Harbor interop tests."""

from __future__ import annotations

from pathlib import Path

from rst_synth.store import RunPaths, TaskRow
from tests.engine.test_engine_fake import fake_seeds, run_engine
from tests.support.fakes import FakeProposer

ROUNDS = 3


def three_round_run(root: Path) -> tuple[RunPaths, list[TaskRow]]:
    """The run (under root/run) and its tasks, seed first, one per round."""
    _, store = run_engine(root / "run", fake_seeds(root, 1), FakeProposer(), rounds=ROUNDS, fanout=1)
    try:
        rows = sorted(store.tasks(), key=lambda row: row.round)
    finally:
        store.close()
    assert [row.round for row in rows] == list(range(ROUNDS + 1))
    return RunPaths(root / "run"), rows
