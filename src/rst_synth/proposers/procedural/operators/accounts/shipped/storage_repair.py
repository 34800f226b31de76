"""What `accounts-storage-repair` ships: the repair (`repair_storage`: every entry below the teams' shared
folders brought to the stated ownership and mode policy, each fault written to a report) and the tests, which
walk the folders again, compare the planted files' contents and recompute the report from what was planted.
The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import os
import pathlib
import pwd
import stat

SHARED = "/srv/shared"
ROSTER = "/app/onboarding/roster.csv"
GROUPS = "/app/onboarding/groups.csv"
REPORT = "/app/audit/shared_storage_repairs.csv"
PLANTED: dict[str, tuple[int, int, int, str | None]] = {
    "/srv/shared/analytics/handover": (0, 0, 0o755, None),
    "/srv/shared/analytics/handover/notes.txt": (2005, 0, 0o644, "notes\n"),
}
"""Each planted entry: owner UID, GID and mode as planted, and a file's text (None for a folder)."""


def team_gids() -> dict[str, int]:
    """The GID of every team with an active member."""
    with open(GROUPS, newline="", encoding="utf-8") as f:
        gids = {row["group"]: int(row["gid"]) for row in csv.DictReader(f)}
    with open(ROSTER, newline="", encoding="utf-8") as f:
        return {row["team"]: gids[row["team"]] for row in csv.DictReader(f) if row["status"] == "active"}


def has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


def wanted(uid: int, mode: int, folder: bool, gid: int) -> tuple[int, int, int]:
    """Owner, group and permission bits an entry of a team folder must have."""
    owner = uid if has_account(uid) else 0
    if folder:
        return owner, gid, 0o2770
    user = (mode >> 6) & 0o7
    return owner, gid, (user << 6) | ((0o6 | (user & 0o1)) << 3)


def faults(uid: int, gid: int, mode: int, folder: bool, team_gid: int) -> list[str]:
    owner, group, bits = wanted(uid, mode, folder, team_gid)
    found = ["owner"] if owner != uid else []
    found += ["group"] if group != gid else []
    return found + (["mode"] if bits != stat.S_IMODE(mode) else [])


def entries(team: str) -> list[pathlib.Path]:
    """Every folder and file below a team's folder (not the folder itself)."""
    root = pathlib.Path(SHARED) / team
    found = []
    for folder, dirs, files in os.walk(root):
        found += [pathlib.Path(folder) / name for name in dirs + files]
    return sorted(found)


def repair_storage() -> None:
    rows = []
    for team, gid in sorted(team_gids().items()):
        for path in entries(team):
            info = os.lstat(path)
            folder = stat.S_ISDIR(info.st_mode)
            found = faults(info.st_uid, info.st_gid, info.st_mode, folder, gid)
            if found:
                owner, group, bits = wanted(info.st_uid, info.st_mode, folder, gid)
                os.chown(path, owner, group)  # before chmod: a chown clears a file's setuid and setgid bits
                os.chmod(path, bits)
                rows += [[str(path), fault] for fault in found]
    report = pathlib.Path(REPORT)
    report.parent.mkdir(parents=True, exist_ok=True)
    with report.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([["path", "problem"], *sorted(rows)])


def test_team_folders_follow_the_policy() -> None:
    for team, gid in team_gids().items():
        for path in entries(team):
            info = os.lstat(path)
            assert stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode), path
            folder = stat.S_ISDIR(info.st_mode)
            assert faults(info.st_uid, info.st_gid, info.st_mode, folder, gid) == [], (path, oct(info.st_mode))


def test_planted_entries_kept() -> None:
    for path, (_, _, _, text) in PLANTED.items():
        if text is None:
            assert os.path.isdir(path), path
        else:
            assert pathlib.Path(path).read_text(encoding="utf-8") == text, path


def test_report_lists_every_planted_fault() -> None:
    gids = team_gids()
    want = []
    for path, (uid, gid, mode, text) in PLANTED.items():
        team = pathlib.PurePath(path).relative_to(SHARED).parts[0]
        want += [[path, fault] for fault in faults(uid, gid, mode, text is None, gids[team])]
    assert want
    with open(REPORT, newline="", encoding="utf-8") as f:
        rows = [row for row in csv.reader(f) if row]
    assert rows == [["path", "problem"], *sorted(want)]
