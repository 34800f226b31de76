"""One registry style: a short name or any dotted path, for every swappable part."""

from __future__ import annotations

import pytest

from rst_synth.llm import LLMConfig, LLMConfigError, make_llm
from rst_synth.proposers import Proposer, make_proposer
from rst_synth.proposers.discovery import discovery_on
from rst_synth.registry import resolve
from rst_synth.sandbox import make_sandbox
from tests.support.fakes import FakeProposer, FakeSandbox


def test_an_outside_proposer_plugs_in_by_dotted_path() -> None:
    proposer = make_proposer(
        "tests.support.fakes:make_fake_proposer", discovery=discovery_on(FakeSandbox()), twins=True
    )
    assert isinstance(proposer, FakeProposer) and proposer.twins
    assert isinstance(proposer, Proposer)


def test_an_outside_sandbox_plugs_in_by_dotted_path() -> None:
    assert isinstance(make_sandbox("tests.support.fakes.FakeSandbox"), FakeSandbox)


@pytest.mark.parametrize(
    "name, message",
    [
        ("nope", "unknown proposer 'nope'; known: llm, procedural, or a dotted path"),
        ("no_such_pkg.mod:f", "cannot import no_such_pkg.mod"),
        ("tests.support.fakes:missing", "has no factory 'missing'"),
    ],
)
def test_bad_names_are_one_line_errors(name: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_proposer(name)


def test_each_factory_resolves_its_own_options() -> None:
    with pytest.raises(ValueError, match="needs discovery"):
        make_proposer("procedural")
    with pytest.raises(ValueError, match="max_steps"):
        make_proposer("procedural", discovery=discovery_on(FakeSandbox()), max_steps=0)
    llm = make_proposer("llm", model="m", base_url="http://127.0.0.1:9/v1")
    assert llm.name == "llm"


def test_llm_providers_use_the_same_registry() -> None:
    with pytest.raises(LLMConfigError, match="unknown LLM provider 'nope'"):
        make_llm(LLMConfig(provider="nope"))
    assert resolve("LLM provider", "openai", {"openai": "rst_synth.llm.client:OpenAICompatibleLLM"}).__name__ == (
        "OpenAICompatibleLLM"
    )


def test_unknown_operators_are_refused_by_the_factory() -> None:
    with pytest.raises(ValueError, match="unknown operators: nope"):
        make_proposer("procedural", discovery=discovery_on(FakeSandbox()), operators=["nope"])
