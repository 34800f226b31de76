"""Checks of the backup archive, manifest, exclusion list and restored copy."""
import hashlib
import tarfile
from pathlib import Path

APP = Path("/app")
BACKUP = APP / "backup"


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def walk_records():
    """(included, excluded) relative paths, computed from the tree itself."""
    included, excluded = [], []
    for path in (APP / "records").rglob("*"):
        rel = path.relative_to(APP).as_posix()
        if path.is_symlink():
            excluded.append(rel)
        elif path.is_file():
            in_cache = "cache" in rel.split("/")[:-1]
            (excluded if in_cache or rel.endswith(".tmp") else included).append(rel)
    key = lambda p: p.encode()
    return sorted(included, key=key), sorted(excluded, key=key)


def test_records_untouched():
    included, excluded = walk_records()
    assert (len(included), len(excluded)) == (16, 7)
    assert (APP / "records/latest.csv").is_symlink()


def test_archive_members():
    included, _ = walk_records()
    with tarfile.open(BACKUP / "records.tar.gz", "r:gz") as tar:
        members = tar.getmembers()
        files = {m.name: tar.extractfile(m).read() for m in members if m.isfile()}
    assert all(m.isfile() or m.isdir() for m in members)
    assert sorted(files, key=str.encode) == included
    for rel, data in files.items():
        assert data == (APP / rel).read_bytes(), rel


def test_manifest():
    included, _ = walk_records()
    lines = (BACKUP / "SHA256SUMS").read_text().splitlines()
    parsed = [line.split("  ", 1) for line in lines if line.strip()]
    assert [path for _, path in parsed] == included
    for digest, path in parsed:
        assert digest == sha256((APP / path).read_bytes()), path


def test_excluded_list():
    _, excluded = walk_records()
    lines = [line for line in (BACKUP / "excluded.txt").read_text().splitlines() if line.strip()]
    assert lines == excluded


def test_restored_copy():
    included, excluded = walk_records()
    for rel in included:
        assert (APP / "restore" / rel).read_bytes() == (APP / rel).read_bytes(), rel
    for rel in excluded:
        assert not (APP / "restore" / rel).exists() and not (APP / "restore" / rel).is_symlink(), rel


def test_verify_output():
    included, _ = walk_records()
    lines = [line for line in (BACKUP / "verify.txt").read_text().splitlines() if line.strip()]
    assert sorted(lines) == sorted(f"{rel}: OK" for rel in included)
