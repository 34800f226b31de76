"""The tests git-churn-csv ships, on its reference tool (`churn.main`): they pass; a table short of a row,
a tool that counts vendored files or one that exits 1 when git fails fails them."""

from __future__ import annotations

import csv
import io
import os
import sys
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.git.shipped import churn as shipped
from tests.proposers.git_parents import make_repo
from tests.support.shipped import tool_file


def tool(folder: Path, tweak: str = "") -> str:
    """The reference as an executable, `tweak` breaking it subtly."""
    code = f"from rst_synth.proposers.procedural.operators.git.shipped import churn\n{tweak}\n"
    return tool_file(folder / "churn", code, "sys.exit(churn.main(sys.argv))")


@pytest.fixture
def step(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    make_repo(tmp_path / "repo")
    out = tmp_path / "churn.csv"
    with out.open("w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(shipped.churn(tmp_path / "repo", "refs/heads/main"))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(sys.path))
    params = {"TOOL": tool(tmp_path), "REPO": str(tmp_path / "repo"), "MAIN": "main", "OUT": str(out)}
    for name, value in params.items():
        monkeypatch.setattr(shipped, name, value)
    (tmp_path / "runs").mkdir()
    return tmp_path


def test_the_reference_passes_its_tests(step: Path) -> None:
    rows = list(csv.reader(io.StringIO(Path(shipped.OUT).read_text())))
    assert rows[0] == ["author", "week", "commits", "additions", "deletions"] and len(rows) > 2
    shipped.test_churn_of_the_repository()
    shipped.test_tool_on_fresh_repositories(step / "runs")
    shipped.test_tool_rejects_an_unknown_ref(step / "runs")


def test_a_table_short_of_a_row_fails(step: Path) -> None:
    out = Path(shipped.OUT)
    out.write_text("".join(out.read_text().splitlines(keepends=True)[:-1]))
    with pytest.raises(AssertionError):
        shipped.test_churn_of_the_repository()


def test_counting_vendored_files_fails(step: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "TOOL", tool(step, 'import re\nchurn.NOT_COUNTED = re.compile(r"\\.lock$")'))
    with pytest.raises(AssertionError):
        shipped.test_tool_on_fresh_repositories(step / "runs")


def test_the_wrong_status_when_git_fails_fails(step: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapped = "main = churn.main\nchurn.main = lambda argv: 1 if main(argv) == 2 else main(argv)"
    monkeypatch.setattr(shipped, "TOOL", tool(step, wrapped))
    with pytest.raises(AssertionError):
        shipped.test_tool_rejects_an_unknown_ref(step / "runs")
