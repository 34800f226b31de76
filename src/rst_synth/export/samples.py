"""What `rst collect` is asked (`CollectOptions`) and what it made (`CollectReport`, one `Sample` per
kept record): read by the collection itself (collect.py) and by the dataset card (card.py)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from rst_synth.task.entry import TaskEntry

Split = Literal["train", "validation"]
SPLITS: tuple[Split, ...] = ("train", "validation")


class CollectOptions(BaseModel):
    formats: list[str] = Field(default_factory=lambda: ["trl"])
    min_reward: float = 1.0
    max_per_task: int | None = Field(default=None, ge=1)
    max_tokens: int = Field(default=32_768, ge=1)
    """Longest conversation kept, in tokens counted as four characters each (no tokenizer)."""
    split_by: Literal["none", "lineage"] = "none"
    validation_fraction: float = Field(default=0.1, gt=0, lt=1)
    """With split_by=lineage: the share of root seeds on the validation side (at least one of two or more)."""
    parquet: bool = False
    evals: list[str] = Field(default_factory=list)
    """Eval ids (<agent>-<model>) to read; empty: every eval but the plumbing agents oracle and nop."""
    max_turns: int | None = Field(default=None, ge=1)
    """skyrl: commands per episode, written into each row; None: no count, the task's time bounds an episode."""


class Sample(BaseModel):
    """Where one kept record came from (a line of OUT/samples.jsonl)."""

    split: Split
    task: str
    task_dir: str | None
    eval_id: str
    attempt: int
    round: int
    root: str
    reward: float
    mode: str
    approx_tokens: int


class CollectReport(BaseModel):
    attempts: int = 0
    """Attempts found under the paths."""
    dropped: dict[str, int] = Field(default_factory=dict)
    """Why attempts were left out, with how many."""
    samples: list[Sample] = Field(default_factory=list)
    tasks: list[TaskEntry] = Field(default_factory=list)
    """skyrl: the tasks written as RL rows."""
    task_splits: list[Split] = Field(default_factory=list)
    records: dict[str, dict[str, int]] = Field(default_factory=dict)
    """format -> split -> records written."""
    files: dict[str, list[str]] = Field(default_factory=dict)
    """format -> files written, relative to OUT."""
