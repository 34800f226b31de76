"""The tests git-commit-msg-hook ships, on its reference hook (`commit_msg.main`) in a repository with the
parents' history: they pass; an audit short of a line, a hook that accepts a trailing period or one that
rejects with status 2 fails them."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.git.shipped import commit_msg as shipped
from tests.support.shipped import tool_file


def hook(path: Path, tweak: str = "") -> str:
    """The reference as an executable at `path`, `tweak` breaking it subtly."""
    path.parent.mkdir(parents=True, exist_ok=True)
    code = (
        "from rst_synth.proposers.procedural.operators.git.shipped import commit_msg\n"
        f"commit_msg.MAX_SUBJECT = {shipped.MAX_SUBJECT!r}\n{tweak}\n"
    )
    return tool_file(path, code, "sys.exit(commit_msg.main(sys.argv))")


@pytest.fixture
def step(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(sys.path))
    monkeypatch.setattr(shipped, "REPO", str(repo))
    monkeypatch.setattr(shipped, "HOOK", hook(repo / ".git" / "hooks" / "commit-msg"))
    commits = shipped.git(repo, "rev-list", "--reverse", "--first-parent", "--no-merges", "refs/heads/main")
    audit = "".join(
        c[:7] + " " + p + "\n" for c in commits.stdout.decode().split() for p in shipped.problems(shipped.message_of(c))
    )
    monkeypatch.setattr(shipped, "OUT", str(repo.parent / "audit.txt"))
    Path(shipped.OUT).write_text(audit)
    (repo.parent / "runs").mkdir()
    return repo.parent


def test_the_reference_passes_its_tests(step: Path) -> None:
    assert Path(shipped.OUT).read_text()  # "Initial import" breaks the policy
    shipped.test_audit_of_the_history()
    shipped.test_hook_on_fresh_messages(step / "runs")
    shipped.test_hook_guards_commits_in_a_clone(step / "runs")


def test_an_audit_short_of_a_line_fails(step: Path) -> None:
    out = Path(shipped.OUT)
    out.write_text("".join(out.read_text().splitlines(keepends=True)[1:]))
    with pytest.raises(AssertionError):
        shipped.test_audit_of_the_history()


def test_a_hook_that_accepts_a_trailing_period_fails(step: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lax = (
        "problems = commit_msg.problems\n"
        "commit_msg.problems = lambda m: [p for p in problems(m) if p != 'trailing-period']"
    )
    monkeypatch.setattr(shipped, "HOOK", hook(step / "lax" / "commit-msg", lax))
    with pytest.raises(AssertionError):
        shipped.test_hook_on_fresh_messages(step / "runs")


def test_a_hook_that_rejects_with_status_2_fails(step: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    wrapped = "main = commit_msg.main\ncommit_msg.main = lambda argv: 2 * main(argv)"
    monkeypatch.setattr(shipped, "HOOK", hook(step / "two" / "commit-msg", wrapped))
    with pytest.raises(AssertionError):
        shipped.test_hook_on_fresh_messages(step / "runs")
