"""`rst report`: a run as a static site that opens from disk (no server, no script): index.html with
the per-round table and figures (PNG files in img/), the agents' pass@k, rejections, the slowest and
most-rejected candidates and a lineage browser; and one page per task under tasks/ with its
instruction, figures and the diff of its solution against its parent's."""

from __future__ import annotations

import difflib
import hashlib
import re
import statistics
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, PackageLoader, StrictUndefined

from rst_synth.evaluation.passk import RoundPass, rounds_pass
from rst_synth.report import charts
from rst_synth.report.plot import plot_rounds
from rst_synth.report.stats import CHECKS, RoundStats, run_stats
from rst_synth.store import AgentAttemptRow, RunPaths, Store, TaskRow
from rst_synth.task import Figures, TaskPaths

IMG = "img"
TASKS = "tasks"


@dataclass
class Spread:
    """Quartiles of one figure over a round's accepted tasks."""

    q1: float
    median: float
    q3: float


@dataclass
class TaskNode:
    row: TaskRow
    page: str
    """Its page, relative to the report's folder."""
    children: list[TaskNode] = field(default_factory=list)


@dataclass
class EvalSummary:
    name: str
    k: int
    rounds: list[RoundPass]


@dataclass
class DiffLine:
    kind: str
    """add, del, hunk, file or same: the line's CSS class."""
    text: str


