"""`rst collect` on trajectories the real llm agent recorded (no Docker: a fake container)."""

from __future__ import annotations

import json
from pathlib import Path

import datasets
import pytest
import yaml

from rst_synth.agents.terminal import SUBMIT_COMMAND, TOOLS
from rst_synth.export.collect import CollectOptions, collect, lineage_split
from rst_synth.export.sources import CollectError
from tests.agents.test_terminal_docker import SUBMIT, bash, block
from tests.export.evals import EvalFolder, agent_trajectory, oracle_trajectory
from tests.support.cli import rst
from tests.support.fake_server import Reply
from tests.support.tasks import write_task

SOLVED = [bash("ls /app"), bash("echo hello > /app/out.txt"), SUBMIT]


def lineage(root: str, round_: int) -> str:
    return f'[metadata.lineage]\nroot = "{root}"\nround = {round_}\n'


def read_jsonl(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def task(tmp_path: Path) -> Path:
    return write_task(tmp_path / "tasks", name="greet")


def one_eval(tmp_path: Path, task: Path, replies: list[Reply], mode: str = "tools") -> Path:
    folder = EvalFolder(tmp_path / "evals")
    folder.add(task, agent_trajectory(task, replies, mode), reward=1.0)
    folder.close()
    return folder.out


def test_a_tool_calling_trajectory_in_each_format(tmp_path: Path, task: Path) -> None:
    evals = one_eval(tmp_path, task, SOLVED)
    report = collect([evals], tmp_path / "out", CollectOptions(formats=["trl", "sharegpt", "openai"]))
    assert len(report.samples) == 1 and report.samples[0].mode == "tools"

    (trl,) = read_jsonl(tmp_path / "out" / "trl" / "train.jsonl")
    messages = trl["messages"]
    assert isinstance(messages, list) and trl["tools"] == TOOLS
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert messages[1]["content"] == task.joinpath("instruction.md").read_text()
    first_call = messages[2]["tool_calls"][0]
    assert first_call == {
        "id": "call_1",
        "type": "function",
        "function": {"name": "bash", "arguments": {"command": "ls /app"}},
    }
    assert messages[3]["tool_call_id"] == "call_1" and messages[3]["content"].startswith("exit code: ")
    assert messages[-1]["tool_calls"][0]["function"] == {"name": "submit", "arguments": {}}

    (share,) = read_jsonl(tmp_path / "out" / "sharegpt" / "train.jsonl")
    turns = share["conversations"]
    assert isinstance(turns, list)
    assert [t["from"] for t in turns] == ["human", *["function_call", "observation"] * 2, "function_call"]
    assert json.loads(turns[1]["value"]) == {"name": "bash", "arguments": {"command": "ls /app"}}
    assert share["system"] == messages[0]["content"] and json.loads(str(share["tools"])) == TOOLS
    info = json.loads((tmp_path / "out" / "sharegpt" / "dataset_info.json").read_text())
    assert info["rst_synth_train"]["file_name"] == "train.jsonl"
    assert info["rst_synth_train"]["formatting"] == "sharegpt"

    (openai,) = read_jsonl(tmp_path / "out" / "openai" / "train.jsonl")
    turns = openai["messages"]
    assert isinstance(turns, list) and openai["tools"] == TOOLS and openai["parallel_tool_calls"] is False
    assert json.loads(turns[2]["tool_calls"][0]["function"]["arguments"]) == {"command": "ls /app"}
    assert "content" not in turns[2] and turns[3] == {
        "role": "tool",
        "content": turns[3]["content"],
        "tool_call_id": "call_1",
    }


def test_a_text_mode_trajectory_is_plain_turns(tmp_path: Path, task: Path) -> None:
    replies = [block("ls /app"), block("echo hello > /app/out.txt"), block(SUBMIT_COMMAND)]
    evals = one_eval(tmp_path, task, replies, mode="text")
    report = collect([evals], tmp_path / "out", CollectOptions(formats=["trl", "sharegpt", "openai"]))
    assert report.samples[0].mode == "text"
    (trl,) = read_jsonl(tmp_path / "out" / "trl" / "train.jsonl")
    assert "tools" not in trl
    messages = trl["messages"]
    assert isinstance(messages, list)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "user", "assistant"]
    assert "```bash\nls /app\n```" in messages[2]["content"] and "tool_calls" not in messages[2]
    assert SUBMIT_COMMAND in messages[-1]["content"]
    (share,) = read_jsonl(tmp_path / "out" / "sharegpt" / "train.jsonl")
    assert [t["from"] for t in share["conversations"]] == ["human", "gpt"] * 3  # type: ignore[union-attr]
    assert share["tools"] == ""


