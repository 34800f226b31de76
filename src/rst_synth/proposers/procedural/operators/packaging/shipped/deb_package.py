"""What `deb-package` ships: the tests that inspect the Debian package of a built program (its control
fields, with the Depends the program's libraries call for, its md5sums and its entries), then install it
with `dpkg -i`, run the installed program against the original (`assert_same_runs`, borrowed from the
compiled operators' checks) and purge it. The constants are the step's parameters: `shipping.render` sets
them. PROGRAM_NAME, INPUTS and RUN_ENV are the borrowed runs' only: the tests here name the installed
program by INSTALLED, so that the test module states each constant once."""

from __future__ import annotations

import hashlib
import os
import pathlib
import re
import subprocess

from rst_synth.proposers.procedural.operators.compiled.shipped.build_checks import assert_same_runs

DIST = "/app/dist"
PACKAGE = "tally"
VERSION = "0.2.1-1"
MAINTAINER = "Grace Hopper <grace@example.net>"
SYNOPSIS = "tally command-line tool"
PROGRAM = "/app/libtally/bin/tally"
INSTALLED = "/usr/bin/tally"
"""Where the package installs PROGRAM."""
PRIVATE: list[str] = ["/app/libtally/lib/libtally.so.2.1.0"]
SONAMES: list[str] = ["libtally.so.2"]
INPUTS: list[str] = ["/app/data/numbers.txt"]
PROGRAM_NAME = "tally"
"""The `argv[0]` of both programs' runs."""
RUN_ENV: dict[str, str] = {}


def package_path() -> pathlib.Path:
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout
    return pathlib.Path(DIST) / f"{PACKAGE}_{VERSION}_{arch.strip()}.deb"


def owner(path: str) -> str:
    # The package owning a file, trying the /usr alias of a /lib path (merged /usr).
    for candidate in (path, "/usr" + path if not path.startswith("/usr/") else path[4:]):
        done = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        lines = [line for line in done.stdout.splitlines() if not line.startswith("diversion")]
        if done.returncode == 0 and lines:
            return lines[0].split(":")[0].split(",")[0].strip()
    raise AssertionError(f"no package owns {path}")


def expected_depends() -> str:
    out = subprocess.run(["ldd", PROGRAM], capture_output=True, text=True, check=True).stdout
    shipped = {pathlib.Path(p).name for p in PRIVATE} | set(SONAMES)
    names = set()
    for line in out.splitlines():
        m = re.match(r"\s*(\S+) => (/\S+)", line)
        if m and m.group(1) not in shipped:
            names.add(owner(m.group(2)))
    versions = {
        n: subprocess.run(["dpkg-query", "-W", "-f=${Version}", n], capture_output=True, text=True, check=True).stdout
        for n in names
    }
    return ", ".join(f"{n} (>= {versions[n]})" for n in sorted(names))


def field(deb: pathlib.Path, name: str) -> str:
    return subprocess.run(["dpkg-deb", "-f", str(deb), name], capture_output=True, text=True, check=True).stdout.strip()


def unpacked(deb: pathlib.Path, where: pathlib.Path) -> pathlib.Path:
    subprocess.run(["dpkg-deb", "-x", str(deb), str(where)], check=True, capture_output=True)
    subprocess.run(["dpkg-deb", "-e", str(deb), str(where / "DEBIAN")], check=True, capture_output=True)
    return where


def test_package_control_fields(tmp_path: pathlib.Path) -> None:
    deb = package_path()
    root = unpacked(deb, tmp_path / "root")
    files = [p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and "DEBIAN" not in p.parts]
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout.strip()
    assert field(deb, "Package") == PACKAGE and field(deb, "Version") == VERSION and field(deb, "Architecture") == arch
    assert field(deb, "Maintainer") == MAINTAINER and field(deb, "Section") == "utils"
    assert field(deb, "Priority") == "optional" and field(deb, "Description").split("\n")[0] == SYNOPSIS
    assert field(deb, "Installed-Size") == str(sum(-(-p.stat().st_size // 1024) for p in files))
    assert field(deb, "Depends") == expected_depends()
    md5sums = (root / "DEBIAN" / "md5sums").read_text().splitlines()
    want = sorted(f"{hashlib.md5(p.read_bytes()).hexdigest()}  {p.relative_to(root)}" for p in files)
    assert md5sums == sorted(want, key=lambda line: line.split("  ", 1)[1])


def test_package_contents(tmp_path: pathlib.Path) -> None:
    deb = package_path()
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    entries = {}
    for line in listing.splitlines():
        mode, owners, *_, name = line.split(None, 5)[:2] + line.split(None, 5)[5:]
        name = name.split(" -> ")[0].removeprefix("./").rstrip("/")
        entries[name] = (mode, owners)
    assert all(owners == "root/root" for _, owners in entries.values()), entries
    files = {n: m for n, (m, _) in entries.items() if not m.startswith("d")}
    want = {INSTALLED.removeprefix("/"): "-rwxr-xr-x"}
    want.update({f"usr/lib/{pathlib.Path(p).name}": "-rw-r--r--" for p in PRIVATE})
    assert {n: m for n, m in files.items() if not m.startswith("l")} == want
    assert {n for n, m in files.items() if m.startswith("l")} == {f"usr/lib/{s}" for s in SONAMES}
    root = unpacked(deb, tmp_path / "root")
    assert (root / INSTALLED.removeprefix("/")).read_bytes() == pathlib.Path(PROGRAM).read_bytes()
    for path, soname in zip(PRIVATE, SONAMES):  # noqa: B905  # python3 before strict=
        assert (root / "usr" / "lib" / pathlib.Path(path).name).read_bytes() == pathlib.Path(path).read_bytes()
        assert os.readlink(root / "usr" / "lib" / soname) == pathlib.Path(path).name


def test_installed_package_runs_and_removes_cleanly(tmp_path: pathlib.Path) -> None:
    deb = package_path()
    installed = subprocess.run(["dpkg", "-i", str(deb)], capture_output=True, text=True)
    try:
        assert installed.returncode == 0, installed.stdout[-1500:] + installed.stderr[-1500:]
        status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", PACKAGE], capture_output=True, text=True)
        assert status.stdout == "install ok installed"
        verify = subprocess.run(["dpkg", "--verify", PACKAGE], capture_output=True, text=True)
        assert verify.returncode == 0 and verify.stdout == "", verify.stdout
        assert assert_same_runs(PROGRAM, INSTALLED, tmp_path) >= 1
    finally:
        removed = subprocess.run(["dpkg", "--purge", PACKAGE], capture_output=True, text=True)
    assert removed.returncode == 0 and not pathlib.Path(INSTALLED).exists()
