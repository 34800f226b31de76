"""A rollout candidate checked against the configuration's rules: a planted rules file (required keys, ranges,
allowed values, patterns the workflow's configuration meets) and a planted hand-edited candidate that breaks
some of them; a rules tool tested on rules and documents its tests make up finds what breaks, and the candidate
is repaired from the workflow's configuration."""

from __future__ import annotations

import copy
import re
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.config.documents import (
    config_document,
    doc_ext,
    document_output,
    leaves,
    places_ok,
)
from rst_synth.proposers.procedural.operators.config.layered_merge import LEVELS, VERSION_WORDS
from rst_synth.proposers.procedural.operators.config.shipped import rules_check as shipped
from rst_synth.proposers.procedural.operators.config.shipped.documents import dump_doc, toml_text
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import (
    fresh_path,
    plant,
    planted_dir,
    stem_of,
    tool_path,
    work_root,
)
from rst_synth.proposers.procedural.scenarios import Purpose
from rst_synth.proposers.procedural.shipping import python_script, render

URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+")


def _kinds(doc: dict[str, Any]) -> dict[str, list[str]]:
    """The leaves a rule can constrain, by the rule they take."""
    found: dict[str, list[str]] = {"range": [], "choice": [], "pattern": []}
    for path, value in leaves(doc).items():
        if path.rsplit(".", 1)[-1] in VERSION_WORDS:
            continue
        if shipped.number(value):
            found["range"].append(path)
        elif isinstance(value, bool) or value in LEVELS:
            found["choice"].append(path)
        elif isinstance(value, str) and re.fullmatch(r"\S+", value):
            found["pattern"].append(path)
    return found


def _rule(path: str, value: Any, kind: str) -> dict[str, Any]:
    if kind == "range":
        low = 1 if value >= 1 else value * 2 - 1
        return {"path": path, "min": type(value)(low), "max": type(value)(max(value * 4, 10))}
    if kind == "choice":
        return {"path": path, "one_of": [True, False] if isinstance(value, bool) else [*LEVELS]}
    return {"path": path, "pattern": r"[a-z][a-z0-9+.-]*://\S+" if URL.fullmatch(value) else r"\S+"}


def _broken(value: Any, rule: dict[str, Any], rng: Any) -> Any:
    """The value a hand edit leaves that breaks the rule."""
    if "max" in rule:
        return rng.choice([rule["max"] + 1, rule["min"] - 1]) if rule["min"] >= 1 else rule["max"] * 2
    if "one_of" in rule:
        return rng.choice([int(value), "yes" if value else "no"]) if isinstance(value, bool) else "verbose"
    return value + " "  # trailing whitespace, that a prefix match lets through


def _node(doc: dict[str, Any], path: str) -> tuple[dict[str, Any], str]:
    *parents, key = path.split(".")
    for part in parents:
        doc = doc[part]
    return doc, key


