"""json-schema-check: where it applies (one contract per folder of inputs), the schema the reference
derives and the error lines it gives on hand-checked cases, the generated tests against the reference
and wrong validators, and a child accepted against a parent on the real engine."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.json_docs.shipped import schema_check as shipped
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.json_docs.test_merge_patch_tool import PARENT_SOLVE, SUMMARY
from tests.support.operators import assert_accepted, extend_with, parent_task

NAME = "json-schema-check"
PAGE = {"page": 2, "next_page": None, "data": [{"id": "A", "qty": 2, "tags": ["x"]}, {"id": "B", "qty": 2.5}]}


def artifact(doc: object, path: str = "/app/out/summary.json", *, input: bool = False) -> Artifact:
    text = json.dumps(doc, indent=2)
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text), details=details, sample=sample, input=input, new=not input)


def discovery(*artifacts: Artifact) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(artifacts), tools=["python3"])


def build(art: Artifact, seed: int = 5) -> Step:
    found = discovery(art)
    return OPERATORS[NAME].step(art, StepContext(discovery=found, rng=random.Random(seed), taken_paths=found.paths()))


def test_applies_to_nested_documents_once_per_folder_of_inputs() -> None:
    op = OPERATORS[NAME]
    summary, page = artifact(SUMMARY), artifact(PAGE, "/app/api/orders-page-2.json", input=True)
    assert op.can_use(summary, discovery(summary)) and op.can_use(page, discovery(page)) and op.final and op.once
    assert op.input_of(page) == op.input_of(page.model_copy(update={"path": "/app/api/orders-page-3.json"}))
    assert op.input_of(page) == "/app/api/" and op.input_of(summary) == summary.path
    for flat in (artifact({"a": 1, "b": "x"}), artifact([1, 2, 3], "/app/out/list.json")):
        assert not op.can_use(flat, discovery(flat)), flat.sample
    repo = Artifact(path="/app", kind=Kind.GIT)
    assert not op.can_use(summary, discovery(summary, repo))


def test_reference_schema_and_errors() -> None:
    derive, lines = shipped.derive, shipped.lines
    schema = derive(PAGE)
    assert schema["required"] == ["data", "next_page", "page"] and schema["additionalProperties"] is False
    assert schema["properties"]["next_page"] == {"type": "null"}
    assert schema["properties"]["data"]["items"] == {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "qty": {"type": "number"},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["id", "qty"],
        "additionalProperties": False,
    }
    assert derive([1, 2.0, None]) == {"type": "array", "items": {"type": ["integer", "null"]}}
    assert derive([{"a": 1}, 2]) == {"type": "array", "items": {"type": ["integer", "object"]}}
    assert lines(schema, PAGE) == ["ok"]
    broken = {"page": 2.0, "next_page": 3, "data": [{"id": 1, "qty": True}, {"qty": 1, "a/b~": 0}], "x": {}}
    assert lines(schema, broken) == [
        '"/data/0/id": expected string',
        '"/data/0/qty": expected number',
        '"/data/1": missing property "id"',
        '"/data/1/a~1b~0": unexpected property',
        '"/next_page": expected null',
        '"/x": unexpected property',
    ]
    assert lines(schema, []) == ['"": expected object']


def test_build_is_deterministic_and_names_its_paths() -> None:
    step = build(artifact(SUMMARY))
    assert step == build(artifact(SUMMARY))
    for path in ("/app/out/summary.json", "/app/out/summary_schema.json", "/app/bin/summary_validate"):
        assert f"`{path}`" in step.instruction, path
    page = build(artifact(PAGE, "/app/api/orders-page-2.json", input=True))
    assert page.produces[0].path == "/app/derived/orders_page_2_schema.json"  # nothing beside an input


def test_generated_tests_pass_the_reference_and_catch_wrong_validators(tmp_path: Path) -> None:
    art = artifact(PAGE, "/app/api/orders-page-2.json", input=True)
    step = build(art)
    files = {art.path: art.sample.encode()}
    results = outcomes(step, tmp_path / "right", files=files)
    assert len(results) == 4 and failed(results) == [], results
    wrongs = {
        "2.0 is a number": ("(isinstance(value, float) and value.is_integer())", "False", "validator_on"),
        "pointers unescaped": ('key.replace("~", "~0").replace("/", "~1")', "key", "validator_on"),
    }
    for what, (right, bad, test) in wrongs.items():
        head, tool = step.solution.split("\nchmod 0755", 1)  # break the validator only, not the schema
        assert right in head, what
        wrong = head.replace(right, bad) + "\nchmod 0755" + tool
        results = outcomes(step, tmp_path / what.replace(" ", "_"), solution=wrong, files=files)
        assert any(test in name for name in failed(results)), (what, results)


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with(NAME, parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, NAME)
