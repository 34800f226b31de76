"""What a container changed versus its image, read on the host from its overlay upper directory.

Docker's overlay2 driver keeps every change a container makes in one directory on the host (its
`UpperDir`) over the image's read-only layers (its `LowerDir`). Walking it lists the same changes
`GET /containers/{id}/changes` does, in milliseconds, where the engine may compare the whole
filesystem with the image's (a quarter of a second for a slim Debian image, a second for a 1 GB one,
on every verifier run). Like the engine's list, it is out of reach of the code inside: a container
writes into its upper directory, never reads or changes how the host reads it.

The kinds are those of the engine's full compare of the container's files with the image's (what
Docker 20.10 answers):
- a character device 0:0 is a whiteout: the image's path is DELETED; in a directory marked opaque
  (`trusted.overlay.opaque`, a folder that replaced the image's), each entry the image had and the
  folder no longer has is DELETED;
- any other entry is CHANGED where the image has the path (its topmost layer that has it, unless a
  whiteout above hid it), else ADDED; a directory with the image's mode, owner and mtime is left out;
- every folder above a listed path is CHANGED.
Layers are read with lstat, and only through folders that are folders in that layer, never following
a link: a link of the image that points outside its layer would point into the host here. A copy-up
that changed nothing (a file opened for writing, never written) is CHANGED; the full compare leaves it
out, so this list holds at least what the engine's does.

Where the walk cannot answer the way the engine would (a directory renamed with overlay's
`redirect_dir`, an xattr this process may not read), `Unreadable` says so and the caller asks the
engine."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path, PurePosixPath

from rst_synth.sandbox.base import ChangeKind, FileChange

_OPAQUE = "trusted.overlay.opaque"
_REDIRECT = "trusted.overlay.redirect"


class Unreadable(OSError):
    """The upper directory cannot be read as the engine would read it; ask the engine."""


def overlay_changes(upper: Path, lowers: list[Path]) -> list[FileChange]:
    """The changes recorded in `upper` over `lowers` (the image's layers, topmost first)."""
    found: dict[str, ChangeKind] = {}
    _walk(upper, "", lowers, found)
    for path in list(found):  # the folders of what changed are changed, as the engine lists them
        for folder in PurePosixPath(path).parents:
            if str(folder) != "/":
                found.setdefault(str(folder), ChangeKind.CHANGED)
    return [FileChange(path, kind) for path, kind in sorted(found.items())]


def _walk(upper: Path, rel: str, layers: list[Path], found: dict[str, ChangeKind]) -> None:
    """`rel` is a directory of `upper` ("" for its root); `layers` are those the image's directory
    comes from (topmost first), where anything under it can be."""
    with os.scandir(upper / rel[1:]) as listing:
        entries = sorted(listing, key=lambda e: e.name)
    if rel and _xattr(str(upper / rel[1:]), _OPAQUE) == b"y":  # it hides the image's entries
        hidden = {name for layer in layers for name in _names(layer / rel[1:])} - {e.name for e in entries}
        found.update({f"{rel}/{name}": ChangeKind.DELETED for name in hidden if _image_entry(layers, f"{rel}/{name}")})
    for entry in entries:
        path = f"{rel}/{entry.name}"
        info = entry.stat(follow_symlinks=False)
        is_dir = stat.S_ISDIR(info.st_mode)
        image = _image_entry(layers, path)
        if is_dir and _xattr(entry.path, _REDIRECT) is not None:
            raise Unreadable(errno.ENOTSUP, "a directory renamed with overlay's redirect_dir", entry.path)
        if _whiteout(info):
            if image:
                found[path] = ChangeKind.DELETED
        elif not image:
            found[path] = ChangeKind.ADDED
        elif not (is_dir and _same_dir(info, image[0][1])):
            found[path] = ChangeKind.CHANGED
        if is_dir:
            _walk(upper, path, [layer for layer, st in image if stat.S_ISDIR(st.st_mode)], found)


def _image_entry(layers: list[Path], path: str) -> list[tuple[Path, os.stat_result]]:
    """How the image holds `path`: the layers it comes from, topmost first, with what each has
    there (several only for a directory: down to one that is opaque); empty where the image has
    nothing there (no layer has it, or a whiteout in a higher layer hid it)."""
    found: list[tuple[Path, os.stat_result]] = []
    for layer in layers:
        st = _lstat(layer / path[1:])
        if st is None:
            continue
        if _whiteout(st) or (found and not stat.S_ISDIR(st.st_mode)):
            break
        found.append((layer, st))
        if not stat.S_ISDIR(st.st_mode) or _xattr(str(layer / path[1:]), _OPAQUE) == b"y":
            break
    return found


def _names(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _lstat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def _whiteout(info: os.stat_result) -> bool:
    return stat.S_ISCHR(info.st_mode) and info.st_rdev == 0


def _same_dir(mine: os.stat_result, theirs: os.stat_result) -> bool:
    """A directory left as the image had it: mode, owner and mtime (equal, or equal seconds where
    either side lost its nanoseconds, as the engine compares them)."""
    if not stat.S_ISDIR(theirs.st_mode):
        return False
    if (mine.st_mode, mine.st_uid, mine.st_gid) != (theirs.st_mode, theirs.st_uid, theirs.st_gid):
        return False
    a, b = mine.st_mtime_ns, theirs.st_mtime_ns
    return a == b or (a // 10**9 == b // 10**9 and (a % 10**9 == 0 or b % 10**9 == 0))


def _xattr(path: str, name: str) -> bytes | None:
    try:
        return os.getxattr(path, name, follow_symlinks=False)
    except OSError as exc:
        if exc.errno in (errno.ENODATA, errno.ENOTSUP):
            return None
        raise Unreadable(exc.errno, f"cannot read {name}", path) from exc
