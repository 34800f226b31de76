"""config-check-tool: preconditions, the schema it derives, the reference checker's exact output, its
generated tests run against the reference tool (and a wrong one), and a child accepted against its parent."""

from __future__ import annotations

import base64
import random
import re
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.config import check_tool
from rst_synth.proposers.procedural.operators.config.shipped import check_tool as shipped
from tests.support.operators import assert_accepted, extend_with, parent_task

APP = """config_version = 2

[http]
host = "0.0.0.0"
port = 9090
debug = true
allowed_origins = ["https://a.test", "https://b.test"]
banner = "Welcome to \\"Acme\\""

[database]
url = "postgresql://db.internal/inventory"
pool_size = 10
timeout = 2.5

[database.replica]
enabled = false
"""
PARENT_SOLVE = f"mkdir -p /app/config\ncat > /app/config/app.toml <<'TOML'\n{APP}TOML\n"
NAME = "config-check-tool"


def toml_artifact(text: str = APP, path: str = "/app/config/app.toml") -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def discovery(*artifacts: Artifact) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(artifacts) or [toml_artifact()], tools=["python3"])


def build(text: str = APP, seed: int = 5) -> Step:
    art = toml_artifact(text)
    return OPERATORS[NAME].step(art, StepContext(discovery=discovery(art), rng=random.Random(seed), tag="r1s1"))


def checker() -> Any:
    return shipped.problems


def test_preconditions() -> None:
    op = OPERATORS[NAME]
    assert op.can_use(toml_artifact(), discovery())
    few = toml_artifact('name = "x"\n[server]\nport = 1\nlist = [1, 2]\n')  # two scalars only
    assert not op.can_use(few, discovery(few))
    ini = toml_artifact("[server]\nhost = a\nport = 1\nworkers = 4\n", "/app/config/app.ini")
    assert ini.kind is Kind.CONFIG and not op.can_use(ini, discovery(ini))
    partial = toml_artifact().model_copy(update={"size": 10_000})  # the sample is not the whole file
    assert not op.can_use(partial, discovery(partial))
    repo = Artifact(path="/app", kind=Kind.GIT)
    assert not op.can_use(toml_artifact(), discovery(toml_artifact(), repo))
    dotted = toml_artifact('"a.b" = 1\nc = 2\nd = 3\n')  # dotted paths would be ambiguous
    assert not op.can_use(dotted, discovery(dotted))
    assert not op.can_use(toml_artifact(), Discovery(workdir="/app", artifacts=[toml_artifact()], tools=[]))
    assert not op.bookkeeping and op.fit(toml_artifact(), discovery()) == 3.0


def test_schema_of_nested_tables_arrays_and_dates() -> None:
    doc = tomllib.loads(
        'a = 1\nb.c = 1.5\nwhen = 1979-05-27\nt = 07:32:00\n[[items]]\nx = 1\n[s]\nin = { k = "v" }\nflag = false\n'
    )
    assert check_tool.schema_of(doc) == {
        "a": "integer",
        "b": "table",
        "b.c": "float",
        "when": "datetime",
        "t": "datetime",
        "items": "array",
        "s": "table",
        "s.in": "table",
        "s.in.k": "string",
        "s.flag": "boolean",
    }


def test_build_is_deterministic_and_states_every_path_and_schema_line() -> None:
    step = build()
    assert step == build()
    compile(step.tests, NAME, "exec")
    paths = ["/app/bin/app_check", "/app/config/app.toml", "/app/incoming/r1s1/app_broken.toml"]
    paths += ["/app/config/app_check.txt", "/app/config/app_check_broken.txt"]
    for path in paths:
        assert f"`{path}`" in step.instruction, path
    assert {a.path for a in step.produces} == {paths[0], paths[3], paths[4]}
    assert len(schema()) == 13
    for key, kind in schema().items():
        assert f"\n{key} {kind}\n" in step.instruction, key
    for rule in ("exits with status 2", "`KEY: missing`", "`KEY: unknown`", "code-point order", "`ok`"):
        assert rule in step.instruction, rule
    assert step.dockerfile.startswith("RUN mkdir -p /app/incoming/r1s1 ")
    assert "|| test $? -eq 1" in step.solution


def test_broken_copy_has_each_kind_of_problem() -> None:
    for seed in range(20):
        lines = checker()(tomllib.loads(planted(build(seed=seed))), schema())
        kinds = [re.sub(r"^[^:]*: ", "", line).split(",")[0] for line in lines]
        assert sorted(k.split()[0] for k in kinds) == ["expected", "missing", "unknown", "unknown"], lines
        assert lines == sorted(lines, key=lambda line: line.split(": ")[0])


def schema() -> dict[str, str]:
    return check_tool.schema_of(tomllib.loads(APP))


