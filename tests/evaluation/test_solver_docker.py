"""Solvability in synthesis: an agent attempts each accepted child; its solve rate is recorded,
labels the child's difficulty and becomes pass@k per round; --require-solvable rejects what it never
solved and --max-solve-rate what it solved too often."""

from __future__ import annotations

import asyncio
import json
import re
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from rst_synth.agents import make_agent
from rst_synth.engine import Engine, SynthConfig
from rst_synth.evaluation.passk import rounds_pass
from rst_synth.evaluation.solver import Solver
from rst_synth.executors import LocalExecutor
from rst_synth.report.html import write_report
from rst_synth.sandbox import make_sandbox
from rst_synth.store import RunPaths, Store
from rst_synth.task import SolveRate, Task
from rst_synth.validator import Validator, ValidatorConfig
from tests.engine.test_engine_fake import fake_seeds
from tests.support.cli import rst
from tests.support.fake_server import FakeOpenAI, Reply
from tests.support.fakes import FakeProposer
from tests.support.tasks import write_task

pytestmark = pytest.mark.docker


def solving(body: dict[str, Any]) -> Reply:
    """Touch every /app path the instruction names, then submit."""
    if any(m.get("role") == "assistant" for m in body["messages"]):
        return Reply(content=None, tool_calls=[("submit", "{}")])
    paths = [p.rstrip(".") for p in re.findall(r"/app/[\w.-]+", body["messages"][1]["content"])]
    return Reply(content=None, tool_calls=[("bash", json.dumps({"command": "touch " + " ".join(paths)}))])


def giving_up(body: dict[str, Any]) -> Reply:
    return Reply(content=None, tool_calls=[("submit", "{}")])


def synth_with_solver(tmp_path: Path, server: FakeOpenAI, require: bool) -> Store:
    run = tmp_path / "run"
    run.mkdir()
    config = SynthConfig(seeds_dir=str(fake_seeds(tmp_path, 1)), rounds=1, fanout=1, repairs=0)

    async def main() -> Store:
        sandbox = make_sandbox("docker")
        agent = make_agent("llm", model="fake-model", base_url=server.base_url)
        try:
            solver = Solver(agent, LocalExecutor(sandbox), k=2, out_dir=run / "solver", require=require)
            store = Store(RunPaths(run).db)
            await Engine(config, RunPaths(run), store, FakeProposer(), Validator(sandbox), solver=solver).run()
            return store
        finally:
            await agent.close()
            await sandbox.close()

    return asyncio.run(main())


