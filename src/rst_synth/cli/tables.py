"""What the commands print (rich): the tables of rounds, quality checks, steps, pass@k per round or per
task, and the progress bars of long work."""

from __future__ import annotations

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from rst_synth.cli.common import console
from rst_synth.evaluation.passk import RoundPass, k_values, rounds_pass
from rst_synth.report import CHECKS, QUALITY_CHECKS, RoundStats
from rst_synth.report.stats import step_credit
from rst_synth.store import AgentAttemptRow

_CHECK_SHORT = {"determinism": "determ"}


def progress_bars(counts: str, *, disable: bool = False) -> Progress:
    """Bars of long work: the bar's name, the bar, done of planned, `counts` (a rich template of the
    bar's fields) and the time it took; `disable` shows none (for --json)."""
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn(counts))
    return Progress(*columns, TimeElapsedColumn(), console=console, disable=disable)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _num(value: float | None, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def stats_table(stats: list[RoundStats], title: str = "rounds") -> Table:
    """Per round: counts, yield, each check's pass rate and, where the second solution ran, the share of
    candidates it passed for ("2nd sol."); then the medians and the spend."""
    table = Table(title=title)
    for column in ("round", "status", "cand.", "acc.", "yield"):
        table.add_column(column, justify="right" if column != "status" else "left")
    for check in CHECKS:
        table.add_column(_CHECK_SHORT.get(check, check), justify="right")
    second = any(s.second_solution_share is not None for s in stats)
    if second:
        table.add_column("2nd sol.", justify="right")
    for column in ("med. lines", "med. cmds", "med. oracle s", "tokens/acc.", "$/acc."):
        table.add_column(column, justify="right")
    for s in stats:
        table.add_row(
            str(s.round),
            s.status,
            str(s.candidates),
            str(s.accepted),
            _pct(s.yield_rate),
            *(_pct(s.pass_rates.get(check)) for check in CHECKS),
            *([_pct(s.second_solution_share)] if second else []),
            _num(s.median_solution_lines, 1),
            _num(s.median_executed_commands, 1),
            _num(s.median_oracle_sec, 2),
            _num(s.tokens_per_accepted),
            "-" if s.cost_per_accepted is None else f"{s.cost_per_accepted:.4f}",
        )
    return table


def stage_table(stats: list[RoundStats], title: str = "tokens per accepted task, by stage") -> Table:
    """Per round: the model tokens per accepted task each candidate stage spent (propose, repair, the
    second solution, attempts that made no candidate)."""
    stages = sorted({k for s in stats for k in s.stage_tokens_per_accepted})
    table = Table(title=title)
    table.add_column("round", justify="right")
    for stage in stages:
        table.add_column(stage, justify="right")
    for s in stats:
        table.add_row(str(s.round), *(_num(s.stage_tokens_per_accepted.get(k)) for k in stages))
    return table


CHAT_STAGES = ("extend", "realign_tests", "realign_instruction", "repair", "reask", "second_solution")
"""The llm proposer's chat stages in the order a candidate meets them; others (a proposer's own) follow."""


def chat_stage_table(stats: list[RoundStats], title: str = "tokens per accepted task, by chat stage") -> Table:
    """Per round: the prompt and completion tokens per accepted task each chat stage spent."""
    seen = {k for s in stats for k in s.chat_stage_tokens_per_accepted}
    stages = [k for k in CHAT_STAGES if k in seen] + sorted(seen - set(CHAT_STAGES))
    table = Table(title=title)
    table.add_column("round", justify="right")
    for stage in stages:
        table.add_column(f"{stage}\nin / out", justify="right")
    for s in stats:
        cells = []
        for stage in stages:
            tokens = s.chat_stage_tokens_per_accepted.get(stage)
            cells.append("-" if tokens is None else f"{_num(tokens.tokens_in)} / {_num(tokens.tokens_out)}")
        table.add_row(str(s.round), *cells)
    return table


def quality_table(stats: list[RoundStats], title: str = "quality checks") -> Table:
    """Per round and quality check: candidates it rejected, and its pass rate over the attempts it
    ran in; then the median kill rate of the accepted tasks."""
    table = Table(title=title)
    table.add_column("round", justify="right")
    for check in QUALITY_CHECKS:
        table.add_column(f"{check}\nrejected (pass)", justify="right")
    table.add_column("med. kill rate", justify="right")
    for s in stats:
        table.add_row(
            str(s.round),
            *(f"{s.quality_rejections.get(c, 0)} ({_pct(s.pass_rates.get(c))})" for c in QUALITY_CHECKS),
            _pct(s.median_kill_rate),
        )
    return table


def steps_table(stats: list[RoundStats], title: str = "steps") -> Table:
    """Per round: the bookkeeping share of the lineages' steps and the operators the new steps used."""
    table = Table(title=title)
    for column in ("round", "bookkeeping", "operators", "most used"):
        table.add_column(column, justify="right" if column != "most used" else "left")
    for s in stats:
        top = ", ".join(f"{name} {n}" for name, n in list(s.operators.items())[:4])
        table.add_row(str(s.round), _pct(s.bookkeeping_share), str(len(s.operators)), top or "-")
    return table


def pass_table(
    results: list[RoundPass],
    k: int,
    title: str,
    labels: list[str] | None = None,
    credit: list[float | None] | None = None,
) -> Table:
    """pass@k per round, or per task when `labels` names each row; with `credit`, each row's mean
    per-step credit beside it (where a task has steps)."""
    table = Table(title=title)
    head = ["task"] if labels else ["round", "tasks"]
    tail = ["step credit"] if credit is not None else []
    for column in (*head, "attempts", "successes", *(f"pass@{kk}" for kk in k_values(k)), *tail):
        table.add_column(column, justify="left" if column == "task" else "right")
    for index, r in enumerate(results):
        first = [labels[index]] if labels else [str(r.round), str(r.tasks)]
        shown = credit[index] if credit is not None else None
        table.add_row(
            *first,
            str(r.attempts),
            str(r.successes),
            *(f"{r.pass_at[kk]:.3f}" if kk in r.pass_at else "-" for kk in k_values(k)),
            *(["-" if shown is None else f"{shown:.3f}"] if credit is not None else []),
        )
    return table


def credit_column(rows: list[AgentAttemptRow], results: list[RoundPass]) -> list[float | None] | None:
    """The step credit of each round of `results`, or None when no attempt has per-step rewards."""
    credit = step_credit(rows)
    return [credit.get(r.round) for r in results] if credit else None


def print_evals(rows: list[AgentAttemptRow]) -> None:
    """pass@1 and pass@k per round of every agent evaluated on the run (`rst eval RUN`), with the
    mean per-step credit beside them where the attempts have per-step rewards."""
    for name in sorted({row.eval_id for row in rows}):
        mine = [row for row in rows if row.eval_id == name]
        k = max(sum(1 for r in mine if r.task == row.task) for row in mine)
        rounds = rounds_pass(mine, k)
        console.print(pass_table(rounds, k, title=f"{name}: pass@k per round", credit=credit_column(mine, rounds)))
