"""config-migrate-tool: where it applies, the mapping it derives, the migration rules on hand-checked
cases (exact decimal rounding, conflicts, idempotence), a deterministic step that names its paths, its
generated tests on its own tool (and on one that rounds in binary floating point), and a child accepted
against its parent."""

from __future__ import annotations

import random
import re
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.config import migrate_tool as config_migrate_ops
from rst_synth.proposers.procedural.operators.config.shipped import migrate_tool as shipped
from tests.proposers.local_step import LocalStep
from tests.proposers.procedural.operators.config.test_layered_merge import APP, PARENT_SOLVE, artifact, discovery
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["config-migrate-tool"]


def build(seed: int = 2) -> Step:
    return OP.step(artifact(), StepContext(discovery=discovery(), rng=random.Random(seed), tag="r2s1"))


def migrate(rule: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The shipped migration with the rule's parameters set."""
    for name, key in (("VERSION_KEY", "key"), ("SOURCE", "source"), ("TARGET", "target")):
        monkeypatch.setattr(shipped, name, rule[key])
    for name in ("MOVES", "CONVERT", "REMOVE", "DEFAULTS"):
        monkeypatch.setattr(shipped, name, rule[name.lower()])
    return shipped


def test_it_applies_where_a_mapping_exists() -> None:
    assert OP.can_use(artifact(), discovery())
    two = artifact('[misc]\nalpha = 1\nbeta = 2\n[net]\nhost = "x"\nport = 1\ngamma = 3\n', "/app/misc.toml")
    assert OP.can_use(two, discovery(two))  # a table moves, two keys are renamed
    one = artifact('[misc]\nalpha = 1\nbeta = 2\ngamma = 3\ndelta = "x"\nepsilon = true\n', "/app/misc.toml")
    assert not OP.can_use(one, discovery(one))  # only the table could move: no migration worth a tool
    small = artifact('[s]\nalpha = 1\nbeta = 2\ngamma = 3\n[t]\nd = "x"\n', "/app/small.toml")
    assert not OP.can_use(small, discovery(small))  # four keys: too little to migrate
    in_repo = discovery(artifact(), Artifact(path="/app", kind=Kind.GIT))
    assert not OP.can_use(artifact(), in_repo)


def test_mapping_of_the_configuration() -> None:
    doc = tomllib.loads(APP)
    rule = config_migrate_ops.mapping(doc, random.Random(2))
    assert (rule["key"], rule["source"], rule["target"]) == ("config_version", 2, 3)
    assert rule["convert"] == [("database.timeout", "database.timeout_ms")]
    moved = dict(rule["moves"])
    assert all(old.split(".")[0] != "database" for old in moved)  # never the converted key's table
    no_version = config_migrate_ops.mapping({k: v for k, v in doc.items() if k != "config_version"}, random.Random(2))
    assert (no_version["key"], no_version["source"], no_version["target"]) == ("schema_version", 1, 2)


def test_migration_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = {
        "key": "config_version",
        "source": 2,
        "target": 3,
        "moves": [("logging", "log"), ("http.port", "http.listen_port")],
        "convert": [("database.timeout", "database.timeout_ms")],
        "remove": ["http.debug"],
        "defaults": [("http.retries", 3)],
    }
    ref = migrate(rule, monkeypatch)
    doc = {
        "config_version": 2,
        "http": {"port": 80, "debug": True},
        "database": {"timeout": 2.0005},
        "logging": {"a": 1},
    }
    assert ref.migrate(doc) == {
        "config_version": 3,
        "http": {"listen_port": 80, "retries": 3},
        "database": {"timeout_ms": 2001},  # 2000.5 exactly, halves away from zero
        "log": {"a": 1},
    }
    assert ref.migrate({"config_version": 2, "database": {"timeout": -1.0005}})["database"] == {"timeout_ms": -1001}
    done = {"config_version": 3, "anything": {"x": 1}}
    assert ref.migrate(done) is done
    for bad in (
        {"config_version": 1},
        {"config_version": "2"},
        {"config_version": 2, "log": {}},
        {"config_version": 2, "database": {"timeout": True}},
        {"config_version": 2, "http": {"listen_port": 1}},
    ):
        with pytest.raises(ref.MigrationError):
            ref.migrate(bad)


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = re.findall(r"'(/app/[^']+)'", step.tests)
    assert paths and all(f"`{p}`" in step.instruction for p in paths), paths
    assert [a.path for a in step.produces] == ["/app/migrated/app_v3.toml", "/app/bin/app_migrate"]
    assert "halves away from zero" in step.instruction and "- convert `database.timeout`" in step.instruction


def test_generated_tests_pass_on_the_tool_and_fail_on_float_rounding(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    local.put("/app/config/app.toml", APP)
    local.solve()
    assert len(local.run_tests(tmp_path / "t")) == 3
    assert tomllib.loads(local.path("/app/migrated/app_v3.toml").read_text())["config_version"] == 3
    tool = local.path("/app/bin/app_migrate")
    source = tool.read_text()
    wrong = source.replace("exact = decimal.Decimal(repr(value)) * 1000", "exact = decimal.Decimal(value * 1000)")
    assert wrong != source
    tool.write_text(wrong)
    with pytest.raises(AssertionError):
        local.run_tests(tmp_path / "wrong", only="fresh")


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with("config-migrate-tool", parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, "config-migrate-tool")
