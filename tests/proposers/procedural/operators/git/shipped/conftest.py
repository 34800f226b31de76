"""A repository on this machine with the parents' history, the shipped helper pointed at it."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.git.shipped import gitkit
from tests.proposers.git_parents import make_repo


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_repo(tmp_path / "repo")
    monkeypatch.setattr(gitkit, "REPO", str(tmp_path / "repo"))
    return tmp_path / "repo"
