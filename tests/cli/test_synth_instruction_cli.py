"""`rst synth --instruction`: how the llm proposer realigns a child's instruction, kept in run.toml."""

from __future__ import annotations

import tomllib
from pathlib import Path

from tests.engine.test_engine_fake import fake_seeds
from tests.support.cli import rst

LLM = ("--proposer", "llm", "--model", "fake-model", "--base-url", "http://127.0.0.1:9/v1")


def test_the_mode_reaches_the_llm_proposers_options(tmp_path: Path) -> None:
    run = tmp_path / "run"
    # An unknown backend stops the run once run.toml is written, before any container or model is used.
    result = rst(
        "synth",
        str(fake_seeds(tmp_path, 1)),
        "--out",
        str(run),
        *LLM,
        "--instruction",
        "addendum",
        "--backend",
        "no-such-backend",
    )
    assert result.returncode != 0
    stored = tomllib.loads((run / "run.toml").read_text())
    assert stored["proposer_options"]["instruction"] == "addendum"


def test_an_unknown_mode_or_another_proposer_is_refused(tmp_path: Path) -> None:
    seeds = str(fake_seeds(tmp_path, 1))
    wrong = rst("synth", seeds, "--out", str(tmp_path / "a"), *LLM, "--instruction", "sideways")
    assert wrong.returncode != 0 and "choose from rewrite, addendum" in wrong.stderr
    other = rst("synth", seeds, "--out", str(tmp_path / "b"), "--instruction", "addendum")
    assert other.returncode != 0 and "llm proposer" in other.stderr
    assert not (tmp_path / "a" / "run.toml").exists() and not (tmp_path / "b" / "run.toml").exists()
