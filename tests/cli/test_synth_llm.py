"""`rst synth --proposer llm` against a scripted OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fake_server import FakeOpenAI, Reply
from tests.support.tasks import REPO, write_task

pytestmark = pytest.mark.docker
KEY = "sk-test-MARKER-4f1d2c9e"
PRICES = (
    '[llm]\nmax_retries = 1\nbackoff_base_sec = 0.01\n[llm.prices."fake-model"]\n'
    "input_per_mtok = 2.0\noutput_per_mtok = 8.0\n"
)


def fence(language: str, path: str, body: str) -> str:
    return f"```{language} path={path}\n{body.rstrip()}\n```\n"


class ScriptedModel:
    """Answers each stage; every extension adds a new numbered report built from /app/out.txt."""

    def __init__(self) -> None:
        self.counter = itertools.count(1)
        self.current = 0

    def __call__(self, request: dict) -> Reply:
        prompt = request["messages"][-1]["content"]
        stage = re.search(r"## STAGE: (\w+)", prompt).group(1)
        if stage == "extend":
            self.current = next(self.counter)
        n = self.current
        if stage == "second_solution":  # the child's own step, from the text its instruction added (the last)
            n = int(re.findall(r"repeated (\d+) times", prompt)[-1])
        out = f"/app/report/step{n}.txt"
        replies = {
            "extend": fence(
                "bash",
                "solution/steps.sh",
                f"mkdir -p /app/report\nfor i in $(seq 1 {n}); do cat /app/out.txt; done > {out}\n",
            ),
            "realign_tests": fence(
                "python",
                f"tests/test_step_llm{n}.py",
                "from pathlib import Path\n\n"
                f"def test_step{n}_repeats_the_greeting():\n"
                "    word = Path('/app/out.txt').read_text()\n"
                f"    assert Path({out!r}).read_text() == word * {n}\n",
            ),
            "second_solution": fence(
                "bash",
                "solution/steps.sh",
                f"mkdir -p /app/report\nfor i in $(seq 1 {n}); do cat /app/out.txt; done > {out}\n",
            ),
            "realign_instruction": fence(
                "markdown",
                "instruction_addendum.md",
                f"Then write `{out}`: the content of `/app/out.txt` repeated {n} times.",
            ),
        }
        return Reply(content=replies[stage], usage=(1000, 200))


def run_rst(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rst_synth.cli", *args], capture_output=True, text=True, cwd=REPO, env=env, timeout=600
    )


def test_two_llm_rounds_with_costs_then_a_dollar_budget(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds"
    write_task(seeds, name="greeting")
    config = tmp_path / "llm.toml"
    config.write_text(PRICES)
    env = {**os.environ, "OPENAI_API_KEY": KEY}
    with FakeOpenAI() as server:
        server.responder = ScriptedModel()
        run = tmp_path / "run"
        args = [
            "--proposer",
            "llm",
            "--model",
            "fake-model",
            "--base-url",
            server.base_url,
            "--llm-config",
            str(config),
            "-P",
            "1",
        ]
        result = run_rst("synth", str(seeds), "--out", str(run), "--rounds", "2", "--fanout", "2", *args, env=env)
        assert result.returncode == 0, result.stdout + result.stderr
        first_requests = len(server.requests)
        stats = json.loads(run_rst("stats", str(run), "--json", env=env).stdout)
        assert [s["accepted"] for s in stats] == [1, 2, 4]
        # Three stages and the second solution (on by default with the llm proposer), which passed for all.
        assert stats[1]["cost_per_accepted"] == pytest.approx(4 * (1000 * 2 + 200 * 8) / 1e6)
        assert stats[2]["tokens_per_accepted"] == 4 * 1200 and stats[2]["llm_calls"] == 16
        assert [s["second_solution_share"] for s in stats] == [None, 1.0, 1.0]

        # The same run again: every round is done, nothing is asked twice.
        again = run_rst("synth", "--out", str(run), env=env)
        assert again.returncode == 0 and len(server.requests) == first_requests

        budget_run = tmp_path / "budget"
        stopped = run_rst(
            "synth",
            str(seeds),
            "--out",
            str(budget_run),
            "--rounds",
            "2",
            "--fanout",
            "2",
            "--max-usd",
            "0.02",
            *args,
            env=env,
        )
        assert stopped.returncode == 0, stopped.stdout + stopped.stderr
        assert "stopped: max_usd ($0.02) reached" in stopped.stdout
    for path in list(run.rglob("*")) + list(budget_run.rglob("*")):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
