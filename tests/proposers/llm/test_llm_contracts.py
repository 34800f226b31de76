"""Output contracts the model states (proposers/llm/contracts.py): an optional contracts.toml block of
the extend reply ends up in the step's recorded contract, against the scripted server on 127.0.0.1; a
reply without one leaves the type's default; a wrong entry is re-asked."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rst_synth.proposers import Proposal
from rst_synth.proposers.llm import LLMProposalError, parts_of
from rst_synth.proposers.llm.contracts import contracts_text, stated_contracts
from rst_synth.proposers.llm.parse import ReplyError
from rst_synth.task import OutputContract, Task
from rst_synth.validator import Reason
from rst_synth.validator.contracts import contract_by_type, declared_contracts
from tests.support.llm_proposer import (
    FakeOpenAI,
    fence,
    good_replies,
    make_proposer_for,
    stage_of,
    stage_responder,
)
from tests.support.tasks import write_task

SUMMARY = "/app/report/summary.json"
STATED = f'[[output]]\npath = "{SUMMARY}"\nform = "json"\nfixed = ["key_order"]\n'


def _parent(tmp_path: Path) -> Task:
    return Task.load(write_task(tmp_path / "tasks"))


def _propose(server: FakeOpenAI, tmp_path: Path, parent: Task) -> Proposal:
    async def work() -> Proposal:
        proposer = make_proposer_for(server, tmp_path / "cache")
        try:
            return await proposer.propose(parent, seed=3)
        finally:
            await proposer.llm().close()

    return asyncio.run(work())


def test_a_stated_contract_is_the_steps_recorded_contract_and_later_stages_see_it(tmp_path: Path) -> None:
    parent = _parent(tmp_path)
    replies = good_replies()
    replies["extend"] += fence("toml", "contracts.toml", STATED)
    with FakeOpenAI() as server:
        server.responder = stage_responder(replies)
        child = _propose(server, tmp_path, parent).task
        prompts = {stage_of(r): r["messages"][-1]["content"] for r in server.requests}
    assert "contracts.toml" in prompts["extend"]  # the extend prompt states the format
    [record] = child.config.metadata.lineage.added[-1:]
    assert record.outputs == [OutputContract(path=SUMMARY, form="json", fixed=["key_order"])]
    assert declared_contracts(child)[SUMMARY].fixed == ["key_order"]  # what the tolerance check reads
    assert '"key_order"' in prompts["realign_tests"]
    assert SUMMARY in prompts["realign_tests"] and SUMMARY in prompts["realign_instruction"]
    assert parts_of(parent, child).outputs == record.outputs  # a repair starts from them


def test_a_reply_without_contracts_leaves_the_types_default(tmp_path: Path) -> None:
    parent = _parent(tmp_path)
    with FakeOpenAI() as server:
        server.responder = stage_responder(good_replies())
        child = _propose(server, tmp_path, parent).task
        tests_prompt = next(r for r in server.requests if stage_of(r) == "realign_tests")["messages"][-1]["content"]
    assert child.config.metadata.lineage.added[-1].outputs == []
    assert declared_contracts(child) == {}
    assert (declared_contracts(child).get(SUMMARY) or contract_by_type(SUMMARY, None)).fixed == []
    assert "The contracts of the new outputs" not in tests_prompt


def test_a_wrong_entry_is_re_asked_with_its_error_and_the_answer_is_recorded(tmp_path: Path) -> None:
    parent = _parent(tmp_path)
    replies = good_replies()
    wrong = STATED.replace('["key_order"]', '["quoting"]')
    replies["extend"] += fence("toml", "contracts.toml", wrong)
    replies["reask"] = fence("toml", "contracts.toml", STATED)

    async def work() -> tuple[LLMProposalError, Proposal]:
        proposer = make_proposer_for(server, tmp_path / "cache")
        try:
            with pytest.raises(LLMProposalError) as caught:
                await proposer.propose(parent, seed=3)
            assert caught.value.retry is not None  # the pipeline spends a repair attempt on it
            return caught.value, await caught.value.retry(1)
        finally:
            await proposer.llm().close()

    with FakeOpenAI() as server:
        server.responder = stage_responder(replies)
        error, proposal = asyncio.run(work())
        reask = next(r for r in server.requests if stage_of(r) == "reask")["messages"][-1]["content"]
    assert error.reason is Reason.INVALID_TOML
    assert "output 1 (/app/report/summary.json): a json output cannot fix 'quoting'" in error.detail
    assert "cannot fix 'quoting'" in reask and "contracts.toml" in reask
    assert proposal.task.config.metadata.lineage.added[-1].outputs[0].fixed == ["key_order"]
    assert proposal.task.solve_sh.rstrip().endswith("size.txt")  # the intact steps were kept


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[[output]]\npath = 'report.json'\nform = 'json'\n", "absolute path"),
        ("[[output]]\npath = '/a.json'\nform = 'yaml'\n", "form 'yaml' is not one of bytes, json"),
        ("[[output]]\npath = '/a.txt'\nfixed = ['layout']\n", "a bytes output cannot fix 'layout'; `fixed` is empty"),
        ("[[output]]\npath = '/a.csv'\nform = 'csv'\nfixes = ['quoting']\n", "unknown key fixes"),
        ("[[output]]\npath = '/a'\n[[output]]\npath = '/a'\n", "/a: listed more than once"),
        ("[output]\npath = '/a'\n", "array of tables"),
        ("path = '/a'\n", "unknown table or key path"),
        ("[[output]\n", "not TOML"),
    ],
)
def test_entries_that_cannot_be_contracts_are_named(text: str, said: str) -> None:
    with pytest.raises(ReplyError) as caught:
        stated_contracts(text)
    assert caught.value.reason is Reason.INVALID_TOML and caught.value.path == "contracts.toml"
    assert said in caught.value.detail


def test_stated_contracts_read_back_as_they_are_shown() -> None:
    contracts = stated_contracts(STATED + "[[output]]\npath = '/app/ids.txt'\nform = 'lines'\n")
    assert [(c.path, c.form, c.fixed) for c in contracts] == [
        (SUMMARY, "json", ["key_order"]),
        ("/app/ids.txt", "lines", []),
    ]
    assert stated_contracts(contracts_text(contracts)) == contracts
    assert stated_contracts("") == [] and contracts_text([]) == ""
