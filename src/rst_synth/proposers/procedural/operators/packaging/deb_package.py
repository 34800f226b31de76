"""A Debian package of a program the workflow built: its dependencies computed from the libraries it
loads (`ldd`, then `dpkg -S` for the package that owns each), the private libraries it loads through a
relative RUNPATH shipped with it, sizes and checksums in the control files; the tests inspect the
package, install it with `dpkg -i`, run the installed program against the original and remove it."""

from __future__ import annotations

import os
import re

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.compiled.project import (
    NAME,
    PLANTED,
    SAME_RUNS_PY,
    CompiledOperator,
    assignments,
    behaviour_text,
    c_project,
    data_inputs,
    is_program,
    private_libraries,
)
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git, work_root

MAINTAINERS = ("Ada Byron <ada@example.org>", "Grace Hopper <grace@example.net>", "Ken Iverson <ken@example.com>")

PACKAGE_TESTS = r"""

def package_path():
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True).stdout
    return pathlib.Path(DIST) / f"{PACKAGE}_{VERSION}_{arch.strip()}.deb"


def owner(path):
    # The package owning a file, trying the /usr alias of a /lib path (merged /usr).
    for candidate in (path, "/usr" + path if not path.startswith("/usr/") else path[4:]):
        done = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        lines = [line for line in done.stdout.splitlines() if not line.startswith("diversion")]
        if done.returncode == 0 and lines:
            return lines[0].split(":")[0].split(",")[0].strip()
    raise AssertionError(f"no package owns {path}")


def expected_depends():
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


def field(deb, name):
    return subprocess.run(["dpkg-deb", "-f", str(deb), name], capture_output=True, text=True, check=True).stdout.strip()


def unpacked(deb, where):
    subprocess.run(["dpkg-deb", "-x", str(deb), str(where)], check=True, capture_output=True)
    subprocess.run(["dpkg-deb", "-e", str(deb), str(where / "DEBIAN")], check=True, capture_output=True)
    return where


def test___TAG___package_control_fields(tmp_path):
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


def test___TAG___package_contents(tmp_path):
    deb = package_path()
    listing = subprocess.run(["dpkg-deb", "-c", str(deb)], capture_output=True, text=True, check=True).stdout
    entries = {}
    for line in listing.splitlines():
        mode, owners, *_, name = line.split(None, 5)[:2] + line.split(None, 5)[5:]
        name = name.split(" -> ")[0].removeprefix("./").rstrip("/")
        entries[name] = (mode, owners)
    assert all(owners == "root/root" for _, owners in entries.values()), entries
    files = {n: m for n, (m, _) in entries.items() if not m.startswith("d")}
    want = {f"usr/bin/{PROGRAM_NAME}": "-rwxr-xr-x"}
    want.update({f"usr/lib/{pathlib.Path(p).name}": "-rw-r--r--" for p in PRIVATE})
    assert {n: m for n, m in files.items() if not m.startswith("l")} == want
    assert {n for n, m in files.items() if m.startswith("l")} == {f"usr/lib/{s}" for s in SONAMES}
    root = unpacked(deb, tmp_path / "root")
    assert (root / "usr" / "bin" / PROGRAM_NAME).read_bytes() == pathlib.Path(PROGRAM).read_bytes()
    for path, soname in zip(PRIVATE, SONAMES):
        assert (root / "usr" / "lib" / pathlib.Path(path).name).read_bytes() == pathlib.Path(path).read_bytes()
        assert os.readlink(root / "usr" / "lib" / soname) == pathlib.Path(path).name


def test___TAG___installed_package_runs_and_removes_cleanly(tmp_path):
    deb = package_path()
    installed = subprocess.run(["dpkg", "-i", str(deb)], capture_output=True, text=True)
    try:
        assert installed.returncode == 0, installed.stdout[-1500:] + installed.stderr[-1500:]
        status = subprocess.run(["dpkg-query", "-W", "-f=${Status}", PACKAGE], capture_output=True, text=True)
        assert status.stdout == "install ok installed"
        verify = subprocess.run(["dpkg", "--verify", PACKAGE], capture_output=True, text=True)
        assert verify.returncode == 0 and verify.stdout == "", verify.stdout
        assert assert_same_runs(PROGRAM, f"/usr/bin/{PROGRAM_NAME}", tmp_path) >= 1
    finally:
        removed = subprocess.run(["dpkg", "--purge", PACKAGE], capture_output=True, text=True)
    assert removed.returncode == 0 and not pathlib.Path(f"/usr/bin/{PROGRAM_NAME}").exists()
"""
"""The step's checks; `__TAG__` is the step's tag, the constants come before them."""


