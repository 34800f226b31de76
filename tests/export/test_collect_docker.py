"""`rst collect` on a real `rst eval` (scripted agent, three bundled seeds, K=2), and the files
loaded the way TRL and LLaMA-Factory load them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import datasets
import pytest

from rst_synth.agents.terminal import TOOLS
from tests.export.conftest import EVAL_SEEDS, VARIED

pytestmark = pytest.mark.docker


def test_rejection_sampling_over_a_real_eval(collected: Path) -> None:
    samples = [json.loads(line) for line in (collected / "samples.jsonl").read_text().splitlines()]
    # Six solved attempts; the two of each unvaried seed are the same conversation, so one stays.
    per_seed = {s: sum(1 for x in samples if x["root"] == f"rst-seeds/{s}") for s in EVAL_SEEDS}
    assert per_seed == {s: 2 if s == VARIED else 1 for s in EVAL_SEEDS}
    validation = {x["root"] for x in samples if x["split"] == "validation"}
    assert len(validation) == 1 and not validation & {x["root"] for x in samples if x["split"] == "train"}
    card = (collected / "README.md").read_text()
    assert "| identical to a trajectory already kept | 2 |" in card


def test_trl_loads_the_records_with_its_own_loader(collected: Path) -> None:
    from trl.data_utils import is_conversational

    train = datasets.load_dataset("json", data_files=str(collected / "trl" / "train.jsonl"), split="train")
    example = train[0]
    assert is_conversational(example) and example["tools"] == TOOLS
    written = json.loads((collected / "trl" / "train.jsonl").read_text().splitlines()[0])
    assert example == written  # datasets gives back exactly what was written, tool arguments included


def test_sharegpt_loads_as_llamafactory_reads_it(collected: Path) -> None:
    """LLaMA-Factory's loader, step by step: the dataset_info.json entry names the file, columns and
    tags; `datasets` loads the file; the sharegpt converter wants human/observation turns at even
    positions and gpt/function_call turns at odd ones, an even count, and JSON in function_call turns
    and in the tools column. (The same files went through LLaMA-Factory's own code once by hand:
    see docs/agents-and-training.md.)"""
    folder = collected / "sharegpt"
    info = json.loads((folder / "dataset_info.json").read_text())
    for name, entry in info.items():
        assert entry["formatting"] == "sharegpt"
        dataset = datasets.load_dataset("json", data_files=str(folder / entry["file_name"]), split="train")
        assert len(dataset) >= 1, name
        for example in dataset:
            _check_sharegpt(example, entry["columns"], entry["tags"])


def _check_sharegpt(example: dict[str, Any], columns: dict[str, str], tags: dict[str, str]) -> None:
    turns = example[columns["messages"]]
    odd = (tags["user_tag"], tags["observation_tag"])
    even = (tags["assistant_tag"], tags["function_tag"])
    assert all(turn[tags["role_tag"]] in (odd, even)[k % 2] for k, turn in enumerate(turns))
    assert len(turns) % 2 == 0
    for turn in turns:
        if turn[tags["role_tag"]] == tags["function_tag"]:
            call = json.loads(turn[tags["content_tag"]])
            assert set(call) == {"name", "arguments"} and call["name"] in ("bash", "submit")
    tools = json.loads(example[columns["tools"]])
    assert [t["function"]["name"] for t in tools] == ["bash", "submit"]
    assert example[columns["system"]].startswith("You are an expert")


def test_openai_records_pair_every_tool_call_with_its_answer(collected: Path) -> None:
    for line in (collected / "openai" / "train.jsonl").read_text().splitlines():
        record = json.loads(line)
        assert set(record) == {"messages", "tools", "parallel_tool_calls"}
        messages = record["messages"]
        assert messages[-1]["role"] == "assistant"
        asked = [c["id"] for m in messages[:-1] for c in m.get("tool_calls", [])]
        answered = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
        assert asked == answered and all(
            isinstance(json.loads(c["function"]["arguments"]), dict) for m in messages for c in m.get("tool_calls", [])
        )
