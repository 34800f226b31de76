"""The run's state in SQLite (WAL, one writer): tasks, candidates, attempts, LLM calls, rounds.

A task row is written only after its directory is complete on disk, in the same transaction
that marks its candidate accepted, so a kill at any moment leaves either both or neither.
"""

from __future__ import annotations

import json
import sqlite3
import time
import typing
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from rst_synth.store.rows import SCHEMA, AgentAttemptRow, CandidateRow, TaskRow, figure_columns, task_row
from rst_synth.validator.models import Check, Reason


class Store:
    """One SQLite database per run; every write goes through this object (the one writer)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL survives a killed process
        self._db.executescript(SCHEMA)
        self._migrate()

    def _migrate(self) -> None:
        """Bring a run made by an earlier version up to this schema (columns are only ever added)."""
        tasks = {row[1] for row in self._db.execute("PRAGMA table_info(tasks)")}
        for column in figure_columns().split(", "):
            if column.split()[0] not in tasks:  # a figure added to the model after this run began
                self._db.execute(f"ALTER TABLE tasks ADD COLUMN {column}")
        columns = {row[1] for row in self._db.execute("PRAGMA table_info(llm_calls)")}
        for column in ("calls", "cache_hits"):
            if column not in columns:
                self._db.execute(f"ALTER TABLE llm_calls ADD COLUMN {column} INTEGER DEFAULT 0")
        attempts = {row[1] for row in self._db.execute("PRAGMA table_info(attempts)")}
        if "verdicts" not in attempts:
            self._db.execute("ALTER TABLE attempts ADD COLUMN verdicts TEXT")  # NULL: counted from `checks`
        if "round" not in attempts:
            self._db.execute("ALTER TABLE attempts ADD COLUMN round INTEGER")
            self._db.execute("UPDATE attempts SET round = (SELECT c.round FROM candidates c WHERE c.id = candidate_id)")
        evals = {row[1] for row in self._db.execute("PRAGMA table_info(agent_attempts)")}
        for column in ("agent", "model", "step_rewards", "reason", "reason_detail"):
            if column not in evals:
                self._db.execute(f"ALTER TABLE agent_attempts ADD COLUMN {column} TEXT")
        # Per-round check counts read this index only, never the attempts' (large) rows.
        self._db.execute("CREATE INDEX IF NOT EXISTS attempts_round ON attempts(round, verdicts)")

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # -- meta -------------------------------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return row["value"] if row else None

    def set_meta(self, key: str, value: str) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))

    # -- candidates -------------------------------------------------------------------------

    def candidate(self, candidate_id: str) -> CandidateRow | None:
        row = self._db.execute("SELECT * FROM candidates WHERE id = ?", (candidate_id,)).fetchone()
        return CandidateRow.model_validate(dict(row)) if row else None

    def add_candidate(self, candidate_id: str, round_: int, parent_id: str | None, seed: int) -> None:
        self._db.execute(
            "INSERT OR IGNORE INTO candidates(id, round, parent_id, seed, status, updated_at) VALUES (?,?,?,?,?,?)",
            (candidate_id, round_, parent_id, seed, "pending", time.time()),
        )

    def record_attempt(self, candidate_id: str, attempt: int, report: dict[str, Any], accepted: bool) -> None:
        rejection = report.get("rejection") or {}
        checks = report.get("checks", [])
        self._db.execute(
            "INSERT INTO attempts(candidate_id, attempt, accepted, checks, rejection_check, rejection_reason, "
            "duration_sec, created_at, verdicts, round) VALUES (?,?,?,?,?,?,?,?,?,"
            "(SELECT round FROM candidates WHERE id = ?))",
            (
                candidate_id,
                attempt,
                int(accepted),
                json.dumps(checks),
                rejection.get("check"),
                rejection.get("reason"),
                report.get("duration_sec"),
                time.time(),
                _verdicts(checks),
                candidate_id,
            ),
        )
        self._db.execute(
            "UPDATE candidates SET attempts = ?, updated_at = ? WHERE id = ?", (attempt + 1, time.time(), candidate_id)
        )

    def add_usage(self, candidate_id: str, tokens_in: int, tokens_out: int, cost_usd: float) -> None:
        self._db.execute(
            "UPDATE candidates SET tokens_in = tokens_in + ?, tokens_out = tokens_out + ?, cost_usd = cost_usd + ? "
            "WHERE id = ?",
            (tokens_in, tokens_out, cost_usd, candidate_id),
        )

    def record_llm_calls(
        self,
        candidate_id: str,
        stage: str,
        calls: int,
        cache_hits: int,
        tokens_in: int,
        tokens_out: int,
        cost_usd: float,
        chat_stages: Mapping[str, tuple[int, int, int]] | None = None,
    ) -> None:
        """The model calls one proposal or repair made (a proposer reports them summed), and the same
        calls by chat stage: name -> (calls, tokens_in, tokens_out), one `llm_chat_stages` row each."""
        with self.transaction() as db:
            row = db.execute(
                "INSERT INTO llm_calls(candidate_id, stage, calls, cache_hits, tokens_in, tokens_out, cost_usd, "
                "created_at) "
                "VALUES (?,?,?,?,?,?,?,?)",
                (candidate_id, stage, calls, cache_hits, tokens_in, tokens_out, cost_usd, time.time()),
            )
            db.executemany(
                "INSERT INTO llm_chat_stages(call_id, chat_stage, calls, tokens_in, tokens_out) VALUES (?,?,?,?,?)",
                [(row.lastrowid, name, *counts) for name, counts in (chat_stages or {}).items()],
            )

    def reject_candidate(
        self, candidate_id: str, check: Check, reason: Reason, detail: str, status: str = "rejected"
    ) -> None:
        self._db.execute(
            "UPDATE candidates SET status = ?, rejection_check = ?, rejection_reason = ?, detail = ?, updated_at = ? "
            "WHERE id = ?",
            (status, check.value, reason.value, detail[:2000], time.time(), candidate_id),
        )

    def accept(
        self, candidate_id: str, task: TaskRow, whole: bytes, added: bytes, attempts: Sequence[AgentAttemptRow] = ()
    ) -> None:
        """Insert the task (its directory already complete on disk) and close its candidate, atomically,
        with the agent attempts made on it during synthesis (the solver's)."""
        with self.transaction() as db:
            for attempt in attempts:
                _insert_attempt(db, attempt)
            data = task.model_dump()
            data["steps"] = json.dumps(data["steps"])
            data["created_at"] = time.time()
            columns = ", ".join(data)
            db.execute(f"INSERT INTO tasks({columns}) VALUES ({', '.join('?' * len(data))})", tuple(data.values()))
            db.execute(
                "INSERT OR REPLACE INTO fingerprints(task_id, whole, added) VALUES (?,?,?)", (task.id, whole, added)
            )
            db.execute(
                "UPDATE candidates SET status = 'accepted', task_id = ?, updated_at = ? WHERE id = ?",
                (task.id, time.time(), candidate_id),
            )

    # -- queries ----------------------------------------------------------------------------

    def task(self, task_id: str) -> TaskRow | None:
        row = self._db.execute("SELECT * FROM tasks WHERE id = ?", (task_id,)).fetchone()
        return task_row(row) if row else None

    def tasks(self, round_: int | None = None) -> list[TaskRow]:
        if round_ is None:
            rows = self._db.execute("SELECT * FROM tasks ORDER BY round, id")
        else:
            rows = self._db.execute("SELECT * FROM tasks WHERE round = ? ORDER BY id", (round_,))
        return [task_row(r) for r in rows]

    def task_keys(self, round_: int) -> list[tuple[str, str]]:
        """(id, root_id) of a round's tasks, ordered by id as tasks(round_) is: enough to sample a
        frontier without building a TaskRow per task."""
        return [
            (r[0], r[1])
            for r in self._db.execute("SELECT id, root_id FROM tasks WHERE round = ? ORDER BY id", (round_,))
        ]

    def tasks_by_id(self, ids: list[str]) -> dict[str, TaskRow]:
        """The tasks of these ids (those that exist), by id."""
        found: dict[str, TaskRow] = {}
        for start in range(0, len(ids), 500):
            chunk = ids[start : start + 500]
            query = f"SELECT * FROM tasks WHERE id IN ({', '.join('?' * len(chunk))})"
            found.update((row["id"], task_row(row)) for row in self._db.execute(query, chunk))
        return found

    def task_steps(self) -> list[sqlite3.Row]:
        """id, parent_id, round and steps (a JSON list) of every task: the lineages, for step statistics."""
        return self._db.execute("SELECT id, parent_id, round, steps FROM tasks").fetchall()

    def solve_rates(self, round_: int) -> dict[str, float]:
        """id -> the solver's solve rate of a round's tasks that have one (for the frontier)."""
        query = "SELECT id, solve_rate FROM tasks WHERE round = ? AND solve_rate IS NOT NULL"
        return {r[0]: float(r[1]) for r in self._db.execute(query, (round_,))}

    def task_figures(self, round_: int) -> list[sqlite3.Row]:
        """solution_lines, executed_commands, oracle_sec, kill_rate of a round's tasks (for its medians)."""
        return self._db.execute(
            "SELECT solution_lines, executed_commands, oracle_sec, kill_rate FROM tasks WHERE round = ?", (round_,)
        ).fetchall()

    def candidate_summary(self, round_: int) -> tuple[list[sqlite3.Row], list[float], list[sqlite3.Row]]:
        """A round's candidates in aggregate: (status, n, tokens_in, tokens_out) per status; the
        non-zero costs in id order (the order candidates(round_) sums them in); and (rejection_check,
        rejection_reason, n, first_id) per reason of the rejected and errored ones."""
        by_status = self._db.execute(
            "SELECT status, COUNT(*) AS n, SUM(tokens_in) AS tokens_in, SUM(tokens_out) AS tokens_out "
            "FROM candidates WHERE round = ? GROUP BY status",
            (round_,),
        ).fetchall()
        costs = [
            r[0]
            for r in self._db.execute(
                "SELECT cost_usd FROM candidates WHERE round = ? AND cost_usd != 0 ORDER BY id", (round_,)
            )
        ]
        reasons = self._db.execute(
            "SELECT rejection_check, rejection_reason, COUNT(*) AS n, MIN(id) AS first_id FROM candidates "
            "WHERE round = ? AND status IN ('rejected', 'error') GROUP BY rejection_check, rejection_reason",
            (round_,),
        ).fetchall()
        return by_status, costs, reasons

    def fingerprints(self) -> Iterator[tuple[str, bytes, bytes]]:
        for row in self._db.execute("SELECT task_id, whole, added FROM fingerprints ORDER BY task_id"):
            yield row["task_id"], row["whole"], row["added"]

    def candidates(self, round_: int | None = None) -> list[CandidateRow]:
        query, args = "SELECT * FROM candidates", tuple[int, ...]()
        if round_ is not None:
            query, args = query + " WHERE round = ?", (round_,)
        return [CandidateRow.model_validate(dict(r)) for r in self._db.execute(query + " ORDER BY id", args)]

    def candidate_count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM candidates").fetchone()[0])

    def total_cost(self) -> float:
        return float(self._db.execute("SELECT COALESCE(SUM(cost_usd), 0) FROM candidates").fetchone()[0])

    def attempts(self, round_: int) -> list[sqlite3.Row]:
        return list(
            self._db.execute(
                "SELECT a.* FROM attempts a JOIN candidates c ON c.id = a.candidate_id WHERE c.round = ?", (round_,)
            )
        )

    def check_verdict_counts(self, round_: int | None = None) -> list[sqlite3.Row]:
        """(round, check_name, verdict, n) over every attempt of a round, or of every round."""
        # Counted from the small `verdicts` objects, read from the (round, verdicts) index, each
        # distinct one parsed once: parsing every attempt's `checks` (outputs included) and joining
        # candidates for the round took seconds on a run of 100,000 tasks. Attempts without both
        # (rows of older versions, a candidate missing when the attempt was written, checks that
        # are not {check, verdict} dicts): from `checks`, with the round of the candidate.
        one = round_ is not None
        where = "round = ?" if one else "round IS NOT NULL"
        return self._db.execute(
            "SELECT round, check_name, verdict, SUM(n) AS n FROM ("
            " SELECT g.round AS round, j.key AS check_name, j.value AS verdict, SUM(g.n) AS n FROM ("
            f"  SELECT round, verdicts, COUNT(*) AS n FROM attempts WHERE {where} AND verdicts IS NOT NULL"
            "  GROUP BY round, verdicts) g, json_each(g.verdicts) j GROUP BY g.round, check_name, verdict"
            " UNION ALL"
            " SELECT c.round AS round, json_extract(j.value, '$.check') AS check_name,"
            " json_extract(j.value, '$.verdict') AS verdict, COUNT(*) AS n FROM ("
            "  SELECT candidate_id, checks FROM attempts WHERE round IS NULL UNION ALL"
            f"  SELECT candidate_id, checks FROM attempts INDEXED BY attempts_round WHERE {where}"
            "  AND verdicts IS NULL) a"  # few rows, if any: CROSS JOIN makes them lead
            " CROSS JOIN candidates c ON c.id = a.candidate_id, json_each(a.checks) j"
            f" WHERE {'c.round = ?' if one else '1'} GROUP BY c.round, check_name, verdict"
            ") GROUP BY round, check_name, verdict",
            (round_, round_, round_) if one else (),
        ).fetchall()

    def check_candidates(self, check: str) -> dict[int, tuple[int, int]]:
        """Per round: (candidates in one of whose attempts `check` ran: passed, failed or erred; those in
        one of whose attempts it passed), from the attempts' `verdicts` (rows of older versions lack
        checks this counts)."""
        rows = self._db.execute(
            "SELECT a.round AS round, COUNT(DISTINCT a.candidate_id) AS ran,"
            " COUNT(DISTINCT CASE WHEN j.value = 'pass' THEN a.candidate_id END) AS passed"
            " FROM attempts a, json_each(a.verdicts) j WHERE a.round IS NOT NULL AND a.verdicts IS NOT NULL"
            " AND j.key = ? AND j.value IN ('pass', 'fail', 'error') GROUP BY a.round",
            (check,),
        ).fetchall()
        return {row["round"]: (row["ran"], row["passed"]) for row in rows}

    def stage_tokens(self, round_: int) -> dict[str, int]:
        """A round's model tokens (in and out) by the candidate stage that spent them: propose, repair,
        second (the second solution), failed (calls of an attempt that made no candidate)."""
        rows = self._db.execute(
            "SELECT l.stage AS stage, SUM(l.tokens_in + l.tokens_out) AS tokens FROM llm_calls l "
            "JOIN candidates c ON c.id = l.candidate_id WHERE c.round = ? GROUP BY l.stage ORDER BY l.stage",
            (round_,),
        ).fetchall()
        return {row["stage"]: int(row["tokens"] or 0) for row in rows if row["tokens"]}

    def chat_stage_tokens(self, round_: int) -> dict[str, tuple[int, int]]:
        """A round's model tokens (in, out) by the chat stage that spent them (extend, realign_tests,
        realign_instruction, repair, reask, second_solution); empty for calls recorded before chat
        stages were (their `llm_calls` rows have no `llm_chat_stages` rows)."""
        rows = self._db.execute(
            "SELECT s.chat_stage AS stage, SUM(s.tokens_in) AS tokens_in, SUM(s.tokens_out) AS tokens_out "
            "FROM llm_chat_stages s JOIN llm_calls l ON l.id = s.call_id JOIN candidates c ON c.id = l.candidate_id "
            "WHERE c.round = ? GROUP BY s.chat_stage ORDER BY s.chat_stage",
            (round_,),
        ).fetchall()
        return {
            row["stage"]: (int(row["tokens_in"] or 0), int(row["tokens_out"] or 0))
            for row in rows
            if row["tokens_in"] or row["tokens_out"]
        }

    def llm_calls(self, round_: int) -> sqlite3.Row:
        row: sqlite3.Row = self._db.execute(
            "SELECT COALESCE(SUM(l.calls), 0) AS calls, COALESCE(SUM(l.cache_hits), 0) AS cache_hits FROM llm_calls l "
            "JOIN candidates c ON c.id = l.candidate_id WHERE c.round = ?",
            (round_,),
        ).fetchone()
        return row

    def candidate_effort(self, order_by: typing.Literal["seconds", "rejected"], limit: int) -> list[sqlite3.Row]:
        """The `limit` candidates with the most validation seconds, or the most rejected attempts (ties:
        more attempts, then more seconds): id, round, parent_id, status, task_id, rejection_check,
        rejection_reason, detail, attempts, seconds, rejected (attempts), and `reasons` (check:reason
        of each rejected attempt, in order)."""
        key = {"seconds": "seconds DESC", "rejected": "rejected DESC, attempts DESC, seconds DESC"}[order_by]
        return self._db.execute(
            "SELECT t.*, (SELECT group_concat(reason, ' | ') FROM (SELECT a.rejection_check || ':' || "
            " a.rejection_reason AS reason FROM attempts a WHERE a.candidate_id = t.id AND a.accepted = 0"
            " ORDER BY a.attempt)) AS reasons FROM ("
            " SELECT c.id, c.round, c.parent_id, c.status, c.task_id, c.rejection_check, c.rejection_reason,"
            " c.detail, COUNT(a.id) AS attempts, COALESCE(SUM(a.duration_sec), 0) AS seconds,"
            " COALESCE(SUM(1 - a.accepted), 0) AS rejected"
            " FROM candidates c LEFT JOIN attempts a ON a.candidate_id = c.id GROUP BY c.id"
            f" ORDER BY {key}, c.id LIMIT ?) t ORDER BY {key}, t.id",
            (limit,),
        ).fetchall()

    # -- agent attempts ---------------------------------------------------------------------

    def record_agent_attempt(self, row: AgentAttemptRow) -> None:
        """Written after the attempt's files are complete on disk: a row means a finished, paid attempt."""
        _insert_attempt(self._db, row)

    def agent_attempts(self, eval_id: str | None = None, *, task: str | None = None) -> list[AgentAttemptRow]:
        """The attempts of one eval (None: every eval), of one task where `task` is given."""
        where = {k: v for k, v in (("eval_id", eval_id), ("task", task)) if v is not None}
        query = "SELECT * FROM agent_attempts" + (" WHERE " + " AND ".join(f"{k} = ?" for k in where) if where else "")
        rows = self._db.execute(query + " ORDER BY eval_id, round, task, attempt", tuple(where.values()))
        return [AgentAttemptRow.model_validate({k: r[k] for k in r.keys() if k != "created_at"}) for r in rows]

    def eval_spend(self, eval_id: str) -> float:
        row = self._db.execute("SELECT COALESCE(SUM(cost_usd), 0) FROM agent_attempts WHERE eval_id = ?", (eval_id,))
        return float(row.fetchone()[0])

    # -- rounds -----------------------------------------------------------------------------

    def start_round(self, round_: int) -> None:
        self._db.execute(
            "INSERT OR IGNORE INTO rounds(round, status, started_at) VALUES (?, 'running', ?)", (round_, time.time())
        )

    def finish_round(self, round_: int) -> None:
        self._db.execute(
            "UPDATE rounds SET status = 'done', finished_at = ?, stop_reason = NULL WHERE round = ?",
            (time.time(), round_),
        )

    def stop_round(self, round_: int, reason: str) -> None:
        self._db.execute("UPDATE rounds SET stop_reason = ? WHERE round = ?", (reason, round_))

    def rounds(self) -> list[sqlite3.Row]:
        return list(self._db.execute("SELECT * FROM rounds ORDER BY round"))

    def round_done(self, round_: int) -> bool:
        row = self._db.execute("SELECT status FROM rounds WHERE round = ?", (round_,)).fetchone()
        return bool(row and row["status"] == "done")


def _insert_attempt(db: sqlite3.Connection, row: AgentAttemptRow) -> None:
    data = row.model_dump()
    data["step_rewards"] = json.dumps(row.step_rewards) if row.step_rewards is not None else None
    data["created_at"] = time.time()
    db.execute(
        f"INSERT OR REPLACE INTO agent_attempts({', '.join(data)}) VALUES ({', '.join('?' * len(data))})",
        tuple(data.values()),
    )


def _verdicts(checks: Any) -> str | None:
    """The checks' verdicts as a JSON object {check: verdict, ...} (a name may repeat), or None
    (counted from `checks` then) when an entry is not a dict with a string `check`."""
    if not isinstance(checks, list):
        return None
    if not all(isinstance(c, dict) and isinstance(c.get("check"), str) for c in checks):
        return None
    return "{" + ",".join(f"{json.dumps(c['check'])}:{json.dumps(c.get('verdict'))}" for c in checks) + "}"
