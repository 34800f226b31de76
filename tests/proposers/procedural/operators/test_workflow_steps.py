"""Workflow operators on a CSV result (a planted defect, a partner feed to reconcile, a raw feed to
quarantine, batches to fold idempotently, a service, a permissions policy): preconditions,
determinism, the planted defects caught by the step's own checks, and a child per operator accepted
against its parent."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from rst_synth.proposers.artifacts import Artifact, Kind, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.tables import planted_defect_fix
from tests.support.operators import assert_accepted, extend_with, parent_task

LEDGER = (
    "account,amount,region\n"
    "acme,120.50,north\n"
    '"Zürich AG",-4.25,south\n'
    "beta,300,north\n"
    "gamma,0.75,east\n"
    "delta,42.10,south\n"
    "omega,15.00,east\n"
)
NOTES = "reviewed by finance\n"
PARENT_SOLVE = (
    f"mkdir -p /app/out\ncat > /app/out/ledger.csv <<'CSV'\n{LEDGER}CSV\ncat > /app/out/notes.txt <<'TXT'\n{NOTES}TXT\n"
)
WORKFLOW = (
    "planted-defect-fix",
    "csv-reconcile-sources",
    "csv-quarantine-malformed",
    "csv-incremental-fold",
    "serve-csv-http",
    "permissions-policy",
)


def artifact(path: str = "/app/out/ledger.csv", text: str = LEDGER) -> Artifact:
    kind, details, sample = classify(path, text.encode())
    return Artifact(path=path, kind=kind, size=len(text.encode()), details=details, sample=sample)


def discovery(*artifacts: Artifact, tools: tuple[str, ...] = ("python3",)) -> Discovery:
    found = list(artifacts) or [artifact(), artifact("/app/out/notes.txt", NOTES)]
    return Discovery(workdir="/app", artifacts=found, tools=list(tools), python_modules=["sqlite3"])


def build(name: str, seed: int = 3, tag: str = "r2s1") -> Step:
    return OPERATORS[name].step(artifact(), StepContext(discovery=discovery(), rng=random.Random(seed), tag=tag))


@pytest.mark.parametrize("name", WORKFLOW)
def test_preconditions(name: str) -> None:
    op = OPERATORS[name]
    assert op.can_use(artifact(), discovery())
    assert not op.can_use(artifact(), discovery(tools=()))  # no python3 and no apt-get
    repo = Artifact(path="/app", kind=Kind.GIT)  # outputs and tools would dirty a repository
    assert not op.can_use(artifact(), discovery(artifact(), repo))
    # the policy is plain chown/chmod work whose audit repeats the policy: bookkeeping, weighing no more than a
    # one-command step; the other workflow steps are real work
    assert op.bookkeeping == (name == "permissions-policy") and op.weight >= (1 if name == "permissions-policy" else 3)


def test_csv_preconditions_need_text_keys_and_exact_decimals() -> None:
    numbers = artifact("/app/out/n.csv", "a,b\nx,1e5\ny,2\n")
    for name in WORKFLOW[:5]:
        assert not OPERATORS[name].can_use(numbers, discovery(numbers)), name
    repeated = artifact("/app/out/r.csv", "k,v\nx,1\nX ,2\n")  # the same key once trimmed and case-folded
    assert not OPERATORS["csv-reconcile-sources"].can_use(repeated, discovery(repeated))
    fine = artifact("/app/out/f.csv", "k,v\nx,1.255\ny,2\nx,3\n")  # three decimals are no cents
    assert not OPERATORS["csv-incremental-fold"].can_use(fine, discovery(fine))
    assert OPERATORS["csv-quarantine-malformed"].can_use(fine, discovery(fine))
    # a summary (one row per key) is an end result: no feed in its format, no batch, no tool grouping it again
    # (six rows: a partner's figures are compared as statistics, which take six rows or more)
    summary = artifact("/app/out/s.csv", "status,count\n200,17\n301,2\n302,4\n404,3\n500,1\n503,6\n")
    for name in ("planted-defect-fix", "csv-quarantine-malformed", "csv-incremental-fold", "serve-csv-http"):
        assert not OPERATORS[name].can_use(summary, discovery(summary)), name
    assert OPERATORS["csv-reconcile-sources"].can_use(summary, discovery(summary))  # a partner's figures per key


def test_policy_stays_out_of_system_folders_and_scripts() -> None:
    op = OPERATORS["permissions-policy"]
    system = artifact("/etc/cron.d/job", "* * * * * root true\n")
    assert not op.can_use(system, discovery(system))
    script = Artifact(path="/app/out/run.sh", kind=Kind.SHELL_SCRIPT, executable=True)
    assert not op.can_use(artifact(), discovery(artifact(), script))  # a script in the folder
    assert op.input_of(artifact()) == "/app/out"
    for folder in ("/app/project/textstats.egg-info", "/app/project/build/lib", "/app/dist"):
        metadata = artifact(f"{folder}/PKG-INFO")
        assert not op.can_use(metadata, discovery(metadata)), folder  # a build tool's folder, no result


@pytest.mark.parametrize("name", WORKFLOW)
def test_build_is_deterministic_and_states_every_path(name: str) -> None:
    first, second = build(name), build(name)
    assert first == second
    compile(first.tests, name, "exec")
    assert "test_r2s1_" in first.tests and first.instruction[:1].isupper() and "Next," not in first.instruction
    for path in [a.path for a in first.produces if a.kind is not Kind.GIT] + [first.consumes]:
        assert f"`{path}`" in first.instruction, path
    if first.dockerfile:
        planted = [line.split(" > ", 1)[1].split(" && ")[0] for line in first.dockerfile.splitlines()]
        for path in planted:
            assert f"`{path}`" in first.instruction, path


def test_service_ports_differ_per_step() -> None:
    ports = {build("serve-csv-http", tag=tag).instruction.split("port ")[-1][:5] for tag in ("r1s1", "r1s2", "r2s1")}
    assert len(ports) == 3


def _planted_tool(step: Step, tmp_path: Path) -> Path:
    import base64

    encoded = step.dockerfile.split("printf '%s' '", 1)[1].split("'", 1)[0]
    tool = tmp_path / "tool.py"
    tool.write_bytes(base64.b64decode(encoded))
    return tool


@pytest.mark.parametrize("defect", sorted(planted_defect_fix.DEFECTS))
def test_every_planted_defect_fails_the_step_checks(tmp_path, defect: str) -> None:
    """The planted tool (run here on the host) fails the step's check on fresh inputs; the fix passes."""
    for seed in range(40):
        step = build("planted-defect-fix", seed=seed)
        if f"{planted_defect_fix.DEFECTS[defect][1]}" in _planted_tool(step, tmp_path).read_text():
            break
    else:
        pytest.fail(f"no seed plants {defect}")
    namespace: dict[str, Any] = {"pathlib": Path}
    exec(compile("import csv, decimal, io, random, re, resource, subprocess\n" + step.tests, "t", "exec"), namespace)
    planted = _planted_tool(step, tmp_path)
    fixed = tmp_path / "fixed.py"
    fixed.write_text(step.solution.split("<<'PY'\n", 1)[1].split("\nPY\n", 1)[0] + "\n")
    outcomes = []
    for tool in (planted, fixed):
        namespace["TOOL"] = str(tool)
        namespace["run_tool"] = lambda *cmd, **kw: subprocess.run(
            [sys.executable if c == "python3" else str(c) for c in cmd], capture_output=True
        )
        try:
            namespace["test_r2s1_fixed_tool_on_fresh_inputs"](tmp_path)
            outcomes.append(True)
        except AssertionError:
            outcomes.append(False)
    assert outcomes == [False, True]


@pytest.mark.docker
@pytest.mark.parametrize("operator", WORKFLOW)
def test_child_accepted(tmp_path, operator: str) -> None:
    proposal, report = extend_with(operator, parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, operator)
