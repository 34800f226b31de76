"""One conversation as a record of each training engine's format.

- `trl`: TRL's conversational language-modeling format, `{"messages": [...], "tools": [...]}`. An
  assistant turn carries `tool_calls` (`{"type": "function", "function": {"name", "arguments"}}`,
  arguments as a dict, as chat templates expect them) and each command's output is a `tool` turn; a
  text-mode conversation is plain assistant and user turns with no `tools`. TRL applies the
  model's chat template itself.
- `sharegpt`: LLaMA-Factory's sharegpt format: `conversations` of `{"from", "value"}` with from =
  human / gpt / function_call / observation (a function_call's value is `{"name", "arguments"}` as
  JSON), `system` and `tools` (a JSON list) beside it. A function_call turn holds the call alone, so
  text a model wrote beside a tool call is not kept. `dataset_info_entry` is the matching entry of
  LLaMA-Factory's dataset_info.json.
- `openai`: OpenAI's chat fine-tuning JSONL: `{"messages", "tools", "parallel_tool_calls"}`, tool
  call arguments as a JSON string, `tool` turns answering them by `tool_call_id`.
"""

from __future__ import annotations

import json
from typing import Any

from rst_synth.agents.terminal import TOOLS
from rst_synth.export.sft import Conversation, Message

TRAJECTORY_FORMATS = ("trl", "sharegpt", "openai")


def trl_record(conversation: Conversation) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for message in conversation.messages:
        turn: dict[str, Any] = {"role": message.role, "content": message.content}
        if message.calls:
            turn["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in message.calls
            ]
        if message.role == "tool":
            turn["tool_call_id"] = message.call_id
            turn["name"] = message.name
        messages.append(turn)
    return {"messages": messages, "tools": TOOLS} if conversation.mode == "tools" else {"messages": messages}


def openai_record(conversation: Conversation) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for message in conversation.messages:
        turn: dict[str, Any] = {"role": message.role}
        if message.content or not message.calls:
            turn["content"] = message.content
        if message.calls:
            turn["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                for c in message.calls
            ]
        if message.role == "tool":
            turn["tool_call_id"] = message.call_id
        messages.append(turn)
    if conversation.mode == "text":
        return {"messages": messages}
    return {"messages": messages, "tools": TOOLS, "parallel_tool_calls": False}


SHAREGPT_TAGS = {
    "role_tag": "from",
    "content_tag": "value",
    "user_tag": "human",
    "assistant_tag": "gpt",
    "observation_tag": "observation",
    "function_tag": "function_call",
    "system_tag": "system",
}


def sharegpt_record(conversation: Conversation) -> dict[str, Any]:
    system = "\n\n".join(m.content for m in conversation.messages if m.role == "system")
    turns = [_sharegpt_turn(m) for m in conversation.messages if m.role != "system"]
    record: dict[str, Any] = {"conversations": turns, "system": system}
    record["tools"] = json.dumps(TOOLS) if conversation.mode == "tools" else ""
    return record


def _sharegpt_turn(message: Message) -> dict[str, str]:
    if message.role == "assistant" and message.calls:
        calls = [{"name": c.name, "arguments": c.arguments} for c in message.calls]
        return {"from": "function_call", "value": json.dumps(calls[0] if len(calls) == 1 else calls)}
    tag = {"user": "human", "assistant": "gpt", "tool": "observation"}[message.role]
    return {"from": tag, "value": message.content}


def dataset_info_entry(file_name: str) -> dict[str, Any]:
    """The dataset_info.json entry LLaMA-Factory reads a sharegpt file of ours by."""
    return {
        "file_name": file_name,
        "formatting": "sharegpt",
        "columns": {"messages": "conversations", "system": "system", "tools": "tools"},
        "tags": SHAREGPT_TAGS,
    }


RECORDS = {"trl": trl_record, "sharegpt": sharegpt_record, "openai": openai_record}
