"""The prompt of an RL episode, and SkyRL's dataset rows (`rst collect --format skyrl`).

A row is what SkyRL's generator reads: `prompt` (the chat an episode starts from), `env_class` (the
registered environment, ours `rst_terminal`), `reward_spec` and `extra_info`, whose `task_dir` tells
the environment which task to start. The reward comes from the task's tests, not from
`reward_spec` (which names the task for the record).
"""

from __future__ import annotations

import re
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from rst_synth.agents import AttemptLimits
from rst_synth.agents.steps import credit_keys, load_task_dir, step_view, task_steps
from rst_synth.task import Task
from rst_synth.task.entry import TaskEntry

ENV_CLASS = "rst_terminal"
DATA_SOURCE = "rst-synth"
_WORKDIR = re.compile(r"^\s*WORKDIR\s+(\S+)\s*$", re.IGNORECASE | re.MULTILINE)
_templates = Environment(
    loader=PackageLoader("rst_synth.agents", "templates"), undefined=StrictUndefined, keep_trailing_newline=True
)


def workdir_of(dockerfile: str) -> str:
    """Where commands start: the image's last absolute WORKDIR, else / (Docker's default)."""
    found = [w for w in _WORKDIR.findall(dockerfile) if w.startswith("/")]
    return found[-1] if found else "/"


def rl_prompt(task: Task, limits: AttemptLimits) -> list[dict[str, str]]:
    """The llm agent's text-mode system prompt (one fenced bash block a turn) and the instruction."""
    system = _templates.get_template("system.j2").render(
        mode="text",
        workdir=workdir_of(task.dockerfile),
        command_timeout=f"{limits.command_timeout_sec:g}",
        max_steps=limits.max_steps,
    )
    return [{"role": "system", "content": system}, {"role": "user", "content": task.instruction}]


def skyrl_row(entry: TaskEntry, *, max_turns: int | None = None) -> dict[str, Any]:
    """One RL row. A multi-step task's prompt is its first step's, `extra_info.task_steps` lists its
    steps and `per_step_reward` is true: the episode gives each step's reward as the agent ends it
    (rl/session.py). A flat task's `task_steps` are the per-step credit keys its reward.json
    reports, where it has them; its episode's reward comes at the end."""
    task = load_task_dir(entry.task_dir)
    steps = task_steps(task)
    first = step_view(task, steps[0]) if steps else task
    return {
        "data_source": DATA_SOURCE,
        "prompt": rl_prompt(first, AttemptLimits(max_steps=max_turns)),
        "env_class": ENV_CLASS,
        "reward_spec": {"method": "rule", "ground_truth": entry.name},
        "extra_info": {
            "task_dir": str(entry.task_dir.resolve()),
            "task": entry.name,
            "round": entry.round,
            "root": entry.root,
            **({"max_turns": max_turns} if max_turns else {}),
            "task_steps": [step.name for step in steps] or credit_keys(task),
            "per_step_reward": bool(steps),
        },
    }
