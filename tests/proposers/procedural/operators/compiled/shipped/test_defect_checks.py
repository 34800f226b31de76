"""c-planted-defect's shipped tests and contracts, called directly: a planted folder built from the fixed
module passes the tests; a planted defect (a read past the end, the input sorted in place, a leak), a driver
older than its source or not built by the Makefile, and a wrong or unterminated answers file fail them; and
each module's Python contract answers as its contract says."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from rst_synth.proposers.procedural.operators.compiled.defect_modules import PERCENTILE, Module
from rst_synth.proposers.procedural.operators.compiled.planted_defect import _makefile, queries_of
from rst_synth.proposers.procedural.operators.compiled.shipped import (
    csvfield,
    defect_checks,
    histogram,
    money,
    percentile,
    tail,
    utf8,
)


def scratch(folder: Path) -> Path:
    """A test's own `tmp_path`."""
    folder.mkdir()
    return folder


def plant(folder: Path, module: Module, source: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The step's planted folder with `source` as the module, its driver built and run on the queries; the
    checks' parameters point at it. The answers file's path."""
    folder.mkdir()
    files = {
        f"{module.name}.h": module.header_file(),
        f"{module.name}.c": source,
        f"{module.name}_cli.c": module.driver,
        "Makefile": _makefile(module),
        "queries.txt": "".join(line + "\n" for line in queries_of(module, 3)),
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    built = subprocess.run(["make", "-C", str(folder)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    answers = folder / "answers.txt"
    with (folder / "queries.txt").open("rb") as queries, answers.open("wb") as out:
        subprocess.run([str(folder / f"{module.name}-cli")], stdin=queries, stdout=out, check=True)
    for name, value in {
        "FOLDER": str(folder),
        "MODULE": module.name,
        "CLI": f"{module.name}-cli",
        "QUERIES": str(folder / "queries.txt"),
        "ANSWERS": str(answers),
        "SEEDS": [4],
        "DRIVER": module.driver,
    }.items():
        monkeypatch.setattr(defect_checks, name, value)
    # what the step renders ahead of the checks
    monkeypatch.setattr(defect_checks, "reference", module.python.reference, raising=False)
    monkeypatch.setattr(defect_checks, "queries", module.python.queries, raising=False)
    return answers


def test_the_fixed_module_passes_the_tests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plant(tmp_path / "planted", PERCENTILE, PERCENTILE.source, monkeypatch)
    defect_checks.test_module_keeps_its_contract_under_the_sanitizers(scratch(tmp_path / "a"))
    defect_checks.test_driver_is_the_build_of_the_fixed_sources(scratch(tmp_path / "b"))
    defect_checks.test_answers_to_the_queries()


@pytest.mark.parametrize("defect", ["rank_floor", "sorts_input", "leak"])
def test_a_planted_defect_fails_the_sanitized_check(
    defect: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plant(tmp_path / "planted", PERCENTILE, PERCENTILE.planted(defect), monkeypatch)
    with pytest.raises(AssertionError):
        defect_checks.test_module_keeps_its_contract_under_the_sanitizers(scratch(tmp_path / "a"))


def test_a_driver_older_than_its_source_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "planted"
    plant(folder, PERCENTILE, PERCENTILE.source, monkeypatch)
    source = folder / "percentile.c"
    source.write_text(source.read_text() + "/* fixed */\n")
    with pytest.raises(AssertionError, match="not up to date"):
        defect_checks.test_driver_is_the_build_of_the_fixed_sources(scratch(tmp_path / "b"))


def test_a_driver_built_otherwise_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "planted"
    plant(folder, PERCENTILE, PERCENTILE.source, monkeypatch)
    cli = folder / "percentile-cli"
    built = subprocess.run(
        ["gcc", "-std=c11", "-O0", "-o", str(cli), str(folder / "percentile.c"), str(folder / "percentile_cli.c")]
        + ["-lm"],
        capture_output=True,
        text=True,
    )
    assert built.returncode == 0, built.stderr  # newer than its sources, but not what the Makefile makes
    with pytest.raises(AssertionError):
        defect_checks.test_driver_is_the_build_of_the_fixed_sources(scratch(tmp_path / "b"))


@pytest.mark.parametrize("damage", ["one answer", "no last newline"])
def test_wrong_answers_fail(damage: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    answers = plant(tmp_path / "planted", PERCENTILE, PERCENTILE.source, monkeypatch)
    lines = answers.read_text().split("\n")
    if damage == "one answer":
        lines[5] = lines[5].replace("ok ", "ok -") if "ok " in lines[5] else "ok 0"
    else:
        lines = lines[:-1]
    answers.write_text("\n".join(lines))
    with pytest.raises(AssertionError):
        defect_checks.test_answers_to_the_queries()


CONTRACTS: list[tuple[ModuleType, str, str]] = [
    (percentile, "50 4 1 3 2", "ok 2"),
    (percentile, "100 3 1 2", "ok 3"),
    (percentile, "0 1 2", "error -1"),
    (percentile, "nan 4 5", "error -1"),
    (percentile, "50", "error -1"),
    (histogram, "0 10 5 10 0 5 9.99", "4|1 0 1 0 2"),
    (histogram, "0 1 4 nan 0.5 inf -inf 1", "2|0 0 1 1"),
    (histogram, "5 5 3 5", "error -1"),
    (money, "12.34", "ok 1234"),
    (money, "-0.00", "ok 0"),
    (money, "1.234", "error -1"),
    (money, "-", "error -1"),
    (money, "92233720368547758.08", "error -2"),
    (money, "-92233720368547758.08", "ok -9223372036854775808"),
    (csvfield, "plain", "plain"),
    (csvfield, 'say "hi"', '"say ""hi"""'),
    (csvfield, "two\\nlines", '"two\\nlines"'),
    (csvfield, "back\\\\slash", "back\\\\slash"),
    (csvfield, "trail ", '"trail "'),
    (utf8, "", "0"),
    (utf8, "41e282ac", "2"),
    (utf8, "c080", "-1"),
    (utf8, "eda080", "-1"),
    (utf8, "f4908080", "-1"),
    (utf8, "e282", "-1"),
    (tail, "3|a|b|c|d|e", "3|c|d|e"),
    (tail, "2|", "1|"),
    (tail, "4|x", "1|x"),
]


@pytest.mark.parametrize(
    ("contract", "line", "want"), CONTRACTS, ids=[f"{m.__name__[-9:]}:{q}" for m, q, _ in CONTRACTS]
)
def test_each_contract_answers_as_stated(contract: ModuleType, line: str, want: str) -> None:
    assert contract.reference(line) == want


@pytest.mark.parametrize("contract", [percentile, histogram, money, csvfield, utf8, tail], ids=lambda m: m.__name__)
def test_queries_are_seeded(contract: ModuleType) -> None:
    first = contract.queries(random.Random(1))
    assert first == contract.queries(random.Random(1)) != contract.queries(random.Random(2))
    assert len(first) > 100 and all(isinstance(q, str) and "\n" not in q for q in first)
