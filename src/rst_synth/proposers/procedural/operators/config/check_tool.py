"""A validator tool for a TOML configuration: the schema of the artifact (every dotted key path and its
type) becomes a contract the tests check on documents they make up (reordered, missing, mistyped, unknown)."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.config.toml_schema import broken_variant, parsed, schema_of, toml_text
from rst_synth.proposers.procedural.operators.kit.workflow import (
    RUN_TOOL,
    fresh_path,
    inside_git,
    plant,
    planted_dir,
    stem_of,
    tool_path,
    work_root,
)

MAX_BYTES = 64 * 1024

CHECK_PY = r"""
def type_name(value):
    for name, kind in (("boolean", bool), ("integer", int), ("float", float), ("string", str)):
        if isinstance(value, kind):
            return name
    return "array" if isinstance(value, list) else "table" if isinstance(value, dict) else "datetime"


def problems(doc, schema):
    found = []

    def walk(node, prefix):
        for key, value in node.items():
            path = prefix + key
            want, got = None if "." in key else schema.get(path), type_name(value)
            if want is None:
                found.append((path, "unknown"))
            elif got != want and not (want == "float" and got == "integer"):
                found.append((path, f"expected {want}, got {got}"))
            elif got == "table":
                walk(value, path + ".")
        for path in schema:
            parent, _, key = path.rpartition(".")
            if parent == prefix[:-1] and key not in node:
                found.append((path, "missing"))

    walk(doc, "")
    return [f"{path}: {what}" for path, what in sorted(found)]
"""

FRESH_PY = r"""
WRONG = {"string": ("integer", "12"), "integer": ("boolean", "true"), "float": ("string", '"1.5"'),
         "boolean": ("integer", "1"), "array": ("string", '"1, 2"'), "datetime": ("string", '"1979-05-27"')}
FRESH = {
    "string": lambda rng: rng.choice(['"plain"', '"say \\"hi\\""', '"Zürich"', '"a = b"', '""']),
    "integer": lambda rng: str(rng.randint(-1000, 100000)),
    "float": lambda rng: f"{rng.randint(-9999, 99999) / 100:.2f}",
    "boolean": lambda rng: rng.choice(["true", "false"]),
    "array": lambda rng: "[" + ", ".join(str(rng.randint(0, 99)) for _ in range(rng.randint(0, 4))) + "]",
    "datetime": lambda rng: "1979-05-27T07:32:00Z",
}


def node_at(tree, path):
    for part in path.split(".") if path else []:
        tree = tree[part]
    return tree


def parent_of(tree, path):
    where, _, key = path.rpartition(".")
    return node_at(tree, where), key


def fresh_tree(rng):
    # A valid document of SCHEMA: tables are dicts, other values their TOML text.
    root = {}
    for path in sorted(SCHEMA):
        node, key = parent_of(root, path)
        node[key] = {} if SCHEMA[path] == "table" else FRESH[SCHEMA[path]](rng)
    return root


def toml_text(tree, rng):
    # Top-level keys first, then one [header] per table; keys and tables in shuffled order.
    sections = []

    def walk(node, path):
        for key, value in node.items():
            if isinstance(value, dict):
                sections.append(path + [key])
                walk(value, path + [key])

    def leaves(node):
        keys = [k for k in node if not isinstance(node[k], dict)]
        rng.shuffle(keys)
        return [f"{k} = {node[k]}" for k in keys]

    walk(tree, [])
    rng.shuffle(sections)
    lines = leaves(tree)
    for path in sections:
        lines += ["", "[" + ".".join(path) + "]"] + leaves(node_at(tree, ".".join(path)))
    return "\n".join(lines) + "\n"


