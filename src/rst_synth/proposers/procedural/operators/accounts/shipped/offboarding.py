"""What `accounts-offboarding` ships: the offboarding (`offboard`: every leaver whose last day has come locked,
out of its supplementary groups, its files below the shared folders handed over, a report written) and the tests,
which read `/etc/passwd`, `/etc/shadow` and `/etc/group` as text, walk the shared folders and recompute the
report from what was planted. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import os
import pathlib
import stat

LEAVERS = "/app/incoming/r8s1/leavers.csv"
REPORT = "/app/audit/offboarding.csv"
SHARED = "/srv/shared"
TODAY = "2024-06-30"
PASSWD = "/etc/passwd"
SHADOW = "/etc/shadow"
GROUP = "/etc/group"
NOLOGIN = "/usr/sbin/nologin"
PLANTED_ACCOUNTS: dict[str, tuple[int, str, list[str]]] = {"ext_olsen": (2600, "$6$ab$cd", ["vpn"])}
"""Each planted account: UID, password hash and supplementary groups as planted."""
PLANTED: dict[str, tuple[int, int, int, str | None]] = {"/srv/shared/analytics/x.txt": (2600, 3001, 0o660, "x\n")}
"""Each planted entry: owner UID, GID and mode as planted, and a file's text (None for a folder)."""
WANT: list[list[str]] = [["ext_olsen", "offboarded", "root", "1"]]
"""The report's rows (without its header), worked out when the step was built."""
HANDED: dict[str, int] = {"/srv/shared/analytics/x.txt": 0}
"""The owner UID each planted entry must have after the offboarding."""


def table(path: str) -> list[list[str]]:
    """A `:`-separated account database, one list of fields per line."""
    text = pathlib.Path(path).read_text(encoding="utf-8")
    return [line.split(":") for line in text.splitlines() if line.strip()]


def write_table(path: str, rows: list[list[str]]) -> None:
    mode = stat.S_IMODE(os.stat(path).st_mode)  # /etc/shadow stays unreadable to others
    pathlib.Path(path).write_text("".join(":".join(r) + "\n" for r in rows), encoding="utf-8")
    os.chmod(path, mode)


def owned_entries(uid: int) -> list[pathlib.Path]:
    """Every folder and file below the shared folders whose owner is `uid`."""
    found = []
    for folder, dirs, files in os.walk(SHARED):
        found += [pathlib.Path(folder) / name for name in dirs + files]
    return sorted(p for p in found if os.lstat(p).st_uid == uid)


def offboard() -> None:
    with open(LEAVERS, newline="", encoding="utf-8") as f:
        leavers = list(csv.DictReader(f))
    passwd, shadow, group = table(PASSWD), table(SHADOW), table(GROUP)
    uids = {r[0]: int(r[2]) for r in passwd}
    due = {r["username"] for r in leavers if r["last_day"] <= TODAY and r["username"] in uids}
    rows = []
    for leaver in sorted(leavers, key=lambda r: r["username"]):
        name = leaver["username"]
        if name not in due:
            rows.append([name, "pending", "", "0"])
            continue
        heir = leaver["handover_to"] if leaver["handover_to"] in uids and leaver["handover_to"] not in due else "root"
        for entry in passwd:
            if entry[0] == name:
                entry[6] = NOLOGIN
        for entry in shadow:
            if entry[0] == name and not entry[1].startswith("!"):
                entry[1] = "!" + entry[1]
        for entry in group:
            entry[3] = ",".join(m for m in entry[3].split(",") if m and m != name)
        moved = owned_entries(uids[name])
        for path in moved:
            mode = stat.S_IMODE(os.lstat(path).st_mode)
            os.lchown(path, uids[heir], -1)
            os.chmod(path, mode)  # a chown clears setuid and setgid bits; the mode stays as it was
        rows.append([name, "offboarded", heir, str(len(moved))])
    write_table(PASSWD, passwd)
    write_table(SHADOW, shadow)
    write_table(GROUP, group)
    report = pathlib.Path(REPORT)
    report.parent.mkdir(parents=True, exist_ok=True)
    with report.open("w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([["username", "status", "handed_to", "entries"], *rows])


def test_leavers_locked_and_pending_ones_untouched() -> None:
    passwd = {r[0]: r for r in table(PASSWD)}
    shadow = {r[0]: r[1] for r in table(SHADOW)}
    members = {r[0]: set(r[3].split(",")) - {""} for r in table(GROUP)}
    status = {row[0]: row[1] for row in WANT}
    for name, (uid, hashed, groups) in PLANTED_ACCOUNTS.items():
        assert int(passwd[name][2]) == uid and passwd[name][3] == "100", name  # the account stays as it was
        joined = sorted(g for g, m in members.items() if name in m)
        if status[name] == "offboarded":
            assert passwd[name][6] == NOLOGIN and shadow[name] == "!" + hashed and joined == [], name
        else:
            assert passwd[name][6] == "/bin/bash" and shadow[name] == hashed and joined == sorted(groups), name


def test_files_handed_over() -> None:
    for path, (_, gid, mode, text) in PLANTED.items():
        info = os.lstat(path)
        assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (HANDED[path], gid, mode), path
        if text is not None:
            assert pathlib.Path(path).read_text(encoding="utf-8") == text, path
    for name, (uid, _, _) in PLANTED_ACCOUNTS.items():
        if [r for r in WANT if r[0] == name and r[1] == "offboarded"]:
            assert owned_entries(uid) == [], name


def test_report() -> None:
    with open(REPORT, newline="", encoding="utf-8") as f:
        rows = [row for row in csv.reader(f) if row]
    assert rows == [["username", "status", "handed_to", "entries"], *WANT]
