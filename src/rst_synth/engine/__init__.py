"""The engine: rounds, frontier sampling, concurrency, budgets, repair, novelty, resume."""

from rst_synth.engine.accept import record_figures
from rst_synth.engine.config import SynthConfig
from rst_synth.engine.engine import Engine, ProgressSink
from rst_synth.engine.novelty import NoveltyConfig, NoveltyIndex

__all__ = ["Engine", "NoveltyConfig", "NoveltyIndex", "ProgressSink", "SynthConfig", "record_figures"]
