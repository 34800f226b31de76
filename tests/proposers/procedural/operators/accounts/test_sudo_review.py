"""accounts-sudo-review: where it applies, a deterministic step that plants one drop-in of each finding, its
generated tests passing on its own review (run as root on a sudoers folder below a temporary root) and failing on
reviews that keep a non-admin's rule, drop the whole `NOPASSWD` rule or leave a file's mode; and a child accepted
against the onboarding seed."""

from __future__ import annotations

import csv
import random
import shutil
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.accounts.test_change_plan import GROUPS, ROSTER, SEED, artifact, discovery
from tests.support.operators import assert_accepted, extend_with

OP = OPERATORS["accounts-sudo-review"]
FOLDERS = ("/app", "/etc")
REVIEW = "test_r8s2_rules_follow_the_policy"


def build(seed: int = 4) -> Step:
    found = discovery()
    return OP.step(found.artifacts[0], StepContext(discovery=found, rng=random.Random(seed), tag="r8s2"))


def run(step: Step, root: Path, solution: str | None = None) -> dict[str, str]:
    files = {"/app/onboarding/roster.csv": ROSTER.encode(), "/app/onboarding/groups.csv": GROUPS.encode()}
    return outcomes(step, root, files=files, folders=FOLDERS, solution=solution)


def test_it_applies_to_a_roster_with_an_admin_group() -> None:
    found = discovery()
    roster, groups = found.artifacts
    assert OP.can_use(roster, found) and not OP.can_use(groups, found)
    assert not OP.can_use(roster, discovery(roster))
    plain = "\n".join(line.rsplit(",", 2)[0] + ",," + line.rsplit(",", 1)[1] for line in ROSTER.splitlines()[1:])
    bare = artifact(ROSTER.splitlines()[0] + "\n" + plain + "\n", "/app/onboarding/roster.csv")
    assert not OP.can_use(bare, discovery(bare, groups))  # nobody in an extra group: no admin group


def test_build_is_deterministic_and_plants_each_finding() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    assert step.dockerfile.count("/etc/sudoers.d/") == 8 and "chmod 0644" in step.dockerfile
    assert step.produces[0].path == "/app/audit/sudo_review.csv"


def test_generated_tests_pass_on_the_review(tmp_path: Path) -> None:
    step = build()
    results = run(step, tmp_path)
    assert len(results) == 2 and not failed(results), results
    with (tmp_path / "app/audit/sudo_review.csv").open(newline="") as f:
        problems = sorted(row[2] for row in list(csv.reader(f))[1:])
    assert problems == ["mode", "nopasswd", "not_active", "not_admin", "not_admin"]


def test_generated_tests_fail_on_subtly_wrong_reviews(tmp_path: Path) -> None:
    step = build()
    lenient = step.solution.replace('principal == f"%{ADMIN}" or principal in members', 'not principal.startswith("%")')
    assert lenient != step.solution  # every user's own rule kept
    assert REVIEW in failed(run(step, tmp_path / "lenient", lenient))
    strict = step.solution.replace('kept.append(" ".join(w for w in words if w != "NOPASSWD:"))', "pass")
    assert strict != step.solution  # the admin's rule deleted instead of losing its tag
    assert REVIEW in failed(run(step, tmp_path / "strict", strict))
    modes = step.solution.replace("os.chmod(path, 0o440)", "pass")
    assert modes != step.solution  # the report says mode but the file stays world-readable
    assert failed(run(step, tmp_path / "modes", modes)) == [REVIEW]


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = shutil.copytree(SEED, tmp_path / SEED.name)  # the onboarded host, no sudo rules yet
    proposal, report = extend_with("accounts-sudo-review", parent)
    assert_accepted(proposal, report, "accounts-sudo-review")
