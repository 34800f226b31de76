"""The tests git-revert-on-branch and git-backport-by-rule ship, on branches made as their solutions make
them: they pass; a revert that changes another file or has another committer, a backport that skips a
picked commit, takes another version of a file or has another committer, or a moved checkout fails them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.git.shipped import revert_backport as shipped
from tests.proposers.procedural.operators.git.shipped.repos import DATE, EMAIL, EPOCH, WHO, run

REVERT_TESTS = [shipped.test_branch_reverts_exactly_that_commit, shipped.test_revert_commit_metadata]
BACKPORT_TESTS = [shipped.test_backport_commits_in_order, shipped.test_picked_version_of_every_file_wins]


def identity(who: str, *roles: str) -> dict[str, str]:
    env = dict(os.environ)
    for role in roles:
        env.update({f"GIT_{role}_NAME": who, f"GIT_{role}_EMAIL": EMAIL, f"GIT_{role}_DATE": DATE})
    return env


def commit_of(repo: Path, subject: str) -> str:
    for line in run("git", "-C", repo, "log", "--format=%H%x00%s", "main").splitlines():
        commit, text = line.split("\0", 1)
        if text == subject:
            return commit
    raise LookupError(subject)


@pytest.fixture(autouse=True)
def params(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    values = {
        "REPO": str(repo),
        "MAIN": "main",
        "WHO": WHO,
        "EMAIL": EMAIL,
        "EPOCH": EPOCH,
        "BASE": "feat: read tables",
    }
    for name, value in values.items():
        monkeypatch.setattr(shipped, name, value)


def make_revert(repo: Path, subject: str, who: str = WHO, extra: bool = False) -> None:
    """The solution's steps: a worktree on a new branch at the tip, the commit reverted there."""
    wt = repo.parent / "wt"
    run("git", "-C", repo, "worktree", "add", "-q", "-b", shipped.BRANCH, wt, "refs/heads/main")
    target = commit_of(repo, subject)
    env = identity(who, "AUTHOR", "COMMITTER")
    run("git", "-C", wt, "-c", "commit.gpgsign=false", "revert", "--no-edit", target, env=env)
    if extra:  # the revert commit also drops a file the reverted commit never touched
        run("git", "-C", wt, "rm", "-q", "README.md")
        run("git", "-C", wt, "-c", "commit.gpgsign=false", "commit", "-q", "--amend", "--no-edit", env=env)
    run("git", "-C", repo, "worktree", "remove", "--force", wt)


def test_the_revert_passes_its_tests(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "SUBJECT", "docs: usage")
    make_revert(repo, "docs: usage")
    for test in REVERT_TESTS:
        test()


def test_a_revert_of_another_commit_or_more_fails(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "SUBJECT", "docs: usage")
    make_revert(repo, "docs: usage", extra=True)
    with pytest.raises(AssertionError):
        shipped.test_branch_reverts_exactly_that_commit()
    monkeypatch.setattr(shipped, "SUBJECT", "test: reader")
    with pytest.raises(AssertionError):
        shipped.test_branch_reverts_exactly_that_commit()


def test_another_reverter_fails(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "SUBJECT", "docs: usage")
    make_revert(repo, "docs: usage", who="Build Robot")
    shipped.test_branch_reverts_exactly_that_commit()
    with pytest.raises(AssertionError):
        shipped.test_revert_commit_metadata()


def test_a_moved_checkout_fails_the_revert(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "SUBJECT", "docs: usage")
    make_revert(repo, "docs: usage")
    run("git", "-C", repo, "checkout", "-q", shipped.BRANCH)
    shipped.test_branch_reverts_exactly_that_commit()
    with pytest.raises(AssertionError):
        shipped.test_revert_commit_metadata()


def make_backport(repo: Path, picks: list[str], who: str = WHO, touch: str = "") -> None:
    """The solution's steps: a worktree at BASE; per picked commit, its version of each file it changed
    (or the file removed), committed with its message and author."""
    wt = repo.parent / "wt"
    run("git", "-C", repo, "worktree", "add", "-q", "-b", shipped.BRANCH, wt, commit_of(repo, shipped.BASE))
    for subject in picks:
        c = commit_of(repo, subject)
        for line in run("git", "-C", wt, "diff-tree", "--no-commit-id", "-r", "--name-status", c + "^", c).splitlines():
            status, path = line.split("\t", 1)
            if status == "D":
                run("git", "-C", wt, "rm", "-q", "--ignore-unmatch", "--", path)
            else:
                run("git", "-C", wt, "checkout", c, "--", path)
                if path == touch:
                    (wt / path).write_text("changed\n")
                    run("git", "-C", wt, "add", path)
        env = identity(who, "COMMITTER")
        run("git", "-C", wt, "-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-C", c, env=env)
    run("git", "-C", repo, "worktree", "remove", "--force", wt)


FIXES = ["fix: strip the byte order mark", "fix(parser): keep a trailing empty column"]


@pytest.mark.parametrize(
    ("rule", "arg", "picks"), [("prefix", "fix", FIXES), ("folder", "docs", ["docs: usage"])], ids=["prefix", "folder"]
)
def test_the_backport_passes_its_tests(
    repo: Path, monkeypatch: pytest.MonkeyPatch, rule: str, arg: str, picks: list[str]
) -> None:
    monkeypatch.setattr(shipped, "RULE", rule)
    monkeypatch.setattr(shipped, "ARG", arg)
    make_backport(repo, picks)
    for test in BACKPORT_TESTS:
        test()


def test_a_skipped_pick_fails(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "RULE", "prefix")
    monkeypatch.setattr(shipped, "ARG", "fix")
    make_backport(repo, FIXES[:1])
    with pytest.raises(AssertionError):
        shipped.test_backport_commits_in_order()


def test_another_version_or_committer_fails(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "RULE", "prefix")
    monkeypatch.setattr(shipped, "ARG", "fix")
    make_backport(repo, FIXES, who="Build Robot", touch="src/parser.py")
    with pytest.raises(AssertionError):
        shipped.test_picked_version_of_every_file_wins()
    with pytest.raises(AssertionError):
        shipped.test_backport_commits_in_order()


def test_a_moved_checkout_fails_the_backport(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "RULE", "folder")
    monkeypatch.setattr(shipped, "ARG", "docs")
    make_backport(repo, ["docs: usage"])
    run("git", "-C", repo, "checkout", "-q", shipped.BRANCH)
    with pytest.raises(AssertionError):
        shipped.test_picked_version_of_every_file_wins()
