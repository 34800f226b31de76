"""accounts-ssh-keys: where it applies, the key rule on hand-made lines, a deterministic step that plants one key
file of each kind, its generated tests passing on its own installation (run as root on homes below a temporary
root, made as the onboarding made them) and failing on installations that give a leaver keys, keep a duplicate
or leave the file readable by others; and a child accepted against the onboarding seed."""

from __future__ import annotations

import base64
import csv
import os
import random
import shutil
import stat
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.accounts.shipped import ssh_keys as shipped
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.accounts.test_change_plan import GROUPS, ROSTER, SEED, artifact, discovery
from tests.support.operators import assert_accepted, extend_with

OP = OPERATORS["accounts-ssh-keys"]
FOLDERS = ("/app", "/home")
INSTALLED = "test_r6s1_authorized_keys_installed"
OTHERS = "test_r6s1_no_other_authorized_keys"
REPORT = "test_r6s1_report"


def build(seed: int = 3) -> Step:
    found = discovery()
    return OP.step(found.artifacts[0], StepContext(discovery=found, rng=random.Random(seed), tag="r6s1"))


def homes() -> str:
    """The active users' homes as the onboarding's `useradd -m` leaves them, made before the solution runs."""
    gids = dict(line.split(",") for line in GROUPS.split()[1:])
    rows = [line.split(",") for line in ROSTER.splitlines()[1:]]
    made = [f"mkdir -p /home/{r[0]} && chown {r[1]}:{gids[r[3]]} /home/{r[0]}" for r in rows if r[5] == "active"]
    return "\n".join(made) + "\n"


def run(step: Step, root: Path, solution: str | None = None) -> dict[str, str]:
    files = {"/app/onboarding/roster.csv": ROSTER.encode(), "/app/onboarding/groups.csv": GROUPS.encode()}
    return outcomes(step, root, files=files, folders=FOLDERS, solution=homes() + (solution or step.solution))


def test_it_applies_to_a_roster_beside_its_group_list() -> None:
    found = discovery()
    roster, groups = found.artifacts
    assert OP.can_use(roster, found) and not OP.can_use(groups, found)
    assert not OP.can_use(roster, discovery(roster))  # no group list: no primary groups' GIDs
    following = artifact(ROSTER, "/app/incoming/r2s1/roster_next.csv")
    assert not OP.can_use(following, discovery(following, artifact(GROUPS, "/app/incoming/r2s1/groups_next.csv")))
    teamless = artifact(GROUPS.replace("support,3003\n", ""), "/app/onboarding/groups.csv")
    assert not OP.can_use(roster, discovery(roster, teamless))


def test_key_rule() -> None:
    kind = b"ssh-ed25519"
    blob = base64.b64encode(len(kind).to_bytes(4, "big") + kind + b"\x00\x00\x00\x20" + bytes(32)).decode()
    assert shipped.key_fields(f"ssh-ed25519 {blob}  a b") == ["ssh-ed25519", blob, "a", "b"]
    assert shipped.key_fields(f"ssh-ed25519\t{blob}") == ["ssh-ed25519", blob]
    assert shipped.key_fields(f"ssh-rsa {blob} x") is None  # the blob's own type differs
    assert shipped.key_fields(f"ssh-ed25519 {blob[:-3]} x") is None  # cut off
    assert shipped.key_fields(f"ssh-ed25519 {blob[:-4]}!!!! x") is None
    assert shipped.key_fields("ssh-ed25519") is None and shipped.key_fields(f"ssh-dss {blob}") is None


def test_build_is_deterministic_and_plants_each_kind_of_file() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    assert step.dockerfile.count("/app/incoming/r6s1/ssh_keys/") == 2 * 7
    assert step.produces[0].path == "/app/audit/ssh_keys.csv" and all(a.end_result for a in step.produces)
    assert len(step.produces) == 1 + 4  # four active users left with keys


def test_generated_tests_pass_on_the_installation(tmp_path: Path) -> None:
    step = build()
    results = run(step, tmp_path)
    assert len(results) == 4 and not failed(results), results
    with (tmp_path / "app/audit/ssh_keys.csv").open(newline="") as f:
        problems = sorted(row[2] for row in list(csv.reader(f))[1:])
    want = ["duplicate", "malformed", "malformed", "malformed", "not_active", "shared", "shared", "unknown_user"]
    assert problems == want
    installed = sorted((tmp_path / "home").glob("*/.ssh/authorized_keys"))
    assert len(installed) == 4 and all(stat.S_IMODE(os.lstat(p).st_mode) == 0o600 for p in installed)
    assert all(os.lstat(p).st_uid >= 2001 for p in installed)


def test_generated_tests_fail_on_subtly_wrong_installations(tmp_path: Path) -> None:
    step = build()
    leaver = step.solution.replace('if row["status"] == "active"]', "]").replace(
        "exist_ok=True)  #", "parents=True, exist_ok=True)  #"
    )
    assert leaver != step.solution  # every roster row counted as an account: the leaver gets a home and keys
    assert {OTHERS, REPORT} <= set(failed(run(step, tmp_path / "leaver", leaver)))
    duplicate = step.solution.replace("elif key in seen:", "elif False:")
    assert duplicate != step.solution  # a key pasted twice installed twice
    assert set(failed(run(step, tmp_path / "duplicate", duplicate))) == {INSTALLED, REPORT}
    mode = step.solution.replace("os.chmod(keys, 0o600)", "os.chmod(keys, 0o644)")
    assert mode != step.solution  # the file readable by everyone: sshd's StrictModes would refuse it
    assert failed(run(step, tmp_path / "mode", mode)) == [INSTALLED]


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    parent = shutil.copytree(SEED, tmp_path / SEED.name)  # the onboarded host, no keys installed yet
    proposal, report = extend_with("accounts-ssh-keys", parent)
    assert_accepted(proposal, report, "accounts-ssh-keys")
