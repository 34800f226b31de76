"""git-commit-msg-hook: where it applies, the policy on hand-checked messages, a deterministic step that
names its paths, its generated tests on its own hook (and on a hook that skips the length limit), and a
child accepted against a parent whose workflow made a repository."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.git.shipped import commit_msg
from tests.proposers.git_parents import GIT_DOCKERFILE, git_discovery, make_repo, parent_solve, repo_artifact
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["git-commit-msg-hook"]


def build(seed: int = 4) -> Step:
    return OP.step(repo_artifact(), StepContext(discovery=git_discovery(), rng=random.Random(seed), tag="r4s1"))


def problems(limit: int = 72) -> Any:
    """The shipped policy with a subject limit of `limit`."""

    def check(message: str) -> list[str]:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(commit_msg, "MAX_SUBJECT", limit)
            return commit_msg.problems(message)

    return check


def test_it_applies_where_the_history_breaks_the_policy_somewhere() -> None:
    assert OP.can_use(repo_artifact(), git_discovery())  # "Initial import" is no conventional subject
    tidy = repo_artifact()
    tidy.details["log"] = [e for e in tidy.details["log"] if e["subject"] != "Initial import"]
    assert not OP.can_use(tidy, git_discovery(tidy))  # nothing to audit
    at_root = repo_artifact("/app")
    assert not OP.can_use(at_root, git_discovery(at_root))


def test_policy() -> None:
    check = problems(20)
    assert check("feat(cli): add x") == []
    assert check("feat(cli): add x\n# comment\n\n") == []
    assert check("") == check("# c\n\n") == ["empty-message"]
    assert check("Merge branch 'a'") == check('Revert "x"') == check("fixup! x") == []
    assert check("Update README") == ["subject-format"]
    assert check("wip: x") == ["unknown-type"]
    assert check("fix: x.") == ["trailing-period"]
    assert check("feat: a very long subject line") == ["subject-too-long"]
    assert check("feat: x\nbody") == ["missing-blank-line"]
    assert check("feat!: x") == ["breaking-without-note"]
    assert check("feat!: x\n\nBREAKING CHANGE: y") == []
    assert check("Feat(API)!: x.\nno gap") == ["subject-format", "missing-blank-line"]


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = set(re.findall(r"'(/app/[^']+)'", step.tests)) | {a.path for a in step.produces}
    assert paths == {"/app/repo", "/app/repo/.git/hooks/commit-msg", "/app/hooks/repo_message_audit.txt"}
    assert all(f"`{p}`" in step.instruction for p in paths)


def test_generated_tests_pass_on_the_hook_and_fail_without_the_length_limit(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    make_repo(local.path("/app/repo"))
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    audit = local.path("/app/hooks/repo_message_audit.txt").read_text()
    assert re.fullmatch(r"[0-9a-f]{7} subject-format\n", audit), audit  # "Initial import"
    hook = local.path("/app/repo/.git/hooks/commit-msg")
    source = hook.read_text()
    hook.write_text(source.replace("    if len(subject) > MAX_SUBJECT:", "    if False:"))
    assert hook.read_text() != source
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="fresh")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = parent_task(tmp_path, parent_solve(), dockerfile=GIT_DOCKERFILE)
    proposal, report = extend_with("git-commit-msg-hook", parent)
    assert_accepted(proposal, report, "git-commit-msg-hook")
