from __future__ import annotations

from rst_synth.report import RoundStats
from rst_synth.report.plot import plot_rounds


def test_plot_writes_a_png(tmp_path) -> None:
    stats = [
        RoundStats(
            round=r,
            status="done",
            candidates=4,
            accepted=3,
            yield_rate=0.75,
            median_solution_lines=20 + 10 * r,
            median_executed_commands=10 + 5 * r,
        )
        for r in range(3)
    ]
    out = plot_rounds(stats, tmp_path / "plots" / "run.png", title="demo")
    data = out.read_bytes()
    assert data.startswith(b"\x89PNG") and len(data) > 5000
