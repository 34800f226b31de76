"""The reference of permissions-policy, called directly: applying a policy (to the current account and
group, which needs no privileges) passes its tests; a mode left otherwise or an audit line out of order
fails them."""

from __future__ import annotations

import grp
import os
import pwd
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.files.shipped import permissions as shipped


@pytest.fixture
def audit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    user, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
    folder = tmp_path / "data"
    folder.mkdir()
    for name in ("b.csv", "a.txt"):
        (folder / name).write_text("x\n")
    policy = tmp_path / "data.policy"
    policy.write_text(
        f"# Access policy for {folder}\n\n"
        f"dir {folder} {user}:{group} 2750\n"
        f"file {folder}/b.csv {user}:{group} 0640\n"
        f"file {folder}/a.txt {user}:{group} 0600\n"
    )
    monkeypatch.setattr(shipped, "POLICY", str(policy))
    monkeypatch.setattr(shipped, "AUDIT", str(tmp_path / "audit" / "permissions.txt"))
    return tmp_path / "audit" / "permissions.txt"


def test_the_reference_passes_its_tests(audit: Path, tmp_path: Path) -> None:
    shipped.apply_policy()
    user, group = pwd.getpwuid(os.getuid()).pw_name, grp.getgrgid(os.getgid()).gr_name
    folder = tmp_path / "data"
    assert audit.read_text().splitlines() == [
        f"{folder} {user}:{group} 2750",
        f"{folder}/a.txt {user}:{group} 0600",
        f"{folder}/b.csv {user}:{group} 0640",
    ]
    shipped.test_policy_applied()
    shipped.test_audit_matches_the_state()


def test_a_mode_left_otherwise_fails(audit: Path, tmp_path: Path) -> None:
    shipped.apply_policy()
    (tmp_path / "data" / "a.txt").chmod(0o644)
    with pytest.raises(AssertionError):
        shipped.test_policy_applied()
    with pytest.raises(AssertionError):
        shipped.test_audit_matches_the_state()


def test_an_audit_out_of_order_fails(audit: Path) -> None:
    shipped.apply_policy()
    lines = audit.read_text().splitlines(keepends=True)
    audit.write_text("".join([lines[0], lines[2], lines[1]]))
    with pytest.raises(AssertionError):
        shipped.test_audit_matches_the_state()
