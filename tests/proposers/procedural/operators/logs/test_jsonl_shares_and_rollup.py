"""JSON Lines operators: an event log is classified with its columns' roles, grouped by what categorises,
and the generated tests catch a report that is missing a category or shares out the wrong measure."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.logs import jsonl_shares_and_rollup  # noqa: F401
from tests.proposers.local_step import LocalStep

OP = OPERATORS["jsonl-group-shares"]
EVENTS = "".join(
    json.dumps({"user": f"u{i % 4}", "action": ("login", "upload", "logout")[i % 3], "bytes": (i * 131) % 800, "n": 1})
    + "\n"
    for i in range(16)
)
PATH = "/app/events.jsonl"


def artifact(text: str = EVENTS) -> Artifact:
    kind, details, sample = classify(PATH, text.encode())
    return Artifact(path=PATH, kind=kind, size=len(text), details=details, sample=sample, input=True, new=False)


def build(seed: int = 1) -> Step:
    discovery = Discovery(workdir="/app", artifacts=[artifact()], tools=["python3"])
    return OP.step(artifact(), StepContext(discovery=discovery, rng=random.Random(seed), tag="r1s1"))


def test_a_jsonl_log_keeps_its_text_kind_and_gains_the_roles_of_its_keys() -> None:
    found = artifact()
    assert found.kind is Kind.TEXT and found.details["format"] == "jsonl" and found.details["records"] == 16
    roles = {name: column["role"] for name, column in found.details["columns"].items()}
    assert roles["action"] == "category" and roles["bytes"] == "additive"
    assert classify("/app/notes.txt", EVENTS.encode())[1].get("format") is None  # by its name only
    assert classify(PATH, b'{"a": 1}\nnot json\n')[1].get("format") is None


def test_it_groups_by_a_category_and_never_sums_a_constant_or_groups_by_a_unique_key() -> None:
    discovery = Discovery(workdir="/app", artifacts=[artifact()], tools=["python3"])
    assert OP.can_use(artifact(), discovery)
    steps = [build(seed) for seed in range(12)]
    assert all("`bytes`" in s.instruction and "`n`" not in s.instruction for s in steps)  # n is 1 on every line
    assert {"action", "user"} == {g for s in steps for g in ("action", "user") if f"by `{g}`" in s.instruction}
    unique = "".join(json.dumps({"id": f"e{i}", "bytes": i * 7}) + "\n" for i in range(10))
    assert not OP.can_use(artifact(unique), discovery)


def test_the_tests_pass_on_the_report_and_fail_on_a_wrong_or_partial_one(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    local.put(PATH, EVENTS)
    local.path("/app/derived").mkdir(parents=True)  # the proposer's prefix for a task input's outputs
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 2
    out = next(local.path(p.path) for p in build().produces)
    good = out.read_text()
    rows = good.splitlines()
    out.write_text("\n".join(rows[:-1]) + "\n")  # a category missing
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "partial")
    first = rows[1].split(",")
    first[2] = f"{float(first[2]) + 1:.2f}"  # one total off by one
    out.write_text("\n".join([rows[0], ",".join(first), *rows[2:]]) + "\n")
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="header")


def build_tool(seed: int = 2) -> Step:
    discovery = Discovery(workdir="/app", artifacts=[artifact()], tools=["python3"])
    tool_op = OPERATORS["jsonl-rollup-tool"]
    return tool_op.step(artifact(), StepContext(discovery=discovery, rng=random.Random(seed), tag="r2s1"))


def test_the_rollup_tool_passes_its_tests_and_they_catch_a_tool_that_chokes_on_bad_lines(tmp_path: Path) -> None:
    step = build_tool()
    local = LocalStep(step, tmp_path)
    local.put(PATH, EVENTS)
    local.path("/app/derived").mkdir(parents=True)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    tool = next(local.path(p.path) for p in step.produces if p.kind is Kind.EXECUTABLE)
    source = tool.read_text()
    tool.write_text(
        source.replace("except ValueError:\n            event = None", "except KeyError:\n            pass")
    )
    assert tool.read_text() != source
    with pytest.raises(AssertionError):  # the tool now dies on `{not json` (a JSONDecodeError, exit status 1)
        local.run_tests(tmp_path / "strict", only="fresh")
    tool.write_text(source.replace("decimal.ROUND_HALF_UP", "decimal.ROUND_HALF_EVEN"))
    with pytest.raises(AssertionError):  # banker's rounding differs on a generated half cent
        local.run_tests(tmp_path / "even", only="fresh")
