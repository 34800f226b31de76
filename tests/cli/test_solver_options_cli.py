"""The solver's options on the command line: the band's bounds need a solver, and `rst eval` says
what bounds an attempt."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.test_engine_fake import fake_seeds
from tests.support.cli import rst


@pytest.mark.parametrize("option", [["--max-solve-rate", "0.5"], ["--require-solvable"]])
def test_a_bound_on_the_solve_rate_needs_a_solver(tmp_path: Path, option: list[str]) -> None:
    result = rst("synth", str(fake_seeds(tmp_path, 1)), "--out", str(tmp_path / "run"), *option)
    assert result.returncode != 0
    assert "--solver-model" in result.stderr and len(result.stderr.strip().splitlines()) <= 3
    assert not (tmp_path / "run" / "run.toml").exists()


def test_a_solve_rate_bound_out_of_range_is_refused(tmp_path: Path) -> None:
    result = rst("synth", str(fake_seeds(tmp_path, 1)), "--out", str(tmp_path / "run"), "--max-solve-rate", "1.5")
    assert result.returncode == 2 and "max-solve-rate" in result.stderr


def test_help_names_the_options_and_the_step_limit_rule() -> None:
    synth = rst("synth", "--help").stdout
    assert "--max-solve-rate" in synth and "--solver-k" in synth and "--require-solvable" in synth
    evaluate = " ".join(rst("eval", "--help").stdout.split())
    assert "bounded by its task's [agent] timeout_sec" in evaluate and "no count of commands, as in Harbor" in evaluate
