"""The overlay walk on folders made here the way the engine lays out an image's layers and a
container's upper directory (whiteouts and the opaque mark need root, as the engine does)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rst_synth.sandbox import ChangeKind, FileChange
from rst_synth.sandbox.overlay import Unreadable, overlay_changes

A, C, D = ChangeKind.ADDED, ChangeKind.CHANGED, ChangeKind.DELETED


def write(root: Path, rel: str, text: str = "x") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def whiteout(root: Path, rel: str) -> None:
    (root / rel).parent.mkdir(parents=True, exist_ok=True)
    os.mknod(root / rel, 0o600 | 0o020000, os.makedev(0, 0))  # a character device 0:0


def same_dir(upper: Path, lower: Path, rel: str) -> None:
    """The directory copied up as overlay does it: same mode and times as the image's."""
    (upper / rel).mkdir(parents=True, exist_ok=True)
    info = os.stat(lower / rel)
    os.chmod(upper / rel, info.st_mode & 0o7777)
    os.utime(upper / rel, ns=(info.st_atime_ns, info.st_mtime_ns))


@pytest.fixture
def layers(tmp_path: Path) -> tuple[Path, Path, Path]:
    """upper, the top image layer, the base layer."""
    upper, top, base = (tmp_path / name for name in ("upper", "top", "base"))
    for folder in (upper, top, base):
        folder.mkdir()
    write(base, "etc/os-release")
    write(base, "etc/issue")
    write(base, "usr/lib/python3/os.py")
    write(base, "opt/gone/old.txt")
    whiteout(top, "opt/gone")  # the image's own rm -rf
    write(top, "app/data.csv")
    return upper, top, base


def changes(upper: Path, *lowers: Path) -> set[FileChange]:
    return set(overlay_changes(upper, list(lowers)))


def test_added_changed_deleted_and_their_folders(layers: tuple[Path, Path, Path]) -> None:
    upper, top, base = layers
    same_dir(upper, base, "etc")
    write(upper, "etc/os-release", "changed")
    whiteout(upper, "etc/issue")
    write(upper, "app/new/report.json")
    found = changes(upper, top, base)
    assert found == {
        FileChange("/etc", C),  # the folder of what changed, listed as the engine lists it
        FileChange("/etc/os-release", C),
        FileChange("/etc/issue", D),
        FileChange("/app", C),
        FileChange("/app/new", A),
        FileChange("/app/new/report.json", A),
    }


def test_a_folder_left_as_it_was_is_not_listed_but_one_whose_mode_changed_is(
    layers: tuple[Path, Path, Path],
) -> None:
    upper, top, base = layers
    same_dir(upper, base, "usr")
    assert changes(upper, top, base) == set()
    os.chmod(upper / "usr", 0o700)
    assert changes(upper, top, base) == {FileChange("/usr", C)}


def test_what_the_image_deleted_is_added_again_and_a_whiteout_over_nothing_is_nothing(
    layers: tuple[Path, Path, Path],
) -> None:
    upper, top, base = layers
    write(upper, "opt/gone/new.txt")
    whiteout(upper, "srv/never-there")
    found = changes(upper, top, base)
    assert FileChange("/opt/gone", A) in found and FileChange("/opt/gone/new.txt", A) in found
    assert not any(c.path.startswith("/srv/never") for c in found)


def test_a_folder_that_replaced_the_images_hides_its_entries(layers: tuple[Path, Path, Path]) -> None:
    upper, top, base = layers
    write(upper, "usr/lib/python3/mine.py")
    os.setxattr(upper / "usr/lib/python3", "trusted.overlay.opaque", b"y")
    found = changes(upper, top, base)
    assert FileChange("/usr/lib/python3/os.py", D) in found  # the image's, no longer seen
    assert FileChange("/usr/lib/python3/mine.py", A) in found


def test_links_of_the_image_are_not_followed(layers: tuple[Path, Path, Path], tmp_path: Path) -> None:
    upper, top, base = layers
    outside = write(tmp_path / "host", "secret/file")
    (top / "srv").mkdir()
    (top / "srv/link").symlink_to(outside.parent)  # points off the layer, into the host
    write(upper, "srv/link/file")  # cannot happen in a real container, but must not read the host
    found = changes(upper, top, base)
    assert FileChange("/srv/link", C) in found  # a folder where the image has a link
    assert FileChange("/srv/link/file", A) in found


def test_a_folder_renamed_with_redirect_dir_is_left_to_the_engine(layers: tuple[Path, Path, Path]) -> None:
    upper, top, base = layers
    (upper / "moved").mkdir()
    os.setxattr(upper / "moved", "trusted.overlay.redirect", b"/opt/gone")
    with pytest.raises(Unreadable):
        overlay_changes(upper, [top, base])
