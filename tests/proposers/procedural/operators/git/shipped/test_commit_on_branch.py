"""The tests git-commit-on-branch ships, on a branch made as its solution makes it: they pass; a listing
unsorted or missing its newline, a second file, another committer or a moved checkout fails them."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.git.shipped import commit_on_branch as shipped
from tests.proposers.procedural.operators.git.shipped.repos import DATE, EMAIL, EPOCH, WHO, run

TESTS = [
    shipped.test_branch_adds_only_the_listing,
    shipped.test_listing_content,
    shipped.test_commit_identity_and_message,
    shipped.test_original_branch_checked_out,
]


def make_branch(repo: Path, listing: Callable[[str], str] = lambda text: text, who: str = WHO) -> None:
    """The solution's steps: a worktree on a new branch, the sorted listing committed there."""
    wt = repo.parent / "wt"
    run("git", "-C", repo, "worktree", "add", "-q", "-b", shipped.BRANCH, wt, "refs/heads/main")
    tracked = "".join(sorted(p + "\n" for p in run("git", "-C", wt, "ls-tree", "-r", "--name-only", "HEAD").split()))
    (wt / shipped.FILE).write_text(listing(tracked))
    run("git", "-C", wt, "add", "-f", "--", shipped.FILE)
    env = {
        **os.environ,
        **{f"GIT_{r}_NAME": who for r in ("AUTHOR", "COMMITTER")},
        **{f"GIT_{r}_EMAIL": EMAIL for r in ("AUTHOR", "COMMITTER")},
        **{f"GIT_{r}_DATE": DATE for r in ("AUTHOR", "COMMITTER")},
    }
    run("git", "-C", wt, "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", shipped.MESSAGE, env=env)
    run("git", "-C", repo, "worktree", "remove", "--force", wt)


@pytest.fixture(autouse=True)
def params(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"ORIG": "main", "WHO": WHO, "EMAIL": EMAIL, "EPOCH": EPOCH}.items():
        monkeypatch.setattr(shipped, name, value)


def test_the_reference_passes_its_tests(repo: Path) -> None:
    make_branch(repo)
    for test in TESTS:
        test()


@pytest.mark.parametrize(
    "listing",
    [lambda text: "".join(reversed(text.splitlines(keepends=True))), lambda text: text.rstrip("\n")],
    ids=["unsorted", "no-final-newline"],
)
def test_a_wrong_listing_fails(repo: Path, listing: Callable[[str], str]) -> None:
    make_branch(repo, listing)
    with pytest.raises(AssertionError):
        shipped.test_listing_content()


def test_another_committer_fails(repo: Path) -> None:
    make_branch(repo, who="Build Robot")
    with pytest.raises(AssertionError):
        shipped.test_commit_identity_and_message()


def test_a_second_file_or_a_moved_checkout_fails(repo: Path) -> None:
    make_branch(repo)
    (repo / "extra.txt").write_text("x\n")
    run("git", "-C", repo, "checkout", "-q", shipped.BRANCH)
    run("git", "-C", repo, "add", "extra.txt")
    run("git", "-C", repo, "-c", "commit.gpgsign=false", "commit", "-q", "--amend", "--no-edit")
    with pytest.raises(AssertionError):
        shipped.test_branch_adds_only_the_listing()
    with pytest.raises(AssertionError):
        shipped.test_original_branch_checked_out()
