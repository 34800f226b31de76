"""What `file-sha256-manifest` and `files-bundle-targz` ship besides their one-line solutions (`sha256sum`,
`tar | gzip -n`): the tests that hash the listed files again, and open the bundle and compare each member with
its file. The constants are the steps' parameters: `shipping.render` sets them."""

from __future__ import annotations

import hashlib
import pathlib
import re
import tarfile

FILES = ["/app/data/a.csv", "/app/data/b.json"]
DIRECTORY = "/app/data"
NAMES = ["a.csv", "b.json"]
OUT = "/app/data/a_sha256.txt"


def test_sha256_manifest() -> None:
    entries = []
    for line in pathlib.Path(OUT).read_text().splitlines():
        if line.strip():
            match = re.fullmatch(r"([0-9a-f]{64}) [ *](.+)", line)
            assert match, line
            entries.append((match.group(2), match.group(1)))
    assert [path for path, _ in entries] == FILES
    for path, digest in entries:
        assert digest == hashlib.sha256(pathlib.Path(path).read_bytes()).hexdigest(), path


def test_bundle_holds_the_files() -> None:
    with tarfile.open(OUT, "r:gz") as archive:
        members = archive.getmembers()
        assert sorted(m.name.removeprefix("./") for m in members) == sorted(NAMES)
        for member in members:
            assert member.isfile(), member.name
            data = archive.extractfile(member).read()  # type: ignore[union-attr]
            assert data == (pathlib.Path(DIRECTORY) / member.name.removeprefix("./")).read_bytes(), member.name
