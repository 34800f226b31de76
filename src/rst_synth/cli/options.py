"""The options several commands share, declared once: typer reads each from its Annotated type."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rst_synth.agents.steps import STRATEGIES, RewardStrategy
from rst_synth.cli.common import fail

Backend = Annotated[str, typer.Option(help="Sandbox backend.")]
RunDir = Annotated[Path, typer.Argument(help="A run directory made by `rst synth`.")]
Jobs = Annotated[int, typer.Option("-j", "--jobs", min=1, help="Tasks validated concurrently.")]
AsJson = Annotated[bool, typer.Option("--json", help="Print the results as JSON.")]
ExecutorName = Annotated[str, typer.Option(help="Where container work runs: local (this process) or ray (a cluster).")]
RayAddress = Annotated[
    str | None, typer.Option(help="--executor ray: the cluster's address (default: start a local Ray instance).")
]
MultiStep = Annotated[
    bool, typer.Option("--multi-step", help="Each task as a Harbor multi-step task: one step per round.")
]
RewardStrategyName = Annotated[
    str,
    typer.Option("--reward-strategy", help="--multi-step: the task's reward from its steps' (mean or final)."),
]
ImportOut = Annotated[
    Path,
    typer.Option("--out", "-o", file_okay=False, help="Directory to write the tasks to, one OUT/<task dir name> each."),
]
Force = Annotated[bool, typer.Option("--force", help="Replace tasks already in OUT.")]
# The endpoint of the llm proposer (synth, extend) and of the llm agent (eval): the same three options.
ProposerModel = Annotated[str | None, typer.Option(help="llm proposer: model name (or RST_LLM_MODEL).")]
ProposerBaseUrl = Annotated[
    str | None, typer.Option(help="llm proposer: OpenAI-compatible endpoint (or RST_LLM_BASE_URL).")
]
ProposerLLMConfig = Annotated[
    Path | None, typer.Option(help="llm proposer: TOML file with an \\[llm] table (prices, retries, ...).")
]
ProposerInstruction = Annotated[
    str | None,
    typer.Option(
        help="llm proposer: rewrite the whole instruction for each child (rewrite, the default) or append a "
        "paragraph to the parent's (addendum)."
    ),
]
AgentModel = Annotated[str | None, typer.Option(help="llm agent: model name (or RST_LLM_MODEL).")]
AgentBaseUrl = Annotated[str | None, typer.Option(help="llm agent: OpenAI-compatible endpoint.")]
AgentLLMConfig = Annotated[Path | None, typer.Option(help="llm agent: TOML file with an \\[llm] table.")]


def endpoint(model: str | None, base_url: str | None, llm_config: Path | None) -> dict[str, str]:
    """The endpoint keywords a proposer or agent factory takes, for the options given."""
    given = {"model": model, "base_url": base_url, "llm_config_file": str(llm_config.resolve()) if llm_config else None}
    return {key: value for key, value in given.items() if value}


def reward_strategy(name: str) -> RewardStrategy:
    """--reward-strategy as its value, or one error line."""
    if name not in STRATEGIES:
        raise fail(f"--reward-strategy {name!r}: choose from {', '.join(STRATEGIES)}")
    return "final" if name == "final" else "mean"
