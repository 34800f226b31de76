"""git-bisect-revert: where it applies, a deterministic step that names its paths, its generated tests on
its own solution run against a real repository (and on a solution that records the commit before the bad
one), and a child accepted against a parent whose workflow made a repository."""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from tests.proposers.git_parents import GIT_DOCKERFILE, git_discovery, make_repo, parent_solve, repo_artifact
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["git-bisect-revert"]


def build(seed: int = 4) -> Step:
    return OP.step(repo_artifact(), StepContext(discovery=git_discovery(), rng=random.Random(seed), tag="r3s1"))


def test_it_applies_to_a_repository_with_a_branch_and_room_for_the_series() -> None:
    assert OP.can_use(repo_artifact(), git_discovery())
    assert OP.final and not OP.bookkeeping
    detached = repo_artifact()
    detached.details["branch"] = "HEAD"
    assert not OP.can_use(detached, git_discovery(detached))
    crowded = repo_artifact()
    crowded.details["files"] = [f"{d}/x" for d in ("toolkit", "helpers", "support", "shared")]
    assert not OP.can_use(crowded, git_discovery(crowded))
    at_root = repo_artifact("/app")  # the planted series and the record would land inside the work tree
    assert not OP.can_use(at_root, git_discovery(at_root))
    assert not OP.can_use(repo_artifact(), git_discovery(repo_artifact()).model_copy(update={"tools": []}))


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/app/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert paths and all(re.search(re.escape(p) + r"(?![\w./-])", step.instruction) for p in paths), paths
    assert "git am" in step.instruction and "This reverts commit HASH." in step.instruction
    assert [a.kind for a in step.produces] == [Kind.TEXT]


def test_generated_tests_pass_on_the_solution_and_fail_on_an_off_by_one(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    make_repo(local.path("/app/repo"))
    local.plant()
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    status = subprocess.run(["git", "-C", local.path("/app/repo"), "status", "--porcelain"], capture_output=True)
    assert status.stdout == b""
    out = local.path("/app/bisect/" + Path(local.step.produces[0].path).name)
    bad = out.read_text().split()[0]
    before = subprocess.run(
        ["git", "-C", local.path("/app/repo"), "log", "-1", "--format=%H %s", bad + "^"], capture_output=True, text=True
    ).stdout
    out.write_text(before)  # the last good commit instead of the first bad one
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="recorded")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = parent_task(tmp_path, parent_solve(), dockerfile=GIT_DOCKERFILE)
    proposal, report = extend_with("git-bisect-revert", parent)
    assert_accepted(proposal, report, "git-bisect-revert")


def test_repo_artifact_matches_the_script(tmp_path: Path) -> None:
    make_repo(tmp_path / "repo")
    log = subprocess.run(["git", "-C", tmp_path / "repo", "log", "--format=%s"], capture_output=True, text=True)
    assert log.stdout.splitlines()[::-1] == [e["subject"] for e in repo_artifact().details["log"]]
    assert isinstance(repo_artifact(), Artifact)