@register
class ConfigRulesCheck(ToolOperator):
    """A rollout candidate checked against stated rules by a tool, and repaired from the configuration."""

    name = "config-rules-check"
    purpose = Purpose.REPAIR
    kinds = (Kind.CONFIG, Kind.JSON)
    once = True  # the tool reads any rules file: a second step would write it again

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        doc = config_document(artifact)
        return (
            doc is not None
            and all(_kinds(doc).values())
            and len(leaves(doc)) >= 5
            and places_ok(artifact, discovery, "bin", "incoming", "rollout")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        doc = config_document(artifact)
        assert doc is not None  # applies() checked it
        rng, found, flat = ctx.rng, _kinds(doc), leaves(doc)
        rules, candidate = [], copy.deepcopy(doc)
        for kind, paths in found.items():
            for k, path in enumerate(sorted(rng.sample(paths, min(2, len(paths))))):
                rule = _rule(path, flat[path], kind)
                rules.append(rule)
                if k == 0:
                    node, key = _node(candidate, path)
                    node[key] = _broken(flat[path], rule, rng)
        unruled = sorted(p for p in flat if p not in {r["path"] for r in rules})
        dropped = rng.choice(unruled or sorted(flat))
        required = sorted({dropped, *rng.sample(sorted(flat), min(2, len(flat)))})
        rules += [{"path": path, "required": True} for path in required]
        node, key = _node(candidate, dropped)
        del node[key]
        # What the rollout is for: a change no rule covers, which the repair keeps (so it is not the baseline again).
        wave = next(
            f"rollout{n}" if n else "rollout"
            for n in range(len(doc) + 1)
            if (f"rollout{n}" if n else "rollout") not in doc
        )
        candidate[wave] = {"wave": rng.randint(2, 9), "owner": rng.choice(["platform", "payments", "search"])}
        rng.shuffle(rules)
        ext = doc_ext(artifact)
        rules_path = fresh_path(ctx, planted_dir(ctx), "rules.toml")
        candidate_path = fresh_path(ctx, planted_dir(ctx), f"candidate.{ext}")
        rules_text = "".join("\n[[rule]]\n" + toml_text(rule) for rule in rules).lstrip("\n")
        dockerfile = plant(rules_path, rules_text) + plant(candidate_path, dump_doc(candidate, candidate_path))
        tool = tool_path(ctx, artifact, "rules")
        rollout = f"{work_root(ctx.discovery)}/rollout"
        checked = fresh_path(ctx, rollout, f"{stem_of(artifact)}_candidate_violations.json")
        repaired = fresh_path(ctx, rollout, f"{stem_of(artifact)}_candidate_repaired.{ext}")
        seed = rng.randrange(10**6)
        code = render(shipped, ["main"])
        params = {"TOOL": tool, "BASELINE": artifact.path, "RULES": rules_path, "CANDIDATE": candidate_path}
        params |= {"CHECKED": checked, "REPAIRED": repaired}
        repair = python_script(render(shipped, ["write_repaired"], **params), "write_repaired()")
        run = f"{q(tool)} {q(rules_path)} {q(candidate_path)} > {q(checked)} || test $? -eq 1\n{repair}"
        solution = self.tool_solution(tool, code, "sys.exit(main(sys.argv))", run, checked)
        checks = [n for n in dir(shipped) if n.startswith("test_")]
        tests = render(shipped, checks, tag=ctx.tag, SEED=seed, **params)
        instruction = (
            f"A hand-edited rollout candidate `{candidate_path}` of `{artifact.path}` must pass the configuration's "
            f"rules `{rules_path}` before it ships (both already in the environment). Write a rules tool `{tool}` "
            f"(an executable file with a `#!` line): `{tool} RULES FILE` reads a TOML rules file and a configuration "
            "(TOML when its name ends in `.toml`, otherwise a JSON object) and prints a JSON array of the "
            'violations, each `{"path": PATH, "check": CHECK}` (any order, each pair once). The rules file is an '
            "array of tables `[[rule]]`, each with a `path` (a dotted key path: a key inside a table has the "
            "table's path, `.`, and its name) and any of these checks: `required` (a boolean: when true, a path the "
            "file lacks breaks `required`; a rule whose path is absent checks nothing else), `min` and `max` (numbers: "
            "the value must be an integer or a float, never a boolean, at least `min` / at most `max`), `one_of` (an "
            'array: the value must be the same as one item, same type and value, so `1`, `1.0`, `true` and `"1"` '
            "all differ; arrays and tables compare item by item), and `pattern` (a Python regular expression the "
            "value, a string, must match as a whole, as `re.fullmatch` does). A value that fails a check breaks "
            "that check: a string under `min` breaks `min`, a number under `pattern` breaks `pattern`. The tool "
            "exits 0 when there is no violation and 1 when there is one, printing the array either way; it prints "
            "one line to standard error, nothing to standard output, and exits 2 when it does not get two files, "
            "when a file cannot be read or parsed or the configuration is not a table, or when the rules are "
            "malformed (a rule without a non-empty string `path`, any other key, a `required` that is not a "
            "boolean, a bound that is not a number, a `one_of` that is not an array, a `pattern` that is not a "
            f"string or does not compile). Then run it on the candidate and save its output as `{checked}`, and "
            f"write the repaired candidate `{repaired}` (same format as the candidate; layout and key order are "
            "up to you): the candidate with the value of every path that breaks a check set back to the value "
            f"that path has in `{artifact.path}` (added where the candidate lacks it), everything else as it is."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=dockerfile,
            produces=[
                Artifact(path=checked, kind=Kind.JSON, end_result=True, details={"type": "array"}),
                document_output(repaired, ext),
                self.executable(tool),
            ],
        )
