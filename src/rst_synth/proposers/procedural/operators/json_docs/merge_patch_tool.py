"""A new version of a JSON document arrives: a merge-patch tool (RFC 7386) whose `diff` gives the smallest
patch between two documents and whose `apply` applies one, checked on documents the tests make up, and the
patch from the workflow's document to the planted new version."""

from __future__ import annotations

import json
from typing import Any

from rst_synth.proposers.artifacts import SAMPLE_CHARS, Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.json_docs.merge_patch import new_version, reference
from rst_synth.proposers.procedural.operators.json_docs.shipped import merge_patch_tool
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.placement import places_ok
from rst_synth.proposers.procedural.operators.kit.workflow import plant, planted_dir, stem_of, tool_path
from rst_synth.proposers.procedural.shipping import render
from rst_synth.validator.degenerate import degenerate_reason

MIN_MEMBERS = 3


def whole_object(artifact: Artifact) -> dict[str, Any] | None:
    """The artifact's JSON object when its sample holds the whole file and it has a few members."""
    sample = artifact.sample
    if artifact.details.get("type") != "object" or not sample or len(sample) >= SAMPLE_CHARS:
        return None
    if len(sample.encode("utf-8")) != artifact.size:
        return None
    try:
        doc = json.loads(sample)
    except ValueError:
        return None
    return doc if isinstance(doc, dict) and len(doc) >= MIN_MEMBERS else None


TESTS = [
    "test_patch_to_the_new_version",
    "test_tool_diff_gives_the_smallest_patch",
    "test_tool_diff_refuses_what_no_patch_expresses",
    "test_tool_apply",
    "test_tool_rejects_what_is_not_json",
]


@register
class JsonMergePatchTool(ToolOperator):
    """A merge-patch tool (diff and apply, RFC 7386) and the patch from the document to its new version."""

    name = "json-merge-patch-tool"
    final = True  # a patch is a difference of two documents: no later step builds on it
    once = True  # the tool is the same for any document: a second one would be a copy
    kinds = (Kind.JSON,)

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        return places_ok(artifact, discovery, "bin", "incoming") and whole_object(artifact) is not None

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        doc = whole_object(artifact)
        assert doc is not None  # applies() checked it
        space = reference()
        for _ in range(20):  # a patch whose numbers are all one value carries no information: draw again
            new = new_version(doc, ctx.rng)
            patch_text = json.dumps(space["diff"](doc, new), indent=2, ensure_ascii=False) + "\n"
            if degenerate_reason("patch.json", patch_text.encode("utf-8")) is None:
                break
        tool = tool_path(ctx, artifact, "merge_patch")
        planted = f"{planted_dir(ctx)}/{stem_of(artifact)}_v2.json"
        patch = ctx.output_path(artifact, "merge_patch", "json")
        seed = ctx.rng.randrange(10**6)
        run = f"{q(tool)} diff {q(artifact.path)} {q(planted)} > {q(patch)}"
        solution = self.tool_solution(tool, render(merge_patch_tool, ["main"]), "sys.exit(main())", run)
        params = {"SRC": artifact.path, "NEW": planted, "PATCH": patch, "TOOL": tool, "SEED": seed}
        tests = render(merge_patch_tool, TESTS, tag=ctx.tag, **params)
        instruction = (
            f"Upstream sent a new version of `{artifact.path}`: `{planted}`. Write a JSON merge patch tool "
            f"(RFC 7386), `{tool}` (an executable file with a `#!` line), with two commands. `{tool} apply DOC "
            "PATCH` prints the result of applying the merge patch in file PATCH to the document in file DOC, as "
            "RFC 7386 defines it (a PATCH that is not an object replaces the document; a member whose value is "
            "null removes that member; an object value is merged into the member, which becomes an object first "
            f"when it is not one; any other value replaces the member). `{tool} diff OLD NEW` prints the smallest "
            "merge patch that turns OLD into NEW: when both are objects, one member per member of OLD missing in "
            "NEW (null), per member of NEW missing in OLD (its value), per member present in both whose values "
            "differ (when both are objects, their own smallest patch, left out when that is `{}`; otherwise the "
            "new value), and no member for values that are equal; when either is not an object, NEW itself. "
            "Values are equal as JSON values: numbers by value (`1` equals `1.0`), `true` never equals `1`, "
            "strings exactly, arrays element by element, objects member by member in any order. When no merge "
            "patch can express the change (the patch would have to hold a null as a member value anywhere other "
            "than to remove a member, e.g. NEW sets a member to null), `diff` prints nothing and exits with "
            "status 3. Both commands read UTF-8 JSON files and print one JSON document (any whitespace and "
            "member order) to standard output and exit 0; when a file cannot be read or is not valid JSON they "
            "print nothing to standard output, a message to standard error, and exit with status 2. Then write "
            f"the patch from `{artifact.path}` to `{planted}` as `{patch}`."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=plant(planted, json.dumps(new, indent=2, ensure_ascii=False) + "\n"),
            produces=[
                Artifact(path=patch, kind=Kind.JSON, details={"type": "object"}),
                self.executable(tool),
            ],
        )
