"""The store: a run's state in SQLite, and the run directory's layout."""

from rst_synth.store.paths import RunPaths
from rst_synth.store.store import CandidateRow, Store, TaskRow

__all__ = ["CandidateRow", "RunPaths", "Store", "TaskRow"]
