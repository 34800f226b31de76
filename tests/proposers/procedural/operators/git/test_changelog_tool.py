"""git-changelog-tool: preconditions, the changelog rules on a repository built here, and a child
accepted against a parent whose workflow made a repository."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, StepContext
from rst_synth.proposers.procedural.operators.git.shipped import changelog
from tests.support.operators import assert_accepted, extend_with, parent_task
from tests.support.tasks import BASE_DOCKERFILE

LOG = [
    {"subject": "init", "parents": 1, "files": ["a.txt"]},
    {"subject": "feat: add b", "parents": 1, "files": ["b.txt"]},
    {"subject": "fix(core): c", "parents": 1, "files": ["c.txt"]},
]


def repo(log: list[dict[str, object]] = LOG, path: str = "/app/repo") -> Artifact:
    return Artifact(path=path, kind=Kind.GIT, details={"branch": "main", "commits": len(log), "log": log})


def discovery(*found: Artifact) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(found) or [repo()], tools=["git", "python3"])


def test_it_needs_two_plain_commits_after_a_unique_start() -> None:
    op = OPERATORS["git-changelog-tool"]
    assert op.can_use(repo(), discovery())
    assert not op.can_use(repo(LOG[:2]), discovery(repo(LOG[:2])))
    merged = [LOG[0], LOG[1], {"subject": "Merge x", "parents": 2, "files": []}]
    assert not op.can_use(repo(merged), discovery(repo(merged)))
    at_root = repo(path="/app")  # its tool would land inside the repository
    assert not op.can_use(at_root, discovery(at_root))
    assert op.final and not op.bookkeeping


def test_build_is_deterministic_and_states_every_path() -> None:
    op = OPERATORS["git-changelog-tool"]
    steps = [op.step(repo(), StepContext(discovery=discovery(), rng=random.Random(3), tag="r2s1")) for _ in range(2)]
    assert steps[0] == steps[1]
    compile(steps[0].tests, "t", "exec")
    for path in ("/app/repo", "/app/bin/repo_changelog", "/app/repo_changelog.md"):
        assert f"`{path}`" in steps[0].instruction, path
    for rule in ("Breaking changes", "merge commits", "This reverts commit", "case-insensitively", "exit 2"):
        assert rule in steps[0].instruction, rule


def _fresh_repo(tmp_path: Path) -> tuple[Path, str, str]:
    path = tmp_path / "repo"
    start, end = changelog.fresh_repo(path, 7)
    return path, start, end


def test_the_changelog_rules_on_a_repository_with_reverts_and_a_merge(tmp_path: Path) -> None:
    path, start, end = _fresh_repo(tmp_path)
    text = changelog.changelog(str(path), start, end)
    sections = re.findall(r"^## (.+)$", text, re.MULTILINE)
    assert sections == ["Breaking changes", "Features", "Fixes", "Other"]
    lines = [line for line in text.splitlines() if line.startswith("- ")]
    assert re.fullmatch(r"## Breaking changes\n- api: drop v1 routes \([0-9a-f]{7}\)\n\n", text.split("## Features")[0])
    assert "ünïcode" not in text  # with this seed the revert cancels that commit
    assert '- Revert "fix: before the range" (' in text  # its target lies before the range
    assert not any("Merge branch" in line or line.startswith("- before the range") for line in lines)
    assert any(line.startswith("- side branch fix (") for line in lines)
    assert any(line.startswith("- upper-case type (") for line in text.split("## Fixes")[1].splitlines())
    # 12 plain commits in the range (8 subjects, 2 reverts, the side branch's, the one after the merge), one pair
    # cancelled
    assert len(lines) == 10, text
    assert all(re.fullmatch(r"- .+ \([0-9a-f]{7}\)", line) for line in lines)
    assert changelog.changelog(str(path), end, end) == ""


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    solve = """git config --global user.email dev@example.com
git config --global user.name Dev
git init -q -b main /app/repo
cd /app/repo
for s in "init" "feat: parser" "fix(io): close files" "docs: usage"; do
  echo "$s" >> notes.txt; git add -A; git -c commit.gpgsign=false commit -q -m "$s"
done
"""
    dockerfile = BASE_DOCKERFILE + (
        "RUN apt-get update && apt-get install -y --no-install-recommends git && rm -rf /var/lib/apt/lists/*\n"
    )
    proposal, report = extend_with("git-changelog-tool", parent_task(tmp_path, solve, dockerfile=dockerfile))
    assert_accepted(proposal, report, "git-changelog-tool")
