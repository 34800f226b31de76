"""The difficulty label (task/metrics.py label_difficulty): from an agent's solve rate where one ran,
from the measured size elsewhere, and always saying which."""

from __future__ import annotations

import pytest

from rst_synth.task import Metadata, Metrics, SolveRate, TaskConfig
from rst_synth.task.metrics import label_difficulty, rate_difficulty, size_difficulty


@pytest.mark.parametrize(
    ("rate", "label"),
    [(1.0, "easy"), (0.75, "easy"), (0.5, "medium"), (0.25, "medium"), (0.2, "hard"), (0.0, "hard")],
)
def test_solve_rate_thresholds(rate: float, label: str) -> None:
    assert rate_difficulty(rate) == label


def test_size_thresholds_where_no_agent_ran() -> None:
    assert [size_difficulty(c, lines) for c, lines in ((59, 10), (60, 10), (10, 199), (10, 200))] == [
        "easy",
        "medium",
        "medium",
        "hard",
    ]
    assert size_difficulty(None, None) is None


def test_the_solve_rate_decides_and_the_label_names_its_source() -> None:
    big = Metrics(executed_commands=400, solution_lines=300)  # "hard" by size
    metadata = Metadata(metrics=big)
    label_difficulty(metadata)
    assert (metadata.difficulty, metadata.difficulty_source) == ("hard", "size")

    metadata.solve_rate = {"solver-m": SolveRate(rate=1.0, agent="llm", model="m", k=4)}
    label_difficulty(metadata)
    assert (metadata.difficulty, metadata.difficulty_source) == ("easy", "solver-m")


def test_the_agent_with_the_most_attempts_labels() -> None:
    metadata = Metadata(
        solve_rate={
            "solver-m": SolveRate(rate=1.0, agent="llm", model="m", k=4),
            "llm-big": SolveRate(rate=0.1, agent="llm", model="big", k=10),
            "llm-old": SolveRate(rate=0.5),  # an older export: no k
        }
    )
    label_difficulty(metadata)
    assert (metadata.difficulty, metadata.difficulty_source) == ("hard", "llm-big")


def test_no_figures_and_no_agent_give_no_label() -> None:
    metadata = Metadata(difficulty="hard", difficulty_source="size")  # stale, e.g. copied from a parent
    label_difficulty(metadata)
    assert (metadata.difficulty, metadata.difficulty_source) == (None, None)


def test_an_old_bare_solve_rate_table_still_loads_and_round_trips() -> None:
    config = TaskConfig.from_toml('[task]\nname = "o/t"\n[metadata.solve_rate]\n"llm-m" = 0.5\noracle = 1\n')
    rates = config.metadata.solve_rate
    assert rates is not None
    assert rates["llm-m"] == SolveRate(rate=0.5) and rates["oracle"].rate == 1.0
    again = TaskConfig.from_toml(config.to_toml())
    assert again.metadata.solve_rate == rates


def test_the_new_solve_rate_table_round_trips() -> None:
    text = (
        '[task]\nname = "o/t"\n[metadata]\ndifficulty = "medium"\ndifficulty_source = "solver-m"\n'
        '[metadata.solve_rate.solver-m]\nrate = 0.5\nagent = "llm"\nmodel = "m"\nk = 4\n'
    )
    config = TaskConfig.from_toml(text)
    assert config.metadata.solve_rate == {"solver-m": SolveRate(rate=0.5, agent="llm", model="m", k=4)}
    assert TaskConfig.from_toml(config.to_toml()) == config
