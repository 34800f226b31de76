"""Checks of accounts, groups, shared directories and the audit, computed from the roster."""
import csv
import grp
import os
import pwd
import stat
from pathlib import Path

ONBOARDING = Path("/app/onboarding")


def roster():
    with (ONBOARDING / "roster.csv").open() as fh:
        return list(csv.DictReader(fh))


def active():
    return [row for row in roster() if row["status"] == "active"]


def extras(row):
    return {g for g in row["extra_groups"].split(";") if g}


def groups_table():
    with (ONBOARDING / "groups.csv").open() as fh:
        return {row["group"]: int(row["gid"]) for row in csv.DictReader(fh)}


def test_inputs_present():
    assert len(roster()) == 10
    assert len(groups_table()) == 6


def test_groups_have_given_gids():
    for name, gid in groups_table().items():
        assert grp.getgrnam(name).gr_gid == gid, name


def test_active_accounts():
    gids = groups_table()
    for row in active():
        entry = pwd.getpwnam(row["username"])
        assert entry.pw_uid == int(row["uid"])
        assert entry.pw_gid == gids[row["team"]]
        assert entry.pw_gecos.split(",")[0] == row["full_name"]
        assert entry.pw_shell == "/bin/bash"
        assert entry.pw_dir == f"/home/{row['username']}"
        info = os.stat(entry.pw_dir)
        assert stat.S_ISDIR(info.st_mode)
        assert (info.st_uid, info.st_gid) == (entry.pw_uid, entry.pw_gid)


def test_left_accounts_absent():
    names = {entry.pw_name for entry in pwd.getpwall()}
    uids = {entry.pw_uid for entry in pwd.getpwall()}
    for row in roster():
        if row["status"] == "left":
            assert row["username"] not in names
            assert int(row["uid"]) not in uids


def test_supplementary_groups_exact():
    for row in active():
        member_of = {g.gr_name for g in grp.getgrall() if row["username"] in g.gr_mem}
        member_of.discard(row["team"])
        assert member_of == extras(row), row["username"]


def _check_dir(path, group, mode):
    info = os.stat(path)
    assert stat.S_ISDIR(info.st_mode), path
    assert info.st_uid == 0, path
    assert info.st_gid == grp.getgrnam(group).gr_gid, path
    assert stat.S_IMODE(info.st_mode) == mode, (path, oct(stat.S_IMODE(info.st_mode)))


def test_shared_directories():
    _check_dir("/srv/shared", "root", 0o755)
    teams = {row["team"] for row in active()}
    for team in teams:
        _check_dir(f"/srv/shared/{team}", team, 0o2770)
    _check_dir("/srv/shared/reports", "reports", 0o2775)


def test_audit_file():
    expected = []
    for row in sorted(active(), key=lambda r: r["username"]):
        supp = ",".join(sorted(extras(row))) or "-"
        expected.append(f"{row['username']} {row['uid']} {row['team']} {supp}")
    lines = [line.rstrip() for line in (ONBOARDING / "audit.txt").read_text().splitlines() if line.strip()]
    assert lines == expected