def test_the_solve_rate_is_recorded_on_the_child(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.responder = solving
        store = synth_with_solver(tmp_path, server, require=True)
    (child,) = store.tasks(1)
    assert child.solve_rate == 1.0
    metrics = Task.load(tmp_path / "run" / child.path).config.metadata.metrics
    assert metrics is not None and metrics.solve_rate == 1.0
    assert len(list((tmp_path / "run" / "solver").glob("*/attempt-*/trajectory.json"))) == 2
    assert store.tasks(0)[0].solve_rate is None  # seeds are not attempted
    rows = store.agent_attempts("solver-fake-model")
    assert [(r.task, r.round, r.reward, r.agent, r.model) for r in rows] == [
        (child.id, 1, 1.0, "llm", "fake-model")
    ] * 2
    assert all((tmp_path / "run" / r.path / "trajectory.json").is_file() for r in rows)


def test_require_solvable_rejects_a_child_no_attempt_solved(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.responder = giving_up
        store = synth_with_solver(tmp_path, server, require=True)
    assert store.tasks(1) == []
    (candidate,) = store.candidates(1)
    assert (candidate.rejection_check, candidate.rejection_reason) == ("solvable", "unsolved")


def paths_named(body: dict[str, Any]) -> list[str]:
    return sorted({p.rstrip(".") for p in re.findall(r"/app/[\w.-]+", body["messages"][1]["content"])})


def chance(paths: int) -> float:
    """The scripted solver's chance on a task naming this many paths: 1 at two, a quarter less per path."""
    return max(0.0, 1.0 - 0.25 * (paths - 2))


class GradedSolver:
    """An endpoint whose agent solves a task (touching every path its instruction names) in
    round(k x chance) of its k attempts and gives up in the others: deterministic, whatever order
    the attempts run in, and harder the more paths a task names."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.started: Counter[str] = Counter()
        self._lock = threading.Lock()

    def __call__(self, body: dict[str, Any]) -> Reply:
        if any(m.get("role") == "assistant" for m in body["messages"]):
            return Reply(content=None, tool_calls=[("submit", "{}")])
        paths = paths_named(body)
        with self._lock:  # the server answers from several threads
            attempt = self.started[body["messages"][1]["content"]]
            self.started[body["messages"][1]["content"]] += 1
        if attempt >= round(self.k * chance(len(paths))):
            return Reply(content=None, tool_calls=[("submit", "{}")])
        return Reply(content=None, tool_calls=[("bash", json.dumps({"command": "touch " + " ".join(paths)}))])


def graded_seeds(root: Path) -> Path:
    """Two seeds: `one` names one path, `two` names two, so their children start a path apart."""
    seeds = root / "seeds"
    for name, made in (("one", ["/app/one"]), ("two", ["/app/two-a", "/app/two-b"])):
        checks = "".join(f'    assert Path("{path}").exists()\n' for path in made)
        write_task(
            seeds,
            name=name,
            solve="".join(f"touch {path}\n" for path in made),
            tests={"test_outputs.py": f"from pathlib import Path\n\n\ndef test_made():\n{checks}"},
            instruction=f"Create {' and '.join(made)}.\n",
        )
    return seeds


@pytest.mark.slow  # four rounds and 20 solver attempts in real containers
def test_the_solver_steers_the_recursion_into_the_band_and_pass_at_k_falls(tmp_path: Path) -> None:
    run, k = tmp_path / "run", 4
    run.mkdir()
    config = SynthConfig(seeds_dir=str(graded_seeds(tmp_path)), rounds=4, fanout=1, repairs=0)
    with FakeOpenAI() as server:
        server.responder = GradedSolver(k)

        async def main() -> Store:
            sandbox = make_sandbox("docker")
            agent = make_agent("llm", model="fake-model", base_url=server.base_url)
            try:
                solver = Solver(agent, LocalExecutor(sandbox), k=k, out_dir=run / "solver", max_rate=0.75)
                store = Store(RunPaths(run).db)
                # The validator's own checks are tested elsewhere: here only the oracle, nop and parent.
                validator = Validator(sandbox, ValidatorConfig(determinism_runs=0, quality=False))
                await Engine(config, RunPaths(run), store, FakeProposer(), validator, solver=solver).run()
                return store
            finally:
                await agent.close()
                await sandbox.close()

        store = asyncio.run(main())

    # Round 1: `one`'s child names 2 paths and is solved in 4 of 4 attempts, more than 0.75: too easy.
    rejected = [c for c in store.candidates() if c.status == "rejected"]
    assert [(c.parent_id, c.rejection_check, c.rejection_reason) for c in rejected] == [("one", "solvable", "too_easy")]
    assert "solved 4 of 4" in (rejected[0].detail or "")
    # `two`'s lineage goes on: 3, 4, 5 and 6 paths, solved in 3, 2, 1 and 0 of 4; each label follows its rate.
    lineage = [store.tasks(r) for r in range(1, 5)]
    assert [len(tasks) for tasks in lineage] == [1, 1, 1, 1]
    labels = []
    for (row,) in lineage:
        task = Task.load(run / row.path)
        metadata = task.config.metadata
        assert metadata.solve_rate == {
            "solver-fake-model": SolveRate(rate=row.solve_rate, agent="llm", model="fake-model", k=k)
        }
        labels.append((row.solve_rate, metadata.difficulty, metadata.difficulty_source))
        parent_row = store.task(row.parent_id or "")
        assert parent_row is not None
        parent = Task.load(run / parent_row.path)
        assert task.config.agent.timeout_sec >= (parent.config.agent.timeout_sec or 0) > 60  # realigned, never lower
    assert labels == [
        (0.75, "easy", "solver-fake-model"),
        (0.5, "medium", "solver-fake-model"),
        (0.25, "medium", "solver-fake-model"),
        (0.0, "hard", "solver-fake-model"),
    ]

    # pass@k per round from the store, as `rst stats` computes it: it falls round by round.
    rows = store.agent_attempts("solver-fake-model")
    per_round = {r.round: r for r in rounds_pass(rows, k)}
    assert [per_round[r].pass_at[1] for r in (1, 2, 3, 4)] == [0.75, 0.5, 0.25, 0.0]
    assert [per_round[r].pass_at[4] for r in (1, 2, 3, 4)] == [1.0, 1.0, 1.0, 0.0]
    stats = rst("stats", str(run))
    assert stats.returncode == 0 and "solver-fake-model: pass@k per round" in stats.stdout, stats.stderr
    # `rst report` shows it, in its table and its pass@k figure.
    index = write_report(RunPaths(run), store, tmp_path / "report")
    assert "solver-fake-model" in index.read_text() and (tmp_path / "report" / "img" / "passk.png").is_file()
