"""config-layered-merge: where it applies, the merge and variable rules on hand-checked cases, a
deterministic step that names its paths, its generated tests passing on its own tool (and failing on a
tool that lets the overlay beat the variables), and a child accepted against its parent."""

from __future__ import annotations

import copy
import json
import random
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.artifacts import Artifact, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.config.shipped import layered_merge as shipped
from tests.proposers.local_step import LocalStep
from tests.support.operators import assert_accepted, extend_with, parent_task

APP = """config_version = 2

[http]
host = "0.0.0.0"
port = 9090
debug = true
allowed_origins = ["https://a.test", "https://b.test"]

[database]
url = "postgresql://db.internal/inventory"
pool_size = 10
timeout = 2.5

[logging]
level = "info"
"""
PARENT_SOLVE = f"mkdir -p /app/config\ncat > /app/config/app.toml <<'TOML'\n{APP}TOML\n"
OP = OPERATORS["config-layered-merge"]


def artifact(text: str = APP, path: str = "/app/config/app.toml") -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def discovery(*found: Artifact) -> Discovery:
    return Discovery(workdir="/app", artifacts=list(found) or [artifact()], tools=["python3"])


def build(seed: int = 3, art: Artifact | None = None) -> Step:
    art = art or artifact()
    return OP.step(art, StepContext(discovery=discovery(art), rng=random.Random(seed), tag="r1s1"))


def reference() -> dict[str, Any]:
    return vars(shipped)


def test_it_applies_to_application_configurations_only() -> None:
    assert OP.can_use(artifact(), discovery())
    doc = {"db": {"url": "https://db.example.com:5432", "port": 1, "timeout": "30s"}, "debug": True, "name": "n"}
    settings = artifact(json.dumps(doc), "/app/settings.json")
    assert OP.can_use(settings, discovery(settings))
    gateway = {  # keys that no variable can name, arrays of objects, null: the document still has layers
        "version": 1,
        "defaults": {"timeout": "30s", "retries": 2, "headers": {"X-Team": "a"}},
        "services": {"old-reports": {"upstream": "http://r.internal", "routes": [{"path": "/r"}], "owner": None}},
    }
    routes = artifact(json.dumps(gateway), "/app/config/routes.v1.json")
    assert OP.can_use(routes, discovery(routes))
    assert not OPERATORS["config-migrate-tool"].can_use(routes, discovery(routes))  # versioned by its own workflow
    summary = artifact(
        json.dumps({"db": {"host": "x", "port": 1}, "debug": True, "name": "n"}), "/app/out/summary.json"
    )
    assert not OP.can_use(summary, discovery(summary))  # a JSON object whose name says nothing of configuration
    for text, path in (
        ('[project]\nname = "x"\nversion = "1"\n[tool.x]\na = 1\nb = 2\n', "/app/pyproject.toml"),
        ("a = 1\nb = 2\nc = 3\nd = 4\n", "/app/flat.toml"),  # no table: nothing to merge recursively
        ("[s]\nWeird__Key = 1\nb = 2\nc = 3\nd = 4\n", "/app/keys.toml"),
        ("[s]\nwhen = 1979-05-27\nb = 2\nc = 3\nd = 4\n", "/app/dates.toml"),
    ):
        other = artifact(text, path)
        assert not OP.can_use(other, discovery(other)), path
    in_repo = Discovery(workdir="/app", artifacts=[artifact(), Artifact(path="/app", kind="git")], tools=["python3"])
    assert not OP.can_use(artifact(), in_repo)
    assert not OP.can_use(artifact(), Discovery(workdir="/app", artifacts=[artifact()], tools=[]))


def test_merge_and_variable_rules() -> None:
    ref = reference()
    base = {"db": {"port": 1, "hosts": ["a"], "tls": {"on": False}}, "name": "x", "ratio": 0.5}
    top = {
        "db": {"tls": {"ca": "/ca"}, "hosts": ["b", "c"]},
        "name": "!unset",
        "gone": "!unset",
        "new": {"k": "!unset"},
    }
    merged = ref["overlay"](base, top)
    assert merged == {
        "db": {"port": 1, "hosts": ["b", "c"], "tls": {"on": False, "ca": "/ca"}},
        "ratio": 0.5,
        "new": {},
    }
    for bad in ({"db": 3}, {"name": {"x": 1}}):
        with pytest.raises(ref["LayerError"]):
            ref["overlay"](base, bad)
    env = (
        '# c\n\nAPP__DB__PORT = "42"\nAPP__DB__TLS__ON=Yes\nOTHER__X=1\nAPP__RATIO=2\n'
        "APP__DB__HOSTS= p, ,q \nAPP__DB__PORT=7\n"
    )
    pairs = ref["env_pairs"](env, "APP")
    assert [name for name, _ in pairs] == [
        "APP__DB__PORT",
        "APP__DB__TLS__ON",
        "APP__RATIO",
        "APP__DB__HOSTS",
        "APP__DB__PORT",
    ]
    doc = copy.deepcopy(merged)
    ref["apply_env"](doc, pairs, "APP")
    assert doc["db"] == {"port": 7, "hosts": ["p", "q"], "tls": {"on": True, "ca": "/ca"}}
    assert doc["ratio"] == 2.0 and isinstance(doc["ratio"], float)
    for line in ("APP__DB__PORT=1.5", "APP__DB=1", "APP__NOPE=1", "APP__DB__TLS__ON=2", "APP__RATIO=1e3"):
        with pytest.raises(ref["LayerError"]):
            ref["apply_env"](copy.deepcopy(merged), ref["env_pairs"](line, "APP"), "APP")


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = re.findall(r"'(/app/[^']+)'", step.tests)
    assert paths and all(f"`{p}`" in step.instruction for p in paths), paths
    assert [a.path for a in step.produces][-1] == "/app/bin/app_layers"
    assert all(a.path.startswith("/app/effective/app_") for a in step.produces[:2])
    assert "APP__HTTP__PORT" in step.instruction and "!unset" in step.instruction


def test_generated_tests_pass_on_the_tool_and_fail_on_a_wrong_one(tmp_path: Path) -> None:
    local = LocalStep(build(8), tmp_path)
    local.put("/app/config/app.toml", APP)
    local.plant()
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    outputs = [local.path(a.path) for a in local.step.produces[:2]]
    assert all(tomllib.loads(p.read_text()) for p in outputs)
    # The overlay applied after the variables: the variable that replaces an overlay value loses.
    tool = local.path(local.step.produces[-1].path)
    source = tool.read_text()
    wrong = source.replace(
        "doc = copy.deepcopy(overlay(load_doc(base), load_doc(top)))\n    if variables is not None:\n"
        "        apply_env(doc, env_pairs(variables, prefix), prefix)",
        "doc = copy.deepcopy(load_doc(base))\n    if variables is not None:\n"
        "        apply_env(doc, env_pairs(variables, prefix), prefix)\n    doc = overlay(doc, load_doc(top))",
    )
    assert wrong != source
    tool.write_text(wrong)
    local.rerun_after("chmod 0755")
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="effective")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with("config-layered-merge", parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, "config-layered-merge")
