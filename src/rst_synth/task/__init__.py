"""The task: Harbor-format task directories, their config, and figures computed from them."""

from rst_synth.task.config import (
    AgentConfig,
    EnvironmentConfig,
    Figures,
    HistoryStep,
    Lineage,
    Metadata,
    Metrics,
    OutputContract,
    SolveRate,
    SolverEvidence,
    StepRecord,
    TaskConfig,
    TaskInfo,
    VerifierConfig,
)
from rst_synth.task.errors import TaskFormatError
from rst_synth.task.paths import TaskPaths
from rst_synth.task.task import Task

__all__ = [
    "AgentConfig",
    "EnvironmentConfig",
    "Figures",
    "HistoryStep",
    "Lineage",
    "Metadata",
    "Metrics",
    "OutputContract",
    "SolveRate",
    "SolverEvidence",
    "StepRecord",
    "Task",
    "TaskConfig",
    "TaskFormatError",
    "TaskInfo",
    "TaskPaths",
    "VerifierConfig",
]