def broken_cases(seed):
    # (name, TOML text, expected stdout lines) of documents with known problems, made from SCHEMA.
    rng = random.Random(seed)
    leaves = sorted(p for p, t in SCHEMA.items() if t != "table")
    tables = sorted(p for p, t in SCHEMA.items() if t == "table")

    def drop(tree, path):
        node, key = parent_of(tree, path)
        del node[key]
        return [(path, "missing")]

    def bend(tree, path, got=None, text=None):
        node, key = parent_of(tree, path)
        got, text = (got, text) if text else WRONG[SCHEMA[path]]
        node[key] = text
        return [(path, f"expected {SCHEMA[path]}, got {got}")]

    def unknown(tree):
        found = []
        for where in [""] + rng.sample(tables, min(1, len(tables))):
            node, prefix = node_at(tree, where), where + "." if where else ""
            for base, value in (("extra_key", "1"), ("extra_table", {"a": '"x"', "inner": {"b": "2"}})):
                n = 1
                while f"{base}_{n}" in node or f"{prefix}{base}_{n}" in SCHEMA:
                    n += 1
                node[f"{base}_{n}"] = value
                found.append((f"{prefix}{base}_{n}", "unknown"))
        return found

    def table_vs_value(tree):
        path = rng.choice(tables)
        outside = [p for p in leaves if not p.startswith(path + ".")]
        found = bend(tree, path, "integer", "3")
        return found + (bend(tree, rng.choice(outside), "table", "{ x = 1 }") if outside else [])

    def int_for_float(tree):  # an integer where a float is expected is accepted: no lines
        for path in (p for p in leaves if SCHEMA[p] == "float"):
            bend(tree, path, "", str(rng.randint(-5, 500)))
        return []

    def mixed(tree):
        gone, bent = rng.sample(leaves, 2)
        return drop(tree, gone) + bend(tree, bent) + unknown(tree)

    kinds = sorted({SCHEMA[p] for p in leaves})
    edits = {
        "missing_keys": lambda t: [line for p in rng.sample(leaves, 2) for line in drop(t, p)],
        "wrong_types": lambda t: [
            line for k in kinds for line in bend(t, rng.choice([p for p in leaves if SCHEMA[p] == k]))
        ],
        "int_for_float": int_for_float,
        "bool_for_int": lambda t: [
            line for p in leaves if SCHEMA[p] == "integer" for line in bend(t, p, "boolean", "false")
        ],
        "unknown_keys_and_tables": unknown,
        "mixed": mixed,
    }
    if tables:
        edits["missing_table"] = lambda t: drop(t, rng.choice(tables))
        edits["table_vs_value"] = table_vs_value
    cases = []
    for name, edit in edits.items():
        tree = fresh_tree(rng)
        found = edit(tree)
        cases.append((name, toml_text(tree, rng), [f"{p}: {w}" for p, w in sorted(found)] or ["ok"]))
    return cases