def test_filters_drop_what_should_not_be_trained_on(tmp_path: Path, task: Path) -> None:
    other = write_task(tmp_path / "tasks", name="other")
    folder = EvalFolder(tmp_path / "evals")
    solved = agent_trajectory(task, SOLVED)
    folder.add(task, solved, reward=1.0)
    folder.add(task, agent_trajectory(task, SOLVED), reward=1.0)  # the same conversation again
    folder.add(task, agent_trajectory(task, [bash("pwd"), *SOLVED[1:]]), reward=1.0)
    folder.add(task, agent_trajectory(task, SOLVED), reward=0.0)
    malformed = agent_trajectory(task, [Reply(content="let me think"), *SOLVED])
    folder.add(task, malformed, reward=1.0)
    folder.add(other, agent_trajectory(other, [bash("echo " + "x" * 4000), SUBMIT]), reward=1.0)
    folder.add(task, oracle_trajectory(task), reward=1.0, eval_id="oracle")
    folder.close()
    assert malformed.steps[2].extra == {"format_error": malformed.steps[2].extra["format_error"]}  # type: ignore[index]

    report = collect([folder.out], tmp_path / "out", CollectOptions(max_tokens=1000))
    assert report.attempts == 7
    assert report.dropped == {
        "duplicate": 1,
        "below_min_reward": 1,
        "format_error": 1,
        "over_token_budget": 1,
        "plumbing_agent": 1,
    }
    assert len(report.samples) == 2 and len(read_jsonl(tmp_path / "out" / "trl" / "train.jsonl")) == 2

    capped = collect([folder.out], tmp_path / "capped", CollectOptions(max_per_task=1, min_reward=0))
    # the zero-reward attempt, allowed now, repeats the solved one; the pwd one is past the cap
    assert capped.dropped == {"duplicate": 2, "over_max_per_task": 1, "format_error": 1, "plumbing_agent": 1}
    assert {s.task for s in capped.samples} == {str(task.resolve()), str(other.resolve())}

    oracle_only = collect([folder.out / "oracle"], tmp_path / "oracle", CollectOptions(evals=["oracle"]))
    assert len(oracle_only.samples) == 1 and oracle_only.samples[0].eval_id == "oracle"


def test_lineage_split_keeps_each_family_on_one_side(tmp_path: Path) -> None:
    folder = EvalFolder(tmp_path / "evals")
    roots = [f"seed-{k}" for k in range(5)]
    for root in roots:
        for round_ in (0, 1):
            name = f"{root}-r{round_}"
            task = write_task(
                tmp_path / "tasks", name=name, instruction=f"Task {name}.\n", toml_extra=lineage(root, round_)
            )
            for command in ("ls /app", "pwd"):
                folder.add(task, agent_trajectory(task, [bash(command), *SOLVED[1:]]), reward=1.0)
    folder.close()
    out = tmp_path / "out"
    options = CollectOptions(formats=["trl", "sharegpt"], split_by="lineage", validation_fraction=0.4)
    report = collect([folder.out], out, options)

    sides = {(s.root, s.split) for s in report.samples}
    validation = {root for root, split in sides if split == "validation"}
    assert len(validation) == 2 and {root for root, _ in sides} == set(roots)
    assert not validation & {root for root, split in sides if split == "train"}
    assert len(read_jsonl(out / "trl" / "validation.jsonl")) == 8 and len(read_jsonl(out / "trl" / "train.jsonl")) == 12
    assert read_jsonl(out / "samples.jsonl")[0]["split"] in ("train", "validation")
    info = json.loads((out / "sharegpt" / "dataset_info.json").read_text())
    assert set(info) == {"rst_synth_train", "rst_synth_validation"}

    card = (out / "README.md").read_text()
    front = yaml.safe_load(card.split("---")[1])
    assert {c["config_name"] for c in front["configs"]} == {"trl", "sharegpt"}
    assert {"split": "validation", "path": "trl/validation.jsonl"} in front["configs"][0]["data_files"]
    assert "| trl | 12 | 8 |" in card and "| sharegpt | 12 | 8 |" in card  # per format
    assert "| 0 | 6 | 4 |" in card and "| 1 | 6 | 4 |" in card  # per round: train, validation
    assert all(f"| {root} | " in card for root in roots)  # per root seed


def test_lineage_split_is_stable_and_never_takes_every_root() -> None:
    roots = {f"r{k}" for k in range(20)}
    assert lineage_split(roots, 0.1) == lineage_split(set(sorted(roots, reverse=True)), 0.1)
    assert len(lineage_split(roots, 0.1)) == 2
    assert lineage_split({"only"}, 0.5) == set() and len(lineage_split({"a", "b"}, 0.9)) == 1


def test_parquet_comes_back_exactly_as_written(tmp_path: Path, task: Path) -> None:
    evals = one_eval(tmp_path, task, SOLVED)
    collect([evals], tmp_path / "jsonl", CollectOptions(formats=["trl", "openai"]))
    report = collect([evals], tmp_path / "pq", CollectOptions(formats=["trl", "openai"], parquet=True))
    assert report.files["trl"] == ["trl/train.parquet"]
    for fmt in ("trl", "openai"):
        (written,) = read_jsonl(tmp_path / "jsonl" / fmt / "train.jsonl")
        loaded = datasets.load_dataset(
            "parquet", data_files=str(tmp_path / "pq" / fmt / "train.parquet"), split="train"
        )
        assert {k: v for k, v in loaded[0].items() if v is not None} == written


def test_the_command_line(tmp_path: Path, task: Path) -> None:
    evals = one_eval(tmp_path, task, SOLVED)
    result = rst("collect", str(evals), "--out", str(tmp_path / "out"), "-f", "trl", "-f", "openai", "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["kept"] == 1 and summary["records"]["openai"] == {"train": 1, "validation": 0}
    table = rst("collect", str(evals), "--out", str(tmp_path / "out2"))
    assert table.returncode == 0 and "trl" in table.stdout and "README.md" in table.stdout

    nothing = rst("collect", str(tmp_path / "tasks"), "--out", str(tmp_path / "x"))
    assert nothing.returncode == 2 and "not a run directory or an `rst eval` folder" in nothing.stderr
    assert len(nothing.stderr.strip().splitlines()) == 1
    bad = rst("collect", str(evals), "--out", str(tmp_path / "x"), "--format", "alpaca")
    assert bad.returncode == 2 and "unknown format alpaca" in bad.stderr
    with pytest.raises(CollectError):
        collect([tmp_path / "nowhere"], tmp_path / "x", CollectOptions())
