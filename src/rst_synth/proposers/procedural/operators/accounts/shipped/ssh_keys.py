"""What `accounts-ssh-keys` ships: the installation (`install_keys`: every key file of IT's drop folder checked
against the roster, the valid distinct keys of each active user installed as their `authorized_keys`, each
finding reported) and the tests, which read the homes and the report again and compare them with what the step
worked out from what it planted. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import base64
import binascii
import csv
import os
import pathlib
import stat

ROSTER = "/app/onboarding/roster.csv"
GROUPS = "/app/onboarding/groups.csv"
KEYS = "/app/incoming/s1/ssh_keys"
HOME = "/home"
REPORT = "/app/audit/ssh_keys.csv"
TYPES = ("ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256")
"""The key types the host accepts."""
PLANTED: dict[str, bytes] = {"/app/incoming/s1/ssh_keys/amoreau.pub": b"ssh-ed25519 AAAA amoreau@laptop\r\n"}
"""Each planted key file's bytes, which stay as they are."""
INSTALLED: dict[str, list[str]] = {"amoreau": ["ssh-ed25519 AAAA amoreau@laptop"]}
"""The `authorized_keys` lines of each user who gets the file, worked out when the step was built."""
WANT: list[list[str]] = [["/app/incoming/s1/ssh_keys/eokafor.pub", "", "not_active"]]
"""The report's rows (without its header), worked out when the step was built."""
HEADER = ["file", "line", "problem"]


def accounts() -> dict[str, tuple[int, int]]:
    """Each active roster row's username -> its UID and the GID of its team (its primary group)."""
    with open(GROUPS, newline="", encoding="utf-8") as f:
        gids = {row["group"]: int(row["gid"]) for row in csv.DictReader(f)}
    with open(ROSTER, newline="", encoding="utf-8") as f:
        rows = [row for row in csv.DictReader(f) if row["status"] == "active"]
    return {row["username"]: (int(row["uid"]), gids[row["team"]]) for row in rows}


def roster_names() -> set[str]:
    with open(ROSTER, newline="", encoding="utf-8") as f:
        return {row["username"] for row in csv.DictReader(f)}


def key_fields(line: str) -> list[str] | None:
    """A key line's fields (type, blob, comment words) when it is a valid key, else None."""
    fields = line.split()
    if len(fields) < 2 or fields[0] not in TYPES:
        return None
    try:
        blob = base64.b64decode(fields[1], validate=True)
    except (binascii.Error, ValueError):
        return None
    kind = fields[0].encode()
    # an SSH public key blob opens with its type as an SSH string: a 4-byte big-endian length, then the name
    return fields if blob.startswith(len(kind).to_bytes(4, "big") + kind) else None


def key_lines(path: pathlib.Path) -> list[tuple[int, str]]:
    """The numbered lines of a key file that are neither blank nor comments (`\\r\\n` is one line end)."""
    text = path.read_bytes().decode("utf-8").replace("\r\n", "\n")
    lines = enumerate(text.split("\n"), start=1)
    return [(n, line) for n, line in lines if line.strip() and not line.lstrip().startswith("#")]


def install(user: str, lines: list[str], uid: int, gid: int) -> None:
    ssh = pathlib.Path(HOME) / user / ".ssh"
    ssh.mkdir(mode=0o700, exist_ok=True)  # the home exists: onboarding made it
    os.chown(ssh, uid, gid)
    os.chmod(ssh, 0o700)
    keys = ssh / "authorized_keys"
    keys.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.chown(keys, uid, gid)
    os.chmod(keys, 0o600)


def install_keys() -> None:
    active, names = accounts(), roster_names()
    rows: list[list[str]] = []
    found: dict[str, list[tuple[int, list[str]]]] = {}
    for path in sorted(pathlib.Path(KEYS).iterdir()):
        user = path.name.removesuffix(".pub")
        if user not in names:
            rows.append([str(path), "", "unknown_user"])
            continue
        if user not in active:
            rows.append([str(path), "", "not_active"])
            continue
        found[user] = []
        for n, line in key_lines(path):
            fields = key_fields(line)
            if fields is None:
                rows.append([str(path), str(n), "malformed"])
            else:
                found[user].append((n, fields))
    owners: dict[tuple[str, str], set[str]] = {}
    for user, keys in found.items():
        for _, fields in keys:
            owners.setdefault((fields[0], fields[1]), set()).add(user)
    for user, keys in sorted(found.items()):
        name, kept, seen = f"{KEYS}/{user}.pub", [], set()
        for n, fields in keys:
            key = (fields[0], fields[1])
            if len(owners[key]) > 1:  # whose key it is, nobody can tell
                rows.append([name, str(n), "shared"])
            elif key in seen:
                rows.append([name, str(n), "duplicate"])
            else:
                seen.add(key)
                kept.append(" ".join(fields))
        if kept:
            install(user, kept, *active[user])
    report = pathlib.Path(REPORT)
    report.parent.mkdir(parents=True, exist_ok=True)
    with report.open("w", newline="", encoding="utf-8") as f:
        rows.sort(key=lambda row: (row[0], int(row[1] or 0)))
        csv.writer(f, lineterminator="\n").writerows([HEADER, *rows])


def test_authorized_keys_installed() -> None:
    active = accounts()
    for user, lines in INSTALLED.items():
        uid, gid = active[user]
        ssh = pathlib.Path(HOME) / user / ".ssh"
        info = os.lstat(ssh)
        assert stat.S_ISDIR(info.st_mode) and (info.st_uid, info.st_gid) == (uid, gid), ssh
        assert stat.S_IMODE(info.st_mode) == 0o700, (ssh, oct(info.st_mode))
        keys = ssh / "authorized_keys"
        info = os.lstat(keys)
        assert stat.S_ISREG(info.st_mode) and (info.st_uid, info.st_gid) == (uid, gid), keys
        assert stat.S_IMODE(info.st_mode) == 0o600, (keys, oct(info.st_mode))
        text = keys.read_bytes().decode("utf-8")
        assert "\r" not in text, keys
        assert [line.split() for line in text.split("\n") if line.strip()] == [k.split() for k in lines], keys


def test_no_other_authorized_keys() -> None:
    names = roster_names() | {pathlib.PurePath(p).name.removesuffix(".pub") for p in PLANTED}
    for user in sorted(names - set(INSTALLED)):
        assert not os.path.lexists(pathlib.Path(HOME) / user / ".ssh" / "authorized_keys"), user


def test_key_files_kept() -> None:
    for path, content in PLANTED.items():
        assert pathlib.Path(path).read_bytes() == content, path


def test_report() -> None:
    with open(REPORT, newline="", encoding="utf-8") as f:
        rows = [row for row in csv.reader(f) if row]
    assert rows == [HEADER, *WANT]
