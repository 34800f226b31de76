from __future__ import annotations

import sqlite3

import pytest

from rst_synth.report import run_stats
from rst_synth.store import AgentAttemptRow, Store, TaskRow
from rst_synth.validator import Check, Reason


def _report(accepted: bool, failing: str | None = None) -> dict:
    checks = [{"check": c, "verdict": "pass"} for c in ("static", "build", "oracle", "nop")]
    if failing:
        checks.append({"check": failing, "verdict": "fail"})
    return {"checks": checks, "rejection": None if accepted else {"check": failing, "reason": "x"}, "duration_sec": 1.0}


def test_accept_is_atomic_and_closes_the_candidate(tmp_path) -> None:
    store = Store(tmp_path / "run.db")
    store.add_candidate("c1", 1, "p", 7)
    row = TaskRow(
        id="t1", name="o/t1", round=1, parent_id="p", root_id="p", path="tasks/r01/t1", steps=["a"], solution_lines=10
    )
    store.accept("c1", row, b"w", b"a")
    assert store.candidate("c1").status == "accepted" and store.candidate("c1").task_id == "t1"
    assert store.task("t1").steps == ["a"]
    store.add_candidate("c2", 1, "p", 8)
    with pytest.raises(sqlite3.IntegrityError):  # the same task id twice: nothing of c2 is written
        store.accept("c2", row, b"w", b"a")
    assert store.candidate("c2").status == "pending"
    assert len(store.tasks()) == 1


def test_stats_per_round(tmp_path) -> None:
    store = Store(tmp_path / "run.db")
    store.start_round(1)
    for i, lines in enumerate((10, 20, 30)):
        cid = f"c{i}"
        store.add_candidate(cid, 1, "p", i)
        store.add_usage(cid, 100, 50, 0.01)
        store.record_attempt(cid, 0, _report(True), True)
        store.accept(
            cid,
            TaskRow(
                id=f"t{i}",
                name=f"o/t{i}",
                round=1,
                parent_id="p",
                root_id="p",
                path=f"x/{i}",
                solution_lines=lines,
                executed_commands=lines * 2,
            ),
            b"",
            b"",
        )
    store.add_candidate("bad", 1, "p", 9)
    store.record_attempt("bad", 0, _report(False, "parent"), False)
    store.reject_candidate("bad", Check.PARENT, Reason.PARENT_PASSES, "")
    store.finish_round(1)
    [stats] = run_stats(store)
    assert (stats.candidates, stats.accepted, stats.rejected) == (4, 3, 1)
    assert stats.yield_rate == pytest.approx(0.75)
    assert stats.pass_rates["oracle"] == 1.0 and stats.pass_rates["parent"] == 0.0
    assert stats.median_solution_lines == 20 and stats.median_executed_commands == 40
    assert stats.cost_per_accepted == pytest.approx(0.01)
    assert stats.rejections == {"parent:parent_solution_passes": 1}


def test_attempts_written_by_the_first_schema_still_count(tmp_path) -> None:
    """Attempts of an older run carry only their checks JSON; statistics must count them too."""
    store = Store(tmp_path / "run.db")
    store.start_round(1)
    store.add_candidate("old", 1, "p", 1)
    store._db.execute(
        "INSERT INTO attempts(candidate_id, attempt, accepted, checks) VALUES (?, 0, 0, ?)",
        ("old", '[{"check": "oracle", "verdict": "fail"}, {"check": "nop", "verdict": "pass"}]'),
    )
    store.add_candidate("new", 1, "p", 2)
    store.record_attempt("new", 0, _report(True), True)
    store.close()
    reopened = Store(tmp_path / "run.db")  # migration runs on open
    [stats] = run_stats(reopened)
    assert stats.pass_rates["oracle"] == 0.5 and stats.pass_rates["nop"] == 1.0


def _attempt(task: str, attempt: int, reward: float) -> AgentAttemptRow:
    return AgentAttemptRow(
        eval_id="solver-m", task=task, round=1, attempt=attempt, reward=reward, ended="submitted",
        path=f"solver/{task}/attempt-{attempt}", agent="llm", model="m",
    )  # fmt: skip


def test_the_solvers_attempts_are_accepted_with_their_task_or_not_at_all(tmp_path) -> None:
    store = Store(tmp_path / "run.db")
    store.add_candidate("c1", 1, "p", 7)
    row = TaskRow(id="t1", name="o/t1", round=1, parent_id="p", root_id="p", path="x/t1", solve_rate=0.5)
    store.accept("c1", row, b"", b"", [_attempt("t1", 0, 1.0), _attempt("t1", 1, 0.0)])
    assert [(a.task, a.attempt, a.reward, a.agent, a.model) for a in store.agent_attempts("solver-m")] == [
        ("t1", 0, 1.0, "llm", "m"),
        ("t1", 1, 0.0, "llm", "m"),
    ]
    assert store.solve_rates(1) == {"t1": 0.5} and store.solve_rates(0) == {}
    store.add_candidate("c2", 1, "p", 8)
    with pytest.raises(sqlite3.IntegrityError):  # the task id is taken: its attempts are not written either
        store.accept("c2", row, b"", b"", [_attempt("t2", 0, 1.0)])
    assert {a.task for a in store.agent_attempts()} == {"t1"}


