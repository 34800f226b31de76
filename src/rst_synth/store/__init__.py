"""The store: a run's state in SQLite, and the run directory's layout."""

from rst_synth.store.paths import RunPaths
from rst_synth.store.store import AgentAttemptRow, CandidateRow, Store, TaskRow

__all__ = ["AgentAttemptRow", "CandidateRow", "RunPaths", "Store", "TaskRow"]
