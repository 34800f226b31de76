"""What `accounts-sudo-review` ships: the review (`review_sudo`: every rule of the sudoers drop-in folder checked
against the roster's admin group, rules of others removed, `NOPASSWD:` tags dropped, modes fixed, each finding
reported) and the tests, which read the folder again and compare it and the report with what the step worked out
from what it planted. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import os
import pathlib
import stat

ROSTER = "/app/onboarding/roster.csv"
SUDOERS = "/etc/sudoers.d"
ADMIN = "ops"
REPORT = "/app/audit/sudo_review.csv"
KEPT: dict[str, list[str]] = {"/etc/sudoers.d/10-admins": ["%ops ALL=(ALL:ALL) ALL"]}
"""Each planted file's rule lines after the review, whitespace collapsed."""
TEXTS: dict[str, list[str]] = {"/etc/sudoers.d/10-admins": ["# admins"]}
"""Each planted file's comment and `Defaults` lines, which stay."""
WANT: list[list[str]] = [["/etc/sudoers.d/10-admins", "", "mode"]]
"""The report's rows (without its header), worked out when the step was built."""


def is_rule(line: str) -> bool:
    return bool(line.strip()) and not line.lstrip().startswith(("#", "Defaults"))


def admins() -> set[str]:
    """The active roster members whose extra groups include the admin group."""
    with open(ROSTER, newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "active"]
    return {r["username"] for r in rows if ADMIN in r["extra_groups"].split(";")}


def active() -> set[str]:
    with open(ROSTER, newline="", encoding="utf-8") as f:
        return {r["username"] for r in csv.DictReader(f) if r["status"] == "active"}


def finding(principal: str, members: set[str], present: set[str]) -> str:
    """Why a rule goes, or "" when its principal may keep it."""
    if principal == f"%{ADMIN}" or principal in members:
        return ""
    return "not_admin" if principal.startswith("%") or principal in present else "not_active"


def review_sudo() -> None:
    members, present, rows = admins(), active(), []
    for path in sorted(pathlib.Path(SUDOERS).iterdir()):
        lines = path.read_text(encoding="utf-8").splitlines()
        kept = []
        for line in lines:
            if not is_rule(line):
                kept.append(line)
                continue
            words = line.split()
            why = finding(words[0], members, present)
            if why:
                rows.append([str(path), words[0], why])
            elif "NOPASSWD:" in words:
                rows.append([str(path), words[0], "nopasswd"])
                kept.append(" ".join(w for w in words if w != "NOPASSWD:"))
            else:
                kept.append(line)
        path.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
        info = os.lstat(path)
        if (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) != (0, 0, 0o440):
            rows.append([str(path), "", "mode"])
            os.chown(path, 0, 0)
            os.chmod(path, 0o440)
    report = pathlib.Path(REPORT)
    report.parent.mkdir(parents=True, exist_ok=True)
    with report.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([["file", "principal", "problem"], *sorted(rows)])


def test_rules_follow_the_policy() -> None:
    for path, rules in KEPT.items():
        lines = pathlib.Path(path).read_text(encoding="utf-8").splitlines()
        assert [" ".join(line.split()) for line in lines if is_rule(line)] == rules, path
        assert [line.strip() for line in lines if line.strip() and not is_rule(line)] == TEXTS[path], path
        info = os.lstat(path)
        assert stat.S_ISREG(info.st_mode) and (info.st_uid, info.st_gid) == (0, 0), path
        assert stat.S_IMODE(info.st_mode) == 0o440, (path, oct(info.st_mode))


def test_report() -> None:
    with open(REPORT, newline="", encoding="utf-8") as f:
        rows = [row for row in csv.reader(f) if row]
    assert rows == [["file", "principal", "problem"], *WANT]
