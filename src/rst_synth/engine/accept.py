"""What acceptance writes into a task: the figures its validation measured, the time limits they
call for, the solver's solve rate where one ran, and the difficulty label computed from them."""

from __future__ import annotations

from rst_synth.proposers import Proposal
from rst_synth.task import Metrics, SolveRate, Task
from rst_synth.task.limits import realign_limits
from rst_synth.task.metrics import label_difficulty
from rst_synth.validator import ValidationReport


def record_figures(
    task: Task,
    report: ValidationReport,
    repairs: int,
    proposal: Proposal | None = None,
    *,
    parent: Task | None = None,
    solved: tuple[str, SolveRate] | None = None,
) -> None:
    """Write what validation measured into [metadata.metrics], realign the time limits to it (never
    below `parent`'s or the task's own), record the solver's rate (`solved`: its eval id and rate)
    and label the difficulty. A child's solve rates are its own: the ones it copied from `parent`
    are dropped; a seed keeps those it came with (they were measured on the same task)."""
    figures = report.figures
    usage = proposal.usage if proposal and proposal.usage.calls else None  # None: no model was called
    paid = {"tokens_in": usage.tokens_in, "tokens_out": usage.tokens_out, "cost_usd": usage.cost_usd} if usage else {}
    metadata = task.config.metadata
    metadata.metrics = Metrics.model_validate(
        {
            **figures.model_dump(),
            "repair_attempts": repairs,
            "tokens_in": None,
            "tokens_out": None,
            "cost_usd": None,
            **paid,
        }
    )
    realign_limits(task, figures, parent)
    rates = dict(metadata.solve_rate or {}) if parent is None else {}
    if solved is not None:
        rates[solved[0]] = solved[1]
    metadata.solve_rate = rates or None
    label_difficulty(metadata)
