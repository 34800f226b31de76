"""Checks of the backup script, its cron.d entry and the archives, computed from /srv/appdata."""
import os
import re
import stat
import subprocess
import tarfile
from pathlib import Path

SRC = Path("/srv/appdata")
SCRIPT = Path("/usr/local/bin/backup-appdata.sh")
CRON = Path("/etc/cron.d/appdata-backup")
DEST = Path("/var/backups/appdata")
NAMES = {"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8,
         "sep": 9, "oct": 10, "nov": 11, "dec": 12,
         "sun": 0, "mon": 1, "tue": 2, "wed": 3, "thu": 4, "fri": 5, "sat": 6}


def expand(field, low, high, dow=False):
    """The set of values a cron field selects (lists, ranges, steps, names, `*`)."""
    values = set()
    for part in field.lower().split(","):
        base, _, step = part.partition("/")
        if base == "*":
            start, end = low, high
        elif "-" in base:
            a, b = base.split("-", 1)
            start, end = int(NAMES.get(a, a)), int(NAMES.get(b, b))
        else:
            start = int(NAMES.get(base, base))
            end = high if step else start
        values |= set(range(start, end + 1, int(step) if step else 1))
    if dow and 7 in values:
        values = (values - {7}) | {0}
    return values


def jobs():
    found = []
    for line in CRON.read_text().splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith("#") or re.match(r"^[A-Za-z_][A-Za-z0-9_]*\s*=", stripped):
            continue
        found.append(stripped.split(None, 6))
    return found


def expected_members():
    files = set()
    for path in SRC.rglob("*"):
        rel = path.relative_to(SRC)
        if path.is_file() and rel.parts[0] != "cache" and not path.name.endswith(".tmp"):
            files.add("appdata/" + rel.as_posix())
    return files


def archives():
    return sorted(p.name for p in DEST.iterdir() if re.fullmatch(r"appdata-\d{4}\.tar\.gz", p.name))


def test_cron_file_metadata():
    info = CRON.stat()
    assert stat.S_ISREG(info.st_mode)
    assert info.st_uid == 0 and stat.S_IMODE(info.st_mode) == 0o644
    assert CRON.read_text().endswith("\n")


def test_cron_schedule_and_command():
    entries = jobs()
    assert len(entries) == 1, entries
    fields = entries[0]
    assert len(fields) == 7
    minute, hour, dom, month, dow, user, command = fields
    assert expand(minute, 0, 59) == {15}
    assert expand(hour, 0, 23) == {0, 6, 12, 18}
    assert expand(dom, 1, 31) == set(range(1, 32))
    assert expand(month, 1, 12) == set(range(1, 13))
    assert expand(dow, 0, 7, dow=True) == set(range(0, 7))
    assert user == "root"
    assert str(SCRIPT) in command
    assert re.search(r">>\s*/var/log/appdata-backup\.log\s+2>&1\s*$", command), command


def test_script_is_root_executable():
    info = SCRIPT.stat()
    assert info.st_uid == 0
    assert info.st_mode & stat.S_IXUSR
    assert os.access(SCRIPT, os.X_OK)


def test_first_backup_only():
    assert archives() == ["appdata-0001.tar.gz"]


def test_first_backup_contents():
    with tarfile.open(DEST / "appdata-0001.tar.gz", "r:gz") as tar:
        members = tar.getmembers()
        names = {m.name.removeprefix("./").rstrip("/") for m in members}
        assert all(n == "appdata" or n.startswith("appdata/") for n in names)
        assert not any(n == "appdata/cache" or n.startswith("appdata/cache/") for n in names)
        files = {m.name.removeprefix("./"): m for m in members if m.isfile()}
        assert set(files) == expected_members()
        for name, member in files.items():
            assert tar.extractfile(member).read() == (SRC.parent / name).read_bytes(), name


def test_numbering_and_rotation():
    """Runs the script six more times: numbers continue and only the newest five remain."""
    subprocess.run([str(SCRIPT)], check=True, capture_output=True, timeout=60)
    assert archives() == ["appdata-0001.tar.gz", "appdata-0002.tar.gz"]
    for _ in range(5):
        subprocess.run([str(SCRIPT)], check=True, capture_output=True, timeout=60)
    assert archives() == [f"appdata-{n:04d}.tar.gz" for n in range(3, 8)]
    with tarfile.open(DEST / "appdata-0007.tar.gz", "r:gz") as tar:
        assert {m.name.removeprefix("./") for m in tar.getmembers() if m.isfile()} == expected_members()
