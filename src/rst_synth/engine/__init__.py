"""The engine: rounds, frontier sampling, concurrency, budgets, repair, second solution, novelty, resume."""

from rst_synth.engine.accept import record_figures
from rst_synth.engine.candidate import CandidateEvents, CandidateOutcome, CandidatePipeline, Rejection
from rst_synth.engine.checks import Acceptance, CandidateCheck, NoveltyCheck, SolvableCheck
from rst_synth.engine.config import SynthConfig
from rst_synth.engine.engine import Engine, ProgressSink
from rst_synth.engine.frontier import frontier
from rst_synth.engine.novelty import NoveltyConfig, NoveltyIndex
from rst_synth.engine.second import SecondSolutionCheck, second_solution_check

__all__ = [
    "Acceptance",
    "CandidateCheck",
    "CandidateEvents",
    "CandidateOutcome",
    "CandidatePipeline",
    "Engine",
    "NoveltyCheck",
    "NoveltyConfig",
    "NoveltyIndex",
    "ProgressSink",
    "Rejection",
    "SecondSolutionCheck",
    "SolvableCheck",
    "SynthConfig",
    "frontier",
    "record_figures",
    "second_solution_check",
]
