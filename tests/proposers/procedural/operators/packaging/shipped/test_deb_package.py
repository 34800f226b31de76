"""The checks deb-package ships, called directly on a package its solution builds here (a program linked
against a private library, loaded through `$ORIGIN/../lib`): the package passes the control-field and content
checks, the solution's Depends (the shipped shell snippet) is what the checks compute, and a package with a
stale Depends, an Installed-Size off by one, unsorted md5sums, a library of mode 0755 or no soname link fails
them. The install check needs `dpkg -i` into this machine's system and runs with the operator's docker test."""

from __future__ import annotations

import random
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.packaging.shipped import deb_package as shipped
from rst_synth.proposers.procedural.shipping import shipped_text
from tests.proposers.c_parents import c_discovery
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.packaging.test_deb_package import LIBRARY, RELINKED

LIB_C = "#include <stdio.h>\nint tally(const char *s) { int n = 0; while (*s) n += *s++ == '\\n'; return n; }\n"
MAIN_C = """#include <stdio.h>
int tally(const char *s);
int main(int argc, char **argv) { printf("%d %d\\n", argc, tally("a\\nb\\n")); return 0; }
"""


def step() -> Step:
    program, found = c_discovery(details=RELINKED, extra=[LIBRARY])
    program.path = "/app/libtally/bin/tally"
    context = StepContext(discovery=found, rng=random.Random(2), tag="r3s1", taken_paths=found.paths())
    return OPERATORS["deb-package"].step(program, context)


def build_program(local: LocalStep) -> None:
    lib, bin_ = local.path("/app/libtally/lib"), local.path("/app/libtally/bin")
    lib.mkdir(parents=True)
    bin_.mkdir(parents=True)
    (lib / "tally.c").write_text(LIB_C)
    (bin_ / "main.c").write_text(MAIN_C)
    gcc = ["gcc", "-O1", "-o"]
    subprocess.run([*gcc, lib / "libtally.so.2.1.0", "-shared", "-fPIC", "-Wl,-soname,libtally.so.2", lib / "tally.c"])
    (lib / "libtally.so.2").symlink_to("libtally.so.2.1.0")
    (lib / "libtally.so").symlink_to("libtally.so.2.1.0")
    done = subprocess.run(
        [*gcc, bin_ / "tally", bin_ / "main.c", f"-L{lib}", "-ltally", "-Wl,-rpath,$ORIGIN/../lib"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    local.put("/app/data/numbers.txt", "1\n2\n")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> LocalStep:
    """The step's solution run below a temporary root: the package in its dist folder."""
    local = LocalStep(step(), tmp_path_factory.mktemp("deb"))
    build_program(local)
    local.solve()
    return local


@pytest.fixture
def checks(built: LocalStep, monkeypatch: pytest.MonkeyPatch) -> LocalStep:
    """The shipped checks pointed at the built package and the program it was made of."""
    monkeypatch.setattr(shipped, "DIST", str(built.path("/app/dist")))
    monkeypatch.setattr(shipped, "PROGRAM", str(built.path("/app/libtally/bin/tally")))
    monkeypatch.setattr(shipped, "PRIVATE", [str(built.path(LIBRARY.path))])
    monkeypatch.setattr(shipped, "SONAMES", ["libtally.so.2"])
    monkeypatch.setattr(shipped, "VERSION", shipped.package_path().name.split("_")[1])
    return built


def test_the_solution_passes_the_package_checks(checks: LocalStep, tmp_path: Path) -> None:
    assert shipped.package_path().is_file()
    assert shipped.field(shipped.package_path(), "Depends").startswith("libc6")
    for folder, test in (("control", shipped.test_package_control_fields), ("contents", shipped.test_package_contents)):
        (tmp_path / folder).mkdir()
        test(tmp_path / folder)


def test_the_depends_snippet_leaves_the_shipped_library_out(checks: LocalStep) -> None:
    snippet = shipped_text("rst_synth.proposers.procedural.operators.packaging.shipped", "deb_package_depends.sh")
    script = f'program="$1"\nshipped="$2"\n{snippet}\nprintf %s "$depends"'
    run = ["bash", "-c", script, "-", shipped.PROGRAM]
    ours = subprocess.run([*run, "libtally.so.2"], capture_output=True, text=True, check=True).stdout
    assert ours == shipped.expected_depends() and "(>= " in ours
    listed = subprocess.run([*run, ""], capture_output=True, text=True).stdout
    assert listed != ours  # the private library, owned by no package, is not left out when not shipped


def repacked(deb: Path, where: Path, change: Callable[[Path], None]) -> Path:
    where.mkdir()
    root = where / "root"
    subprocess.run(["dpkg-deb", "-R", str(deb), str(root)], check=True)
    change(root)
    out = where / deb.name
    subprocess.run(["dpkg-deb", "--build", "--root-owner-group", str(root), str(out)], check=True, capture_output=True)
    return out


def control_edit(old: str, new: str) -> Callable[[Path], None]:
    def edit(root: Path) -> None:
        control = root / "DEBIAN" / "control"
        text = control.read_text()
        assert old in text
        control.write_text(text.replace(old, new, 1))

    return edit


def reversed_md5sums(root: Path) -> None:
    md5sums = root / "DEBIAN" / "md5sums"
    md5sums.write_text("".join(reversed(md5sums.read_text().splitlines(keepends=True))))


def executable_library(root: Path) -> None:
    (root / "usr" / "lib" / "libtally.so.2.1.0").chmod(0o755)


def no_link(root: Path) -> None:
    (root / "usr" / "lib" / "libtally.so.2").unlink()


WRONG: dict[str, tuple[Callable[[Path], None], str]] = {
    "stale Depends": (control_edit("Depends: libc6 (>= ", "Depends: libc6 (>= 1:"), "test_package_control_fields"),
    "Installed-Size off by one": (control_edit("Installed-Size: ", "Installed-Size: 1"), "test_package_control_fields"),
    "unsorted md5sums": (reversed_md5sums, "test_package_control_fields"),
    "a library of mode 0755": (executable_library, "test_package_contents"),
    "no soname link": (no_link, "test_package_contents"),
}


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_wrong_packages_fail(checks: LocalStep, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    change, test = WRONG[wrong]
    bad = repacked(shipped.package_path(), tmp_path / "bad", change)
    monkeypatch.setattr(shipped, "DIST", str(bad.parent))
    with pytest.raises(AssertionError):
        getattr(shipped, test)(tmp_path)
