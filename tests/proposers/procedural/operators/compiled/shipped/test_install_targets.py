"""The checks of make-install-targets, called directly on a small project built here: the step's install
block passes all three, and a block that installs with the wrong mode, rebuilds the program in place, does
not build it first, removes the whole folder on uninstall or defaults to another prefix each fail."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.compiled.install_targets import install_block
from rst_synth.proposers.procedural.operators.compiled.shipped import install_targets as shipped

pytestmark = pytest.mark.skipif(not all(shutil.which(t) for t in ("gcc", "make")), reason="needs gcc and make")

MAKEFILE = """.RECIPEPREFIX = >
OBJS = build/main.o build/sum.o

total: $(OBJS)
> $(CC) -o $@ $^

build/%.o: src/%.c src/sum.h
> @mkdir -p build
> $(CC) -O2 -c $< -o $@
"""
FILES = {
    "Makefile": MAKEFILE,
    "src/main.c": '#include <stdio.h>\n#include "sum.h"\nint main(void) { printf("%d\\n", sum(2, 3)); return 0; }\n',
    "src/sum.c": '#include "sum.h"\nint sum(int a, int b) { return a + b; }\n',
    "src/sum.h": "int sum(int a, int b);\n",
    "README": "not a source\n",
}
CHECKS = {
    "in place": shipped.test_install_in_place_uses_the_built_program,
    "fresh": shipped.test_fresh_build_installs_and_uninstalls,
    "default": shipped.test_default_prefix_is_usr_local,
}


def project(top: Path, monkeypatch: pytest.MonkeyPatch, old: str = "", new: str = "") -> Path:
    """The project built below `top`, then the step's block (with `old` replaced by `new`) appended to its
    Makefile, as the solution appends it; the checks' parameters set to it."""
    for name, text in FILES.items():
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(text)
    subprocess.run(["make", "-C", str(top)], check=True, capture_output=True)
    block = install_block("total")
    assert old in block
    with (top / "Makefile").open("a") as makefile:
        makefile.write(block.replace(old, new) if old else block)
    monkeypatch.setattr(shipped, "MAKEDIR", str(top))
    monkeypatch.setattr(shipped, "PROGRAM", "total")
    monkeypatch.setattr(shipped, "PREFIX", "/opt/total")
    monkeypatch.setattr(shipped, "STAGED_PREFIX", "usr/x321")
    return top


def test_a_source_copy_holds_the_makefile_and_sources_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    top = project(tmp_path / "app", monkeypatch)
    copy = shipped.source_copy(top, tmp_path / "copy")
    assert sorted(str(p.relative_to(copy)) for p in copy.rglob("*") if p.is_file()) == [
        "Makefile",
        "src/main.c",
        "src/sum.c",
        "src/sum.h",
    ]


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_the_steps_block_passes_the_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, check: str) -> None:
    top = project(tmp_path / "app", monkeypatch)
    (tmp_path / "t").mkdir()
    CHECKS[check](tmp_path / "t")
    assert not (top / "bin").exists()  # installed under the test's DESTDIR only


WRONG = {
    "mode 0644": ("-m 0755", "-m 0644", ["in place", "fresh"]),
    "rebuilt in place": ('> mkdir -p "$(DESTDIR)', '> touch total\n> mkdir -p "$(DESTDIR)', ["in place"]),
    "not built first": ("install: total", "install:", ["fresh", "default"]),
    "folder removed": ('rm -f "$(DESTDIR)$(PREFIX)/bin/total"', 'rm -rf "$(DESTDIR)$(PREFIX)/bin"', ["fresh"]),
    "prefix /usr": ("PREFIX ?= /usr/local", "PREFIX ?= /usr", ["default"]),
}


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_a_wrong_block_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    old, new, failing = WRONG[wrong]
    project(tmp_path / "app", monkeypatch, old, new)
    for number, check in enumerate(failing):
        (tmp_path / str(number)).mkdir()
        with pytest.raises((AssertionError, FileNotFoundError)):  # the neighbour file's folder gone: no file
            CHECKS[check](tmp_path / str(number))
