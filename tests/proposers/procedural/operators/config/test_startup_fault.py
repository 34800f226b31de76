"""config-startup-fault: where it applies, the loader and the decoding rules on hand-checked cases, a
deterministic step whose planted host keeps the service down, its generated tests passing on its own repair and
failing on repairs that copy the baseline's values or read any word as true, and a child accepted against its
parent."""

from __future__ import annotations

import base64
import json
import random
import re
import tomllib
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.config.documents import leaves
from rst_synth.proposers.procedural.operators.config.shipped import startup_fault as shipped
from rst_synth.proposers.procedural.operators.config.shipped.typed import typed
from tests.proposers.local_step import LocalStep
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.config.test_layered_merge import APP, PARENT_SOLVE, artifact, discovery
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["config-startup-fault"]
FILES = {"/app/config/app.toml": APP.encode()}


def build(seed: int = 5) -> Step:
    return OP.step(artifact(), StepContext(discovery=discovery(), rng=random.Random(seed), tag="r8s1"))


def test_it_applies_to_configurations_with_numbers_and_flags() -> None:
    assert OP.can_use(artifact(), discovery())
    strings = artifact('[a]\nx = "1"\ny = "2"\nz = 3\n[b]\nw = "4"\nv = 5\n', "/app/config/strings.toml")
    assert not OP.can_use(strings, discovery(strings))  # no flag a hand edit could write as a word
    doc = {"db": {"port": 1, "ssl": True, "host": "h", "user": "u"}, "v": 2, "w": 3}
    plain = artifact(json.dumps(doc), "/app/conf.json")
    assert OP.can_use(plain, discovery(plain))
    doc["db"]["user"] = None
    nulls = artifact(json.dumps(doc), "/app/conf.json")
    assert not OP.can_use(nulls, discovery(nulls))  # a loader of typed values needs no null
    assert not OP.once  # each configuration of the workflow is a host's file to repair


def test_loader_and_decoding_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    schema = {"v": "integer", "http.port": "integer", "http.ratio": "float", "http.on": "boolean"}
    schema |= {"http.tags": "array", "http.ids": "array", "db.url": "string"}
    monkeypatch.setitem(vars(shipped), "SCHEMA", schema)
    base = {"v": 2, "http": {"port": 80, "ratio": 0.5, "on": True, "tags": ["a"], "ids": [1]}, "db": {"url": "u"}}
    host = {"v": 2, "http": {"port": " 8080", "ratio": 3, "on": "OFF ", "tags": "b, ,c,", "ids": "3, 4"}, "x": {}}
    assert shipped.problems(host) == {
        "http.port": {"expected": "integer", "found": "string"},
        "http.on": {"expected": "boolean", "found": "string"},
        "http.tags": {"expected": "array", "found": "string"},
        "http.ids": {"expected": "array", "found": "string"},
        "db.url": {"expected": "string", "found": "missing"},
    }  # an integer where a float is expected is accepted
    fixed = shipped.fixed_doc(host, base)
    want = {"v": 2, "http": {"port": 8080, "ratio": 3, "on": False, "tags": ["b", "c"], "ids": [3, 4]}}
    assert typed(fixed) == typed(want | {"x": {}, "db": {"url": "u"}})
    monkeypatch.setitem(vars(shipped), "SCHEMA", {"r": "float"})
    assert typed(shipped.fixed_doc({"r": "2"}, {"r": 1.5})) == typed({"r": 2.0})
    with pytest.raises(shipped.FixError):
        shipped.fixed_doc({"r": "2,5"}, {"r": 1.5})


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = re.findall(r"'(/app/[^']+)'", step.tests)
    assert paths and all(f"`{p}`" in step.instruction for p in paths), paths
    assert [a.path for a in step.produces][1].endswith("_diagnosis.json")
    assert step.dockerfile.count("/app/incoming/r8s1/") == 2 * 2


def test_planted_host_differs_from_the_baseline_beyond_its_faults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    local = LocalStep(build(), tmp_path)
    local.plant()
    host = next(p for p in (tmp_path / "app/incoming/r8s1").iterdir() if p.suffix == ".toml")
    base = tomllib.loads(APP)
    monkeypatch.setitem(vars(shipped), "SCHEMA", {p: shipped.type_name(v) for p, v in leaves(base).items()})
    doc = shipped.load_doc(host)
    found = shipped.problems(doc)
    assert sorted(p["found"] for p in found.values()) == ["missing", "string", "string", "string"], found
    fixed = shipped.fixed_doc(doc, base)
    assert not shipped.problems(fixed)
    own = {p for p, v in leaves(fixed).items() if p in leaves(base) and typed(v) != typed(leaves(base)[p])}
    assert len(own) >= 2, own  # the host's own values: a repair that copies the baseline loses them


def test_generated_tests_pass_on_the_repair_and_fail_on_subtly_wrong_ones(tmp_path: Path) -> None:
    step = build()
    results = outcomes(step, tmp_path / "ok", files=FILES)
    assert len(results) == 3 and not failed(results), results
    decode = 'value = decoded(problem["expected"], lookup(host, path)[1], item_type(baseline, path))'
    assert decode in step.solution
    copied = step.solution.replace(decode, "value = lookup(baseline, path)[1]")  # the baseline is not the host
    assert failed(outcomes(step, tmp_path / "copied", files=FILES, solution=copied)) == [
        "test_r8s1_fixed_host_holds_what_the_edit_meant"
    ]
    word = "return WORDS[word.lower()]"
    assert word in step.solution
    naive = step.solution.replace(word, "return bool(word)")  # "no", "off" and "0" are true as Python strings
    for seed in range(5, 40):
        host = _host_text(seed)
        if re.search(r'= "\s*(no|off|false|0)\s*"', host, re.IGNORECASE):
            step = build(seed)
            naive = step.solution.replace(word, "return bool(word)")
            break
    assert failed(outcomes(step, tmp_path / "naive", files=FILES, solution=naive)) == [
        "test_r8s1_fixed_host_holds_what_the_edit_meant"
    ]


def _host_text(seed: int) -> str:
    step = build(seed)
    encoded = re.findall(r"printf '%s' '([A-Za-z0-9+/=]*)' \| base64 -d > \S+\.toml", step.dockerfile)
    return base64.b64decode(encoded[0]).decode()


def test_diagnosis_is_checked(tmp_path: Path) -> None:
    step = build()
    local = LocalStep(step, tmp_path)
    for path, content in FILES.items():
        local.put(path, content)
    local.plant()
    local.solve()
    diagnosis = local.path(step.produces[1].path)
    found = json.loads(diagnosis.read_text())
    found.pop(sorted(found)[0])
    diagnosis.write_text(json.dumps(found))
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "t", only="diagnosis")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with("config-startup-fault", parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, "config-startup-fault")
