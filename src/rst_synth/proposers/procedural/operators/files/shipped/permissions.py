"""What `permissions-policy` ships: the script that applies a planted policy and writes the audit of the
state it left, and the tests that read the policy again and compare each path's owner, group and mode.
The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import grp
import os
import pathlib
import pwd
import stat

POLICY = "/app/planted/data.policy"
AUDIT = "/app/audit/data_s1_permissions.txt"


def policy(path: str) -> list[tuple[str, str, str, str, str]]:
    entries = []
    for line in pathlib.Path(path).read_text(encoding="utf-8").splitlines():
        words = line.split()
        if words and not words[0].startswith("#"):
            owner, group = words[2].split(":")
            entries.append((words[0], words[1], owner, group, words[3]))
    return entries


def state(path: str) -> tuple[str, str, str]:
    info = os.lstat(path)
    return pwd.getpwuid(info.st_uid).pw_name, grp.getgrgid(info.st_gid).gr_name, f"{stat.S_IMODE(info.st_mode):04o}"


def apply_policy() -> None:
    entries = policy(POLICY)
    for _, path, owner, group_name, mode in entries:
        os.chown(path, pwd.getpwnam(owner).pw_uid, grp.getgrnam(group_name).gr_gid)
        os.chmod(path, int(mode, 8))
    audit = pathlib.Path(AUDIT)
    audit.parent.mkdir(parents=True, exist_ok=True)
    paths = sorted(e[1] for e in entries)
    audit.write_text("".join(f"{p} {state(p)[0]}:{state(p)[1]} {state(p)[2]}\n" for p in paths))


def test_policy_applied() -> None:
    entries = policy(POLICY)
    assert entries
    for kind, path, owner, group, mode in entries:
        assert os.path.isdir(path) if kind == "dir" else os.path.isfile(path), path
        assert state(path) == (owner, group, mode), path


def test_audit_matches_the_state() -> None:
    entries = policy(POLICY)
    paths = sorted(e[1] for e in entries)
    want = "".join(f"{path} {state(path)[0]}:{state(path)[1]} {state(path)[2]}\n" for path in paths)
    assert pathlib.Path(AUDIT).read_text(encoding="utf-8") == want
