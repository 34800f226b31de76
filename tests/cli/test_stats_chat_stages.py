"""`rst stats` shows the llm proposer's tokens per accepted task by chat stage: a run of the engine with
the llm proposer against a scripted server on 127.0.0.1 whose replies report known usage, on the fake
sandbox."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from rst_synth.engine import Engine, SynthConfig
from rst_synth.store import RunPaths, Store
from rst_synth.validator import Validator, ValidatorConfig
from tests.engine.test_second_solution import ADDENDUM, LOOSE_TESTS, SECOND_STEPS, STEPS
from tests.support.cli import rst
from tests.support.fakes import FakeSandbox
from tests.support.llm_proposer import FakeOpenAI, Reply, fence, make_proposer_for, stage_responder
from tests.support.tasks import write_task

REPLIES = {
    # The first reply has no code block: a re-ask (its own chat stage) gets the steps.
    "extend": [Reply("I would append a few steps.", usage=(1000, 100))],
    "reask": Reply(fence("bash", "solution/steps.sh", STEPS), usage=(500, 50)),
    "realign_tests": Reply(fence("python", "tests/test_step_r1.py", LOOSE_TESTS), usage=(2000, 200)),
    "realign_instruction": Reply(fence("markdown", "instruction_addendum.md", ADDENDUM), usage=(3000, 300)),
    "second_solution": Reply(fence("bash", "solution/steps.sh", SECOND_STEPS), usage=(4000, 400)),
}


def test_stats_show_the_tokens_of_each_chat_stage(tmp_path: Path) -> None:
    seeds, run = tmp_path / "seeds", tmp_path / "run"
    write_task(seeds)
    paths = RunPaths(run)
    paths.root.mkdir(parents=True)
    store = Store(paths.db)
    with FakeOpenAI() as server:
        server.responder = stage_responder(REPLIES)  # type: ignore[arg-type]
        proposer = make_proposer_for(server, tmp_path / "cache")
        config = SynthConfig(seeds_dir=str(seeds), proposer="llm", rounds=1, fanout=1)
        engine = Engine(config, paths, store, proposer, Validator(FakeSandbox(), ValidatorConfig(quality=False)))
        assert asyncio.run(engine.run()) == "done"
    store.close()

    stats = json.loads(rst("stats", str(run), "--json").stdout)
    assert stats[1]["accepted"] == 1
    assert stats[1]["chat_stage_tokens_per_accepted"] == {
        "extend": {"tokens_in": 1000, "tokens_out": 100},
        "reask": {"tokens_in": 500, "tokens_out": 50},
        "realign_tests": {"tokens_in": 2000, "tokens_out": 200},
        "realign_instruction": {"tokens_in": 3000, "tokens_out": 300},
        "second_solution": {"tokens_in": 4000, "tokens_out": 400},
    }
    # The candidate stages sum them: the failed proposal, the retry that re-asked (a repair attempt), the
    # second solution.
    assert stats[1]["stage_tokens_per_accepted"] == {"failed": 1100, "repair": 6050, "second": 4400}

    shown = rst("stats", str(run)).stdout
    table = shown[shown.index("by chat stage") :]
    for cell in ("1000 / 100", "500 / 50", "2000 / 200", "3000 / 300", "4000 / 400"):
        assert cell in table
    assert table.index("extend") < table.index("realign_tests") < table.index("second_solution")
