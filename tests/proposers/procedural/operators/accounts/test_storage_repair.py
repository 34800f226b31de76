"""accounts-storage-repair: where it applies, the policy on hand-checked modes, a deterministic step that plants
one entry of each fault below two teams' folders, its generated tests passing on its own repair (run as root on
folders below a temporary root, owners set as the planted Dockerfile sets them) and failing on a repair that keeps
setuid bits or stops at the top of a team folder; and a child accepted against the onboarding seed."""

from __future__ import annotations

import os
import random
import re
import shutil
import stat
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.accounts.shipped import storage_repair as shipped
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.accounts.test_change_plan import GROUPS, ROSTER, SEED, discovery
from tests.support.operators import assert_accepted, extend_with

OP = OPERATORS["accounts-storage-repair"]
FOLDERS = ("/app", "/srv")


def build(seed: int = 7) -> Step:
    found = discovery()
    return OP.step(found.artifacts[0], StepContext(discovery=found, rng=random.Random(seed), tag="r5s2"))


def files() -> dict[str, bytes]:
    return {"/app/onboarding/roster.csv": ROSTER.encode(), "/app/onboarding/groups.csv": GROUPS.encode()}


def restored(step: Step) -> str:
    """The planted Dockerfile's folders, owners and modes, as commands run before the solution (LocalStep
    writes the planted files' contents only)."""
    lines = [line[4:] for line in step.dockerfile.splitlines() if re.match(r"RUN (mkdir -p /srv\S* /|chown )", line)]
    return "\n".join(lines) + "\n"


def test_it_applies_to_a_roster_beside_its_group_list() -> None:
    found = discovery()
    roster, groups = found.artifacts
    assert OP.can_use(roster, found) and not OP.can_use(groups, found)
    assert not OP.can_use(roster, discovery(roster))


def test_policy() -> None:
    assert shipped.wanted(0, 0o100644, False, 3001) == (0, 3001, 0o660)
    assert shipped.wanted(0, 0o104755, False, 3001) == (0, 3001, 0o770)
    assert shipped.wanted(0, 0o100400, False, 3001) == (0, 3001, 0o460)
    assert shipped.wanted(0, 0o040755, True, 3001) == (0, 3001, 0o2770)
    assert shipped.faults(0, 3001, 0o100660, False, 3001) == []
    assert shipped.faults(0, 0, 0o100666, False, 3001) == ["group", "mode"]


def test_build_is_deterministic_and_plants_every_fault() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    planted = {path: owner for owner, path in re.findall(r"chown (\d+:\d+) (\S+) && chmod \d+", step.dockerfile)}
    assert len(planted) == 7 and {p.split("/")[3] for p in planted} <= {"analytics", "platform", "support"}
    assert any(owner.startswith("2005:") or owner.startswith("2009:") for owner in planted.values())  # a leaver's
    assert "chmod 4755" in step.dockerfile and step.produces[0].path == "/app/audit/shared_storage_repairs.csv"
    files = {p for p, owner in planted.items() if f"{p}/" not in step.dockerfile}  # the entries that are files
    assert {a.path for a in step.produces[1:]} <= set(planted) and all(a.end_result for a in step.produces)
    assert len(step.produces) > 1 and files


def test_generated_tests_pass_on_the_repair_and_fail_on_subtly_wrong_ones(tmp_path: Path) -> None:
    step = build()
    results = outcomes(step, tmp_path / "ok", files=files(), folders=FOLDERS, solution=restored(step) + step.solution)
    assert len(results) == 3 and not failed(results), results
    sync = next((tmp_path / "ok" / "srv" / "shared").rglob("sync.sh"))
    assert stat.S_IMODE(os.lstat(sync).st_mode) == 0o770
    special = step.solution.replace(
        "return owner, gid, (user << 6)", "return owner, gid, (mode & 0o7000) | (user << 6)"
    )
    assert special != step.solution  # a setuid script stays setuid
    assert "test_r5s2_team_folders_follow_the_policy" in failed(
        outcomes(step, tmp_path / "special", files=files(), folders=FOLDERS, solution=restored(step) + special)
    )
    shallow = step.solution.replace(
        "found += [pathlib.Path(folder) / name for name in dirs + files]",
        "found += [pathlib.Path(folder) / name for name in dirs + files]\n        break",
    )
    assert shallow != step.solution  # the restored folders' contents are never reached
    assert "test_r5s2_team_folders_follow_the_policy" in failed(
        outcomes(step, tmp_path / "shallow", files=files(), folders=FOLDERS, solution=restored(step) + shallow)
    )


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = shutil.copytree(SEED, tmp_path / SEED.name)  # accounts exist, team folders are made after the plant
    proposal, report = extend_with("accounts-storage-repair", parent)
    assert_accepted(proposal, report, "accounts-storage-repair")
