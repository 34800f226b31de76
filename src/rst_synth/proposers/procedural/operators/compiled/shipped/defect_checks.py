"""What `c-planted-defect` ships as its tests: the fixed module, compiled with the sanitizers together with
its driver, keeps the contract on generated queries; the driver is the Makefile's build of the fixed sources;
the answers file holds the contract's answers to the planted queries. The contract itself (`reference`) and
the generator of queries (`queries`) are the planted module's own (`shipped/<module>.py`): the step renders
them ahead of these tests. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import os
import pathlib
import random
import shutil
import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # one module's contract stands for all: they share the signatures
    from rst_synth.proposers.procedural.operators.compiled.shipped.percentile import queries, reference

FOLDER = "/app/incoming/r1s1"
"""The planted folder: the module's header, source, driver and Makefile, and the queries."""
MODULE = "percentile"
CLI = "percentile-cli"
"""The driver the Makefile builds in FOLDER."""
QUERIES = "/app/incoming/r1s1/queries.txt"
ANSWERS = "/app/out/percentile_answers.txt"
SEEDS = [1001, 1002, 1003]
"""Seeds of the fresh queries the sanitized build answers."""
SANITIZE = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer", "-g", "-O1"]
"""The sanitized build's flags: the checks' own, not a step's parameter."""
DRIVER = '#include "percentile.h"\n\nint main(void) { return 0; }\n'
"""The text of the planted driver (`<module>_cli.c`), compiled afresh with the fixed module."""


def checked_build(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "driver.c").write_text(DRIVER)
    program = tmp_path / "checked"
    sources = [f"{FOLDER}/{MODULE}.c", str(tmp_path / "driver.c")]
    command = ["gcc", "-std=c11", *SANITIZE, "-I", FOLDER, *sources, "-o", str(program), "-lm"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return program


def test_module_keeps_its_contract_under_the_sanitizers(tmp_path: pathlib.Path) -> None:
    program = checked_build(tmp_path)
    for seed in SEEDS:
        lines = queries(random.Random(seed))
        done = subprocess.run(
            [str(program)],
            input=("\n".join(lines) + "\n").encode(),
            capture_output=True,
            timeout=300,
            env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1"),
        )
        assert done.returncode == 0, done.stderr.decode(errors="replace")[-2500:]
        answers = done.stdout.decode(errors="replace").split("\n")
        for line, got in zip(lines, answers):  # noqa: B905  # python3 before 3.10 has no strict=
            assert got == reference(line), (line, got, reference(line))
        assert len(answers) == len(lines) + 1


def test_driver_is_the_build_of_the_fixed_sources(tmp_path: pathlib.Path) -> None:
    assert subprocess.run(["make", "-q", "-C", FOLDER, CLI]).returncode == 0, "the driver is not up to date"
    for name in (f"{MODULE}.c", f"{MODULE}.h", f"{MODULE}_cli.c", "Makefile"):
        shutil.copy2(f"{FOLDER}/{name}", tmp_path / name)
    built = subprocess.run(["make", "-C", str(tmp_path), CLI], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-1500:]
    assert (tmp_path / CLI).read_bytes() == pathlib.Path(FOLDER, CLI).read_bytes()


def test_answers_to_the_queries() -> None:
    lines = pathlib.Path(QUERIES).read_text(encoding="utf-8").split("\n")[:-1]
    answers = pathlib.Path(ANSWERS).read_text(encoding="utf-8").split("\n")
    assert answers[-1] == "" and answers[:-1] == [reference(line) for line in lines]
