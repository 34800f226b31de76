"""The report's figures, drawn with matplotlib as PNG files (report/html.py places them in the page)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rst_synth.evaluation.passk import RoundPass
from rst_synth.report.stats import RoundStats

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

_DPI = 110


def _figure(columns: int = 1, width: float = 6.0) -> tuple[Figure, list[Axes]]:
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, columns, figsize=(width * columns, 3.6), squeeze=False)
    return fig, list(axes[0])


def _save(fig: Figure, out: Path) -> Path:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=_DPI)
    plt.close(fig)
    return out


def _rounds_axis(axis: Axes, rounds: Sequence[int], ylabel: str) -> None:
    axis.set_xlabel("round")
    axis.set_ylabel(ylabel)
    axis.set_xticks(list(rounds))
    axis.grid(alpha=0.3)


def spread_chart(figures: dict[int, dict[str, list[float]]], out: Path) -> Path:
    """Per round, box plots (quartiles, whiskers at 1.5 IQR) of solution lines and executed commands."""
    rounds = sorted(figures)
    fig, axes = _figure(2)
    for axis, (key, label, color) in zip(
        axes,
        (("solution_lines", "solution lines", "tab:blue"), ("executed_commands", "executed commands", "tab:orange")),
        strict=True,
    ):
        present = [r for r in rounds if figures[r][key]]
        if present:
            axis.boxplot(
                [figures[r][key] for r in present],
                positions=present,
                widths=0.5,
                patch_artist=True,
                boxprops={"facecolor": color, "alpha": 0.35},
                medianprops={"color": "black"},
            )
        _rounds_axis(axis, rounds, f"{label} per accepted task")
        axis.set_title(f"{label}: median and quartiles")
    return _save(fig, out)


def checks_chart(stats: list[RoundStats], checks: Sequence[str], out: Path) -> Path:
    """Yield per round (bars) and the pass rate of every check that ran (lines)."""
    rounds = [s.round for s in stats]
    fig, (rates,) = _figure(1, width=9.0)
    rates.bar(rounds, [100 * (s.yield_rate or 0) for s in stats], color="tab:green", alpha=0.3, label="yield")
    markers = "osD^v<>ph*"
    for i, check in enumerate(checks):
        values = [s.pass_rates.get(check) for s in stats]
        points = [(r, 100 * v) for r, v in zip(rounds, values, strict=True) if v is not None]
        if points:
            xs, ys = zip(*points, strict=True)
            rates.plot(xs, ys, marker=markers[i % len(markers)], label=check)
    rates.set_ylim(0, 105)
    _rounds_axis(rates, rounds, "% (yield: of candidates; checks: of attempts)")
    rates.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    rates.set_title("yield and pass rate per check")
    return _save(fig, out)


def passk_chart(evals: dict[str, list[RoundPass]], out: Path) -> Path:
    """pass@k per round, one line per agent and k."""
    fig, (axis,) = _figure(1, width=9.0)
    rounds: set[int] = set()
    for name, results in sorted(evals.items()):
        ks = sorted({k for r in results for k in r.pass_at})
        for k in ks:
            points = [(r.round, r.pass_at[k]) for r in results if k in r.pass_at]
            xs, ys = zip(*points, strict=True)
            rounds.update(xs)
            axis.plot(xs, ys, marker="o", label=f"{name} pass@{k}")
    axis.set_ylim(-0.05, 1.05)
    _rounds_axis(axis, sorted(rounds), "pass@k (mean over tasks)")
    axis.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    axis.set_title("pass@k per agent and round")
    return _save(fig, out)


def rejections_chart(rejections: dict[str, dict[int, int]], rounds: Sequence[int], out: Path) -> Path:
    """Rejected candidates per round, stacked by `check:reason`."""
    fig, (axis,) = _figure(1, width=9.0)
    import matplotlib

    bottom = [0] * len(rounds)
    cmap = matplotlib.colormaps["tab20"]
    for i, (key, per_round) in enumerate(rejections.items()):
        heights = [per_round.get(r, 0) for r in rounds]
        axis.bar(list(rounds), heights, bottom=bottom, label=key, color=cmap(i % 20))
        bottom = [b + h for b, h in zip(bottom, heights, strict=True)]
    _rounds_axis(axis, rounds, "rejected candidates")
    if rejections:
        axis.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    axis.set_title("rejections by check and reason")
    return _save(fig, out)


def cost_chart(stats: list[RoundStats], out: Path) -> Path:
    """Dollars and tokens per accepted task, per round."""
    rounds = [s.round for s in stats]
    fig, (dollars, tokens) = _figure(2)
    costs = [s.cost_per_accepted or 0 for s in stats]
    dollars.bar(rounds, costs, color="tab:red")
    dollars.set_ylim(0, max(costs) * 1.1 or 1.0)  # an offline proposer costs nothing: an empty axis from 0
    _rounds_axis(dollars, rounds, "$ per accepted task")
    dollars.set_title("cost per accepted task")
    counts = [s.tokens_per_accepted or 0 for s in stats]
    tokens.bar(rounds, counts, color="tab:purple")
    tokens.set_ylim(0, max(counts) * 1.1 or 1.0)
    _rounds_axis(tokens, rounds, "tokens per accepted task")
    tokens.set_title("tokens per accepted task")
    return _save(fig, out)