def _private(artifact: Artifact, discovery: Discovery) -> list[Artifact] | None:
    """The lineage's shared libraries the program loads; None when it finds them otherwise than through a
    RUNPATH that puts them in `/usr/lib` once the program is in `/usr/bin`."""
    mine = private_libraries(artifact, discovery)
    runpath = str(artifact.details.get("runpath", ""))
    if mine and os.path.normpath(runpath.replace("$ORIGIN", "/usr/bin")) != "/usr/lib":
        return None
    return [
        Artifact(path=path, kind=Kind.LIBRARY, details={"format": "shared", "soname": soname})
        for soname, path in sorted(mine.items())
    ]


def package_name(program: str) -> str:
    """A Debian package name for a program (lower case letters, digits, `+`, `-`, `.`)."""
    name = re.sub(r"[^a-z0-9+.-]+", "-", program.lower()).strip("-.")
    return name if len(name) >= 2 else f"{name}-tool"


@register
class DebianPackage(CompiledOperator):
    """A Debian package of a built program, with computed Depends, installed and run by the tests."""

    name = "deb-package"
    kinds = (Kind.EXECUTABLE,)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        planted = f"{work_root(discovery)}/{PLANTED}/"
        return (
            is_program(artifact)
            and NAME.fullmatch(artifact.name) is not None
            and artifact.details.get("interp") is True
            and not artifact.path.startswith(planted)
            and not inside_git(artifact.path, discovery)
            and _private(artifact, discovery) is not None
            and discovery.has_tool("apt-get")  # a Debian system: dpkg and dpkg-deb are there
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        private = _private(artifact, ctx.discovery) or []
        project = c_project(artifact, ctx.discovery)
        inputs = list(project.inputs) if project else data_inputs(ctx.discovery, {artifact.directory})[:3]
        package = package_name(artifact.name)
        dist = f"{work_root(ctx.discovery)}/dist"
        version = f"{ctx.rng.randint(0, 3)}.{ctx.rng.randint(1, 9)}.{ctx.rng.randint(0, 9)}-1"
        while any(p.startswith(f"{dist}/{package}_{version}_") for p in ctx.taken_paths):
            version = version.replace("-", ".1-", 1)  # one more version component: never a file name taken
        ctx.taken_paths.add(f"{dist}/{package}_{version}_")
        maintainer = ctx.rng.choice(MAINTAINERS)
        synopsis = f"{artifact.name} command-line tool"
        sonames = [str(a.details["soname"]) for a in private]
        constants = {
            "DIST": dist,
            "PACKAGE": package,
            "VERSION": version,
            "MAINTAINER": maintainer,
            "SYNOPSIS": synopsis,
            "PROGRAM": artifact.path,
            "PROGRAM_NAME": artifact.name,
            "PRIVATE": [a.path for a in private],
            "SONAMES": sonames,
            "INPUTS": inputs,
            "RUN_ENV": {},
        }
        tests = assignments(constants) + SAME_RUNS_PY + PACKAGE_TESTS.replace("__TAG__", ctx.tag)
        instruction = _instruction(artifact, private, sonames, package, version, maintainer, synopsis, dist)
        control = CONTROL.format(package=package, version=version, synopsis=synopsis)
        deb = f"{q(dist)}/{package}_{version}_$(dpkg --print-architecture).deb"
        return Step(
            solution=_solution(artifact, private, sonames, control, maintainer, dist, deb),
            tests=tests,
            instruction=instruction.replace("BEHAVIOUR", behaviour_text(artifact.path, inputs)),
            produces=[],
        )


CONTROL = """Package: {package}
Version: {version}
Architecture: $(dpkg --print-architecture)
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Section: utils
Priority: optional
Description: {synopsis}
 Built by the workflow from its sources.
"""

DEPENDS_SH = """# ldd is a bash script: the caller's exported shell options (set -u) must not reach it
depends=$(env -u SHELLOPTS ldd PROGRAM \\
  | awk '$2 == "=>" && $3 ~ /^\\// {print $1, $3}' \\
  | while read -r name path; do
      case " SHIPPED " in *" $name "*) continue ;; esac
      pkg=$(dpkg -S "$path" 2>/dev/null | grep -v '^diversion' | head -n 1 | cut -d: -f1 | cut -d, -f1) || true
      if [ -z "$pkg" ]; then
        case "$path" in /usr/*) alias=${path#/usr} ;; *) alias=/usr$path ;; esac
        pkg=$(dpkg -S "$alias" | grep -v '^diversion' | head -n 1 | cut -d: -f1 | cut -d, -f1)
      fi
      echo "$pkg"
    done | sort -u | while read -r pkg; do
      echo "$pkg (>= $(dpkg-query -W -f='${Version}' "$pkg"))"
    done | paste -sd, - | sed 's/,/, /g')
"""
"""Bash: the Depends value of PROGRAM (ldd, dpkg -S with the merged-/usr alias, installed versions)."""


def _solution(
    artifact: Artifact, private: list[Artifact], sonames: list[str], control: str, maintainer: str, dist: str, deb: str
) -> str:
    lines = [
        "stage=$(mktemp -d)",
        'chmod 0755 "$stage"',
        f'install -D -m 0755 {q(artifact.path)} "$stage/usr/bin/{artifact.name}"',
    ]
    if private:
        lines.append('mkdir -p "$stage/usr/lib"')
    for library, soname in zip(private, sonames, strict=True):
        lines.append(f'install -m 0644 {q(library.path)} "$stage/usr/lib/{library.name}"')
        lines.append(f'ln -s {q(library.name)} "$stage/usr/lib/{soname}"')
    depends = DEPENDS_SH.replace("PROGRAM", q(artifact.path)).replace("SHIPPED", " ".join(sonames))
    return (
        "\n".join(lines)
        + f"""
{depends.rstrip()}
size=$(find "$stage" -type f -printf '%s\\n' | awk '{{kib += int(($1 + 1023) / 1024)}} END {{print kib + 0}}')
mkdir -p "$stage/DEBIAN"
maintainer={q(maintainer)}
(cd "$stage" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$stage/DEBIAN/md5sums"
cat > "$stage/DEBIAN/control" <<CONTROL
{control.rstrip()}
CONTROL
mkdir -p {q(dist)}
dpkg-deb --build --root-owner-group "$stage" {deb}
dpkg-deb --info {deb}
rm -rf "$stage\""""
    )


def _instruction(
    artifact: Artifact,
    private: list[Artifact],
    sonames: list[str],
    package: str,
    version: str,
    maintainer: str,
    synopsis: str,
    dist: str,
) -> str:
    libraries = "".join(
        f", and, since it loads `{s}` through its RUNPATH `{artifact.details.get('runpath')}`, the library "
        f"`{a.path}` unchanged as `/usr/lib/{a.name}` (mode `0644`) with the symbolic link `/usr/lib/{s}` -> "
        f"`{a.name}`"
        for a, s in zip(private, sonames, strict=True)
    )
    shipped = " (other than the ones the package ships)" if private else ""
    return (
        f"Next, package `{artifact.name}` for Debian: build `{dist}/{package}_{version}_ARCH.deb`, where ARCH is "
        f"what `dpkg --print-architecture` prints, with `dpkg-deb --build --root-owner-group` (every entry owned "
        f"by `root/root`). The package installs `{artifact.path}` unchanged as `/usr/bin/{artifact.name}` (mode "
        f"`0755`){libraries}, and no other file or link (directories aside). Its control file has the fields "
        f"`Package: {package}`, `Version: {version}`, `Architecture:` ARCH, `Maintainer: {maintainer}`, "
        f"`Section: utils`, `Priority: optional`, a `Description` whose first line is `{synopsis}`, "
        "`Installed-Size`: the sum over the package's files (links and directories left out) of each file's size "
        "in KiB rounded up (`ceil(size / 1024)`), and `Depends`: for each library `ldd "
        f"{artifact.path}` resolves to a path (`NAME => PATH`){shipped}, the package `dpkg -S` names as owning "
        "that path (or, when none does, the same path with `/usr` added in front or, for a path under `/usr`, "
        "taken off: merged `/usr`), without its `:ARCH` qualifier; each package once, sorted by name, written "
        "`NAME (>= VERSION)` with the version installed now (`dpkg-query -W -f='${Version}' NAME`), joined by "
        "`, `. The control area also holds `md5sums`: one line `MD5  PATH` (two spaces; the path relative to the "
        "package root, without `./`) per file of the package, sorted by path. The package must install with `dpkg "
        f"-i` (leave it uninstalled yourself), after which `dpkg --verify {package}` reports nothing and "
        f"`/usr/bin/{artifact.name}` behaves as `{artifact.path}`: BEHAVIOUR; `dpkg --purge {package}` removes it "
        "cleanly."
    )
