"""What acceptance writes into a task: the figures its validation measured."""

from __future__ import annotations

from rst_synth.proposers import Proposal
from rst_synth.task import Metrics, Task
from rst_synth.task.metrics import difficulty
from rst_synth.validator import ValidationReport


def record_figures(task: Task, report: ValidationReport, repairs: int, proposal: Proposal | None = None) -> None:
    """Write what validation measured into [metadata.metrics], and the difficulty computed from it."""
    figures = report.figures
    usage = proposal.usage if proposal and proposal.usage.calls else None  # None: no model was called
    paid = {"tokens_in": usage.tokens_in, "tokens_out": usage.tokens_out, "cost_usd": usage.cost_usd} if usage else {}
    task.config.metadata.metrics = Metrics.model_validate(
        {
            **figures.model_dump(),
            "repair_attempts": repairs,
            "tokens_in": None,
            "tokens_out": None,
            "cost_usd": None,
            **paid,
        }
    )
    task.config.metadata.difficulty = difficulty(figures.executed_commands, figures.solution_lines)
