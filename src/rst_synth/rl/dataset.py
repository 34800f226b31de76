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
from rst_synth.export.sources import TaskEntry
from rst_synth.task import Task

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


def skyrl_row(entry: TaskEntry, *, max_turns: int = 40) -> dict[str, Any]:
    task = Task.load(entry.task_dir)
    return {
        "data_source": DATA_SOURCE,
        "prompt": rl_prompt(task, AttemptLimits(max_steps=max_turns)),
        "env_class": ENV_CLASS,
        "reward_spec": {"method": "rule", "ground_truth": entry.name},
        "extra_info": {
            "task_dir": str(entry.task_dir.resolve()),
            "task": entry.name,
            "round": entry.round,
            "root": entry.root,
            "max_turns": max_turns,
        },
    }