"""


def _places_ok(artifact: Artifact, discovery: Discovery) -> bool:
    root = work_root(discovery)
    return not any(inside_git(p, discovery) for p in (artifact.path, f"{root}/bin/x", f"{root}/incoming/x"))


@register
class ConfigCheckTool(Operator):
    """A validator for configurations shaped like a TOML artifact, run on it and on a broken copy."""

    name = "config-check-tool"
    final = True  # its outputs are reports: in a later round a step on them would be statistics of a report
    kinds = (Kind.CONFIG,)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return artifact.size <= MAX_BYTES and _places_ok(artifact, discovery) and parsed(artifact) is not None

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        doc = parsed(artifact)
        assert doc is not None  # applies() checked it
        schema = dict(sorted(schema_of(doc).items()))
        tool = tool_path(ctx, artifact, "check")
        variant = fresh_path(ctx, planted_dir(ctx), f"{stem_of(artifact)}_broken.toml")
        out_ok = ctx.output_path(artifact, "check", "txt")
        out_bad = ctx.output_path(artifact, "check_broken", "txt")
        broken = toml_text(broken_variant(doc, schema, ctx))
        seed = ctx.rng.randrange(10**6)
        schema_py = "SCHEMA = {\n" + "".join(f"    {k!r}: {t!r},\n" for k, t in schema.items()) + "}"
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import sys, tomllib
{schema_py}
{CHECK_PY.strip()}


def main():
    try:
        with open(sys.argv[1], "rb") as f:
            doc = tomllib.load(f)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        print("invalid TOML: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    lines = problems(doc, SCHEMA)
    print("\\n".join(lines or ["ok"]))
    return 1 if lines else 0


sys.exit(main())
PY
chmod 0755 {q(tool)}
{q(tool)} {q(artifact.path)} > {q(out_ok)}
{q(tool)} {q(variant)} > {q(out_bad)} || test $? -eq 1"""
        tests = f"""
TOOL, SRC, VARIANT, OUT_OK, OUT_BAD, SEED = {tool!r}, {artifact.path!r}, {variant!r}, {out_ok!r}, {out_bad!r}, {seed}
{schema_py}
{CHECK_PY}{FRESH_PY}{RUN_TOOL}

def expected(path):
    with open(path, "rb") as f:
        return problems(tomllib.load(f), SCHEMA) or ["ok"]


def test_{ctx.tag}_check_of_the_config():
    assert pathlib.Path(OUT_OK).read_text(encoding="utf-8").splitlines() == expected(SRC)


def test_{ctx.tag}_check_of_the_broken_copy():
    assert pathlib.Path(OUT_BAD).read_text(encoding="utf-8").splitlines() == expected(VARIANT)


def test_{ctx.tag}_tool_accepts_a_reordered_valid_document(tmp_path):
    rng = random.Random(SEED)
    path = tmp_path / "valid.toml"
    path.write_text(toml_text(fresh_tree(rng), rng), encoding="utf-8")
    done = run_tool(TOOL, path)
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.decode("utf-8").splitlines() == ["ok"]


def test_{ctx.tag}_tool_reports_each_problem(tmp_path):
    for name, text, want in broken_cases(SEED + 1):
        path = tmp_path / (name + ".toml")
        path.write_text(text, encoding="utf-8")
        done = run_tool(TOOL, path)
        assert done.stdout.decode("utf-8").splitlines() == want, (name, text)
        assert done.returncode == (0 if want == ["ok"] else 1), (name, done.stderr[-500:])


def test_{ctx.tag}_tool_rejects_invalid_toml(tmp_path):
    bad = {{
        "syntax": b"key = = 1\\n",
        "unclosed_header": b"[server\\nport = 1\\n",
        "duplicate_key": b"a = 1\\na = 2\\n",
        "not_utf8": b'name = "\\xff"\\n',
    }}
    for name, data in bad.items():
        path = tmp_path / (name + ".toml")
        path.write_bytes(data)
        done = run_tool(TOOL, path)
        assert done.returncode == 2 and done.stdout == b"" and done.stderr.strip(), name
"""
        listing = "".join(f"{k} {t}\n" for k, t in schema.items())
        instruction = (
            f"Next, write a validator for configurations shaped like `{artifact.path}`: a command-line tool "
            f"`{tool}` (an executable file with a `#!` line). Its schema is every key path of `{artifact.path}` "
            "with the type of its value: a top-level key's path is its name, a key inside a table has the table's "
            "path, `.`, and its name (nested tables recurse; `[header]` tables, dotted keys and inline tables count "
            "alike). The types are `string`, `integer`, `float`, `boolean`, `array` (an array of tables is an "
            "`array` too and its contents are not part of the schema), `table`, and `datetime` (offset and local "
            "date-times, local dates and local times are all `datetime`). The schema, one `KEY TYPE` line each:"
            f"\n\n```\n{listing}```\n\n"
            f"`{tool} FILE` reads FILE as UTF-8 TOML (TOML 1.0: e.g. a key defined twice is invalid). When FILE "
            "cannot be read, is not UTF-8, or is not valid TOML, the tool prints one line to standard error, nothing "
            "to standard output, and exits with status 2. Otherwise it compares the document with the schema and "
            "prints one line per problem to standard output: `KEY: missing` for a schema key that FILE lacks (when "
            "a whole table is missing, only the table's line, none for its keys); `KEY: expected TYPE, got TYPE` "
            "for a key whose value has another type (an integer is accepted where a `float` is expected; a boolean "
            "is never an integer; a key of the wrong type gets no further lines for what it contains); `KEY: "
            "unknown` for a key that is not in the schema (for an unknown table, only the table's line, none for "
            "what is inside it). KEY is the dotted path as above, and TYPE one of the type names above. Lines are "
            "sorted by KEY in code-point order (comparing the whole dotted path) and each ends with `\\n`; the tool "
            "then exits with status 1. When there is no problem it prints the single line `ok` and exits 0. Key "
            f"order in FILE does not matter. Then run the tool on `{artifact.path}`, saving its standard output as "
            f"`{out_ok}`, and on the broken copy `{variant}` (already in the environment), saving its standard "
            f"output as `{out_bad}`."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(variant, broken),
            produces=[
                Artifact(path=out_ok, kind=Kind.TEXT, bookkeeping=True),
                Artifact(path=out_bad, kind=Kind.TEXT, bookkeeping=True),
                Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True),
            ],
        )
