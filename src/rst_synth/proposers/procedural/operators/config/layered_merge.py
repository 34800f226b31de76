"""Layered configuration: an application's configuration is the base layer, each environment adds an
overlay file and environment variables; a tool merges them by stated precedence and type rules into the
effective configuration of each environment. The tests run the tool on layers they generate."""

from __future__ import annotations

import json
import re
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.config.documents import (
    addressable,
    config_document,
    doc_ext,
    leaves,
    places_ok,
    tables,
)
from rst_synth.proposers.procedural.operators.config.shipped import layered_merge as shipped
from rst_synth.proposers.procedural.operators.config.toml_schema import toml_text
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import (
    fresh_path,
    plant,
    planted_dir,
    stem_of,
    tool_path,
    work_root,
)
from rst_synth.proposers.procedural.shipping import render

ENVIRONMENTS = ("staging", "production", "qa", "dev", "canary")


def _prefix(artifact: Artifact) -> str:
    word = re.sub(r"[^A-Z0-9]+", "_", stem_of(artifact).upper()).strip("_")
    return word if word[:1].isalpha() else f"CFG_{word}".rstrip("_")


def _set(doc: dict[str, Any], path: str, value: Any) -> None:
    *parents, key = path.split(".")
    for part in parents:
        doc = doc.setdefault(part, {})
    doc[key] = value


NEW_KEYS = {"replicas": 3, "region": "eu-west-1", "max_connections": 200, "read_only": True, "zone": "b"}
NEW_TABLES = ("metrics", "tracing", "audit")
LEVELS = ("debug", "info", "warning", "error")


DURATION = re.compile(r"([0-9]+)(ms|s|m|h|d)")
URL = re.compile(r"([a-z][a-z0-9+.-]*://)([A-Za-z0-9-]+)((\.[A-Za-z0-9-]+)+)(.*)")
VERSION_WORDS = frozenset({"version", "config_version", "schema_version"})


def changeable(path: str, value: Any) -> bool:
    """A leaf an environment plausibly sets differently: a number, a flag, a duration, a URL, a file path, a
    level, or a list of numbers; never a version."""
    if path.rsplit(".", 1)[-1] in VERSION_WORDS:
        return False
    if isinstance(value, bool | int | float):
        return True
    if isinstance(value, list):
        return bool(value) and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    text = str(value)
    return bool(
        DURATION.fullmatch(text) or URL.fullmatch(text) or text.lower() in LEVELS or re.fullmatch(r"/\S+", text)
    )


def env_value(path: str, old: Any, env: str, rng: Any) -> Any:
    """A value an environment would set instead of `old` (same type, different, plausible for the key)."""
    if isinstance(old, bool):
        return not old
    if isinstance(old, int):
        return rng.choice([old * 2, old + 1, old * 4]) if old > 0 else rng.choice([1, 0 if old else 5])
    if isinstance(old, float):
        return rng.choice([round(old * 2, 2), round(old / 2, 2), round(old + 0.5, 2)]) if old else 1.5
    if isinstance(old, list):
        return [*old[1:], max(old) + 1]
    text = str(old)
    duration, url = DURATION.fullmatch(text), URL.fullmatch(text)
    if duration:
        return f"{int(duration[1]) * rng.choice([2, 3]) or 1}{duration[2]}"
    if url:
        return f"{url[1]}{url[2]}.{env}{url[3]}{url[5]}"
    if text.lower() in LEVELS:
        return rng.choice([w for w in LEVELS if w != text.lower()])
    folder, _, name = text.rpartition("/")
    return f"{folder}/{env}/{name}"


