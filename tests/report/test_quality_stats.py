"""`rst stats` per round: rejections by each quality check, their pass rates, the median kill rate;
and a store made before `kill_rate` existed gains the column on open."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from rst_synth.cli.main import app
from rst_synth.report import QUALITY_CHECKS, run_stats
from rst_synth.store import RunPaths, Store, TaskRow
from rst_synth.validator import Check, Reason


def _checks(last: str, verdict: str) -> dict[str, object]:
    checks = [{"check": c, "verdict": "pass"} for c in ("static", "build", "oracle", "nop", "parent")]
    checks.append({"check": last, "verdict": verdict})
    return {"checks": checks, "duration_sec": 1.0}


def _run(root: Path) -> Store:
    store = Store(RunPaths(root).db)
    store.start_round(1)
    for i, kill in enumerate((1.0, 0.8, None)):
        cid = f"ok{i}"
        store.add_candidate(cid, 1, "p", i)
        store.record_attempt(cid, 0, _checks("mutation", "pass"), True)
        row = TaskRow(id=f"t{i}", name=f"o/t{i}", round=1, parent_id="p", root_id="p", path=f"x/{i}", kill_rate=kill)
        store.accept(cid, row, b"", b"")
    rejected = [
        (Check.MUTATION, Reason.WEAK_TESTS),
        (Check.MUTATION, Reason.WEAK_TESTS),
        (Check.REDUNDANCY, Reason.REDUNDANT_OUTPUT),
        (Check.DEGENERATE, Reason.DEGENERATE_OUTPUT),
    ]
    for i, (check, reason) in enumerate(rejected):
        cid = f"bad{i}"
        store.add_candidate(cid, 1, "p", 10 + i)
        store.record_attempt(cid, 0, _checks(check.value, "fail"), False)
        store.reject_candidate(cid, check, reason, "")
    store.finish_round(1)
    return store


def test_rejections_per_quality_check_and_the_median_kill_rate(tmp_path: Path) -> None:
    [stats] = run_stats(_run(tmp_path))
    assert stats.quality_rejections == {
        "instruction_paths": 0,
        "redundancy": 1,
        "degenerate": 1,
        "parent_outputs": 0,
        "steps": 0,
        "mutation": 2,
        "tolerance": 0,
    }
    assert stats.median_kill_rate == 0.9  # of 1.0 and 0.8; the task without new outputs has none
    assert stats.pass_rates["mutation"] == 0.6 and stats.pass_rates["redundancy"] == 0.0
    assert stats.pass_rates["degenerate"] == 0.0
    assert stats.pass_rates["steps"] is None  # never ran
    assert set(QUALITY_CHECKS) <= set(stats.pass_rates)


def test_rst_stats_prints_the_quality_table(tmp_path: Path) -> None:
    _run(tmp_path).close()
    result = CliRunner().invoke(app, ["stats", str(tmp_path)], env={"COLUMNS": "250"})
    assert result.exit_code == 0, result.output
    assert "quality checks" in result.output and "med. kill rate" in result.output and "degenerate" in result.output
    rows = [line for line in result.output.splitlines() if line.lstrip("│ ").startswith("1 ")]
    row = rows[-1]  # round 1 of the second table
    assert "2 (60%)" in row and "1 (0%)" in row and "90%" in row


def test_a_store_without_the_kill_rate_column_gains_it(tmp_path: Path) -> None:
    db = tmp_path / "run.db"
    store = Store(db)
    store.close()
    raw = sqlite3.connect(db)
    raw.execute("ALTER TABLE tasks DROP COLUMN kill_rate")  # as a run made before the column existed
    raw.close()
    store = Store(db)
    store.start_round(1)
    store.add_candidate("c", 1, "p", 1)
    store.accept(
        "c", TaskRow(id="t", name="o/t", round=1, parent_id="p", root_id="p", path="x", kill_rate=0.5), b"", b""
    )
    store.finish_round(1)
    assert run_stats(store)[0].median_kill_rate == 0.5


def test_tokens_per_accepted_task_by_stage(tmp_path: Path) -> None:
    store = _run(tmp_path)
    store.record_llm_calls("ok0", "propose", 3, 0, 9000, 3000, 0.0)
    store.record_llm_calls("ok1", "propose", 3, 1, 6000, 3000, 0.0)
    store.record_llm_calls("ok1", "second", 1, 0, 2400, 600, 0.0)
    store.record_llm_calls("bad0", "repair", 1, 0, 1500, 1500, 0.0)
    [stats] = run_stats(store)
    assert stats.stage_tokens_per_accepted == {"propose": 7000.0, "repair": 1000.0, "second": 1000.0}
    store.close()
    shown = CliRunner().invoke(app, ["stats", str(tmp_path)]).output
    assert "tokens per accepted task, by stage" in shown and "7000" in shown
