"""A validator tool for a TOML configuration: the schema of the artifact (every dotted key path and its
type) becomes a contract the tests check on documents they make up (reordered, missing, mistyped, unknown)."""

from __future__ import annotations

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.config.shipped import check_tool as shipped
from rst_synth.proposers.procedural.operators.config.toml_schema import broken_variant, parsed, schema_of, toml_text
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import (
    fresh_path,
    inside_git,
    plant,
    planted_dir,
    stem_of,
    tool_path,
    work_root,
)
from rst_synth.proposers.procedural.shipping import render

MAX_BYTES = 64 * 1024


def _places_ok(artifact: Artifact, discovery: Discovery) -> bool:
    root = work_root(discovery)
    return not any(inside_git(p, discovery) for p in (artifact.path, f"{root}/bin/x", f"{root}/incoming/x"))


@register
class ConfigCheckTool(ToolOperator):
    """A validator for configurations shaped like a TOML artifact, run on it and on a broken copy."""

    name = "config-check-tool"
    final = True  # its outputs are reports: in a later round a step on them would be statistics of a report
    kinds = (Kind.CONFIG,)

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
        params = {"TOOL": tool, "SRC": artifact.path, "VARIANT": variant, "OUT_OK": out_ok, "OUT_BAD": out_bad}
        code = render(shipped, ["main"], SCHEMA=schema)
        runs = f"{q(tool)} {q(artifact.path)} > {q(out_ok)}\n{q(tool)} {q(variant)} > {q(out_bad)} || test $? -eq 1"
        solution = self.tool_solution(tool, code, "sys.exit(main())", runs)
        names = [n for n in dir(shipped) if n.startswith("test_")]
        tests = render(shipped, names, tag=ctx.tag, SCHEMA=schema, SEED=seed, **params)
        listing = "".join(f"{k} {t}\n" for k, t in schema.items())
        instruction = (
            f"Write a validator for configurations shaped like `{artifact.path}`: a command-line tool "
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
                self.executable(tool),
            ],
        )
