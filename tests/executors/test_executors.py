"""The executor seam without a cluster: the registry, the keys the engine hands an executor, what a
worker node runs (on the fake sandbox), and the pruning of a dead worker's containers (real engine)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rst_synth.engine import Engine, SynthConfig
from rst_synth.executors import EXECUTORS, AgentSpec, LocalExecutor, WorkSpec, make_executor, task_digest
from rst_synth.executors.node import (
    OWNER_LABEL,
    STATE_ENV,
    NodeResult,
    node_options,
    owner_alive,
    owner_id,
    prune_dead_owners,
    run,
)
from rst_synth.store import RunPaths, Store
from rst_synth.task import Task
from rst_synth.validator import ValidationReport, Validator, ValidatorConfig
from tests.engine.test_engine_fake import fake_seeds
from tests.support.docker import our_containers
from tests.support.fakes import FakeProposer, FakeSandbox, touch_test
from tests.support.tasks import REPO, write_task

FAKE_BACKEND = "tests.support.fakes:FakeSandbox"


class RecordingExecutor(LocalExecutor):
    """The local executor, noting the key of every validation it is given."""

    def __init__(self, sandbox: FakeSandbox) -> None:
        super().__init__(sandbox)
        self.keys: list[str | None] = []

    async def validate(self, task: Task, parent: Task | None, *, key: str | None = None) -> ValidationReport:
        self.keys.append(key)
        return await super().validate(task, parent, key=key)


def test_executors_are_named_like_every_other_part() -> None:
    assert set(EXECUTORS) == {"local", "ray"}
    assert isinstance(make_executor("local", sandbox=FakeSandbox()), LocalExecutor)
    with pytest.raises(ValueError, match="unknown executor 'cloud'; known: local, ray"):
        make_executor("cloud")
    with pytest.raises(ValueError, match="executor local: unknown option 'address'"):
        make_executor("local", sandbox=FakeSandbox(), address="127.0.0.1:6379")


def test_the_engine_addresses_each_validation_by_the_candidates_stable_id(tmp_path: Path) -> None:
    sandbox = FakeSandbox()
    executor = RecordingExecutor(sandbox)
    paths = RunPaths(tmp_path / "run")
    paths.root.mkdir(parents=True)
    store = Store(paths.db)
    config = SynthConfig(seeds_dir=str(fake_seeds(tmp_path, 2)), rounds=1, fanout=1, repairs=1)
    engine = Engine(config, paths, store, FakeProposer(broken=True), Validator(sandbox), executor=executor)
    assert asyncio.run(engine.run()) == "done"
    # Seeds by their candidate id; a child's proposal and its repair as <id>/<attempt>.
    assert sorted(k or "" for k in executor.keys) == [
        "r00-seed0",
        "r00-seed1",
        "r01-seed0-0/0",
        "r01-seed0-0/1",
        "r01-seed1-0/0",
        "r01-seed1-0/1",
    ]
    assert len(store.tasks(1)) == 2


def test_a_task_travels_as_a_dict_and_is_addressed_by_its_content(tmp_path: Path) -> None:
    task = Task.load(write_task(tmp_path, name="t", solve="touch /app/x\n", tests={"test_x.py": touch_test("/app/x")}))
    again = Task.model_validate(task.model_dump())
    assert again == task and task_digest(again) == task_digest(task)
    again.files["solution/solve.sh"] += b"touch /app/y\n"
    assert task_digest(again) != task_digest(task)


def test_a_node_validates_and_answers_with_the_work_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(STATE_ENV, str(tmp_path / "state"))
    task = Task.load(write_task(tmp_path, name="t", solve="touch /app/x\n", tests={"test_x.py": touch_test("/app/x")}))
    spec = WorkSpec(backend=FAKE_BACKEND, validator=ValidatorConfig(determinism_runs=0))
    raw = run("validate", "r00-t", spec.model_dump(mode="json"), task.model_dump(), None, {}, node="n1")
    result = NodeResult.model_validate(raw)
    assert (result.key, result.node, result.error) == ("r00-t", "n1", None)
    assert result.owner == owner_id() and (tmp_path / "state" / "owners" / owner_id()).is_file()
    report = ValidationReport.model_validate(result.value)
    local = asyncio.run(Validator(FakeSandbox(), ValidatorConfig(determinism_runs=0)).validate(task, None))
    assert report.accepted and [c.verdict for c in report.checks] == [c.verdict for c in local.checks]


def test_an_owner_is_alive_while_its_process_runs() -> None:
    assert owner_alive(owner_id())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    dead = owner_id(child.pid)  # taken while it runs: its start tick is known
    child.wait()
    assert not owner_alive(dead)
    assert owner_alive("another-host.1.1"), "a lease of another host is not ours to judge"


def test_files_named_by_agent_options_travel_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "llm.toml"
    config.write_text('[llm]\nmodel = "m"\n')
    spec = AgentSpec.of("llm", {"model": "m", "llm_config_file": str(config), "cache_dir": "/driver/evals/llm-cache"})
    assert spec.files == {"llm_config_file": '[llm]\nmodel = "m"\n'} and "llm_config_file" not in spec.options
    monkeypatch.setenv(STATE_ENV, str(tmp_path / "node"))
    options = node_options(spec)
    assert Path(options["llm_config_file"]).read_text() == config.read_text()
    assert Path(options["llm_config_file"]).is_relative_to(tmp_path / "node")
    assert Path(options["cache_dir"]).is_relative_to(tmp_path / "node") and options["model"] == "m"


HOLDER = """
import asyncio, sys
from rst_synth.executors import WorkSpec
from rst_synth.executors.node import open_sandbox
from rst_synth.sandbox import Limits
from rst_synth.task import Task

async def main():
    sandbox = open_sandbox(WorkSpec())
    task = Task.load(sys.argv[1])
    info = await sandbox.ensure_image(task.files_under("environment"), task.environment_hash(), timeout=600)
    async with sandbox.container(info.tag, Limits()):
        print("up", flush=True)
        await asyncio.sleep(600)

asyncio.run(main())
"""


@pytest.mark.docker
def test_the_containers_of_a_killed_worker_are_pruned_by_the_next_work_on_its_node(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(STATE_ENV, str(tmp_path / "state"))
    task_dir = write_task(tmp_path, name="t", solve="touch /app/x\n", tests={"test_x.py": touch_test("/app/x")})
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(task_dir)], stdout=subprocess.PIPE, text=True, env=os.environ, cwd=REPO
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "up"
    owner = owner_id(holder.pid)
    holder.kill()  # kill -9: the worker cannot remove its container
    holder.wait()
    time.sleep(0.5)
    left = _owned(owner)
    assert left, "the killed worker's container should still be there"
    assert asyncio.run(prune_dead_owners("docker")) == len(left)
    assert not _owned(owner) and not (tmp_path / "state" / "owners" / owner).exists()


def _owned(owner: str) -> list[str]:
    ours = set(our_containers())
    out = subprocess.run(
        ["docker", "ps", "-aq", "--filter", f"label={OWNER_LABEL}={owner}"], capture_output=True, text=True, check=True
    )
    return [c for c in out.stdout.split() if c in ours]
