"""git-churn-csv: where it applies, a deterministic step that names its paths, the counting rules on a
repository built here, its generated tests on its own tool (and on one that counts vendored files), and a
child accepted against a parent whose workflow made a repository."""

from __future__ import annotations

import csv
import io
import random
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.artifacts import Kind
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.git.shipped import churn
from tests.proposers.git_parents import GIT_DOCKERFILE, git_discovery, make_repo, parent_solve, repo_artifact
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["git-churn-csv"]


def build(seed: int = 4) -> Step:
    return OP.step(repo_artifact(), StepContext(discovery=git_discovery(), rng=random.Random(seed), tag="r2s2"))


def reference() -> dict[str, Any]:
    return vars(churn)


def test_it_applies_to_a_repository_with_history() -> None:
    assert OP.can_use(repo_artifact(), git_discovery())
    young = repo_artifact()
    young.details["commits"] = 2
    assert not OP.can_use(young, git_discovery(young))
    at_root = repo_artifact("/app")
    assert not OP.can_use(at_root, git_discovery(at_root))


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/app/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert paths == {"/app/repo", "/app/bin/repo_churn", "/app/repo_churn.csv"}
    assert all(f"`{p}`" in step.instruction for p in paths)
    assert step.produces[0].kind is Kind.CSV and not OP.final


def test_counting_rules(tmp_path: Path) -> None:
    ref = reference()
    make_repo(tmp_path / "repo")
    table = ref["churn"](tmp_path / "repo", "main")
    assert table[0] == ["author", "week", "commits", "additions", "deletions"]
    weeks = [row[1] for row in table[1:]]
    assert weeks == sorted(weeks) and set(weeks) == {"2025-W05", "2025-W06"}  # 1..8 February 2025
    assert sum(int(row[2]) for row in table[1:]) == 8 and sum(int(row[3]) for row in table[1:]) == 8
    ref["fresh_repo"](tmp_path / "fresh", 3)
    fresh = ref["churn"](tmp_path / "fresh", "main")
    assert all(row[0] == row[0].lower() for row in fresh[1:])
    merges = subprocess.run(["git", "-C", tmp_path / "fresh", "rev-list", "--merges", "main"], capture_output=True)
    assert merges.stdout.strip() and sum(int(row[2]) for row in fresh[1:]) == int(
        subprocess.run(
            ["git", "-C", tmp_path / "fresh", "rev-list", "--count", "--no-merges", "main"],
            capture_output=True,
            check=True,
        ).stdout
    )


def test_generated_tests_pass_on_the_tool_and_fail_when_vendor_counts(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    make_repo(local.path("/app/repo"))
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    rows = list(csv.reader(io.StringIO(local.path("/app/repo_churn.csv").read_text())))
    assert len(rows) > 2
    tool = local.path("/app/bin/repo_churn")
    source = tool.read_text()
    tool.write_text(
        source.replace('NOT_COUNTED = re.compile(r"(^|/)vendor/|\\.lock$")', 'NOT_COUNTED = re.compile(r"\\.lock$")')
    )
    assert tool.read_text() != source
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="fresh")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = parent_task(tmp_path, parent_solve(), dockerfile=GIT_DOCKERFILE)
    proposal, report = extend_with("git-churn-csv", parent)
    assert_accepted(proposal, report, "git-churn-csv")


def test_once_per_lineage() -> None:
    assert OP.once  # its tool is the same program whatever the input: a second step would be a copy
