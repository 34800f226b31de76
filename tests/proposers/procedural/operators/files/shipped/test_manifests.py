"""The references and tests of archive-manifest, file-sha256-manifest and files-bundle-targz, called directly:
a manifest written by the reference (or `sha256sum`, `tar | gzip -n` as the steps run them) passes its test; a
size, digest or member that differs, or a file missing, fails it."""

from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
import tarfile
import zipfile
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.files.shipped import archive_manifest, file_manifests


def _files(folder: Path) -> list[Path]:
    folder.mkdir()
    (folder / "b.json").write_text('{"b": 1}\n')
    (folder / "a.csv").write_text("x,y\n1,2\n")
    return sorted(folder.iterdir())


@pytest.mark.parametrize("fmt", ["tar.gz", "zip"])
def test_the_archive_reference_passes_its_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    files = _files(tmp_path / "data")
    src = tmp_path / f"bundle.{fmt}"
    if fmt == "zip":
        with zipfile.ZipFile(src, "w") as z:
            z.writestr("sub/", "")
            for f in files:
                z.write(f, f"sub/{f.name}")
    else:
        with tarfile.open(src, "w:gz") as t:
            t.add(tmp_path / "data", "sub")
    monkeypatch.setattr(archive_manifest, "SRC", str(src))
    monkeypatch.setattr(archive_manifest, "FORMAT", fmt)
    monkeypatch.setattr(archive_manifest, "OUT", str(tmp_path / "manifest.csv"))
    archive_manifest.write_manifest()
    assert (tmp_path / "manifest.csv").read_text().splitlines() == ["path,size", "sub/a.csv,8", "sub/b.json,9"]
    archive_manifest.test_archive_manifest()
    for wrong in ("path,size\nsub/a.csv,8\n", "path,size\nsub/a.csv,9\nsub/b.json,9\n", "sub/a.csv,8\nsub/b.json,9\n"):
        (tmp_path / "manifest.csv").write_text(wrong)
        with pytest.raises(AssertionError):
            archive_manifest.test_archive_manifest()


def test_sha256_manifest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = [str(f) for f in _files(tmp_path / "data")]
    out = tmp_path / "sums.txt"
    monkeypatch.setattr(file_manifests, "FILES", files)
    monkeypatch.setattr(file_manifests, "OUT", str(out))
    right = "".join(f"{hashlib.sha256(Path(f).read_bytes()).hexdigest()}  {f}\n" for f in files)
    if shutil.which("sha256sum"):
        assert subprocess.run(["sha256sum", "--", *files], capture_output=True, text=True).stdout == right
    out.write_text(right)
    file_manifests.test_sha256_manifest()
    lines = right.splitlines(keepends=True)
    for wrong in (lines[0], lines[1] + lines[0], lines[0] + "0" * 64 + lines[1][64:], right.upper()):
        out.write_text(wrong)
        with pytest.raises(AssertionError):
            file_manifests.test_sha256_manifest()


def _bundle(out: Path, folder: Path, names: list[str], content: dict[str, bytes] | None = None) -> None:
    with tarfile.open(out, "w:gz") as t:
        for name in names:
            data = (content or {}).get(name, (folder / name).read_bytes())
            info = tarfile.TarInfo(name)
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))


def test_bundle_holds_the_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "data"
    names = [f.name for f in _files(folder)]
    out = tmp_path / "bundle.tar.gz"
    for name, value in {"DIRECTORY": str(folder), "NAMES": names, "OUT": str(out)}.items():
        monkeypatch.setattr(file_manifests, name, value)
    _bundle(out, folder, names)
    file_manifests.test_bundle_holds_the_files()
    for wrong in ([names[0]], names + ["extra.txt"]):
        (folder / "extra.txt").write_text("x")
        _bundle(out, folder, wrong)
        with pytest.raises(AssertionError):
            file_manifests.test_bundle_holds_the_files()
    _bundle(out, folder, names, {names[0]: b"changed\n"})
    with pytest.raises(AssertionError):
        file_manifests.test_bundle_holds_the_files()