def planted(step: Step) -> str:
    encoded = re.search(r"printf '%s' '([^']+)'", step.dockerfile)
    assert encoded
    return base64.b64decode(encoded.group(1)).decode("utf-8")


def test_reference_checker_exact_output() -> None:
    problems = checker()
    want = {"a": "integer", "f": "float", "s": "table", "s.x": "string", "s.t": "table", "s.t.b": "boolean"}
    doc = {"s": {"t": {"b": True}, "x": "v"}, "f": 1.5, "a": 1}
    assert problems(doc, want) == []
    assert problems({**doc, "f": 3}, want) == []  # an integer is a float
    assert problems({**doc, "a": True}, want) == ["a: expected integer, got boolean"]
    assert problems({"a": 1, "f": 2.0}, want) == ["s: missing"]  # not its keys too
    assert problems({"a": 1, "f": 2.0, "s": {"x": "v", "t": {}}}, want) == ["s.t.b: missing"]
    assert problems({**doc, "s": 4}, want) == ["s: expected table, got integer"]
    assert problems({**doc, "s-x": 1, "zz": {"deep": {"er": 1}}, "f": "1"}, want) == [
        "f: expected float, got string",
        "s-x: unknown",
        "zz: unknown",
    ]
    assert problems({"f": [1], "s": {"x": {"k": 1}, "t": {"b": 1, "c": 2}}}, want) == [
        "a: missing",
        "f: expected float, got array",
        "s.t.b: expected boolean, got integer",
        "s.t.c: unknown",
        "s.x: expected string, got table",
    ]


def run_generated(step: Step, tool_source: str, tmp_path: Path, text: str = APP) -> dict[str, str]:
    """Run the step's generated tests locally against `tool_source` as the tool; test name -> outcome."""
    tool = tmp_path / "tool"
    tool.write_text(tool_source)
    tool.chmod(0o755)
    src, variant = tmp_path / "app.toml", tmp_path / "broken.toml"
    src.write_text(text)
    variant.write_text(planted(step))
    outs = {}
    for name, path in (("OUT_OK", src), ("OUT_BAD", variant)):
        out = tmp_path / f"{name}.txt"
        out.write_bytes(subprocess.run([str(tool), str(path)], capture_output=True).stdout)
        outs[name] = str(out)
    space: dict[str, Any] = {}
    exec("import pathlib, random, resource, subprocess, tomllib\n" + step.tests, space)
    space.update(TOOL=str(tool), SRC=str(src), VARIANT=str(variant), **outs)
    results = {}
    for test in (n for n in space if n.startswith("test_")):
        case = tmp_path / test
        case.mkdir()
        try:
            space[test](case) if space[test].__code__.co_argcount else space[test]()
            results[test] = "passed"
        except AssertionError as exc:
            results[test] = f"failed: {exc}"[:300]
    return results


def tool_of(step: Step) -> str:
    return step.solution.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0] + "\n"


FLAT = 'name = "svc"\nport = 80\nratio = 0.5\nstarted = 2024-01-02T03:04:05Z\n'
ODD = (
    'title = "x"\nlog-level = "info"\nsite.owner.name = "Ann"\nlimits = { cpu = 2, mem = 1.5 }\n'
    "day = 2024-01-02\n[[backends]]\nhost = 'a'\n[[backends]]\nhost = 'b'\n[empty]\n[z-z]\nn = 1\n"
)


@pytest.mark.parametrize(("text", "seed"), [(APP, s) for s in range(4)] + [(FLAT, 1), (ODD, 2), (ODD, 3)])
def test_generated_tests_pass_the_reference_tool(tmp_path: Path, text: str, seed: int) -> None:
    step = build(text, seed)
    results = run_generated(step, tool_of(step), tmp_path, text)
    assert len(results) == 5 and set(results.values()) == {"passed"}, results


@pytest.mark.parametrize(
    ("wrong", "fails"),
    [
        ('not (want == "float" and got == "integer")', "reports_each_problem"),  # rejects an int for a float
        ('print("\\n".join(lines or ["ok"]))', "reports_each_problem"),  # unsorted lines, see below
        ("return 2\n", "rejects_invalid_toml"),
    ],
)
def test_generated_tests_catch_a_wrong_tool(tmp_path: Path, wrong: str, fails: str) -> None:
    step = build()
    source = tool_of(step)
    assert wrong in source
    broken = {
        'not (want == "float" and got == "integer")': "True",
        'print("\\n".join(lines or ["ok"]))': 'print("\\n".join(sorted(lines, reverse=True) or ["ok"]))',
        "return 2\n": "return 1\n",
    }[wrong]
    results = run_generated(step, source.replace(wrong, broken), tmp_path)
    assert results[f"test_r1s1_tool_{fails}"].startswith("failed"), results


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with(NAME, parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, NAME)
