"""What an ELF file or a static library says about itself, read from its bytes: the file type, the
shared libraries it needs, its SONAME and RUNPATH; the members of an `ar` archive.

Operators on compiled programs need these facts when they state a step (which system libraries a
program links, whether a library was split off already); discovery reads them once per file.
"""

from __future__ import annotations

import struct
from typing import Any

ELF_MAGIC = b"\x7fELF"
AR_MAGIC = b"!<arch>\n"
_TYPES = {1: "relocatable", 2: "executable", 3: "shared", 4: "core"}
_PT_LOAD, _PT_DYNAMIC, _PT_INTERP = 1, 2, 3
_DT_NEEDED, _DT_STRTAB, _DT_SONAME, _DT_RPATH, _DT_RUNPATH = 1, 5, 14, 15, 29
Segment = tuple[int, int, int, int]
"""A program header: type, file offset, virtual address, file size."""


def elf_details(content: bytes) -> dict[str, Any]:
    """`elf` (relocatable, executable, shared, core), `interp` (a program the kernel starts through the
    dynamic loader), and from the dynamic section `needed`, `soname`, `runpath` (DT_RUNPATH, else
    DT_RPATH); empty details when the header cannot be read."""
    if len(content) < 64 or not content.startswith(ELF_MAGIC) or content[4] not in (1, 2):
        return {}
    wide, order = content[4] == 2, "<" if content[5] == 1 else ">"
    try:
        e_type = struct.unpack_from(order + "H", content, 16)[0]
        phoff = struct.unpack_from(order + ("Q" if wide else "I"), content, 32 if wide else 28)[0]
        phentsize, phnum = struct.unpack_from(order + "HH", content, 54 if wide else 42)
        segments = [_segment(content, phoff + k * phentsize, wide, order) for k in range(phnum)]
    except struct.error:
        return {}
    details: dict[str, Any] = {
        "elf": _TYPES.get(e_type, "other"),
        "interp": any(kind == _PT_INTERP for kind, *_ in segments),
    }
    dynamic = next((s for s in segments if s[0] == _PT_DYNAMIC), None)
    if dynamic is not None:
        details.update(_dynamic(content, dynamic, segments, wide, order))
    return details


def _segment(content: bytes, at: int, wide: bool, order: str) -> Segment:
    if wide:
        kind, _, offset, vaddr, _, filesz = struct.unpack_from(order + "IIQQQQ", content, at)
    else:
        kind, offset, vaddr, _, filesz = struct.unpack_from(order + "IIIII", content, at)
    return kind, offset, vaddr, filesz


def _dynamic(content: bytes, dynamic: Segment, segments: list[Segment], wide: bool, order: str) -> dict[str, Any]:
    entry = "qQ" if wide else "iI"
    size = struct.calcsize(order + entry)
    tags: list[tuple[int, int]] = []
    try:
        for at in range(dynamic[1], dynamic[1] + dynamic[3] - size + 1, size):
            tag, value = struct.unpack_from(order + entry, content, at)
            if tag == 0:
                break
            tags.append((tag, value))
    except struct.error:
        return {}
    strtab = next((v for t, v in tags if t == _DT_STRTAB), -1)
    # DT_STRTAB is an address: the loadable segment holding it gives its place in the file.
    base = next((o + strtab - a for k, o, a, n in segments if k == _PT_LOAD and a <= strtab < a + n), None)
    if base is None:
        return {}

    def text(offset: int) -> str:
        end = content.find(b"\0", base + offset)
        return content[base + offset : end if end >= 0 else None].decode("utf-8", "replace")

    found: dict[str, Any] = {"needed": [text(v) for t, v in tags if t == _DT_NEEDED]}
    soname = next((text(v) for t, v in tags if t == _DT_SONAME), None)
    runpath = next((text(v) for t, v in tags if t == _DT_RUNPATH), None)
    runpath = runpath if runpath is not None else next((text(v) for t, v in tags if t == _DT_RPATH), None)
    if soname is not None:
        found["soname"] = soname
    if runpath is not None:
        found["runpath"] = runpath
    return found


def is_shared_library(details: dict[str, Any]) -> bool:
    """A shared object loaded by others: ET_DYN without an interpreter (a PIE program has one)."""
    return details.get("elf") == "shared" and not details.get("interp")


def ar_members(content: bytes) -> list[str] | None:
    """Member names of a System V / GNU `ar` archive (the symbol index left out), or None when the
    bytes are no such archive."""
    if not content.startswith(AR_MAGIC):
        return None
    names: list[str] = []
    long_names = b""
    at = len(AR_MAGIC)
    while at + 60 <= len(content):
        header = content[at : at + 60]
        if header[58:60] != b"`\n":
            return None
        raw, size = header[:16].rstrip(b" "), int(header[48:58].strip() or b"0")
        body = content[at + 60 : at + 60 + size]
        if raw == b"//":
            long_names = body
        elif raw not in (b"/", b"/SYM64/"):
            if raw.startswith(b"/") and raw[1:].isdigit():
                start = int(raw[1:])
                raw = long_names[start : long_names.find(b"\n", start)]
            names.append(raw.rstrip(b"/").decode("utf-8", "replace"))
        at += 60 + size + (size % 2)
    return names
