"""A configuration (TOML or INI) as a JSON document: the same tables and values, typed as the format types them."""

from __future__ import annotations

import configparser
import json
import math
import re
import tomllib
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, register
from rst_synth.proposers.procedural.operators.config.shipped import ini_to_json, toml_to_json
from rst_synth.proposers.procedural.operators.kit.text import complete_sample, data_artifact
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render


def json_safe(value: Any) -> bool:
    """Whether a parsed TOML value maps one-to-one onto JSON (no dates, times, NaN or infinities)."""
    if isinstance(value, dict):
        return all(json_safe(v) for v in value.values())
    if isinstance(value, list):
        return all(json_safe(v) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)
    return isinstance(value, (str, int, bool))


def parse_config(artifact: Artifact) -> dict[str, Any] | None:
    """The config as the JSON object config-to-json writes, or None when it cannot be converted safely."""
    text, fmt = complete_sample(artifact), artifact.details.get("format")
    if text is None:
        return None
    if fmt == "toml":
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError:
            return None
        return data if data and json_safe(data) else None
    if fmt != "ini":
        return None
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    if parser.defaults() or not parser.sections() or re.search(r"^\s*\[DEFAULT\]", text, re.MULTILINE):
        return None
    return {s: dict(parser[s]) for s in parser.sections()}


@register
class ConfigToJson(Operator):
    """An INI or TOML configuration converted to JSON."""

    name = "config-to-json"
    purpose = Purpose.PREPARE
    converts = True
    final = True
    kinds = (Kind.CONFIG,)
    tools = ("python3",)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return parse_config(artifact) is not None

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        fmt = artifact.details["format"]
        out = ctx.output_path(artifact, fmt, "json")
        shipped = toml_to_json if fmt == "toml" else ini_to_json
        params = {"SRC": artifact.path, "OUT": out}
        solution = python_script(render(shipped, ["write_json"], **params), "write_json()")
        tests = render(shipped, ["test_config_as_json"], tag=ctx.tag, **params)
        if fmt == "toml":
            instruction = (
                f"Convert the TOML file `{artifact.path}` to JSON in `{out}`: the whole document as one JSON "
                "object, with tables (including arrays of tables) as nested objects, arrays as arrays, and strings, "
                "integers, floats and booleans as the corresponding JSON values."
            )
        else:
            instruction = (
                f"Convert the INI file `{artifact.path}` to JSON in `{out}`: one JSON object whose keys are "
                "the section names (in any order) and whose values are objects mapping every option of that section "
                "to its value as a JSON string, exactly as Python's `configparser.ConfigParser` with interpolation "
                "disabled reads the file: option names lowercased, values stripped of surrounding whitespace, `%` "
                "left as is, text after `;` or `#` on a value line kept as part of the value, and continuation "
                "lines joined to the value with newlines."
            )
        produced = data_artifact(
            out, json.dumps(parse_config(artifact), indent=2) + "\n", Kind.JSON, {"type": "object"}
        )
        return Step(solution=solution, tests=tests, instruction=instruction, produces=[produced])
