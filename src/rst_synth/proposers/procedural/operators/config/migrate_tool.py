"""A schema migration of a configuration: a stated mapping (moves of a table and of keys, a seconds to
milliseconds conversion, a removed key, defaults, the version bumped), as a tool tested on documents
generated from the configuration's own shape; its output is the next version of the configuration."""

from __future__ import annotations

import re
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.config.documents import (
    config_document,
    doc_ext,
    json_literal,
    leaves,
    places_ok,
    type_name,
)
from rst_synth.proposers.procedural.operators.config.shipped import migrate_tool as shipped
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, stem_of, tool_path, work_root
from rst_synth.proposers.procedural.shipping import render

VERSION_KEYS = ("config_version", "schema_version")
"""A bare `version` key is left alone: a document that has one is versioned by its own workflow already."""
TABLE_NAMES = {
    "logging": "log",
    "log": "logging",
    "database": "db",
    "db": "database",
    "http": "server",
    "server": "http",
    "cache": "caching",
    "features": "feature_flags",
    "auth": "authentication",
    "storage": "store",
}
KEY_NAMES = {
    "host": "address",
    "port": "listen_port",
    "workers": "worker_count",
    "url": "dsn",
    "enabled": "active",
    "level": "log_level",
    "file": "path",
    "user": "username",
    "debug": "debug_mode",
    "backend": "driver",
    "owner": "maintainer",
    "name": "display_name",
}
TIME_WORDS = frozenset("timeout ttl interval delay period seconds secs sec expiry expire wait age".split())
DEFAULTS = {"retries": 3, "strict": False, "log_format": "text", "max_body_kb": 1024}


def _version(doc: dict[str, Any]) -> tuple[str, int]:
    """The version key and the document's version (1 when it has none)."""
    for key in VERSION_KEYS:
        value = doc.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1000:
            return key, value
    return "schema_version", 1


def _seconds(path: str, value: Any) -> bool:
    words = set(path.rsplit(".", 1)[-1].split("_"))
    return bool(words & TIME_WORDS) and isinstance(value, int | float) and not isinstance(value, bool)


def _millis_name(path: str) -> str:
    return re.sub(r"(_seconds|_secs|_sec|_s)?$", "_ms", path, count=1)


def mapping(doc: dict[str, Any], rng: Any) -> dict[str, Any]:
    """The migration's rules for a document shaped like `doc`: moves of one table and of up to two keys,
    one conversion to milliseconds where a key holds seconds, one removal, one default."""
    key, source = _version(doc)
    found = {p: v for p, v in leaves(doc).items() if p != key}
    rule: dict[str, Any] = {"key": key, "source": source, "target": source + 1, "moves": [], "convert": []}
    touched: set[str] = set()
    seconds = sorted(p for p, v in found.items() if _seconds(p, v) and _millis_name(p) not in found)
    if seconds:
        path = rng.choice(seconds)
        rule["convert"].append((path, _millis_name(path)))
        touched.add(path.split(".")[0])
    top = sorted(t for t, v in doc.items() if isinstance(v, dict) and t not in touched)
    if top:
        table = rng.choice(top)
        target = TABLE_NAMES.get(table, f"{table}_settings")
        if target not in doc:
            rule["moves"].append((table, target))
            touched.add(table)
    renames = [
        (p, p.rsplit(".", 1)[0] + "." + KEY_NAMES[p.rsplit(".", 1)[-1]])
        for p in sorted(found)
        if "." in p and p.split(".")[0] not in touched and p.rsplit(".", 1)[-1] in KEY_NAMES
    ]
    renames = [(old, new) for old, new in renames if new not in found]
    rule["moves"] += rng.sample(renames, min(2, len(renames)))
    used = {p for pair in rule["moves"] + rule["convert"] for p in pair}
    spare = [p for p in sorted(found) if p not in used and p.split(".")[0] not in touched]
    rule["remove"] = rng.sample(spare, min(1, len(spare)))
    tables = sorted(
        t for t, v in doc.items() if isinstance(v, dict) and t not in {m[0] for m in rule["moves"]}
    ) or sorted(t for t, v in doc.items() if isinstance(v, dict))
    table = rng.choice(tables)
    name = next(n for n in (*DEFAULTS, "migrated") if n not in doc[table])
    rule["defaults"] = [(f"{table}.{name}", DEFAULTS.get(name, True))]
    return rule


def _usable(doc: dict[str, Any] | None) -> bool:
    if doc is None or len(leaves(doc)) < 5 or ("version" in doc and not any(k in doc for k in VERSION_KEYS)):
        return False
    rule = mapping(doc, _FirstChoice())
    return len(rule["moves"]) + len(rule["convert"]) >= 2


