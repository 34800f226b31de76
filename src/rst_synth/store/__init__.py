"""The store: a run's state in SQLite, and the run directory's layout."""

from rst_synth.store.paths import RunPaths
from rst_synth.store.rows import AgentAttemptRow, CandidateRow, TaskRow
from rst_synth.store.store import Store

__all__ = ["AgentAttemptRow", "CandidateRow", "RunPaths", "Store", "TaskRow"]