def write_report(paths: RunPaths, store: Store, out: Path, *, lineage_limit: int = 1000, top: int = 15) -> Path:
    """Write the report of the run in `paths` into `out` (created); returns out/index.html.

    At most `lineage_limit` tasks get a page: whole lineages, the deepest first, taken in turn from
    each root seed; `top` is the length of the slowest and most-rejected candidate tables."""
    out.mkdir(parents=True, exist_ok=True)
    for stale in [*(out / IMG).glob("*.png"), *(out / TASKS).glob("*.html")]:  # from an earlier report here
        stale.unlink()
    stats = run_stats(store)
    rounds = [s.round for s in stats]
    figures = {r: _round_figures(store, r) for r in rounds}
    attempts = store.agent_attempts()
    evals = _evals(attempts)
    rejections = _rejections(stats)
    tasks = store.tasks()
    by_id = {t.id: t for t in tasks}
    nodes = _lineage(tasks, _chosen(tasks, lineage_limit))
    images = _draw(stats, figures, evals, rejections, out / IMG, title=f"run {paths.root.name}")
    env = _environment()
    solved = _solved(attempts)
    for node in nodes.values():
        parent_row = by_id.get(node.row.parent_id or "")
        page = env.get_template("task.html.j2").render(
            run=paths.root.name,
            node=node,
            chain=_chain(node, nodes),
            parent=nodes.get(node.row.parent_id or ""),
            parent_row=parent_row,
            instruction=_read(paths.root / node.row.path / TaskPaths.INSTRUCTION),
            diff=_solution_diff(paths.root, node.row, parent_row),
            figure_names=list(Figures.model_fields),
            solved=solved.get(node.row.id, {}),
        )
        (out / node.page).parent.mkdir(parents=True, exist_ok=True)
        (out / node.page).write_text(page)
    index = out / "index.html"
    index.write_text(
        env.get_template("index.html.j2").render(
            run=paths.root.name,
            generated=time.strftime("%Y-%m-%d %H:%M"),
            stats=stats,
            checks=_checks_that_ran(stats),
            second=any(s.second_solution_share is not None for s in stats),
            spreads={r: {k: _spread(v) for k, v in f.items()} for r, f in figures.items()},
            totals=_totals(stats),
            images=images,
            evals=evals,
            rejections=rejections,
            slowest=store.candidate_effort("seconds", top),
            most_rejected=[r for r in store.candidate_effort("rejected", top) if r["rejected"]],
            roots=[n for n in nodes.values() if n.row.parent_id is None or n.row.parent_id not in nodes],
            pages={task_id: node.page for task_id, node in nodes.items()},
            shown=len(nodes),
            total_tasks=len(tasks),
        )
    )
    return index


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("rst_synth.report", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pct"] = lambda v: "-" if v is None else f"{100 * v:.0f}%"
    env.filters["num"] = lambda v, digits=1: "-" if v is None else f"{v:.{digits}f}"
    return env


def _round_figures(store: Store, round_: int) -> dict[str, list[float]]:
    rows = store.task_figures(round_)
    return {key: [float(r[key]) for r in rows if r[key] is not None] for key in ("solution_lines", "executed_commands")}


def _spread(values: list[float]) -> Spread | None:
    if not values:
        return None
    if len(values) == 1:
        return Spread(q1=values[0], median=values[0], q3=values[0])
    q1, median, q3 = statistics.quantiles(values, n=4, method="inclusive")
    return Spread(q1=q1, median=median, q3=q3)


def _checks_that_ran(stats: list[RoundStats]) -> list[str]:
    """The validator's checks in their order, then any other check (quality checks) with a pass rate."""
    ran = {check for s in stats for check, rate in s.pass_rates.items() if rate is not None}
    return [c for c in CHECKS if c in ran] + sorted(ran - set(CHECKS))


def _totals(stats: list[RoundStats]) -> dict[str, float]:
    accepted = sum(s.accepted for s in stats)
    cost = sum(s.cost_usd for s in stats)
    return {
        "rounds": len(stats),
        "candidates": sum(s.candidates for s in stats),
        "accepted": accepted,
        "rejected": sum(s.rejected for s in stats),
        "errors": sum(s.errors for s in stats),
        "cost_usd": cost,
        "cost_per_accepted": cost / accepted if accepted else 0.0,
    }


def _evals(rows: list[AgentAttemptRow]) -> list[EvalSummary]:
    """pass@k per round of every agent evaluated on the run; k = the most attempts any task has."""
    by_eval: dict[str, list[AgentAttemptRow]] = defaultdict(list)
    for row in rows:
        by_eval[row.eval_id].append(row)
    summaries = []
    for name, mine in sorted(by_eval.items()):
        per_task: dict[str, int] = defaultdict(int)
        for row in mine:
            per_task[row.task] += 1
        k = max(per_task.values())
        summaries.append(EvalSummary(name=name, k=k, rounds=rounds_pass(mine, k)))
    return summaries


def _solved(rows: list[AgentAttemptRow]) -> dict[str, dict[str, tuple[int, int]]]:
    """task -> eval -> (attempts solved, attempts)."""
    out: dict[str, dict[str, tuple[int, int]]] = defaultdict(dict)
    for row in rows:
        solved, total = out[row.task].get(row.eval_id, (0, 0))
        out[row.task][row.eval_id] = (solved + int(row.reward >= 1.0), total + 1)
    return out


def _rejections(stats: list[RoundStats]) -> dict[str, dict[int, int]]:
    """`check:reason` -> round -> rejected candidates, most frequent first (the store's pairs as they are)."""
    table: dict[str, dict[int, int]] = defaultdict(dict)
    for s in stats:
        for key, n in s.rejections.items():
            table[key][s.round] = n
    return dict(sorted(table.items(), key=lambda item: (-sum(item[1].values()), item[0])))


def _draw(
    stats: list[RoundStats],
    figures: dict[int, dict[str, list[float]]],
    evals: list[EvalSummary],
    rejections: dict[str, dict[int, int]],
    folder: Path,
    title: str,
) -> dict[str, str]:
    """Every figure the data allows: name -> its path relative to the report's folder."""
    if not stats:
        return {}
    drawn = {
        "growth": plot_rounds(stats, folder / "growth.png", title=title),
        "spread": charts.spread_chart(figures, folder / "spread.png"),
        "checks": charts.checks_chart(stats, _checks_that_ran(stats), folder / "checks.png"),
    }
    if any(s.cost_usd or s.tokens_in or s.tokens_out for s in stats):  # an offline proposer pays nothing
        drawn["cost"] = charts.cost_chart(stats, folder / "cost.png")
    if evals:
        drawn["passk"] = charts.passk_chart({e.name: e.rounds for e in evals}, folder / "passk.png")
    if rejections:
        drawn["rejections"] = charts.rejections_chart(rejections, [s.round for s in stats], folder / "rejections.png")
    return {name: f"{IMG}/{path.name}" for name, path in drawn.items()}


def _page(task_id: str) -> str:
    if re.fullmatch(r"[A-Za-z0-9._-]{1,120}", task_id):
        return f"{TASKS}/{task_id}.html"
    return f"{TASKS}/{hashlib.sha256(task_id.encode()).hexdigest()[:16]}.html"


def _chosen(tasks: list[TaskRow], limit: int) -> set[str]:
    """Every task when they fit; else whole lineages (a task and its ancestors), the deepest first,
    one lineage per root seed in turn, until `limit` tasks are chosen."""
    if len(tasks) <= limit:
        return {t.id for t in tasks}
    by_id = {t.id: t for t in tasks}
    queues: dict[str, list[TaskRow]] = defaultdict(list)
    for t in sorted(tasks, key=lambda t: (-t.round, t.id)):
        queues[t.root_id].append(t)
    chosen: set[str] = set()
    while len(chosen) < limit and any(queues.values()):
        for root in sorted(queues):
            if queues[root] and len(chosen) < limit:
                row: TaskRow | None = queues[root].pop(0)
                while row is not None and row.id not in chosen:
                    chosen.add(row.id)
                    row = by_id.get(row.parent_id or "")
    return chosen


def _lineage(tasks: list[TaskRow], chosen: set[str]) -> dict[str, TaskNode]:
    nodes = {t.id: TaskNode(row=t, page=_page(t.id)) for t in tasks if t.id in chosen}
    for node in nodes.values():
        parent = nodes.get(node.row.parent_id or "")
        if parent is not None:
            parent.children.append(node)
    return nodes


def _chain(node: TaskNode, nodes: dict[str, TaskNode]) -> list[TaskNode]:
    """The root seed down to this task (as far as the chosen tasks reach)."""
    chain = [node]
    while (parent := nodes.get(chain[-1].row.parent_id or "")) is not None:
        chain.append(parent)
    return chain[::-1]


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace")
    except OSError as exc:
        return f"({path.name} unreadable: {exc.strerror})"


def _solution_files(folder: Path) -> dict[str, str]:
    base = folder / TaskPaths.SOLUTION_DIR
    if not base.is_dir():
        return {}
    files = sorted(p for p in base.rglob("*") if p.is_file())
    return {str(p.relative_to(folder)): _read(p) for p in files}


def _solution_diff(root: Path, row: TaskRow, parent: TaskRow | None) -> list[DiffLine]:
    """The task's solution files against its parent's (a seed: against nothing), as unified diffs."""
    mine = _solution_files(root / row.path)
    theirs = _solution_files(root / parent.path) if parent else {}
    lines: list[DiffLine] = []
    for name in sorted(set(mine) | set(theirs), key=lambda n: (not n.endswith("solve.sh"), n)):
        before, after = theirs.get(name, ""), mine.get(name, "")
        if before == after:
            continue
        diff = difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"parent/{name}", f"task/{name}", n=3, lineterm=""
        )
        for text in diff:
            kind = "file" if text.startswith(("---", "+++")) else "hunk" if text.startswith("@@") else "same"
            if kind == "same" and text[:1] in ("+", "-"):
                kind = "add" if text[0] == "+" else "del"
            lines.append(DiffLine(kind=kind, text=text))
    return lines
