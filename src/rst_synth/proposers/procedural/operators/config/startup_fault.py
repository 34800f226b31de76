"""A host whose service will not start: a hand-edited copy of the workflow's configuration (host-specific values,
a table of the host's own, values written as text where the service's loader needs a number, a flag or a list,
a value dropped) planted with the loader; the step diagnoses what the loader refuses and recovers the values the
edit meant, so the host starts with its own settings, not the baseline's."""

from __future__ import annotations

import copy
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.config.documents import (
    config_document,
    doc_ext,
    document_output,
    leaves,
    places_ok,
)
from rst_synth.proposers.procedural.operators.config.drift_report import HOSTS
from rst_synth.proposers.procedural.operators.config.layered_merge import VERSION_WORDS, changeable, env_value
from rst_synth.proposers.procedural.operators.config.shipped import startup_fault as shipped
from rst_synth.proposers.procedural.operators.config.shipped.documents import dump_doc
from rst_synth.proposers.procedural.operators.kit.families import folders_of
from rst_synth.proposers.procedural.operators.kit.workflow import fresh_path, plant, planted_dir, work_root
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, python_tool, render

TRUE_WORDS, FALSE_WORDS = ("yes", "On", "TRUE", "1", " true"), ("no", "off", "False", "0", "OFF ")


def _number(path: str, value: Any) -> bool:
    return (
        isinstance(value, int | float) and not isinstance(value, bool) and path.rsplit(".", 1)[-1] not in VERSION_WORDS
    )


def _listable(value: Any) -> bool:
    """An array a hand edit can write as comma-separated text that reads back the same."""
    if not isinstance(value, list) or not value or len({type(v) for v in value}) != 1:
        return False
    if isinstance(value[0], str):
        return all(v and v == v.strip() and "," not in v for v in value)
    return isinstance(value[0], int) and not isinstance(value[0], bool)


def _faults(doc: dict[str, Any]) -> dict[str, list[str]]:
    found = leaves(doc)
    return {
        "number": sorted(p for p, v in found.items() if _number(p, v)),
        "boolean": sorted(p for p, v in found.items() if isinstance(v, bool)),
        "array": sorted(p for p, v in found.items() if _listable(v)),
    }


def _put(doc: dict[str, Any], path: str, value: Any) -> None:
    *parents, key = path.split(".")
    for part in parents:
        doc = doc[part]
    doc[key] = value


def _drop(doc: dict[str, Any], path: str) -> None:
    *parents, key = path.split(".")
    for part in parents:
        doc = doc[part]
    del doc[key]


def _host(doc: dict[str, Any], name: str, ctx: StepContext) -> dict[str, Any]:
    """The host's hand-edited copy: a value of its own, a table of its own, three values written as text (one
    that differs from the baseline) and one value dropped."""
    rng, host, found = ctx.rng, copy.deepcopy(doc), leaves(doc)
    faults = _faults(doc)
    number = rng.choice(faults["number"])
    meant = env_value(number, found[number], name, rng)
    text = str(int(meant)) if isinstance(meant, float) and meant.is_integer() else str(meant)
    _put(host, number, rng.choice([text, f" {text}"]))
    flag = rng.choice(faults["boolean"])
    _put(host, flag, rng.choice(TRUE_WORDS if rng.choice([True, False]) else FALSE_WORDS))
    touched = {number, flag}
    if faults["array"]:
        listed = rng.choice(faults["array"])
        items = list(reversed(found[listed])) if rng.random() < 0.5 else found[listed]
        _put(host, listed, ", ".join(map(str, items)) + rng.choice(["", ","]))
        touched.add(listed)
    own = sorted(p for p, v in found.items() if p not in touched and changeable(p, v) and not isinstance(v, list))
    if own:
        path = rng.choice(own)
        _put(host, path, env_value(path, found[path], name, rng))
        touched.add(path)
    rest = sorted(p for p in found if p not in touched)
    if rest:
        _drop(host, rng.choice(rest))
    local = next(k for k in ("host_local", "local_host", "this_host") if k not in host)
    host[local] = {"name": name, "rack": rng.randint(1, 40), "maintenance": False}
    return host


