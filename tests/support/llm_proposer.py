"""Helpers for the llm proposer's tests: scripted model replies per stage, served by the fake server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from rst_synth.llm import LLM, LLMConfig, make_llm
from rst_synth.proposers.discovery import discovery_on
from rst_synth.proposers.llm import LLMProposer, LLMProposerConfig
from rst_synth.sandbox import Sandbox
from tests.support.fake_server import FakeOpenAI, Reply

__all__ = [
    "STAGES",
    "FakeOpenAI",
    "Reply",
    "asked_stage",
    "fence",
    "good_replies",
    "make_proposer_for",
    "stage_of",
    "stage_responder",
]

STAGES = ("extend", "realign_tests", "realign_instruction", "repair", "reask", "second_solution")

GOOD_STEPS = """\
mkdir -p /app/report
word=$(tr -d '\\n' < /app/out.txt)
printf '%s\\n' "$word" | tr 'a-z' 'A-Z' > /app/report/upper.txt
wc -c < /app/out.txt | tr -d ' ' > /app/report/size.txt
"""

GOOD_TESTS = """\
from pathlib import Path

SOURCE = Path("/app/out.txt")


def test_upper_case_copy():
    expected = SOURCE.read_text().strip().upper()
    assert Path("/app/report/upper.txt").read_text() == expected + "\\n"


def test_size_in_bytes():
    assert Path("/app/report/size.txt").read_text().strip() == str(len(SOURCE.read_bytes()))
"""

WEAK_TESTS = """\
from pathlib import Path


def test_source_exists():
    assert Path("/app/out.txt").exists()
"""

GOOD_ADDENDUM = """\
Then, building on `/app/out.txt`, create the directory `/app/report` and write two files in it:
`upper.txt`, the word of `/app/out.txt` in upper case followed by a newline, and `size.txt`, the
size of `/app/out.txt` in bytes as a decimal number.
"""


def fence(language: str, path: str, body: str) -> str:
    return f"```{language} path={path}\n{body.rstrip()}\n```\n"


def good_replies(test_path: str = "tests/test_step_r1.py", tests: str = GOOD_TESTS) -> dict[str, str]:
    return {
        "extend": "Here are the steps.\n\n" + fence("bash", "solution/steps.sh", GOOD_STEPS),
        "realign_tests": fence("python", test_path, tests),
        "realign_instruction": fence("markdown", "instruction_addendum.md", GOOD_ADDENDUM),
        "repair": fence("python", test_path, GOOD_TESTS),
    }


def stage_of(request: dict[str, Any]) -> str:
    """The stage a request belongs to, from the marker its user message starts with."""
    user = request["messages"][-1]["content"]
    for stage in STAGES:
        if f"## STAGE: {stage}\n" in user:
            return stage
    raise AssertionError(f"no stage marker in: {user[:200]!r}")


def asked_stage(request: dict[str, Any]) -> str:
    """The stage a request serves: for a re-ask, the stage whose reply it follows up on."""
    return stage_of({"messages": request["messages"][:2]})


def stage_responder(
    replies: dict[str, str | Reply] | dict[str, str | Reply | list[str | Reply]],
) -> Callable[[dict[str, Any]], Reply]:
    """Answers each request by its stage; a list is served in order, its last reply repeated."""
    served: dict[str, int] = {}

    def respond(request: dict[str, Any]) -> Reply:
        stage = stage_of(request)
        reply = replies[stage]
        if isinstance(reply, list):
            reply = reply[min(served.get(stage, 0), len(reply) - 1)]
            served[stage] = served.get(stage, 0) + 1
        return reply if isinstance(reply, Reply) else Reply(content=reply, usage=(1000, 200))

    return respond


def make_llm_for(server: FakeOpenAI, cache: Path, **config: Any) -> LLM:
    return make_llm(LLMConfig(model="fake-model", base_url=server.base_url, cache_dir=cache, max_retries=0, **config))


def make_proposer_for(server: FakeOpenAI, cache: Path, sandbox: Sandbox | None = None, **config: Any) -> LLMProposer:
    discovery = discovery_on(sandbox) if sandbox is not None else None
    return LLMProposer(
        discovery, make_llm_for(server, cache, **config), LLMProposerConfig(discover=sandbox is not None)
    )
