"""`rst eval` as a user runs it: plumbing agents over the bundled seeds, a kill and a resume."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.agents.test_terminal_docker import SOLUTION, SUBMIT, bash, by_turn
from tests.support.cli import rst
from tests.support.docker import our_containers
from tests.support.fake_server import FakeOpenAI, Reply
from tests.support.tasks import REPO, SEEDS

pytestmark = pytest.mark.docker


@pytest.mark.parametrize("agent, expected", [("oracle", 1.0), ("nop", 0.0)])
def test_plumbing_agents_over_the_bundled_seeds(agent: str, expected: float, tmp_path: Path) -> None:
    seeds = sorted(str(p) for p in SEEDS.iterdir() if (p / "task.toml").is_file())
    result = rst("eval", *seeds, "--agent", agent, "-j", "2", "--out", str(tmp_path), "--json", timeout=600)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["agent"] == agent and len(report["tasks"]) == len(seeds)
    assert [r["pass@1"] for r in report["rounds"]] == [expected]
    assert all(t["rewards"] == [expected] for t in report["tasks"])
    assert not our_containers()


def test_a_killed_eval_resumes_without_paying_an_attempt_twice(tmp_path: Path) -> None:
    out = tmp_path / "evals"
    slow_turns = by_turn([bash("ls /app/logs"), bash(SOLUTION), SUBMIT])

    def respond(body: dict[str, Any]) -> Reply:
        reply = slow_turns(body)
        return Reply(content=reply.content, tool_calls=reply.tool_calls, delay_sec=0.4)

    with FakeOpenAI() as server:
        server.responder = respond
        args = [
            "eval",
            str(SEEDS / "access-log-report"),
            "--agent",
            "llm",
            "-k",
            "3",
            "-j",
            "1",
            "--model",
            "fake-model",
            "--base-url",
            server.base_url,
            "--out",
            str(out),
        ]
        process = subprocess.Popen(
            [sys.executable, "-m", "rst_synth.cli", *args],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        db = out / "eval.db"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and _finished(db) < 1:
            time.sleep(0.2)
        time.sleep(0.6)  # into the second attempt
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        before = _finished(db)
        assert 1 <= before < 3
        resumed = rst(*args, "--json", timeout=300)
        assert resumed.returncode == 0, resumed.stderr
    report = json.loads(resumed.stdout)
    assert report["tasks"][0]["rewards"] == [1.0, 1.0, 1.0]
    sent = [hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest() for body in server.requests]
    # Every reply that reached the eval was cached and is never asked for again; only a request in
    # flight at the moment of the kill (answered to no one) may go out a second time.
    assert len(set(sent)) == 3 * 3  # three turns an attempt
    assert len(sent) - len(set(sent)) <= 1
    assert not our_containers()


def _finished(db: Path) -> int:
    if not db.is_file():
        return 0
    try:
        with sqlite3.connect(db) as con:
            return int(con.execute("SELECT COUNT(*) FROM agent_attempts").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
