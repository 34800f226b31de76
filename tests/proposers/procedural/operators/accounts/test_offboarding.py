"""accounts-offboarding: where it applies, a deterministic step that plants three contractors (one still to
leave, one handing over to a name without an account) and their files below two teams' folders, its generated
tests passing on its own offboarding (run as root on account files and folders below a temporary root, owners
set as the planted Dockerfile sets them) and failing on offboardings that ignore the last day, stop at the top of
a team folder or drop the locked hash; and a child accepted against the onboarding seed."""

from __future__ import annotations

import csv
import random
import re
import shutil
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.accounts.test_change_plan import (
    GROUPS,
    ROSTER,
    SEED,
    artifact,
    discovery,
    onboarded,
)
from tests.support.operators import assert_accepted, extend_with

OP = OPERATORS["accounts-offboarding"]
FOLDERS = ("/app", "/srv", "/etc")
USERADD = re.compile(r"useradd -M -u (\d+) -g users -G (\S+) -c '[^']*' -s /bin/bash (\S+) && usermod -p '(\S+)'")


def build(seed: int = 3) -> Step:
    found = discovery()
    return OP.step(found.artifacts[0], StepContext(discovery=found, rng=random.Random(seed), tag="r8s1"))


def files(step: Step) -> dict[str, bytes]:
    """The onboarded host's roster and account files, with the contractors the Dockerfile adds."""
    passwd, group = onboarded()
    shadow = [f"{line.split(':')[0]}:*:19000:0:99999:7:::" for line in passwd.splitlines()]
    members: dict[str, list[str]] = {}
    for uid, groups, name, hashed in USERADD.findall(step.dockerfile):
        passwd += f"{name}:x:{uid}:100:{name} (contractor):/home/{name}:/bin/bash\n"
        shadow.append(f"{name}:{hashed}:19000:0:99999:7:::")
        for g in groups.split(","):
            members.setdefault(g, []).append(name)
    lines = []
    for line in group.splitlines():
        name, _, gid, listed = line.split(":")
        lines.append(f"{name}:x:{gid}:{','.join([m for m in listed.split(',') if m] + members.get(name, []))}")
    return {
        "/app/onboarding/roster.csv": ROSTER.encode(),
        "/app/onboarding/groups.csv": GROUPS.encode(),
        "/etc/passwd": passwd.encode(),
        "/etc/group": ("\n".join(lines) + "\n").encode(),
        "/etc/shadow": ("\n".join(shadow) + "\n").encode(),
    }


def restored(step: Step) -> str:
    """The planted Dockerfile's folders, owners and modes, as commands run before the solution (LocalStep
    writes the planted files' contents only)."""
    keep = re.compile(r"RUN (mkdir -p (/srv\S* ?)+$|chown )")
    lines = [line[4:] for line in step.dockerfile.splitlines() if keep.match(line)]
    return "\n".join(lines) + "\n"


def run(step: Step, root: Path, solution: str | None = None) -> dict[str, str]:
    solved = restored(step) + (solution or step.solution)
    return outcomes(step, root, files=files(step), folders=FOLDERS, solution=solved)


def test_it_applies_to_a_roster_beside_its_group_list() -> None:
    found = discovery()
    roster, groups = found.artifacts
    assert OP.can_use(roster, found) and not OP.can_use(groups, found)
    assert not OP.can_use(roster, discovery(roster))
    named = artifact(ROSTER + "ext_olsen,2500,Ole Olsen,support,,active\n", "/app/onboarding/roster.csv")
    assert not OP.can_use(named, discovery(named, groups))  # a contractor's name is taken


def test_build_is_deterministic_and_plants_each_case() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    accounts = USERADD.findall(step.dockerfile)
    assert [a[2] for a in accounts] == ["ext_olsen", "ext_varga", "ext_quinn"]
    assert all(int(a[0]) > 2010 for a in accounts) and all(a[3].startswith("$6$") for a in accounts)
    planted = re.findall(r"chown (\d+):\d+ (\S+) && chmod (\d+)", step.dockerfile)
    assert len(planted) == 6 and {m for _, _, m in planted} == {"2770", "0660"}  # the storage policy holds
    assert {p.split("/")[3] for _, p, _ in planted} <= {"analytics", "platform", "support"}
    assert step.produces[0].path == "/app/audit/offboarding.csv" and all(a.end_result for a in step.produces)
    assert "/app/incoming/r8s1/leavers.csv" in step.instruction and "2024-06-28" in step.instruction


def test_generated_tests_pass_on_the_offboarding(tmp_path: Path) -> None:
    step = build()
    results = run(step, tmp_path)
    assert len(results) == 3 and not failed(results), results
    with (tmp_path / "app/audit/offboarding.csv").open(newline="") as f:
        rows = list(csv.reader(f))
    want = [["ext_olsen", "offboarded"], ["ext_quinn", "pending"], ["ext_varga", "offboarded"]]
    assert [r[:2] for r in rows[1:]] == want
    assert rows[3][2:] == ["root", "1"] and rows[1][3] == "3"  # the named owner of ext_varga's file has no account
    shadow = (tmp_path / "etc/shadow").read_text()
    assert re.search(r"^ext_olsen:!\$6\$", shadow, re.M) and re.search(r"^ext_quinn:\$6\$", shadow, re.M)


def test_generated_tests_fail_on_subtly_wrong_offboardings(tmp_path: Path) -> None:
    step = build()
    early = step.solution.replace('r["last_day"] <= TODAY and ', "")
    assert early != step.solution  # the contractor still working this month is locked out too
    found = failed(run(step, tmp_path / "early", early))
    assert {"test_r8s1_leavers_locked_and_pending_ones_untouched", "test_r8s1_report"} <= set(found), found
    shallow = step.solution.replace(
        "found += [pathlib.Path(folder) / name for name in dirs + files]",
        "found += [pathlib.Path(folder) / name for name in dirs + files]\n        if folder != SHARED:\n"
        "            break",
    )
    assert shallow != step.solution  # the handover notes inside the leaver's folder stay the leaver's
    assert "test_r8s1_files_handed_over" in failed(run(step, tmp_path / "shallow", shallow))
    wiped = step.solution.replace('entry[1] = "!" + entry[1]', 'entry[1] = "!"')
    assert wiped != step.solution  # locked, but the hash is gone: unlocking would not restore it
    assert failed(run(step, tmp_path / "wiped", wiped)) == ["test_r8s1_leavers_locked_and_pending_ones_untouched"]


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = shutil.copytree(SEED, tmp_path / SEED.name)  # accounts exist, team folders are made after the plant
    proposal, report = extend_with("accounts-offboarding", parent)
    assert_accepted(proposal, report, "accounts-offboarding")