def _overlay(doc: dict[str, Any], env: str, ctx: StepContext) -> tuple[dict[str, Any], list[str]]:
    """An environment's overlay: two values replaced, one unset, one key added; and the paths it replaced."""
    rng, found = ctx.rng, {p: v for p, v in leaves(doc).items() if changeable(p, v)}
    named = sorted(p for p in found if addressable(p))
    first = rng.choice(named)  # the value a variable of the environment then replaces again
    changed = [first, *rng.sample(sorted(p for p in found if p != first), 2)]
    top: dict[str, Any] = {}
    for path in changed[:2]:
        _set(top, path, env_value(path, found[path], env, rng))
    _set(top, changed[2], "!unset")
    plain = [t for t in tables(doc) if all(addressable(f"{t}.{k}") for k in _node(doc, t))]
    table = rng.choice(plain or tables(doc))
    node = doc
    for part in table.split("."):
        node = node[part]
    key = next((k for k in rng.sample(sorted(NEW_KEYS), len(NEW_KEYS)) if k not in node), None)
    if key is not None:
        _set(top, f"{table}.{key}", NEW_KEYS[key])
    spare = [t for t in NEW_TABLES if t not in doc]
    if spare and rng.random() < 0.5:
        top[rng.choice(spare)] = {"enabled": True, "interval": rng.choice([10, 15, 30, 60])}
    return top, changed[:2]


def _node(doc: dict[str, Any], table: str) -> dict[str, Any]:
    for part in table.split("."):
        doc = doc[part]
    return doc


def _env_text(doc: dict[str, Any], replaced: list[str], prefix: str, env: str, ctx: StepContext) -> str:
    """Environment variables for the merged document: one replaces a value the overlay set (the variable
    wins), one another leaf; a comment, a blank line and a variable of another application around them."""
    rng = ctx.rng
    found = {p: v for p, v in leaves(doc).items() if p not in replaced and changeable(p, v) and addressable(p)}
    picks = [replaced[0], *rng.sample(sorted(found), min(1, len(found)))]
    lines = ["# set by the deployment", f"OTHER_APP__{picks[0].split('.')[-1].upper()}=1", ""]
    for path in picks:
        value = leaves(doc).get(path)
        if value is None:
            continue
        name = "__".join([prefix, *(p.upper() for p in path.split("."))])
        fresh = env_value(path, value, env, rng)
        if isinstance(fresh, bool):
            text = rng.choice(["yes", "On", "TRUE", "1"] if fresh else ["no", "off", "False", "0"])
        elif isinstance(fresh, list):
            text = ", ".join(str(v).replace(",", " ") for v in fresh) + ","
        elif isinstance(fresh, str):
            text = '"' + fresh.replace("\n", " ") + '"'
        else:
            text = str(fresh)
        lines.append(f"{name}={text}")
    return "\n".join(lines) + "\n"


def _dump(doc: dict[str, Any], ext: str) -> str:
    return toml_text(doc) if ext == "toml" else json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


