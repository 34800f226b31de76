"""A contract for a JSON document of the workflow: the JSON Schema (a stated subset) its structure implies,
and a validator for that subset that reports each error by JSON Pointer; the tests derive the schema from
the document themselves and run the validator on edited copies of it and on documents they make up."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.json_docs.schema import SCHEMA_PY, VARIANTS_PY
from rst_synth.proposers.procedural.operators.kit.placement import places_ok
from rst_synth.proposers.procedural.operators.kit.workflow import RUN_TOOL, tool_path

MAX_BYTES = 1024 * 1024
"""Larger documents are not read whole by the tests."""

TESTS_PY = r"""
{run_tool}

def check(tmp_path, name, schema, doc):
    schema_file, doc_file = tmp_path / (name + ".schema.json"), tmp_path / (name + ".json")
    schema_file.write_text(json.dumps(schema, ensure_ascii=False), encoding="utf-8")
    doc_file.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    done = run_tool(TOOL, schema_file, doc_file)
    want = lines(schema, doc)
    assert done.stdout.decode("utf-8").splitlines() == want, (name, doc)
    assert done.returncode == (0 if want == ["ok"] else 1), (name, done.stderr[-300:])


def document():
    return json.loads(pathlib.Path(SRC).read_text(encoding="utf-8"))


def test_{tag}_schema_of_the_document():
    assert json.loads(pathlib.Path(SCHEMA).read_text(encoding="utf-8")) == derive(document())


def test_{tag}_validator_on_the_document_and_edited_copies(tmp_path):
    doc = document()
    schema = derive(doc)
    done = run_tool(TOOL, SCHEMA, SRC)
    assert (done.returncode, done.stdout.decode("utf-8").splitlines()) == (0, ["ok"])
    for n, variant in enumerate(variants(doc, SEED, 6)):
        check(tmp_path, f"variant{{n}}", schema, variant)


def test_{tag}_validator_on_documents_of_other_shapes(tmp_path):
    rng = random.Random(SEED + 1)
    for n in range(5):
        doc = {{k: fresh(rng) for k in rng.sample(KEYS, 3)}}
        schema = derive(doc)
        for m, variant in enumerate([doc, *variants(doc, SEED + n, 1)]):
            check(tmp_path, f"fresh{{n}}_{{m}}", schema, variant)
    merged = derive([{{"a": 1, "b": "x"}}, {{"a": 2.5, "c": None}}, {{"a": 3, "b": None}}])
    check(tmp_path, "merged", merged, [{{"a": 1.0}}, {{"a": "1", "b": 2, "d": 0}}, {{"c": {{"x": 1}}}}, 5])


def test_{tag}_validator_rejects_what_is_not_json(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{{"a": 1', encoding="utf-8")
    for args in ((SCHEMA, bad), (bad, SRC), (SCHEMA, tmp_path / "missing.json")):
        done = run_tool(TOOL, *args)
        assert done.returncode == 2 and done.stdout == b"" and done.stderr.strip(), args
"""


@register
class JsonSchemaCheck(Operator):
    """The schema a JSON document implies, and a validator that reports errors by JSON Pointer."""

    name = "json-schema-check"
    final = True  # a schema and a validator: a contract, not data to build on
    once = True  # the validator is the same tool for any document: a second one would be a copy
    kinds = (Kind.JSON,)
    tools = ("python3",)
    weight = 3.0

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
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(schema.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import json, sys
{SCHEMA_PY.strip()}


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print(f"{{path}}: {{exc}}", file=sys.stderr)
        sys.exit(2)


if len(sys.argv) != 3:
    print("usage: validate SCHEMA DOCUMENT", file=sys.stderr)
    sys.exit(2)
schema, document = load(sys.argv[1]), load(sys.argv[2])
found = lines(schema, document)
print("\\n".join(found))
sys.exit(0 if found == ["ok"] else 1)
PY
chmod 0755 {q(tool)}
python3 - <<'PY'
import json
{SCHEMA_PY.strip()}


with open({artifact.path!r}, encoding="utf-8") as f:
    schema = derive(json.load(f))
with open({schema!r}, "w", encoding="utf-8") as f:
    json.dump(schema, f, ensure_ascii=False, indent=2)
    f.write("\\n")
PY
{q(tool)} {q(schema)} {q(artifact.path)}"""
        tests = (
            f"SRC, SCHEMA, TOOL, SEED = {artifact.path!r}, {schema!r}, {tool!r}, {seed}\n"
            + SCHEMA_PY
            + VARIANTS_PY
            + TESTS_PY.format(tag=ctx.tag, run_tool=RUN_TOOL)
        )
        instruction = (
            f"Next, write down the contract of `{artifact.path}` as a JSON Schema and a validator for it. The "
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
            f"output. Check `{artifact.path}` against the schema with it."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[
                Artifact(path=schema, kind=Kind.JSON, details={"type": "object"}),
                Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True),
            ],
        )
