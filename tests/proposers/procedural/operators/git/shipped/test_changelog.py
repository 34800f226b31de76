"""The tests git-changelog-tool ships, on its reference tool (`changelog.main`): they pass; a changelog
short of a line, a tool that never cancels a reverted commit or one that exits 1 when git fails fails them."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.git.shipped import changelog as shipped
from tests.support.shipped import tool_file


def tool(folder: Path, tweak: str = "") -> str:
    """The reference as an executable, `tweak` breaking it subtly."""
    code = f"from rst_synth.proposers.procedural.operators.git.shipped import changelog\n{tweak}\n"
    return tool_file(folder / "changelog", code, "sys.exit(changelog.main())")


@pytest.fixture
def step(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(sys.path))
    params = {"TOOL": tool(repo.parent), "REPO": str(repo), "START": "Initial import", "OUT": str(repo.parent / "c.md")}
    for name, value in params.items():
        monkeypatch.setattr(shipped, name, value)
    Path(shipped.OUT).write_text(shipped.changelog(str(repo), shipped.start_commit(), "refs/heads/main"))
    for name in ("fresh", "unknown"):
        (repo.parent / name).mkdir()
    return repo.parent


def test_the_reference_passes_its_tests(step: Path) -> None:
    assert "## Features\n- reader: " not in Path(shipped.OUT).read_text()  # no scope on "feat: read tables"
    assert "## Features\n- read tables (" in Path(shipped.OUT).read_text()
    shipped.test_changelog_of_the_repository()
    shipped.test_tool_on_a_fresh_repository(step / "fresh")
    shipped.test_tool_rejects_an_unknown_ref(step / "unknown")


def test_a_changelog_short_of_a_line_fails(step: Path) -> None:
    out = Path(shipped.OUT)
    out.write_text("".join(out.read_text().splitlines(keepends=True)[:-1]))
    with pytest.raises(AssertionError):
        shipped.test_changelog_of_the_repository()


def test_a_tool_that_keeps_reverted_commits_fails(step: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "TOOL", tool(step, "import re\nchangelog.REVERTS = re.compile(r'(?!)')"))
    with pytest.raises(AssertionError):
        shipped.test_tool_on_a_fresh_repository(step / "fresh")


def test_the_wrong_status_when_git_fails_fails(step: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapped = "main = changelog.main\nchangelog.main = lambda: 1 if main() == 2 else 0"
    monkeypatch.setattr(shipped, "TOOL", tool(step, wrapped))
    with pytest.raises(AssertionError):
        shipped.test_tool_rejects_an_unknown_ref(step / "unknown")
