"""config-rules-check: where it applies, the checks on hand-checked cases (booleans are no numbers, patterns
match whole, allowed values compare with their types), a deterministic step whose planted candidate breaks
every kind of check once and whose baseline meets the rules, its generated tests passing on its own tool and
failing on a tool that matches prefixes or compares allowed values with Python's `==`, and a child accepted
against its parent."""

from __future__ import annotations

import base64
import random
import re
import tomllib
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.config.shipped import rules_check as shipped
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.config.test_layered_merge import APP, PARENT_SOLVE, artifact, discovery
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["config-rules-check"]


def build(seed: int = 6) -> Step:
    return OP.step(artifact(), StepContext(discovery=discovery(), rng=random.Random(seed), tag="r5s1"))


def test_it_applies_to_configurations_with_something_to_check() -> None:
    assert OP.can_use(artifact(), discovery())
    numbers = artifact("[a]\nx = 1\ny = 2\nz = 3\n[b]\nw = 4\nv = 5\n", "/app/config/numbers.toml")
    assert not OP.can_use(numbers, discovery(numbers))  # no flag, level or word to check


def test_checks() -> None:
    rules = [
        {"path": "a.n", "min": 1, "max": 10},
        {"path": "a.flag", "one_of": [True, False]},
        {"path": "a.word", "pattern": r"\S+", "required": True},
        {"path": "a.gone", "required": True, "min": 5},
        {"path": "a.optional", "min": 5},
    ]
    doc = {"a": {"n": True, "flag": 1, "word": "ok "}}
    assert shipped.pairs(shipped.violations(rules, doc)) == [
        ("a.flag", "one_of"),
        ("a.gone", "required"),
        ("a.n", "max"),
        ("a.n", "min"),
        ("a.word", "pattern"),
    ]
    fine = {"a": {"n": 10.0, "flag": False, "word": "ok", "gone": 5}}
    assert shipped.violations(rules, fine) == []
    baseline = {"a": {"n": 3, "flag": True, "word": "w", "gone": 7, "extra": "kept"}}
    assert shipped.repair(baseline, doc, rules) == {"a": {"n": 3, "flag": True, "word": "w", "gone": 7}}


def test_build_is_deterministic_and_breaks_every_kind_of_check() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = re.findall(r"'(/app/[^']+)'", step.tests)
    assert paths and all(f"`{p}`" in step.instruction for p in paths), paths
    planted = dict(re.findall(r"printf '%s' '([A-Za-z0-9+/=]+)' \| base64 -d > (\S+)", step.dockerfile))
    texts = {path: base64.b64decode(data).decode() for data, path in planted.items()}
    rules = tomllib.loads(texts["/app/incoming/r5s1/rules.toml"])["rule"]
    candidate = tomllib.loads(texts["/app/incoming/r5s1/candidate.toml"])
    assert shipped.violations(rules, tomllib.loads(APP)) == []
    broken = {check for _, check in shipped.pairs(shipped.violations(rules, candidate))}
    assert broken >= {"required", "one_of", "pattern"} and broken & {"min", "max"}


def test_generated_tests_pass_on_the_tool_and_fail_on_subtly_wrong_ones(tmp_path: Path) -> None:
    files = {"/app/config/app.toml": APP.encode()}
    step = build()
    results = outcomes(step, tmp_path / "ok", files=files)
    assert len(results) == 4 and not failed(results), results
    prefix = step.solution.replace("re.fullmatch(rule['pattern'], value)", "re.match(rule['pattern'], value)")
    prefix = prefix.replace('re.fullmatch(rule["pattern"], value)', 're.match(rule["pattern"], value)')
    assert prefix != step.solution  # a value with trailing whitespace matches `\S+` as a prefix only
    assert "test_r5s1_tool_on_fresh_rules_and_documents" in failed(
        outcomes(step, tmp_path / "prefix", files=files, solution=prefix)
    )
    loose = step.solution.replace("any(same(value, item) for item in rule", "any(value == item for item in rule")
    assert loose != step.solution  # 1 is not one of true and false
    assert "test_r5s1_tool_on_fresh_rules_and_documents" in failed(
        outcomes(step, tmp_path / "loose", files=files, solution=loose)
    )


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with("config-rules-check", parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, "config-rules-check")
