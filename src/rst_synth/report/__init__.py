"""The report: per-round statistics of a run."""

from rst_synth.report.stats import CHECKS, QUALITY_CHECKS, RoundStats, run_stats

__all__ = ["CHECKS", "QUALITY_CHECKS", "RoundStats", "run_stats"]
