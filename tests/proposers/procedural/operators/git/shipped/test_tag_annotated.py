"""The tests git-tag-annotated ships, on a tag made as its solution makes it: they pass; a tag on the
wrong commit, a lightweight tag or another tagger fails them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.git.shipped import tag_annotated as shipped
from tests.proposers.procedural.operators.git.shipped.repos import DATE, EMAIL, EPOCH, WHO, run


def tag(repo: Path, target: str, *, who: str = WHO, annotated: bool = True) -> None:
    env = {**os.environ, "GIT_COMMITTER_NAME": who, "GIT_COMMITTER_EMAIL": EMAIL, "GIT_COMMITTER_DATE": DATE}
    how = ["-a", "-m", shipped.MESSAGE] if annotated else []
    run("git", "-C", repo, "-c", "tag.gpgsign=false", "tag", *how, shipped.TAG, target, env=env)


@pytest.fixture(autouse=True)
def params(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {"BRANCH": "main", "WHO": WHO, "EMAIL": EMAIL, "EPOCH": EPOCH}.items():
        monkeypatch.setattr(shipped, name, value)


@pytest.mark.parametrize("target", ["root", "parent"])
def test_the_reference_passes_its_tests(repo: Path, monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    monkeypatch.setattr(shipped, "TARGET", target)
    commits = run("git", "-C", repo, "rev-list", "--first-parent", "refs/heads/main").split()
    tag(repo, commits[-1] if target == "root" else commits[1])
    shipped.test_annotated_tag_on_target()
    shipped.test_tag_message_and_tagger()


def test_the_wrong_commit_fails(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "TARGET", "parent")
    tag(repo, "refs/heads/main")
    with pytest.raises(AssertionError):
        shipped.test_annotated_tag_on_target()


def test_a_lightweight_tag_fails(repo: Path) -> None:
    tag(repo, "refs/heads/main~1", annotated=False)
    with pytest.raises(AssertionError):
        shipped.test_annotated_tag_on_target()


def test_another_tagger_fails(repo: Path) -> None:
    tag(repo, "refs/heads/main~1", who="Build Robot")
    with pytest.raises(AssertionError):
        shipped.test_tag_message_and_tagger()