class _FirstChoice:
    """An rng stand-in that always takes the first choices: `applies` must not depend on a draw."""

    def choice(self, items: Any) -> Any:
        return items[0]

    def sample(self, items: Any, k: int) -> Any:
        return list(items)[:k]


def _shape(doc: dict[str, Any]) -> dict[str, str]:
    shape = {}
    for path, value in leaves(doc).items():
        kind = type_name(value)
        if kind == "array":
            kind = "array:integer" if value and type_name(value[0]) == "integer" else "array:string"
        shape[path] = kind
    return shape


@register
class ConfigMigrateTool(ToolOperator):
    """Migrate a configuration to its next schema version by a stated mapping, as a tool."""

    name = "config-migrate-tool"
    kinds = (Kind.CONFIG, Kind.JSON)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return _usable(config_document(artifact)) and places_ok(artifact, discovery, "bin", "migrated")

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        doc = config_document(artifact)
        assert doc is not None  # applies() checked it
        rule = mapping(doc, ctx.rng)
        ext, key, target = doc_ext(artifact), rule["key"], rule["target"]
        tool = tool_path(ctx, artifact, "migrate")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/migrated", f"{stem_of(artifact)}_v{target}.{ext}")
        seed = ctx.rng.randrange(10**6)
        params: dict[str, Any] = {"VERSION_KEY": key, "SOURCE": rule["source"], "TARGET": target}
        params |= {"MOVES": rule["moves"], "CONVERT": rule["convert"], "REMOVE": rule["remove"]}
        params |= {"DEFAULTS": rule["defaults"]}
        code = render(shipped, ["main"], **params)
        run = f"{q(tool)} {q(artifact.path)} > {q(out)}"
        solution = self.tool_solution(tool, code, "sys.exit(main(sys.argv))", run, out)
        names = [n for n in dir(shipped) if n.startswith("test_")]
        params |= {"TOOL": tool, "SRC": artifact.path, "OUT": out, "SEED": seed, "SHAPE": _shape(doc)}
        tests = render(shipped, names, tag=ctx.tag, **params)
        rules = [f"- move {'table' if '.' not in old else 'key'} `{old}` to `{new}`" for old, new in rule["moves"]]
        rules += [f"- convert `{old}` (seconds) to `{new}` (milliseconds)" for old, new in rule["convert"]]
        rules += [f"- remove `{path}`" for path in rule["remove"]]
        rules += [
            f"- add `{path}` with the value `{json_literal(value)}` when missing" for path, value in rule["defaults"]
        ]
        version = (
            f"the integer top-level key `{key}` (a document without it is version 1)"
            if key not in doc
            else f"the integer top-level key `{key}`"
        )
        instruction = (
            f"The configuration schema of `{artifact.path}` moves from version {rule['source']} to "
            f"{target}. Write a migration tool `{tool}` (an executable file with a `#!` line): `{tool} FILE` reads "
            "FILE (TOML when its name ends in `.toml`, otherwise a JSON object) and prints the migrated document in "
            f"the same format (layout and key order are up to you). The version is {version}. A document already at "
            f"version {target} is printed unchanged. A document at version {rule['source']} is migrated by these "
            "rules, where a path names a key inside tables with `.`:\n\n" + "\n".join(rules) + "\n\n"
            "A move takes the key (a whole table for a table) with its value to the new path, creating tables as "
            "needed; a conversion does the same and writes the number of seconds (integer or float) as an integer "
            "number of milliseconds: the value times 1000, computed exactly in decimal from the number as it is "
            "written, rounded to the nearest integer with halves away from zero. A move, conversion or removal whose "
            "key is absent does nothing, and a default is added only when its key is absent after the other rules. "
            f"Every other key stays as it is, and `{key}` becomes {target}. The tool exits 0 after printing; it "
            "prints one line to standard error, nothing to standard output, and exits 2 when FILE cannot be read or "
            f"parsed or is not a table, when `{key}` is not an integer, when the version is neither "
            f"{rule['source']} nor {target}, when the new path of a move or conversion is already present in FILE, or "
            f"when a value to convert is not a number (booleans are not numbers). Then migrate `{artifact.path}` "
            f"with it and save the output as `{out}` (create the folder)."
        )
        produced = Artifact(
            path=out,
            kind=artifact.kind,
            details={"format": "toml"} if ext == "toml" else {"type": "object"},
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[produced, self.executable(tool)],
        )
