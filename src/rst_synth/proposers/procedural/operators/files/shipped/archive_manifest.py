"""What `archive-manifest` ships: the script that lists a tar or zip archive's regular files with their
sizes, and the test that reads the archive again. The constants are the step's parameters: `shipping.render`
sets them."""

from __future__ import annotations

import csv
import tarfile
import zipfile

SRC = "/app/data/bundle.tar.gz"
FORMAT = "tar.gz"
OUT = "/app/data/bundle_manifest.csv"


def write_manifest() -> None:
    if FORMAT == "zip":
        with zipfile.ZipFile(SRC) as archive:
            entries = [(i.filename, i.file_size) for i in archive.infolist() if not i.is_dir()]
    else:
        with tarfile.open(SRC) as archive:
            entries = [(m.name, m.size) for m in archive.getmembers() if m.isfile()]
    with open(OUT, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["path", "size"])
        writer.writerows(sorted(entries))


def members() -> list[tuple[str, int]]:
    if FORMAT == "zip":
        with zipfile.ZipFile(SRC) as archive:
            return [(i.filename, i.file_size) for i in archive.infolist() if not i.is_dir()]
    with tarfile.open(SRC) as archive:
        return [(m.name, m.size) for m in archive.getmembers() if m.isfile()]


def test_archive_manifest() -> None:
    with open(OUT, newline="") as f:
        rows = [row for row in csv.reader(f) if row]
    assert rows and rows[0] == ["path", "size"]
    assert rows[1:] == [[name, str(size)] for name, size in sorted(members())]
