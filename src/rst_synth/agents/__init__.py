"""Agents on the corpus: an Agent works a task in a fresh container of its image; the task's tests
then run exactly as in validation. Built in: `oracle`, `nop` and the terminal agent `llm`."""

from typing import Any

from rst_synth.agents.atif import SCHEMA_VERSION, Trajectory, TrajectoryRecorder
from rst_synth.agents.attempt import RESULT, TRAJECTORY, run_attempt
from rst_synth.agents.base import Agent, AttemptLimits, AttemptResult, Ended, Shell
from rst_synth.registry import resolve

AGENTS: dict[str, str] = {
    "oracle": "rst_synth.agents.builtin:make_oracle",
    "nop": "rst_synth.agents.builtin:make_nop",
    "llm": "rst_synth.agents.terminal:make_terminal_agent",
}
"""Built-in agents by short name; `make_agent` also takes any dotted path `package.module:factory`.
A factory takes the endpoint keywords (`model`, `base_url`, `llm_config_file`, `cache_dir`) and its
own options; agents without a model ignore them."""


def make_agent(name: str, **options: Any) -> Agent:
    """An agent by short name or dotted path; ValueError (one line) on a bad name or option."""
    agent: Agent = resolve("agent", name, AGENTS)(**options)
    return agent


__all__ = [
    "AGENTS",
    "RESULT",
    "SCHEMA_VERSION",
    "TRAJECTORY",
    "Agent",
    "AttemptLimits",
    "AttemptResult",
    "Ended",
    "Shell",
    "Trajectory",
    "TrajectoryRecorder",
    "make_agent",
    "run_attempt",
]
