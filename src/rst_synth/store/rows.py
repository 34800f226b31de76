"""The run database's tables (`SCHEMA`) and their rows as models: an accepted task (`TaskRow`, whose
figure columns are generated from `Figures`), a candidate and an agent attempt."""

from __future__ import annotations

import json
import sqlite3
import typing
from typing import Any

from pydantic import BaseModel, Field, field_validator

from rst_synth.task import Figures


def figure_columns() -> str:
    """The tasks table's figure columns, one per field of the Figures model."""
    sql = {int: "INTEGER", float: "REAL"}
    columns = []
    for name, field in Figures.model_fields.items():
        kind = next(t for t in typing.get_args(field.annotation) if t is not type(None))
        columns.append(f"{name} {sql[kind]}")
    return ", ".join(columns)


SCHEMA = f"""
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tasks (
    id TEXT PRIMARY KEY, name TEXT NOT NULL, round INTEGER NOT NULL, parent_id TEXT, root_id TEXT NOT NULL,
    path TEXT NOT NULL, proposer TEXT, steps TEXT, {figure_columns()}, created_at REAL NOT NULL);
CREATE INDEX IF NOT EXISTS tasks_round ON tasks(round, root_id);
CREATE INDEX IF NOT EXISTS tasks_figures ON tasks(round, solution_lines, executed_commands, oracle_sec);
CREATE TABLE IF NOT EXISTS candidates (
    id TEXT PRIMARY KEY, round INTEGER NOT NULL, parent_id TEXT, seed INTEGER NOT NULL,
    status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0, task_id TEXT,
    rejection_check TEXT, rejection_reason TEXT, detail TEXT,
    tokens_in INTEGER DEFAULT 0, tokens_out INTEGER DEFAULT 0, cost_usd REAL DEFAULT 0, updated_at REAL);
CREATE INDEX IF NOT EXISTS candidates_round ON candidates(round, status);
CREATE TABLE IF NOT EXISTS attempts (
    id INTEGER PRIMARY KEY, candidate_id TEXT NOT NULL, attempt INTEGER NOT NULL, accepted INTEGER NOT NULL,
    checks TEXT NOT NULL, rejection_check TEXT, rejection_reason TEXT, duration_sec REAL, created_at REAL,
    verdicts TEXT, round INTEGER);
CREATE INDEX IF NOT EXISTS attempts_candidate ON attempts(candidate_id);
CREATE TABLE IF NOT EXISTS llm_calls (
    id INTEGER PRIMARY KEY, candidate_id TEXT, stage TEXT, calls INTEGER, cache_hits INTEGER,
    tokens_in INTEGER, tokens_out INTEGER, cost_usd REAL, created_at REAL);
CREATE TABLE IF NOT EXISTS llm_chat_stages (
    call_id INTEGER NOT NULL, chat_stage TEXT NOT NULL, calls INTEGER NOT NULL, tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL, PRIMARY KEY (call_id, chat_stage));
CREATE TABLE IF NOT EXISTS rounds (
    round INTEGER PRIMARY KEY, status TEXT NOT NULL, started_at REAL, finished_at REAL, stop_reason TEXT);
CREATE TABLE IF NOT EXISTS fingerprints (task_id TEXT PRIMARY KEY, whole BLOB NOT NULL, added BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS agent_attempts (
    eval_id TEXT NOT NULL, task TEXT NOT NULL, round INTEGER NOT NULL, attempt INTEGER NOT NULL,
    reward REAL NOT NULL, ended TEXT NOT NULL, steps INTEGER, tokens_in INTEGER, tokens_out INTEGER,
    cost_usd REAL, seconds REAL, path TEXT NOT NULL, created_at REAL NOT NULL, agent TEXT, model TEXT,
    step_rewards TEXT, reason TEXT, reason_detail TEXT, PRIMARY KEY (eval_id, task, attempt));
"""


class TaskRow(Figures):
    """An accepted task: where it sits in the run, and its figures (one column each)."""

    id: str
    name: str
    round: int
    parent_id: str | None
    root_id: str
    path: str
    """The task's directory, relative to the run directory."""
    proposer: str | None = None
    steps: list[str] = Field(default_factory=list)


class CandidateRow(BaseModel):
    id: str
    round: int
    parent_id: str | None
    seed: int
    status: str
    """pending, accepted, rejected, error."""
    attempts: int = 0
    task_id: str | None = None
    rejection_check: str | None = None
    rejection_reason: str | None = None
    detail: str | None = None
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0


class AgentAttemptRow(BaseModel):
    """One finished agent attempt of an eval (`rst eval`); `task` is the task's id in a run, or its
    directory for tasks evaluated outside a run."""

    eval_id: str
    """<agent>-<model> (or the agent alone when it has no model)."""
    task: str
    round: int
    attempt: int
    reward: float
    ended: str
    steps: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    seconds: float = 0.0
    path: str
    """The attempt's directory (trajectory.json, result.json), relative to the store's folder."""
    agent: str | None = None
    """The agent's short name (None in rows written before it was recorded)."""
    model: str | None = None
    """The model behind the agent."""
    reason: str | None = None
    """Why the reward is below 1 (AttemptResult.reason): `verifier_tampered` marks a refused verifier run."""
    reason_detail: str | None = None
    step_rewards: dict[str, float | None] | None = None
    """Per step of a multi-step task (None: not run, the gate stopped the attempt), or the per-step
    credit a flat task's verifier reported; stored as a JSON object, NULL for other tasks."""

    @field_validator("step_rewards", mode="before")
    @classmethod
    def _from_json(cls, value: Any) -> Any:
        return json.loads(value) if isinstance(value, str) else value


def task_row(row: sqlite3.Row) -> TaskRow:
    data = dict(row)
    data["steps"] = json.loads(data["steps"] or "[]")
    data.pop("created_at", None)
    return TaskRow.model_validate(data)
