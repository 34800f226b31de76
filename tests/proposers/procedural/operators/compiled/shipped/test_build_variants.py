"""The checks of c-build-variants, called directly on a small project written here (a source folder and a
header folder): the step's Makefile passes all four, and a Makefile whose variants share their objects, that
builds release with debug information, has no header dependencies or whose `make check` compares nothing,
and a variant that prints something else, each fail the check that is about it."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.compiled import build_variants as operator
from rst_synth.proposers.procedural.operators.compiled.project import CProject
from rst_synth.proposers.procedural.operators.compiled.shipped import build_checks
from rst_synth.proposers.procedural.operators.compiled.shipped import build_variants as shipped

pytestmark = pytest.mark.skipif(
    not all(shutil.which(t) for t in ("gcc", "make", "readelf")), reason="needs gcc, make and readelf"
)

FILES = {
    "src/main.c": '#include <stdio.h>\n#include "sum.h"\n#include "fmt.h"\n\nint main(int argc, char **argv)\n'
    '{\n    long total = 0;\n    if (argc > 1) {\n        FILE *fp = fopen(argv[1], "r");\n        long x;\n'
    '        if (fp == NULL)\n            return 1;\n        while (fscanf(fp, "%ld", &x) == 1)\n'
    "            total = sum(total, x);\n        fclose(fp);\n    }\n    printf(FMT, total);\n    return 0;\n}\n",
    "src/sum.c": '#include "sum.h"\n\nlong sum(long a, long b) { return a + b; }\n',
    "src/sum.h": "#ifndef SUM_H\n#define SUM_H\nlong sum(long a, long b);\n#endif\n",
    "include/fmt.h": '#ifndef FMT\n#define FMT "total=%ld\\n"\n#endif\n',
    "data/numbers.txt": "1 2 3\n40\n",
}
CHECKS = {
    "apart": shipped.test_variants_build_apart_with_their_flags,
    "behave": shipped.test_variants_behave_as_the_original,
    "header": shipped.test_header_change_rebuilds_exactly_its_includers,
    "check": shipped.test_make_check_compares_with_the_reference,
}


def project(top: Path, monkeypatch: pytest.MonkeyPatch, *changes: tuple[str, str]) -> Path:
    """The project below `top`, its original program built, the step's Makefile (with each (old, new) of
    `changes` replaced) in its folder, and the checks' parameters set to these paths."""
    for name, text in FILES.items():
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(text)
    program = top / "total"
    cc = ["gcc", "-O2", f"-I{top / 'include'}", str(top / "src/main.c"), str(top / "src/sum.c"), "-o", str(program)]
    subprocess.run(cc, check=True)
    built = CProject(
        program=str(program),
        main=str(top / "src/main.c"),
        sources=(str(top / "src/sum.c"),),
        headers=(str(top / "src/sum.h"),),
        libraries=(),
        inputs=(str(top / "data/numbers.txt"),),
        needed=("libc.so.6",),
        include_dirs=(str(top / "include"),),
        std="-std=c11",
    )
    folder = top / "total-variants"
    folder.mkdir()
    text = operator._makefile(built, str(folder))
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new)
    (folder / "Makefile").write_text(text)
    shared = {"TOP": str(top), "INCLUDE_DIRS": list(built.include_dirs), "PROGRAM_NAME": built.name}
    shared["INPUTS"] = list(built.inputs)
    for name, value in shared.items():
        monkeypatch.setattr(shipped, name, value)
        monkeypatch.setattr(build_checks, name, value)
    monkeypatch.setattr(build_checks, "RUN_ENV", {})
    monkeypatch.setattr(shipped, "FOLDER", str(folder))
    monkeypatch.setattr(shipped, "SRCDIR", built.source_dir)
    monkeypatch.setattr(shipped, "MAIN", built.main)
    monkeypatch.setattr(shipped, "SOURCES", [built.main, *built.sources])
    monkeypatch.setattr(shipped, "PROGRAM", built.program)
    return top


@pytest.mark.parametrize("check", sorted(CHECKS))
def test_the_steps_makefile_passes_the_checks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, check: str) -> None:
    project(tmp_path / "app", monkeypatch)
    CHECKS[check](tmp_path / "t")
    assert not (tmp_path / "app" / "total-variants" / "out").exists()  # the checks build in their copy only


def fails_at(check: Callable[[Path], None], tmp_path: Path, statement: str) -> None:
    """`check` fails, at the assertion that holds `statement` (the shipped asserts carry no message)."""
    with pytest.raises(AssertionError) as failed:
        check(tmp_path)
    assert statement in str(failed.traceback[-1].statement)


WRONG = {
    # the variants share their objects
    "apart": ([("$(OUT)/obj/", "out/obj/"), ("@mkdir -p $(@D)", "@mkdir -p $(@D) $(OUT)")], "sorted(objects)"),
    "header": ([(" -MMD -MP", "")], '"-q").returncode != 0'),  # no header dependencies
    "check": ([("cmp -s", "true")], "done.returncode != 0"),  # every run passes, a changed program too
}


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_a_wrong_makefile_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    change, statement = WRONG[wrong]
    project(tmp_path / "app", monkeypatch, *change)
    fails_at(CHECKS[wrong], tmp_path / "t", statement)


def test_debug_information_in_release_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project(tmp_path / "app", monkeypatch, ("FLAGS_release = -O2", "FLAGS_release = -g -O2"))
    fails_at(shipped.test_variants_build_apart_with_their_flags, tmp_path / "t", ".debug_info")


def test_a_variant_that_prints_otherwise_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project(tmp_path / "app", monkeypatch, ("FLAGS_debug = -O0 -g", 'FLAGS_debug = -O0 -g -DFMT=\\"%ld\\n\\"'))
    fails_at(shipped.test_variants_behave_as_the_original, tmp_path / "t", "got == want")
