"""`rst synth --second-solution/--no-second-solution`: on by default with the llm proposer only, and
refused with another proposer, whose children no model call can solve again."""

from __future__ import annotations

from pathlib import Path

from rst_synth.engine import SynthConfig
from tests.engine.test_engine_fake import fake_seeds
from tests.support.cli import rst


def test_on_by_default_with_the_llm_proposer_only() -> None:
    assert SynthConfig(seeds_dir="s", proposer="llm").second_solution_on
    assert not SynthConfig(seeds_dir="s").second_solution_on
    assert not SynthConfig(seeds_dir="s", proposer="llm", second_solution=False).second_solution_on


def test_the_check_needs_the_llm_proposer(tmp_path: Path) -> None:
    result = rst("synth", str(fake_seeds(tmp_path, 1)), "--out", str(tmp_path / "run"), "--second-solution")
    assert result.returncode != 0 and "--proposer llm" in result.stderr
    assert not (tmp_path / "run" / "run.toml").exists()


def test_help_names_the_option() -> None:
    synth = rst("synth", "--help").stdout  # 80 columns: long option names are cut
    assert "--second-solut" in synth and "--no-second-sol" in synth
