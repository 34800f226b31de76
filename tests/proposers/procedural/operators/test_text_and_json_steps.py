"""Text, JSON and config operators: preconditions, generated steps run locally, children accepted in Docker."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.json_docs import key_inventory_count_summary  # noqa: F401
from rst_synth.proposers.procedural.operators.text import line_stats_and_counts  # noqa: F401
from rst_synth.validator.static import leaked_solution_line
from tests.support.operators import assert_accepted, extend_with, parent_task

LOG = (
    "INFO start worker alpha\nWARN disk low on alpha\nINFO start worker beta\nERROR failed job 42 on beta\n"
    "INFO start worker alpha\n\nINFO start worker alpha\nDEBUG tick\r\nINFO stop worker beta\n"
)
ITEMS = """[
  {"id": 1, "region": "north", "amount": 12.5, "tags": ["a", "b"], "meta": {"owner": "ann"}},
  {"id": 2, "region": "south", "amount": 3.25, "tags": [], "meta": {"owner": "bob", "extra": {"x": 1}}},
  {"id": 3, "region": "north", "amount": 7.125, "tags": ["c"], "meta": {"owner": "ann"}},
  {"id": 4, "region": "east", "amount": 0.3333, "tags": [], "meta": {"owner": "cy"}},
  {"id": 5, "region": "north", "amount": 1, "tags": [{"k": 1}], "meta": {"owner": "dee"}},
  {"id": 6, "region": "south", "amount": 4.5, "tags": ["a"], "meta": {"owner": "bob"}},
  {"id": 7, "region": "east", "amount": 2.75, "tags": [], "meta": {"owner": "cy"}}
]
"""  # every region on two rows or more: a count by region counts groups, not single records
STATUS = '{"service": "api", "ok": true, "uptime": 12.5, "checks": [{"name": "db", "ms": 3}], "limits": {"cpu": 2}}\n'
INI = (
    "[server]\nHost = 0.0.0.0\nport=8080\nbanner = 100% ready ; kept\n\n[paths]\nlogs = /var/log/app\n"
    "extra = first\n  second\n"
)
TOML = (
    'title = "demo"\n[server]\nhost = "0.0.0.0"\nport = 8080\nratio = 0.5\n'
    'tags = ["a", "b"]\n[[jobs]]\nname = "x"\n[[jobs]]\nname = "y"\nenabled = false\n'
)
CASES = {  # operator -> (file name, content) it builds on
    "text-line-stats": ("app.log", LOG),
    "text-pattern-count": ("app.log", LOG),
    "text-unique-counts": ("app.log", LOG),
    "json-key-inventory": ("items.json", ITEMS),
    "json-records-count-by": ("items.json", ITEMS),
    "json-numeric-summary": ("items.json", ITEMS),
    "config-to-json": ("app.ini", INI),
}


def artifact(path: str, content: str) -> Artifact:
    kind, details, sample = classify(path, content.encode())
    return Artifact(path=path, kind=kind, size=len(content.encode()), details=details, sample=sample)


def discovery() -> Discovery:
    return Discovery(workdir="/app", tools=["python3", "apt-get"])


def usable(operator: str, path: str, content: str) -> bool:
    return OPERATORS[operator].can_use(artifact(path, content), discovery())


def build(operator: str, art: Artifact, seed: int = 3) -> Step:
    ctx = StepContext(discovery=discovery(), rng=random.Random(seed), taken_paths={art.path}, tag="r1s1")
    return OPERATORS[operator].step(art, ctx)


def test_classified_kinds() -> None:
    assert artifact("/app/out/app.log", LOG).kind is Kind.TEXT
    assert artifact("/app/out/items.json", ITEMS).details["string_keys"] == ["region"]
    assert artifact("/app/conf/app.ini", INI).details == {"format": "ini", "sections": ["server", "paths"]}
    assert artifact("/app/conf/app.toml", TOML).details["format"] == "toml"


def test_text_preconditions() -> None:
    for op in ("text-line-stats", "text-pattern-count", "text-unique-counts"):
        assert usable(op, "/app/out/app.log", LOG)
        assert not usable(op, "/app/.parent-done", "")  # empty
        assert not usable(op, "/app/out/items.json", ITEMS)  # not text
    assert not usable("text-pattern-count", "/app/out/n.txt", "1 2\n3 4\n")  # no word to look for
    many = artifact("/app/out/big.txt", "x\n" * 100_001)
    assert not OPERATORS["text-unique-counts"].can_use(many, discovery())
    assert OPERATORS["text-line-stats"].can_use(many, discovery())


def test_json_preconditions() -> None:
    for op in ("json-key-inventory", "json-records-count-by", "json-numeric-summary"):
        assert usable(op, "/app/out/items.json", ITEMS)
        assert not usable(op, "/app/out/list.json", "[1, 2, 3]\n")
        assert not usable(op, "/app/out/app.log", LOG)
    assert usable("json-key-inventory", "/app/out/status.json", STATUS)  # a plain object
    assert not usable("json-key-inventory", "/app/out/empty.json", "{}")
    assert not usable("json-records-count-by", "/app/out/status.json", STATUS)
    assert not usable("json-records-count-by", "/app/out/n.json", '[{"a": 1}, {"a": 2}]')  # no string key
    assert not usable("json-numeric-summary", "/app/out/s.json", '[{"a": "x"}, {"a": "y"}]')  # no numeric key
    assert not usable("json-numeric-summary", "/app/out/nan.json", '[{"a": NaN}, {"a": 1}]')
    assert not OPERATORS["json-numeric-summary"].can_use(
        artifact("/app/out/items.json", ITEMS), Discovery(workdir="/app", tools=[])
    )


def test_config_preconditions() -> None:
    assert usable("config-to-json", "/app/conf/app.ini", INI)
    assert usable("config-to-json", "/app/conf/app.toml", TOML)
    assert not usable("config-to-json", "/app/conf/d.ini", "[DEFAULT]\na = 1\n[s]\nb = 2\n")  # inherited options
    assert not usable("config-to-json", "/app/conf/bad.conf", "server { listen 80; }\n")
    assert not usable("config-to-json", "/app/conf/when.toml", "[a]\nday = 2024-01-01\n")  # no JSON date
    assert not usable("config-to-json", "/app/conf/c.yaml", "a: 1\n")
    assert not usable("config-to-json", "/app/conf/big.ini", "[s]\n" + "".join(f"k{i} = {i}\n" for i in range(900)))


@pytest.mark.parametrize("operator", sorted(CASES))
def test_build_is_deterministic(operator: str) -> None:
    name, content = CASES[operator]
    art = artifact(f"/app/out/{name}", content)
    assert build(operator, art, seed=5) == build(operator, art, seed=5)


def run_locally(tmp_path: Path, operator: str, name: str, content: str, seed: int = 3) -> tuple[Step, Artifact]:
    """Build a step on a real file, check its tests fail before and pass after its solution ran."""
    src = tmp_path / name
    src.write_text(content)
    art = artifact(str(src), content)
    step = build(operator, art, seed)
    assert step.instruction[:1].isupper() and not step.instruction.startswith("Next") and "\n" not in step.instruction
    assert leaked_solution_line(step.instruction, step.solution) is None
    module = "".join(f"import {m}\n" for m in sorted(set(step.imports) | {"pathlib"})) + step.tests
    namespace: dict = {}
    exec(compile(module, "test_step.py", "exec"), namespace)
    tests = [f for n, f in namespace.items() if n.startswith("test_r1s1_")]
    assert tests
    for test in tests:
        with pytest.raises((OSError, AssertionError)):
            test()  # nothing written yet
    subprocess.run(["bash", "-c", "set -euo pipefail\n" + step.solution], check=True, cwd=tmp_path)
    for test in tests:
        test()
    assert src.read_bytes() == content.encode()  # the consumed artifact is left alone
    return step, art


@pytest.mark.parametrize("operator", sorted(CASES))
def test_step_runs_and_its_checks_pass(tmp_path, operator: str) -> None:
    name, content = CASES[operator]
    step, _ = run_locally(tmp_path, operator, name, content)
    for produced in step.produces:  # details match what the step really wrote
        written = Path(produced.path).read_bytes()
        kind, details, _ = classify(produced.path, written)
        assert produced.kind is kind
        if produced.kind is Kind.TEXT:
            assert produced.details == {"lines": len(written.decode().splitlines())}
        elif produced.size:
            assert produced.details == details and produced.size == len(written)
        else:
            assert {k: v for k, v in produced.details.items() if v is not None}.items() <= details.items()


@pytest.mark.parametrize(
    "operator,name,content",
    [
        ("config-to-json", "app.toml", TOML),
        ("json-key-inventory", "status.json", STATUS),
        ("text-line-stats", "one.txt", "no newline"),
        ("text-pattern-count", "one.txt", "no newline"),
        ("text-unique-counts", "one.txt", "no newline"),
    ],
)
def test_other_inputs_run_locally(tmp_path, operator: str, name: str, content: str) -> None:
    run_locally(tmp_path, operator, name, content)


BIG_LOG = "".join(f"{['INFO', 'WARN', 'ERROR'][i % 3]} request {i % 7} took {i % 50} ms\n" for i in range(3000))
BIG_JSON = "[" + ",\n".join(f'{{"n": {i}, "kind": "k{i % 4}", "v": {i / 8}}}' for i in range(2000)) + "]\n"


@pytest.mark.parametrize("operator", sorted(op for op in CASES if op != "config-to-json"))
def test_files_larger_than_the_sample(tmp_path, operator: str) -> None:
    """Past the sample, produced details are lower bounds, and the steps still work on the whole file."""
    name = "big.log" if operator.startswith("text-") else "big.json"
    step, art = run_locally(tmp_path, operator, name, BIG_LOG if name == "big.log" else BIG_JSON)
    assert art.sample and len(art.sample) < art.size
    for produced in step.produces:
        if produced.kind is Kind.TEXT:
            assert 1 <= produced.details["lines"] <= len(Path(produced.path).read_text().splitlines())
            assert Path(produced.path).read_text().startswith(produced.sample)


def test_expected_values(tmp_path) -> None:
    """Spot-check the semantics the instructions state on the fixed inputs."""
    (tmp_path / "a").mkdir()
    step, _ = run_locally(tmp_path / "a", "text-unique-counts", "app.log", LOG)
    assert (
        Path(step.produces[0].path)
        .read_bytes()
        .decode()
        .startswith("3\tINFO start worker alpha\n1\t\n1\tDEBUG tick\r\n")
    )
    (tmp_path / "b").mkdir()
    step, _ = run_locally(tmp_path / "b", "json-key-inventory", "items.json", ITEMS)
    assert (
        "[].meta.extra.x\n[].meta.owner\n[].region\n[].tags\n[].tags[].k\n" in Path(step.produces[0].path).read_text()
    )
    (tmp_path / "c").mkdir()
    step, _ = run_locally(tmp_path / "c", "text-line-stats", "app.log", LOG)
    stats = json.loads(Path(step.produces[0].path).read_text())
    assert stats["lines"] == 9 and stats["words"] == 33
    assert [(w["word"], w["count"]) for w in stats["top_words"]] == [
        ("info", 5),
        ("worker", 5),
        ("alpha", 4),
        ("start", 4),
        ("beta", 3),
    ]


@pytest.mark.docker
@pytest.mark.parametrize("operator", sorted(CASES) + ["config-to-json:toml"])
def test_child_accepted_and_new_checks_fail_on_parent(tmp_path, operator: str) -> None:
    operator, _, variant = operator.partition(":")
    name, content = ("app.toml", TOML) if variant else CASES[operator]
    solve = f"mkdir -p /app/out\ncat > /app/out/{name} <<'EOF'\n{content}EOF\n"
    proposal, report = extend_with(operator, parent_task(tmp_path, solve))
    assert_accepted(proposal, report, operator)
