"""Where work that needs a container engine runs: a candidate's validation, a proposer's discovery
(proposers are given `discover` at construction) and an agent attempt (`rst eval`'s and the
solver's). The executor is the only road to a container: the driver (the engine, `rst eval`) hands
work to it and gets values back; only the driver writes the store and the run directory."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, Field

from rst_synth.agents import Agent, AttemptLimits, AttemptResult
from rst_synth.proposers.discovery import Discovery
from rst_synth.task import Task
from rst_synth.validator import ValidationReport, ValidatorConfig


@runtime_checkable
class Executor(Protocol):
    """Runs container work for a driver. `key` names the work stably (a candidate's id and attempt,
    an eval attempt), so a retried or resubmitted piece of work is recognised as the same."""

    name: str

    def capacity(self, kind: str) -> int | None:
        """How many pieces of work of `kind` ("validate", "attempt") it runs at once; None: as many as
        the caller's own limits let through."""
        ...

    async def validate(self, task: Task, parent: Task | None, *, key: str | None = None) -> ValidationReport:
        """The validator's report on `task` (novelty and the solver are the driver's)."""
        ...

    async def discover(self, parent: Task, *, key: str | None = None) -> Discovery:
        """What `parent`'s solution leaves behind (raises ProposalError or SandboxError as `discover`)."""
        ...

    async def attempt(
        self,
        task: Task,
        agent: Agent,
        *,
        attempt: int,
        seed: int,
        out_dir: Path,
        limits: AttemptLimits | None = None,
        key: str | None = None,
    ) -> AttemptResult:
        """One agent attempt; trajectory.json and result.json end up under `out_dir` on the driver."""
        ...

    async def close(self) -> None: ...


class AgentSpec(BaseModel):
    """An agent as a value a worker node can rebuild: the registry name and the factory's options.
    Files named by options (`llm_config_file`) travel as their content."""

    name: str
    options: dict[str, Any] = Field(default_factory=dict)
    files: dict[str, str] = Field(default_factory=dict)
    """Option name -> the content of the file the option named on the driver."""

    @classmethod
    def of(cls, name: str, options: dict[str, Any]) -> AgentSpec:
        files = {}
        for option in ("llm_config_file",):
            if options.get(option):
                files[option] = Path(str(options[option])).read_text(encoding="utf-8")
        return cls(name=name, options={k: v for k, v in options.items() if k not in files}, files=files)


class WorkSpec(BaseModel):
    """What a worker node needs besides the task to do the work: its sandbox backend, the labels that
    scope the containers, the validator's settings and the agent of an eval."""

    backend: str = "docker"
    labels: dict[str, str] = Field(default_factory=dict)
    validator: ValidatorConfig = Field(default_factory=ValidatorConfig)
    agent: AgentSpec | None = None


def task_digest(task: Task) -> str:
    """The content address of a task: equal tasks are sent to the cluster once."""
    digest = hashlib.sha256(task.config.model_dump_json().encode())
    digest.update(b"\0" + task.instruction.encode())
    for rel in sorted(task.files):
        digest.update(f"\0{rel}\0{'x' if rel in task.executable else '-'}\0{len(task.files[rel])}\0".encode())
        digest.update(task.files[rel])
    return digest.hexdigest()
