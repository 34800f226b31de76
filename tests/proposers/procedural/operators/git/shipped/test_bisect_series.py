"""The tests git-bisect-revert ships, on a branch made as its solution makes it (the planted series
applied with `git am`, the first failing commit recorded, a revert of it): they pass; a wrong record,
a missing revert or another reverter fails them."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.git.patch_series import Series, check_script, make_series, mbox
from rst_synth.proposers.procedural.operators.git.shipped import bisect_series as shipped
from tests.proposers.procedural.operators.git.shipped.repos import DATE, EMAIL, EPOCH, WHO, run


def identity(who: str) -> dict[str, str]:
    env = dict(os.environ)
    for role in ("AUTHOR", "COMMITTER"):
        env.update({f"GIT_{role}_NAME": who, f"GIT_{role}_EMAIL": EMAIL, f"GIT_{role}_DATE": DATE})
    return env


@pytest.fixture
def series(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Series:
    planted = make_series("toolkit", "util", random.Random(3))
    (tmp_path / "series.mbox").write_text(mbox(planted))
    (tmp_path / "check.py").write_text(check_script(planted))
    commits = [(c.subject, c.author[0], c.author[1], c.epoch, c.files) for c in planted.commits]
    values = {
        "REPO": str(repo),
        "MAIN": "main",
        "CHECK": str(tmp_path / "check.py"),
        "OUT": str(tmp_path / "first_bad.txt"),
        "FOLDER": "toolkit",
        "WHO": WHO,
        "EMAIL": EMAIL,
        "EPOCH": EPOCH,
        "SERIES": commits,
        "FIXED": planted.fixed,
    }
    for name, value in values.items():
        monkeypatch.setattr(shipped, name, value)
    return planted


def make_branch(repo: Path, tmp_path: Path, who: str = WHO, record: int = 0, revert: bool = True) -> None:
    """The solution's steps; `record` shifts the commit written down from the first bad one."""
    wt = tmp_path / "wt"
    run("git", "-C", repo, "worktree", "add", "-q", "-b", shipped.BRANCH, wt, "refs/heads/main")
    env = identity(WHO)
    run("git", "-C", wt, "-c", "commit.gpgsign=false", "am", "-q", tmp_path / "series.mbox", env=env)
    commits = run("git", "-C", wt, "rev-list", "--reverse", "refs/heads/main..HEAD").split()
    verdicts = []
    for commit in commits:
        run("git", "-C", wt, "checkout", "-q", commit)
        verdicts.append(subprocess.run(["python3", shipped.CHECK, str(wt)], capture_output=True).returncode == 0)
    run("git", "-C", wt, "checkout", "-q", shipped.BRANCH)
    bad = commits[verdicts.index(False)]
    noted = commits[verdicts.index(False) + record]
    subject = run("git", "-C", wt, "log", "-1", "--format=%s", noted).strip()
    Path(shipped.OUT).write_text(noted + " " + subject + "\n")
    if revert:
        run("git", "-C", wt, "-c", "commit.gpgsign=false", "revert", "--no-edit", bad, env=identity(who))
    run("git", "-C", repo, "worktree", "remove", "--force", wt)


def test_the_reference_passes_its_tests(repo: Path, tmp_path: Path, series: Series) -> None:
    make_branch(repo, tmp_path)
    shipped.test_series_applied_on_the_branch()
    shipped.test_first_bad_commit_recorded(tmp_path / "a")
    shipped.test_branch_ends_with_the_revert(tmp_path / "b")


def test_a_later_commit_recorded_fails(repo: Path, tmp_path: Path, series: Series) -> None:
    make_branch(repo, tmp_path, record=1)
    with pytest.raises(AssertionError):
        shipped.test_first_bad_commit_recorded(tmp_path / "a")


def test_another_reverter_fails(repo: Path, tmp_path: Path, series: Series) -> None:
    make_branch(repo, tmp_path, who="Build Robot")
    with pytest.raises(AssertionError):
        shipped.test_branch_ends_with_the_revert(tmp_path / "b")


def test_a_missing_revert_fails(repo: Path, tmp_path: Path, series: Series) -> None:
    make_branch(repo, tmp_path, revert=False)
    with pytest.raises(AssertionError):
        shipped.test_series_applied_on_the_branch()
