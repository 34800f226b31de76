"""Time limits from a task's measured work (task/limits.py): the rule, its rounding and its floors."""

from __future__ import annotations

from pathlib import Path

from rst_synth.task import Figures, Task
from rst_synth.task.limits import TimeLimits, realign_limits, time_limits, whole_minutes
from tests.support.tasks import write_task


def test_a_round_5_child_gets_an_hour_and_the_seeds_two_minute_verifier() -> None:
    # About what round 5 of docs/measures.md's example measures: 260 lines, 85 commands, 2,000 words, 1 s oracle.
    child = Figures(solution_lines=260, executed_commands=85, oracle_sec=1.0, test_sec=2.0)
    # 2 x (60 + 0.1 x 2000 + 15 x 85 + 260 + 1) = 3592 s, rounded up to 60 minutes.
    limits = time_limits(child, 2000, floor=TimeLimits(agent_sec=300.0, verifier_sec=120.0))
    assert limits == TimeLimits(agent_sec=3600.0, verifier_sec=120.0)


def test_limits_grow_with_each_measured_figure() -> None:
    base = time_limits(Figures(solution_lines=20, executed_commands=10, oracle_sec=0.5, test_sec=1.0), 200)
    for more in (
        Figures(solution_lines=20, executed_commands=40, oracle_sec=0.5, test_sec=1.0),
        Figures(solution_lines=200, executed_commands=10, oracle_sec=0.5, test_sec=1.0),
        Figures(solution_lines=20, executed_commands=10, oracle_sec=300.0, test_sec=1.0),
    ):
        assert time_limits(more, 200).agent_sec > base.agent_sec
    assert time_limits(Figures(solution_lines=20, executed_commands=10), 3000).agent_sec > base.agent_sec
    assert base.verifier_sec == 120.0  # the floor: a one-second test run
    assert time_limits(Figures(test_sec=30.0), 10).verifier_sec == 300.0  # ten times the tests' time


def test_limits_are_whole_minutes_and_never_below_the_floor() -> None:
    assert [whole_minutes(s) for s in (0.0, 1.0, 60.0, 60.5, 119.0)] == [60.0, 60.0, 60.0, 120.0, 120.0]
    small = Figures(solution_lines=1, executed_commands=1, oracle_sec=0.1, test_sec=0.1)
    assert time_limits(small, 5) == TimeLimits(agent_sec=180.0, verifier_sec=120.0)
    assert time_limits(small, 5, floor=TimeLimits(900.0, 600.0)) == TimeLimits(900.0, 600.0)


def test_realign_sets_task_toml_from_figures_never_below_the_parent(tmp_path: Path) -> None:
    seed = Task.load(write_task(tmp_path, name="seed", toml_extra=""))  # its own limits: 60 s and 60 s
    figures = Figures(solution_lines=3, executed_commands=3, oracle_sec=0.2, test_sec=0.5)
    assert realign_limits(seed, figures) == TimeLimits(agent_sec=240.0, verifier_sec=120.0)
    assert (seed.config.agent.timeout_sec, seed.config.verifier.timeout_sec) == (240.0, 120.0)

    parent = Task.load(write_task(tmp_path, name="parent"))
    parent.config.agent.timeout_sec, parent.config.verifier.timeout_sec = 1800.0, 600.0
    child = Task.load(write_task(tmp_path, name="child"))
    assert realign_limits(child, figures, parent) == TimeLimits(agent_sec=1800.0, verifier_sec=600.0)
    # Applying the rule twice changes nothing: the floor is the result of the first time.
    assert realign_limits(child, figures, parent) == TimeLimits(agent_sec=1800.0, verifier_sec=600.0)


def test_an_unset_agent_limit_is_no_floor(tmp_path: Path) -> None:
    task = Task.load(write_task(tmp_path))
    task.config.agent.timeout_sec = None
    assert realign_limits(task, Figures(executed_commands=2)).agent_sec == 240.0  # 2 x (60 + 0.7 + 30) -> 4 min
