"""Solvability in synthesis: an agent attempts each accepted child; its solve rate is recorded and
--require-solvable rejects what it never solved."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from rst_synth.agents import make_agent
from rst_synth.engine import Engine, SynthConfig
from rst_synth.engine.solver import Solver
from rst_synth.sandbox import make_sandbox
from rst_synth.store import RunPaths, Store
from rst_synth.task import Task
from rst_synth.validator import Validator
from tests.engine.test_engine_fake import fake_seeds
from tests.support.fake_server import FakeOpenAI, Reply
from tests.support.fakes import FakeProposer

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
            solver = Solver(agent, sandbox, k=2, out_dir=run / "solver", require=require)
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


def test_require_solvable_rejects_a_child_no_attempt_solved(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.responder = giving_up
        store = synth_with_solver(tmp_path, server, require=True)
    assert store.tasks(1) == []
    (candidate,) = store.candidates(1)
    assert (candidate.rejection_check, candidate.rejection_reason) == ("solvable", "unsolved")
