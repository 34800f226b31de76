"""The engine: rounds, frontier sampling, concurrency, budgets, repair, novelty, resume."""

from rst_synth.engine.accept import record_figures
from rst_synth.engine.candidate import CandidateEvents, CandidateOutcome, CandidatePipeline, Rejection
from rst_synth.engine.config import SynthConfig
from rst_synth.engine.engine import Engine, ProgressSink
from rst_synth.engine.frontier import frontier, stable_seed
from rst_synth.engine.novelty import NoveltyConfig, NoveltyIndex

__all__ = [
    "CandidateEvents",
    "CandidateOutcome",
    "CandidatePipeline",
    "Engine",
    "NoveltyConfig",
    "NoveltyIndex",
    "ProgressSink",
    "Rejection",
    "SynthConfig",
    "frontier",
    "record_figures",
    "stable_seed",
]
