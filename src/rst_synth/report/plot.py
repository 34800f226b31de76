"""The run's growth curves as one PNG: what people would rather look at than read."""

from __future__ import annotations

from pathlib import Path

from rst_synth.report.stats import RoundStats


def plot_rounds(stats: list[RoundStats], out: Path, title: str = "") -> Path:
    """Medians of solution lines and executed commands per round, and yield, side by side."""
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt

    rounds = [s.round for s in stats]
    fig, (size, rate) = plt.subplots(1, 2, figsize=(10, 4))
    size.plot(rounds, [s.median_solution_lines for s in stats], marker="o", label="solution lines")
    size.plot(rounds, [s.median_executed_commands for s in stats], marker="s", label="executed commands")
    size.set_xlabel("round")
    size.set_ylabel("median per accepted task")
    size.legend()
    size.grid(alpha=0.3)
    rate.bar(rounds, [100 * (s.yield_rate or 0) for s in stats], color="tab:green")
    rate.set_xlabel("round")
    rate.set_ylabel("yield (% of candidates accepted)")
    rate.set_ylim(0, 100)
    rate.grid(alpha=0.3, axis="y")
    for axis in (size, rate):
        axis.set_xticks(rounds)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    plt.close(fig)
    return out
