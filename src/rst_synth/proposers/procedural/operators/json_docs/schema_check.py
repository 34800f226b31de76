"""A contract for a JSON document of the workflow: the JSON Schema (a stated subset) its structure implies,
and a validator for that subset that reports each error by JSON Pointer; the tests derive the schema from
the document themselves and run the validator on edited copies of it and on documents they make up."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, register
from rst_synth.proposers.procedural.operators.json_docs.shipped import schema_check
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.placement import places_ok
from rst_synth.proposers.procedural.operators.kit.workflow import tool_path
from rst_synth.proposers.procedural.shipping import python_script, render

MAX_BYTES = 1024 * 1024
"""Larger documents are not read whole by the tests."""

TESTS = [
    "test_schema_of_the_document",
    "test_validator_on_the_document_and_edited_copies",
    "test_validator_on_documents_of_other_shapes",
    "test_validator_rejects_what_is_not_json",
]


@register
class JsonSchemaCheck(ToolOperator):
    """The schema a JSON document implies, and a validator that reports errors by JSON Pointer."""

    name = "json-schema-check"
    final = True  # a schema and a validator: a contract, not data to build on
    once = True  # the validator is the same tool for any document: a second one would be a copy
    kinds = (Kind.JSON,)

    def input_of(self, artifact: Artifact) -> str:
        """One contract per folder of a task's inputs (pages of one export share a shape), else per file."""
        return artifact.directory + "/" if artifact.input else artifact.path

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        nested = artifact.details.get("type") in ("object", "records") and "{" in artifact.sample[1:]
        return 0 < artifact.size <= MAX_BYTES and nested and places_ok(artifact, discovery, "bin")

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        tool = tool_path(ctx, artifact, "validate")
        schema = ctx.output_path(artifact, "schema", "json")
        seed = ctx.rng.randrange(10**6)
        params: dict[str, object] = {"SRC": artifact.path, "SCHEMA": schema, "TOOL": tool, "SEED": seed}
        write = python_script(
            render(schema_check, ["write_schema"], SRC=artifact.path, SCHEMA=schema), "write_schema()"
        )
        solution = self.tool_solution(tool, render(schema_check, ["main"]), "main()", write, schema)
        tests = render(schema_check, TESTS, tag=ctx.tag, **params)
        instruction = (
            f"Write down the contract of `{artifact.path}` as a JSON Schema and a validator for it. The "
            f"schema, `{schema}`, is the one the document implies, by these rules: a value's type is `null`, "
            "`boolean`, `integer` (a number with no fractional part, `2.0` included), `number` (any other "
            'number), `string`, `array` or `object`. A scalar gives `{"type": T}`. An object gives '
            '`{"type": "object", "properties": {...}, "required": [...], "additionalProperties": false}` with '
            "each member's schema under `properties` and every member's name in `required` (names sorted in "
            'code-point order). An array gives `{"type": "array"}`, plus `"items"`: the schemas of its elements '
            "merged, when it has any. Two schemas merge like this: equal ones stay; two objects merge member by "
            "member (a member of only one keeps its schema), `required` keeps the names required by both; two "
            "arrays merge their `items` (or keep the one that has `items`); otherwise the result is the union of "
            'both types, `integer` left out when `number` is in it, written `{"type": T}` for one type and '
            '`{"type": [T, ...]}` (sorted) for several, with no other keyword. Compare JSON values, not text: '
            f"any formatting will do. The validator, `{tool}` (an executable file with a `#!` line), run as "
            f"`{tool} SCHEMA DOCUMENT`, checks a document against a schema of this subset (the keywords above): "
            "a value whose type is not among the schema's types (an `integer` value fits `number`; a boolean is "
            "never a number) gives `expected T` (the types joined by `|`) and nothing more for what it holds; in "
            "an object, each name of `required` that is missing gives `missing property NAME` at the object (NAME "
            "as a JSON string), and each member not under `properties` gives `unexpected property` at the member; "
            "array elements are checked against `items`. It prints one line per error, `POINTER: MESSAGE`, where "
            'POINTER is the RFC 6901 JSON Pointer of the place written as a JSON string (`""` for the whole '
            "document, `~` and `/` in names escaped as `~0` and `~1`, non-ASCII kept), sorted by pointer and then "
            "message in code-point order, and exits 1; with no error it prints `ok` and exits 0; a file that "
            "cannot be read or is not JSON exits 2 with a message on standard error and nothing on standard "
            "output."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[
                Artifact(path=schema, kind=Kind.JSON, details={"type": "object"}),
                self.executable(tool),
            ],
        )
