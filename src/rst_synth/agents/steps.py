"""Multi-step tasks (Harbor's `[[steps]]`) as an attempt works them, and the per-step credit of a
flat task's verifier.

A multi-step task directory holds task.toml with one `[[steps]]` entry per step, `environment/`,
and per step `steps/<name>/` with `instruction.md`, `solution/solve.sh` and `tests/test.sh`; the
root `instruction.md`, `solution/` and `tests/` are absent (Harbor's layout, which `rst export
--multi-step` writes). Every step works in the one container. Before a step's verifier runs, Harbor
copies the root `tests/` (where there is one) and then the step's own into /tests; so do we. A step
with `min_reward` whose reward falls short ends the attempt (Harbor's gate), and the attempt's reward
is the mean of the steps' rewards that ran, or the last one's (`multi_step_reward_strategy`).

A flat task can report per-step credit too: its verifier then writes /logs/verifier/reward.json with
the overall `reward` and one key per step, and `[metadata].step_credit` in task.toml names those keys.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rst_synth.task import Task, TaskConfig, TaskFormatError, TaskPaths
from rst_synth.task.task import read_tree

STEPS_DIR = "steps"
STEP_CREDIT = "step_credit"
"""The [metadata] key listing the step keys a flat task's reward.json carries."""
RewardStrategy = Literal["mean", "final"]
STRATEGIES: tuple[RewardStrategy, ...] = ("mean", "final")


class StepTable(BaseModel):
    """One `[[steps]]` entry of task.toml, as far as an attempt uses it (other keys are kept)."""

    model_config = ConfigDict(extra="allow")

    name: str = Field(min_length=1)
    min_reward: float | dict[str, float] | None = None
    """The gate: the attempt ends after this step when its reward is below it (a table gates on its
    `reward` key, the only key our verifiers' rewards have)."""
    agent: dict[str, Any] = Field(default_factory=dict)
    verifier: dict[str, Any] = Field(default_factory=dict)

    @property
    def gate(self) -> float | None:
        if isinstance(self.min_reward, dict):
            return self.min_reward.get("reward")
        return self.min_reward


def task_steps(task: Task) -> list[StepTable]:
    """The task's steps in order; [] for a flat task."""
    raw = (task.config.model_extra or {}).get("steps") or []
    return [StepTable.model_validate(entry) for entry in raw]


def reward_strategy(task: Task) -> RewardStrategy:
    """How the steps' rewards make the attempt's: Harbor's default is the mean."""
    value = (task.config.model_extra or {}).get("multi_step_reward_strategy")
    return "final" if value == "final" else "mean"


def attempt_reward(rewards: list[float], strategy: RewardStrategy) -> float:
    """Harbor's trial reward over the steps that ran: their mean, or the last one's."""
    if not rewards:
        return 0.0
    return rewards[-1] if strategy == "final" else sum(rewards) / len(rewards)


def step_path(name: str, relative: str = "") -> str:
    """steps/<name>/<relative>, relative to the task directory."""
    return f"{STEPS_DIR}/{name}/{relative}".rstrip("/")


def step_tests(task: Task, step: StepTable) -> dict[str, bytes]:
    """What goes to /tests before the step's verifier: the root tests/, then the step's own over it."""
    return {**task.files_under(TaskPaths.TESTS_DIR), **task.files_under(step_path(step.name, TaskPaths.TESTS_DIR))}


def step_view(task: Task, step: StepTable) -> Task:
    """The task as an agent sees it during `step`: the step's instruction, the shared environment,
    the step's solution as solution/ (what the oracle runs) and its agent time limit."""
    solution = step_path(step.name, TaskPaths.SOLUTION_DIR)
    files = {rel: body for rel, body in task.files.items() if rel.startswith(f"{TaskPaths.ENVIRONMENT_DIR}/")}
    executable = {rel for rel in task.executable if rel in files}
    for rel, body in task.files_under(solution).items():
        files[f"{TaskPaths.SOLUTION_DIR}/{rel}"] = body
        if f"{solution}/{rel}" in task.executable:
            executable.add(f"{TaskPaths.SOLUTION_DIR}/{rel}")
    config = task.config.model_copy(deep=True)
    if step.agent.get("timeout_sec"):
        config.agent.timeout_sec = float(step.agent["timeout_sec"])
    return Task(
        config=config,
        instruction=task.text(step_path(step.name, TaskPaths.INSTRUCTION)),
        files=files,
        executable=executable,
        source_dir=task.source_dir,
    )


def step_verifier_timeout(task: Task, step: StepTable) -> float:
    return float(step.verifier.get("timeout_sec") or task.config.verifier.timeout_sec)


def load_task_dir(directory: Path | str) -> Task:
    """A task directory, flat (`Task.load`) or multi-step: then `instruction` is the first step's,
    and every step must have its instruction and a test.sh (its own or the root's); one
    TaskFormatError line otherwise."""
    root = Path(directory)
    config_path = root / TaskPaths.CONFIG
    try:
        steps = tomllib.loads(config_path.read_text(encoding="utf-8")).get("steps")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        steps = None  # Task.load names the problem
    if not steps:
        return Task.load(root)
    files, executable = read_tree(root)
    config = TaskConfig.from_toml(files.pop(TaskPaths.CONFIG).decode("utf-8", errors="replace"), config_path)
    files.pop(TaskPaths.INSTRUCTION, None)  # Harbor never shows a root instruction of a multi-step task
    task = Task(config=config, instruction="", files=files, executable=executable - {TaskPaths.CONFIG}, source_dir=root)
    try:
        tables = task_steps(task)
    except ValidationError as exc:
        raise TaskFormatError(config_path, f"[[steps]]: {exc.errors()[0]['msg']}") from None
    if TaskPaths.DOCKERFILE not in files:
        raise TaskFormatError(root / TaskPaths.DOCKERFILE, "missing required file")
    for step in tables:
        for required in (TaskPaths.INSTRUCTION, TaskPaths.TEST_SH):
            here = step_path(step.name, required)
            if here not in files and not (required == TaskPaths.TEST_SH and required in files):
                raise TaskFormatError(root / here, f"missing required file of step {step.name!r}")
    task.instruction = task.text(step_path(tables[0].name, TaskPaths.INSTRUCTION))
    return task


def credit_keys(task: Task) -> list[str]:
    """The step keys a flat task's reward.json carries beside `reward` ([metadata].step_credit)."""
    keys = (task.config.metadata.model_extra or {}).get(STEP_CREDIT) or []
    return [str(key) for key in keys]