@register
class ConfigStartupFault(Operator):
    """A host's hand-edited configuration that keeps its service down, diagnosed and repaired as meant."""

    name = "config-startup-fault"
    purpose = Purpose.REPAIR
    kinds = (Kind.CONFIG, Kind.JSON)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        doc = config_document(artifact)
        if doc is None or not places_ok(artifact, discovery, "incoming", "fixed"):
            return False
        faults, found = _faults(doc), leaves(doc)
        typed = all(shipped.type_name(v) in shipped.LOADER_TYPES for v in found.values())  # no JSON null
        return typed and bool(faults["number"] and faults["boolean"]) and len(found) >= 5

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        doc = config_document(artifact)
        assert doc is not None  # applies() checked it
        ext, root = doc_ext(artifact), work_root(ctx.discovery)
        name = ctx.rng.choice(HOSTS)
        schema = {p: shipped.type_name(v) for p, v in leaves(doc).items()}
        host_path = fresh_path(ctx, planted_dir(ctx), f"{name}.{ext}")
        loader = fresh_path(ctx, planted_dir(ctx), "load_config")
        fixed = fresh_path(ctx, f"{root}/fixed", f"{name}.{ext}")
        diagnosis = fresh_path(ctx, f"{root}/fixed", f"{name}_diagnosis.json")
        program = python_tool(render(shipped, ["load_main"], SCHEMA=schema), "sys.exit(load_main(sys.argv))")
        dockerfile = plant(loader, program, "0755") + plant(host_path, dump_doc(_host(doc, name, ctx), host_path))
        params: dict[str, Any] = {"SCHEMA": schema, "BASELINE": artifact.path, "HOST": host_path, "LOADER": loader}
        params |= {"FIXED": fixed, "DIAGNOSIS": diagnosis}
        solution = f"{folders_of(fixed, diagnosis)}\n" + python_script(
            render(shipped, ["write_fixed"], **params), "write_fixed()"
        )
        tests = render(shipped, [n for n in dir(shipped) if n.startswith("test_")], tag=ctx.tag, **params)
        instruction = (
            f"The service will not start on host `{name}`: its configuration `{host_path}` is a copy of "
            f"`{artifact.path}` edited by hand on the host. The service's configuration loader `{loader}` is in the "
            f"environment too: `{loader} FILE` exits 0 when the service can start with FILE, and 1 naming the first "
            f"problem it finds. It needs every value of `{artifact.path}` that is not a table, at the same dotted key "
            "path (a key inside a table has the table's path, `.`, and its name; an array is a value), with the same "
            "type: `string`, `integer`, `float`, `boolean` or `array` (an integer is accepted where a float is "
            "expected); keys it does not know are ignored. Save the diagnosis of the host's file as "
            f"`{diagnosis}`: one JSON object with a key for every path the loader needs that the file lacks or "
            'holds with a type the loader does not accept, whose value is `{"expected": TYPE, "found": FOUND}`: '
            "TYPE the type the loader needs, FOUND `missing` or the type the file has (one of the names above, "
            "`table` or `null`). Then write the repaired file "
            f"`{fixed}` (same format as the host's file; layout and key order are up to you), which the loader "
            "accepts, holding what the hand edit meant. Each value of the wrong type is a string holding the "
            "intended value as text; with surrounding whitespace removed, an `integer` is an optional sign and "
            "digits, a `float` is an optional sign, digits and optionally `.` and digits (a float even when "
            "written without a `.`), a `boolean` is one of `true`, `yes`, `on`, `1`, `false`, `no`, `off`, `0` in "
            "any letter case, and an `array` is its items separated by commas, each trimmed, empty items dropped, "
            f"each of the type of the items of that array in `{artifact.path}` (strings when it is empty). A path "
            f"the file lacks gets the value it has in `{artifact.path}` (tables created as needed). Every other key "
            "and value of the host's file stays exactly as it is: the host's own values and the keys the loader "
            "does not know are part of its configuration."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=dockerfile,
            produces=[
                document_output(fixed, ext),
                Artifact(path=diagnosis, kind=Kind.JSON, end_result=True, details={"type": "object"}),
            ],
        )
