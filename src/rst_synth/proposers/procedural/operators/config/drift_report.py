"""Configuration drift: hosts' snapshots of a configuration (planted: one in sync, others hand-edited with a
changed value, a value of another type that Python calls equal, a missing key, a table of their own)
compared with the workflow's configuration as the baseline, by a tool tested on snapshots its tests make up."""

from __future__ import annotations

import copy
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.config.documents import config_document, doc_ext, leaves, places_ok
from rst_synth.proposers.procedural.operators.config.shipped import drift_report as shipped
from rst_synth.proposers.procedural.operators.config.shipped.documents import dump_doc
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
from rst_synth.proposers.procedural.shipping import render

HOSTS = ("web-01", "web-02", "web-03", "api-01", "api-02", "batch-01")


def _node(doc: dict[str, Any], path: str) -> tuple[dict[str, Any], str]:
    *parents, key = path.split(".")
    for part in parents:
        doc = doc[part]
    return doc, key


def _twin(value: Any) -> Any:
    """A value Python's `==` calls equal to `value` but of another type, or None when there is none."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return float(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


def _edited(doc: dict[str, Any], ctx: StepContext, twin_first: bool) -> dict[str, Any]:
    """A hand-edited snapshot: a value changed, one retyped (equal to Python), one key dropped, a table added."""
    host = copy.deepcopy(doc)
    found = leaves(doc)
    twins = sorted(p for p, v in found.items() if _twin(v) is not None)
    picks: list[str] = []
    if twins and twin_first:
        picks.append(ctx.rng.choice(twins))
        node, key = _node(host, picks[0])
        node[key] = _twin(node[key])
    rest = sorted(p for p in found if p not in picks)
    for path, action in zip(ctx.rng.sample(rest, min(2, len(rest))), ("change", "drop"), strict=False):
        node, key = _node(host, path)
        if action == "drop":
            del node[key]
        elif isinstance(node[key], bool):
            node[key] = not node[key]
        elif isinstance(node[key], int | float):
            node[key] = node[key] * 2 + 1
        elif isinstance(node[key], list):
            node[key] = node[key][:-1] if node[key] else ["added"]
        else:
            node[key] = str(node[key]) + "-old"
    host["local_overrides"] = {"edited_by": "hand", "ticket": ctx.rng.randint(1000, 9999)}
    return host


@register
class ConfigDriftReport(ToolOperator):
    """Hosts' configuration snapshots reconciled with the workflow's configuration, as a drift tool."""

    name = "config-drift-report"
    purpose = Purpose.RECONCILE
    kinds = (Kind.CONFIG, Kind.JSON)
    once = True  # the tool compares any snapshots with any baseline: a second step would write it again

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        doc = config_document(artifact)
        return (
            doc is not None
            and any(_twin(v) is not None for v in leaves(doc).values())
            and places_ok(artifact, discovery, "bin", "incoming", "drift")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        doc = config_document(artifact)
        assert doc is not None  # applies() checked it
        ext = doc_ext(artifact)
        names = sorted(ctx.rng.sample(HOSTS, 3))
        in_sync = ctx.rng.choice(names)
        hosts, plants = [], []
        for k, name in enumerate(names):
            path = fresh_path(ctx, f"{planted_dir(ctx)}/hosts", f"{name}.{ext}")
            snapshot = dict(reversed(list(doc.items()))) if name == in_sync else _edited(doc, ctx, k % 2 == 0)
            plants.append(plant(path, dump_doc(snapshot, path)))
            hosts.append(path)
        tool = tool_path(ctx, artifact, "drift")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/drift", f"{stem_of(artifact)}_drift.json")
        seed = ctx.rng.randrange(10**6)
        code = render(shipped, ["main"])
        run = f"{q(tool)} {q(artifact.path)} {' '.join(map(q, hosts))} > {q(out)} || test $? -eq 1"
        solution = self.tool_solution(tool, code, "sys.exit(main(sys.argv))", run, out)
        checks = [n for n in dir(shipped) if n.startswith("test_")]
        params = {"TOOL": tool, "BASELINE": artifact.path, "HOSTS": hosts, "OUT": out, "SEED": seed}
        tests = render(shipped, checks, tag=ctx.tag, **params)
        listed = "".join(f"- `{path}`\n" for path in hosts)
        instruction = (
            f"Before the rollout, the hosts' configurations must be checked against `{artifact.path}`, the "
            "baseline. Snapshots of three hosts' configurations are already in the environment:\n\n"
            f"{listed}\n"
            f"Write a drift tool `{tool}` (an executable file with a `#!` line): `{tool} BASELINE HOST...` reads "
            "the baseline and one or more host snapshots (each TOML when its name ends in `.toml`, otherwise a "
            "JSON object) and prints one JSON object with a key per host, the snapshot's file name without its "
            'last extension (`web-01.toml` is host `web-01`), whose value is an object `{"changed": [...], '
            '"missing": [...], "unexpected": [...]}` of lists of dotted key paths. Compare every value that is not '
            "a table by its dotted key path (a key inside a table has the table's path, `.`, and its name; empty "
            "tables count for nothing, and an array is a value, never entered): a path of the baseline that the "
            "snapshot lacks is `missing` (a whole missing table gives the paths of every value in it), a path only "
            "the snapshot has is `unexpected`, and a path both have with values that differ is `changed`. Values "
            "are the same only when they have the same type and value: the integer `1`, the float `1.0`, the "
            'boolean `true` and the string `"1"` all differ from each other; strings compare exactly, and arrays '
            "are the same when they have the same length and the same items in the same order. Each list is "
            "sorted in code-point order (empty when there is nothing to list). Key order in a file does not "
            "matter. The tool exits 0 when every host is in sync (all its lists empty) and 1 when any host drifted, "
            "printing the object either way; it prints one line to standard error, nothing to standard output, and "
            "exits 2 when it gets fewer than two files, when a file cannot be read or parsed or is not a table, or "
            f"when two snapshots give the same host name. Then run it on `{artifact.path}` and the three snapshots "
            f"above and save its output as `{out}` (create the folder)."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile="".join(plants),
            produces=[
                Artifact(path=out, kind=Kind.JSON, end_result=True, details={"type": "object"}),
                self.executable(tool),
            ],
        )
