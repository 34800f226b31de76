"""The prompts the llm proposer sends for one parent, as sent: captured at a scripted OpenAI-compatible
endpoint on 127.0.0.1 (the tests' server, answering each stage with a fixed reply), with discovery run on
the Docker engine. Writes each request to OUT/<n>-<stage>.txt and prints its size.

    .venv/bin/python scripts/show_prompts.py PARENT_TASK_DIR OUT_DIR
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support: the scripted endpoint

from rst_synth.proposers import ProposalError
from rst_synth.proposers.llm.prompts import approx_tokens
from rst_synth.sandbox import make_sandbox
from rst_synth.task import Task
from tests.support.fake_server import FakeOpenAI
from tests.support.llm_proposer import good_replies, make_proposer_for, stage_of, stage_responder


async def main(parent_dir: Path, out: Path) -> None:
    parent = Task.load(parent_dir)
    out.mkdir(parents=True, exist_ok=True)
    sandbox = make_sandbox("docker")
    with FakeOpenAI() as server:
        server.responder = stage_responder(good_replies())
        proposer = make_proposer_for(server, out / "cache", sandbox)
        try:
            await proposer.propose(parent, seed=1)
        except ProposalError as exc:  # the fixed replies need not fit this parent: the prompts are the point
            print(f"proposal: {exc}")
        finally:
            await proposer.llm().close()
            await sandbox.close()
    for k, request in enumerate(server.requests):
        stage = stage_of(request)
        text = "\n\n".join(f"=== {m['role']} ===\n{m['content']}" for m in request["messages"])
        (out / f"{k}-{stage}.txt").write_text(text)
        print(f"{stage}: about {approx_tokens(request['messages'])} tokens, {len(text)} characters")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: scripts/show_prompts.py PARENT_TASK_DIR OUT_DIR")
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
