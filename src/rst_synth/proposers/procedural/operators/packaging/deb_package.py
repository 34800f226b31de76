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
    CompiledOperator,
    behaviour_text,
    c_project,
    data_inputs,
    is_program,
    private_libraries,
)
from rst_synth.proposers.procedural.operators.kit.workflow import inside_git, work_root
from rst_synth.proposers.procedural.operators.packaging.shipped import deb_package
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import render, shipped_text

MAINTAINERS = ("Ada Byron <ada@example.org>", "Grace Hopper <grace@example.net>", "Ken Iverson <ken@example.com>")


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
    purpose = Purpose.RELEASE
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
        tests = render(
            deb_package,
            [
                "test_package_control_fields",
                "test_package_contents",
                "test_installed_package_runs_and_removes_cleanly",
            ],
            tag=ctx.tag,
            DIST=dist,
            PACKAGE=package,
            VERSION=version,
            MAINTAINER=maintainer,
            SYNOPSIS=synopsis,
            PROGRAM=artifact.path,
            INSTALLED=f"/usr/bin/{artifact.name}",
            PRIVATE=[a.path for a in private],
            SONAMES=sonames,
            INPUTS=inputs,
            PROGRAM_NAME=artifact.name,
            RUN_ENV={},
        )
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
    lines.append(f"program={q(artifact.path)}")
    lines.append(f"shipped={q(' '.join(sonames))}")
    depends = shipped_text(f"{__package__}.shipped", "deb_package_depends.sh")
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
        f"Package `{artifact.name}` for Debian: build `{dist}/{package}_{version}_ARCH.deb`, where ARCH is "
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
