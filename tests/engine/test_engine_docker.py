"""`rst synth` end to end on the real engine: rounds, budgets, resume after SIGKILL."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rst_synth.engine import NoveltyIndex
from rst_synth.proposers.discovery import discovery_on
from rst_synth.proposers.procedural import ProceduralProposer
from rst_synth.store import RunPaths, Store
from rst_synth.task import Task
from tests.support.docker import run_async
from tests.support.tasks import REPO, SEEDS

pytestmark = pytest.mark.docker


def rst(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rst_synth.cli", *args], capture_output=True, text=True, cwd=REPO, timeout=900
    )


@pytest.fixture
def seeds(tmp_path: Path) -> Path:
    folder = tmp_path / "seeds"
    for name in ("access-log-report", "sales-csv-rollup"):
        shutil.copytree(SEEDS / name, folder / name)
    return folder


def on_disk(run: Path) -> set[str]:
    return {p.name for p in (run / "tasks").glob("r*/*") if not p.name.startswith(".")}


def test_rounds_grow_and_a_resume_adds_rounds(seeds: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = rst("synth", str(seeds), "--out", str(run), "--rounds", "1", "--fanout", "2")
    assert first.returncode == 0, first.stdout + first.stderr
    second = rst("synth", "--out", str(run), "--rounds", "2")  # resume: round 2 only
    assert second.returncode == 0, second.stdout + second.stderr
    stats = json.loads(rst("stats", str(run), "--json").stdout)
    assert [s["round"] for s in stats] == [0, 1, 2]
    assert all(s["accepted"] > 0 and s["status"] == "done" for s in stats)
    lines = [s["median_solution_lines"] for s in stats]
    commands = [s["median_executed_commands"] for s in stats]
    assert lines == sorted(lines) and lines[0] < lines[-1]
    assert commands[0] < commands[-1]
    store = Store(RunPaths(run).db)
    assert {t.id for t in store.tasks()} == on_disk(run)
    assert len(store.candidates(1)) == 4  # round 1 was not redone by the resume
    export = tmp_path / "dataset"
    assert rst("export", str(run), "--out", str(export), "--rounds", "2").returncode == 0
    manifest = [json.loads(line) for line in (export / "manifest.jsonl").read_text().splitlines()]
    assert {m["id"] for m in manifest} == {t.id for t in store.tasks(2)}
    assert all((export / m["id"] / "task.toml").is_file() for m in manifest)


def test_budget_stops_cleanly_and_says_why(seeds: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    result = rst("synth", str(seeds), "--out", str(run), "--rounds", "3", "--fanout", "2", "--max-candidates", "4")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "stopped: max_candidates (4) reached" in result.stdout
    store = Store(RunPaths(run).db)
    assert store.candidate_count() == 4
    assert not store.round_done(1)


def test_sigkill_mid_round_then_resume_loses_and_duplicates_nothing(seeds: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "rst_synth.cli",
            "synth",
            str(seeds),
            "--out",
            str(run),
            "--rounds",
            "2",
            "--fanout",
            "2",
        ],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline, accepted_before = time.monotonic() + 300, []
    while time.monotonic() < deadline and proc.poll() is None:
        if RunPaths(run).db.is_file():
            with sqlite3.connect(RunPaths(run).db) as db:
                try:
                    accepted_before = [r[0] for r in db.execute("SELECT id FROM tasks WHERE round = 1")]
                except sqlite3.OperationalError:
                    accepted_before = []
            if accepted_before:
                break
        time.sleep(0.3)
    assert proc.poll() is None, "the run ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    resumed = rst("synth", "--out", str(run))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    store = Store(RunPaths(run).db)
    ids = [t.id for t in store.tasks()]
    assert len(ids) == len(set(ids))
    assert set(accepted_before) <= set(ids)
    assert set(ids) == on_disk(run)
    assert not list((run / "tasks").glob("r*/.*"))  # no half-written directory left
    assert all(c.status != "pending" for c in store.candidates())
    assert len(store.candidates(1)) == 4 and store.round_done(2)


def test_false_duplicate_rate_on_siblings() -> None:
    """Siblings share their parent's text: judged on the whole task alone most would look like
    duplicates; judged also on what they add, only siblings that add the same kind of step are."""
    parent = Task.load(SEEDS / "sales-csv-rollup")

    async def siblings(sandbox):  # type: ignore[no-untyped-def]
        proposer = ProceduralProposer(discovery_on(sandbox))
        return [await proposer.propose(parent, seed=s) for s in range(40)]

    children = {p.task.name: p for p in run_async(siblings)}  # the same draw twice is a true duplicate
    index, whole_only, flagged = NoveltyIndex(), 0, []
    for name, proposal in sorted(children.items()):
        whole, added = index.fingerprints(proposal.task, parent)
        whole_only += bool(index._whole.query(whole))
        twin = index.duplicate_of(whole, added)
        if twin is not None:
            flagged.append((proposal.steps, children[twin].steps))
        index.add(name, whole, added)
    n = len(children)
    print(
        f"{n} distinct siblings: whole-text filter alone flags {whole_only / n:.0%}, "
        f"whole + added flags {len(flagged) / n:.0%}"
    )
    assert n >= 15
    assert len(flagged) < whole_only
    # A flagged sibling repeats a step of its twin (same operator on the same file); none is flagged
    # for sharing only the parent's text.
    assert all(set(steps) & set(twin_steps) for steps, twin_steps in flagged)