def test_the_attempts_of_one_task(tmp_path) -> None:
    store = Store(tmp_path / "run.db")
    for n, task in enumerate(("t1", "t2")):
        store.add_candidate(f"c{n}", 1, "p", n)
        row = TaskRow(id=task, name=f"o/{task}", round=1, parent_id="p", root_id="p", path=f"x/{task}")
        store.accept(f"c{n}", row, b"", b"", [_attempt(task, 0, 1.0), _attempt(task, 1, 0.0)])
    assert [(a.task, a.attempt) for a in store.agent_attempts("solver-m", task="t2")] == [("t2", 0), ("t2", 1)]
    assert [a.task for a in store.agent_attempts(task="t1")] == ["t1", "t1"]
    assert store.agent_attempts("other", task="t1") == [] and len(store.agent_attempts()) == 4


def test_an_older_run_gains_the_test_time_and_the_attempts_agent_and_step_columns(tmp_path) -> None:
    db = sqlite3.connect(tmp_path / "run.db")
    db.executescript(
        "CREATE TABLE tasks (id TEXT PRIMARY KEY, name TEXT NOT NULL, round INTEGER NOT NULL, parent_id TEXT,"
        " root_id TEXT NOT NULL, path TEXT NOT NULL, proposer TEXT, steps TEXT, solution_lines INTEGER,"
        " executed_commands INTEGER, oracle_sec REAL, created_at REAL NOT NULL);"
        "CREATE TABLE agent_attempts (eval_id TEXT NOT NULL, task TEXT NOT NULL, round INTEGER NOT NULL,"
        " attempt INTEGER NOT NULL, reward REAL NOT NULL, ended TEXT NOT NULL, steps INTEGER, tokens_in INTEGER,"
        " tokens_out INTEGER, cost_usd REAL, seconds REAL, path TEXT NOT NULL, created_at REAL NOT NULL,"
        " PRIMARY KEY (eval_id, task, attempt));"
        "INSERT INTO agent_attempts VALUES ('llm-m', 't', 1, 0, 1.0, 'submitted', 3, 0, 0, 0, 1.0, 'p', 0);"
    )
    db.close()
    store = Store(tmp_path / "run.db")
    (old,) = store.agent_attempts()
    assert (old.eval_id, old.agent, old.model, old.step_rewards) == ("llm-m", None, None, None)
    steps = {"r0-seed": 1.0, "r1-touch": 0.0, "r2-touch": None}  # in order; None: the gate stopped it
    store.record_agent_attempt(old.model_copy(update={"attempt": 1, "step_rewards": steps}))
    assert [list((a.step_rewards or {}).items()) for a in store.agent_attempts()] == [[], list(steps.items())]
    store.add_candidate("c", 1, "p", 1)
    store.accept(
        "c", TaskRow(id="t", name="o/t", round=1, parent_id="p", root_id="p", path="x", test_sec=0.7), b"", b""
    )
    assert store.task("t").test_sec == 0.7


def test_llm_calls_of_an_older_run_have_no_chat_stages_and_new_ones_do(tmp_path) -> None:
    db = sqlite3.connect(tmp_path / "run.db")
    db.executescript(
        "CREATE TABLE candidates (id TEXT PRIMARY KEY, round INTEGER NOT NULL, parent_id TEXT, seed INTEGER NOT NULL,"
        " status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, task_id TEXT, rejection_check TEXT,"
        " rejection_reason TEXT, detail TEXT, tokens_in INTEGER DEFAULT 0, tokens_out INTEGER DEFAULT 0,"
        " cost_usd REAL DEFAULT 0, updated_at REAL);"
        "CREATE TABLE llm_calls (id INTEGER PRIMARY KEY, candidate_id TEXT, stage TEXT, tokens_in INTEGER,"
        " tokens_out INTEGER, cost_usd REAL, created_at REAL);"
        "INSERT INTO candidates(id, round, seed, status) VALUES ('old', 1, 0, 'accepted');"
        "INSERT INTO llm_calls(candidate_id, stage, tokens_in, tokens_out) VALUES ('old', 'propose', 900, 90);"
    )
    db.close()
    store = Store(tmp_path / "run.db")
    assert store.stage_tokens(1) == {"propose": 990} and store.chat_stage_tokens(1) == {}
    store.add_candidate("new", 1, None, 1)
    store.record_llm_calls("new", "propose", 2, 0, 30, 3, 0.0, {"extend": (1, 10, 1), "realign_tests": (1, 20, 2)})
    store.record_llm_calls("new", "repair", 1, 0, 5, 5, 0.0, {"repair": (1, 5, 5)})
    assert store.chat_stage_tokens(1) == {"extend": (10, 1), "realign_tests": (20, 2), "repair": (5, 5)}
    assert store.stage_tokens(1) == {"propose": 1023, "repair": 10}
