"""json-merge-patch-tool: where it applies, the reference diff and apply on hand-checked cases (RFC 7386's
own examples), the planted new version, the generated tests against the reference tool and wrong ones,
and a child accepted against a parent on the real engine."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.json_docs import merge_patch
from tests.proposers.local_steps import failed, outcomes
from tests.support.operators import assert_accepted, extend_with, parent_task

NAME = "json-merge-patch-tool"
SUMMARY = {
    "orders": 50,
    "orders_by_status": {"paid": 30, "pending": 11, "refunded": 9},
    "paid_revenue_by_country": {"DE": 1204.5, "FR": 880.12, "unknown": 97.3},
    "top_skus": [{"sku": "SKU-A10", "units": 31}, {"sku": "SKU-C31", "units": 28}],
    "next_page": None,
}
PARENT_SOLVE = f"mkdir -p /app/out\ncat > /app/out/summary.json <<'JSON'\n{json.dumps(SUMMARY, indent=2)}\nJSON\n"
REF = merge_patch.reference()


def artifact(doc: object, path: str = "/app/out/summary.json") -> Artifact:
    text = json.dumps(doc, indent=2)
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def build(art: Artifact, seed: int = 2, workdir: str = "/app") -> Step:
    found = Discovery(workdir=workdir, artifacts=[art], tools=["python3"])
    return OPERATORS[NAME].step(art, StepContext(discovery=found, rng=random.Random(seed), taken_paths=found.paths()))


def test_applies_to_whole_json_objects() -> None:
    op = OPERATORS[NAME]
    art = artifact(SUMMARY)
    assert op.can_use(art, Discovery(workdir="/app", artifacts=[art], tools=["python3"])) and op.final and op.once
    for other in (
        artifact([{"a": 1}, {"a": 2}]),
        artifact({"a": 1, "b": 2}),
        artifact({"k": "x" * 5000, "a": 1, "b": 2}),
    ):
        assert not op.can_use(other, Discovery(workdir="/app", artifacts=[other], tools=["python3"])), other.details
    partial = art.model_copy(update={"size": art.size + 10})  # the sample is not the whole file
    assert not op.can_use(partial, Discovery(workdir="/app", artifacts=[partial], tools=["python3"]))
    repo = Artifact(path="/app", kind=Kind.GIT)
    assert not op.can_use(art, Discovery(workdir="/app", artifacts=[art, repo], tools=["python3"]))


@pytest.mark.parametrize(
    ("target", "patch", "result"),
    [  # RFC 7386, appendix A
        ({"a": "b"}, {"a": "c"}, {"a": "c"}),
        ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
        ({"a": "b"}, {"a": None}, {}),
        ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
        ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
        ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
        ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
        ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
        (["a", "b"], ["c", "d"], ["c", "d"]),
        ({"a": "b"}, ["c"], ["c"]),
        ({"a": "foo"}, None, None),
        ({"a": "foo"}, "bar", "bar"),
        ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
        ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
        ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
    ],
)
def test_reference_apply_follows_the_rfc(target: Any, patch: Any, result: Any) -> None:
    assert REF["apply"](target, patch) == result


def test_reference_diff_is_the_smallest_patch() -> None:
    diff, same = REF["diff"], REF["same"]
    old = {"a": 1, "b": {"c": 2, "d": [1]}, "e": True, "f": "x", "n": None}
    assert diff(old, old) == {}
    assert diff(old, {**old, "a": 1.0, "e": True}) == {}  # 1 equals 1.0
    assert diff(old, {**old, "e": 1}) == {"e": 1}  # true is no number
    assert diff(old, {**old, "b": {"c": 2, "d": [1, 2]}}) == {"b": {"d": [1, 2]}}
    assert diff(old, {"a": 1}) == {"b": None, "e": None, "f": None, "n": None}
    assert diff(old, [1]) == [1] and diff([1], {"a": {"b": 2}}) == {"a": {"b": 2}}
    for new in ({**old, "a": None}, {**old, "g": {"h": None}}, {**old, "b": {"c": None, "d": [1]}}):
        with pytest.raises(REF["NotRepresentable"]):
            diff(old, new)
    assert (
        not same(True, 1) and same(1, 1.0) and not same({"a": 1}, {"a": 1, "b": 2}) and same([{"x": 2}], [{"x": 2.0}])
    )


def test_build_is_deterministic_and_plants_a_representable_new_version() -> None:
    step = build(artifact(SUMMARY))
    assert step == build(artifact(SUMMARY))
    planted = re.search(r"> (\S+_v2\.json)", step.dockerfile)
    assert planted
    for path in ("/app/out/summary.json", planted.group(1), "/app/bin/summary_merge_patch", step.produces[0].path):
        assert f"`{path}`" in step.instruction, path
    for seed in range(20):
        doc = json.loads(json.dumps(SUMMARY))
        new = merge_patch.new_version(doc, random.Random(seed))
        patch = REF["diff"](SUMMARY, new)
        assert doc == SUMMARY and patch and REF["apply"](SUMMARY, patch) == new
        assert new["next_page"] is None or "next_page" not in new


def test_generated_tests_pass_the_reference_and_catch_wrong_tools(tmp_path: Path) -> None:
    art = artifact(SUMMARY)
    step = build(art)
    files = {art.path: art.sample.encode()}
    results = outcomes(step, tmp_path / "right", files=files)
    assert len(results) == 5 and failed(results) == [], results
    wrongs = {
        "true equals 1": ("if isinstance(a, bool) or isinstance(b, bool):", "if False:", "diff_gives_the_smallest"),
        "nulls written": ("raise NotRepresentable()\n        if key", "pass\n        if key", "refuses"),
        "no reset of non-objects": ("dict(target) if isinstance(target, dict) else {}", "dict(target or {})", "apply"),
    }
    for what, (right, bad, test) in wrongs.items():
        assert right in step.solution, what
        wrong = step.solution.replace(right, bad, 1)
        results = outcomes(step, tmp_path / what.replace(" ", "_"), solution=wrong, files=files)
        assert any(test in name for name in failed(results)), (what, results)


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with(NAME, parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, NAME)
