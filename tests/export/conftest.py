"""A real eval for the Docker tests of `rst collect`: `rst eval` with the scripted agent on three
bundled seeds, K=2, then `rst collect` of it in every format, once per test session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agents.test_terminal_docker import SUBMIT, bash
from tests.support.cli import rst
from tests.support.fake_server import FakeOpenAI, Reply
from tests.support.tasks import SEEDS

EVAL_SEEDS = ("access-log-report", "regex-extract-emails", "users-permissions")
VARIED = "regex-extract-emails"
"""The seed whose attempts differ (its first command echoes the request's seed); the others repeat."""


def scripted_agent(body: dict[str, Any]) -> Reply:
    """Solves whichever seed the conversation is about: a look around, its solve.sh, submit."""
    messages = body.get("messages", [])
    instruction = next(m["content"] for m in messages if m.get("role") == "user")
    seed = next(name for name in EVAL_SEEDS if (SEEDS / name / "instruction.md").read_text() == instruction)
    look = bash(f"echo attempt {body.get('seed')}; ls") if seed == VARIED else bash("ls")
    turns = [look, bash((SEEDS / seed / "solution" / "solve.sh").read_text()), SUBMIT]
    return turns[min(sum(1 for m in messages if m.get("role") == "assistant"), len(turns) - 1)]


@pytest.fixture(scope="session")
def scripted_eval(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("evals")
    with FakeOpenAI() as server:
        server.responder = scripted_agent
        args = ["eval", *(str(SEEDS / s) for s in EVAL_SEEDS), "--agent", "llm", "-k", "2", "-j", "2"]
        result = rst(*args, "--model", "fake-model", "--base-url", server.base_url, "--out", str(out), "--json")
    assert result.returncode == 0, result.stderr
    assert all(task["rewards"] == [1.0, 1.0] for task in json.loads(result.stdout)["tasks"]), result.stdout
    return out


@pytest.fixture(scope="session")
def collected(scripted_eval: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("collected")
    formats = ["-f", "trl", "-f", "sharegpt", "-f", "openai"]
    result = rst("collect", str(scripted_eval), "--out", str(out), *formats, "--split-by", "lineage", "--json")
    assert result.returncode == 0, result.stderr
    return out
