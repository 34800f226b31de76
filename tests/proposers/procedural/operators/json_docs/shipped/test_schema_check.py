"""The reference of json-schema-check, called directly: its schema and its validator (`main`, run as a tool)
pass its tests; a validator that does not let an integer fit `number`, one that reports errors unsorted,
one that exits 1 on a file that is not JSON, and a schema that requires every member fail them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.json_docs.shipped import schema_check as shipped
from rst_synth.proposers.procedural.shipping import render
from tests.support.shipped import tool_file

DOC = {"page": 2, "next": None, "data": [{"id": "A", "qty": 2, "tags": ["x"]}, {"id": "B", "qty": 2.5}]}


def tool(path: Path, patch: str = "") -> str:
    """The validator as the step ships it (rendered, standalone), with `patch` run after its definitions."""
    return tool_file(path, f"{render(shipped, ['main'])}\n{patch}\n", "main()")


@pytest.fixture
def paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "doc.json").write_text(json.dumps(DOC), encoding="utf-8")
    for name, value in {
        "SRC": str(tmp_path / "doc.json"),
        "SCHEMA": str(tmp_path / "schema.json"),
        "TOOL": tool(tmp_path / "validate"),
        "SEED": 7,
    }.items():
        monkeypatch.setattr(shipped, name, value)
    (tmp_path / "scratch").mkdir()
    return tmp_path


def run_tests(scratch: Path) -> None:
    shipped.test_schema_of_the_document()
    shipped.test_validator_on_the_document_and_edited_copies(scratch)
    shipped.test_validator_on_documents_of_other_shapes(scratch)
    shipped.test_validator_rejects_what_is_not_json(scratch)


def test_the_reference_passes_its_tests(paths: Path) -> None:
    shipped.write_schema()
    schema = json.loads((paths / "schema.json").read_text())
    assert schema["properties"]["data"]["items"]["required"] == ["id", "qty"]
    assert schema["properties"]["data"]["items"]["properties"]["qty"] == {"type": "number"}
    run_tests(paths / "scratch")


@pytest.mark.parametrize(
    "patch",
    [
        "fits = lambda value, types: kind(value) in types",
        "lines = lambda schema, value: [p + ': ' + m for p, m in errors(schema, value)][::-1] or ['ok']",
        "load = lambda path: json.load(open(path)) if path.endswith('.schema.json') else sys.exit(1)",
    ],
)
def test_a_wrong_validator_fails(paths: Path, monkeypatch: pytest.MonkeyPatch, patch: str) -> None:
    shipped.write_schema()
    monkeypatch.setattr(shipped, "TOOL", tool(paths / "wrong", patch))
    with pytest.raises(AssertionError):
        run_tests(paths / "scratch")


def test_a_schema_requiring_every_member_fails(paths: Path) -> None:
    shipped.write_schema()
    schema = json.loads((paths / "schema.json").read_text())
    schema["properties"]["data"]["items"]["required"] = ["id", "qty", "tags"]
    (paths / "schema.json").write_text(json.dumps(schema))
    with pytest.raises(AssertionError):
        shipped.test_schema_of_the_document()