@register
class ConfigLayeredMerge(ToolOperator):
    """Effective configurations per environment: base, overlay file and environment variables merged."""

    name = "config-layered-merge"
    kinds = (Kind.CONFIG, Kind.JSON)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        doc = config_document(artifact)
        found = leaves(doc or {})
        return (
            doc is not None
            and any(changeable(p, v) and addressable(p) for p, v in found.items())
            and sum(changeable(p, v) for p, v in found.items()) >= 3
            and places_ok(artifact, discovery, "bin", "incoming", "effective")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        doc = config_document(artifact)
        assert doc is not None  # applies() checked it
        ext, prefix, stem = doc_ext(artifact), _prefix(artifact), stem_of(artifact)
        tool = tool_path(ctx, artifact, "layers")
        envs = ctx.rng.sample(ENVIRONMENTS, 2)
        cases, plants = [], []
        for env in envs:
            top, replaced = _overlay(doc, env, ctx)
            merged_leaves = dict(leaves(doc))
            for path, value in leaves(top).items():
                if value == "!unset":
                    merged_leaves.pop(path, None)
                else:
                    merged_leaves[path] = value
            env_file = fresh_path(ctx, planted_dir(ctx), f"{env}.env")
            layer = fresh_path(ctx, planted_dir(ctx), f"{env}.{ext}")
            out = fresh_path(ctx, f"{work_root(ctx.discovery)}/effective", f"{stem}_{env}.{ext}")
            merged: dict[str, Any] = {}
            for path, value in merged_leaves.items():
                _set(merged, path, value)
            plants += [plant(layer, _dump(top, ext)), plant(env_file, _env_text(merged, replaced, prefix, env, ctx))]
            cases.append((env, layer, env_file, out))
        seed = ctx.rng.randrange(10**6)
        runs = "\n".join(f"{q(tool)} {q(artifact.path)} {q(layer)} {q(env)} > {q(out)}" for _, layer, env, out in cases)
        code = render(shipped, ["main"], PREFIX=prefix)
        solution = self.tool_solution(tool, code, "sys.exit(main(sys.argv))", runs, cases[0][3])
        params = {"TOOL": tool, "BASE": artifact.path, "PREFIX": prefix, "SEED": seed}
        names = [n for n in dir(shipped) if n.startswith("test_")]
        params["CASES"] = [(layer, env, out) for _, layer, env, out in cases]
        tests = render(shipped, names, tag=ctx.tag, **params)
        listing = "".join(
            f"- `{env}`: overlay `{layer}`, variables `{ev}`, result `{out}`\n" for env, layer, ev, out in cases
        )
        instruction = (
            f"The configuration `{artifact.path}` is the base layer of a layered configuration. Write a "
            f"command-line tool `{tool}` (an executable file with a `#!` line): `{tool} BASE OVERLAY [ENVFILE]` prints "
            "the effective configuration. BASE and OVERLAY are TOML files when their name ends in `.toml`, otherwise "
            "JSON objects; they hold tables, strings, integers, floats, booleans and arrays. The OVERLAY is merged "
            "over BASE key by key: a table merges into the table of the same name recursively (a table new to BASE "
            "is added, merged the same way into an empty one), any other value replaces BASE's value (arrays are "
            'replaced whole), and the string value `"!unset"` removes that key (nothing happens when it is absent). '
            "A table where BASE has another value, or another value where BASE has a table, is an error. Then ENVFILE, "
            "if given, is applied: UTF-8 lines `NAME=value` (the value is everything after the first `=`; blank lines "
            "and lines starting with `#` are skipped, surrounding whitespace of the name and of the value is removed, "
            'and then one pair of surrounding double quotes `"` is removed from the value), in order, a later line '
            f"winning. Only names starting with `{prefix}__` count: the rest of the name, split at `__` and "
            f"lower-cased, is the key path (`{prefix}__HTTP__PORT` is key `port` of table `http`). The path must name "
            "an existing value that is not a table in the merged configuration, else it is an error. The text is "
            "converted to the type of the value it replaces: a boolean takes `true`, `yes`, `on`, `1` or `false`, "
            "`no`, `off`, `0` (any letter case); an integer takes an optional sign and digits; a float takes an "
            "optional sign, digits and optionally `.` and digits; a string takes the text as it is; an array takes "
            "the comma-separated items, each trimmed, empty items dropped, each converted to the type of the array's "
            "first element (strings when the array is empty). Text that does not fit is an error. The tool prints the "
            "effective configuration in BASE's format (TOML or JSON; layout and key order are up to you) and exits 0; "
            "on any error (a file that cannot be read or parsed, a layer error, a bad variable) it prints one line "
            "to standard error, nothing to standard output, and exits 2. The two environments' layers are already "
            "in the environment; run the tool on the base for each and save its output:\n\n" + listing
        )
        produced = [Artifact(path=out, kind=Kind.CONFIG if ext == "toml" else Kind.JSON) for *_, out in cases]
        for artifact_out in produced:
            artifact_out.details = {"format": "toml"} if ext == "toml" else {"type": "object"}
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile="".join(plants),
            produces=[*produced, self.executable(tool)],
        )
