"""A policy's reply as one action: a command, a submit, or a format error to answer.

Two shapes are read, the two an RL policy meets: exactly one fenced bash block (the llm agent's
text mode; `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT` submits), or exactly one tool call written
as `<tool_call>{"name": "bash", "arguments": {"command": ...}}</tool_call>`, the tag chat templates
of tool-calling models (Qwen, Hermes) render a call as (`submit` with {} submits).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from rst_synth.agents.terminal import SUBMIT_COMMAND

_BASH_BLOCK = re.compile(r"```(?:bash|sh|shell)[^\n]*\n(.*?)```", re.DOTALL)
_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.DOTALL)


@dataclass(frozen=True)
class Action:
    command: str | None = None
    submit: bool = False
    error: str | None = None


def parse_action(reply: str) -> Action:
    calls = _TOOL_CALL.findall(reply)
    if calls:
        if len(calls) != 1:
            return Action(error=f"{len(calls)} tool calls; make exactly one per turn: bash with a command, or submit")
        return _tool_call(calls[0])
    blocks = _BASH_BLOCK.findall(reply)
    if len(blocks) != 1:
        found = "no ```bash block" if not blocks else f"{len(blocks)} ```bash blocks"
        return Action(error=f"{found}; reply with exactly one fenced bash block holding one command")
    command = blocks[0].strip()
    if not command:
        return Action(error="the bash block is empty")
    if command == SUBMIT_COMMAND:
        return Action(submit=True)
    return Action(command=command)


def _tool_call(body: str) -> Action:
    try:
        call = json.loads(body)
    except ValueError:
        return Action(error='the tool call is not JSON: write {"name": ..., "arguments": {...}}')
    if not isinstance(call, dict):
        return Action(error="the tool call is not a JSON object")
    name, arguments = call.get("name"), call.get("arguments") or {}
    if isinstance(arguments, str):  # some templates render arguments as a JSON string
        try:
            arguments = json.loads(arguments)
        except ValueError:
            return Action(error="the tool call's arguments are not JSON")
    if name == "submit":
        return Action(submit=True)
    if name != "bash":
        return Action(error=f"unknown tool {name!r}; the tools are bash and submit")
    command = arguments.get("command") if isinstance(arguments, dict) else None
    if not isinstance(command, str) or not command.strip():
        return Action(error='bash needs {"command": "<a non-empty command>"}')
    return Action(command=command)
