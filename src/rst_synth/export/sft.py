"""An attempt's ATIF trajectory as the conversation the llm agent had with its model: tool calls
answered by tool turns, or in text mode plain assistant turns answered by user turns. The input of
every `rst collect` format (formats.py)."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field, ValidationError

from rst_synth.agents import TRAJECTORY, Trajectory
from rst_synth.agents.terminal import SUBMIT_COMMAND
from rst_synth.export.sources import StoredAttempt

PLUMBING_AGENTS = frozenset({"oracle", "nop"})
"""Agents whose trajectories teach nothing (the oracle runs a solution the model never sees)."""
CHARS_PER_TOKEN = 4
"""The token budget is counted without a tokenizer: about four characters a token."""


class Call(BaseModel):
    id: str
    name: str
    arguments: dict[str, Any]


class Message(BaseModel):
    """One turn, in the OpenAI chat shape the llm agent sends (arguments kept as a dict)."""

    role: Literal["system", "user", "assistant", "tool"]
    content: str
    calls: list[Call] = Field(default_factory=list)
    call_id: str | None = None
    """The tool call a tool turn answers."""
    name: str | None = None
    """The tool a tool turn answers."""


class Conversation(BaseModel):
    mode: Literal["tools", "text"]
    """tools: the model called `bash`/`submit`; text: it answered with one fenced bash block a turn."""
    messages: list[Message]

    def approx_tokens(self) -> int:
        chars = sum(len(m.content) + sum(len(json.dumps(c.arguments)) for c in m.calls) for m in self.messages)
        return -(-chars // CHARS_PER_TOKEN)

    def key(self) -> str:
        """Identical conversations have equal keys (the duplicate filter)."""
        return json.dumps(self.model_dump(mode="json"), sort_keys=True)


class Unusable(Exception):
    """A trajectory that is no training example; `reason` names why (a key of the card's drop table)."""

    def __init__(self, reason: str, detail: str = "") -> None:
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason = reason


def read_trajectory(attempt: StoredAttempt) -> Trajectory:
    path = attempt.directory / TRAJECTORY
    try:
        return Trajectory.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise Unusable("unreadable", f"{path}: missing") from None
    except (ValidationError, UnicodeDecodeError) as exc:
        raise Unusable("unreadable", f"{path}: not an ATIF trajectory ({str(exc).splitlines()[0]})") from None


def conversation_of(trajectory: Trajectory) -> Conversation:
    """The conversation an agent had with its model; Unusable for a trajectory with a malformed
    reply (format_error), a failed model call (model_error) or no command at all (no_command)."""
    agent_steps = [s for s in trajectory.steps if s.source == "agent"]
    for step in agent_steps:
        extra = step.extra or {}
        if "format_error" in extra:
            raise Unusable("format_error", f"step {step.step_id}: {extra['format_error']}")
        if "error" in extra:
            raise Unusable("model_error", f"step {step.step_id}")
    if not any(step.tool_calls for step in agent_steps):
        raise Unusable("no_command")
    text_mode = all(_is_text_step(step.message, step.tool_calls or []) for step in agent_steps if step.tool_calls)
    messages: list[Message] = []
    ids: dict[str, str] = {}
    for step in trajectory.steps:
        if step.source != "agent":
            messages.append(Message(role=step.source, content=step.message))
            continue
        # Call ids are renumbered in order (call_1, call_2, ...): an endpoint's random ids would make
        # two identical conversations differ, and no model learns anything from them.
        renamed = {c.tool_call_id: f"call_{len(ids) + k}" for k, c in enumerate(step.tool_calls or [], start=1)}
        ids.update(renamed)
        calls = [
            Call(id=renamed[c.tool_call_id], name=c.function_name, arguments=c.arguments) for c in step.tool_calls or []
        ]
        if any("_unparsed" in call.arguments for call in calls):
            raise Unusable("format_error", f"step {step.step_id}: tool arguments that are not JSON")
        messages.append(Message(role="assistant", content=step.message, calls=[] if text_mode else calls))
        names = {call.id: call.name for call in calls}
        for result in step.observation.results if step.observation else []:
            if text_mode:
                messages.append(Message(role="user", content=result.content or ""))
            else:
                call_id = ids.get(result.source_call_id or "")
                messages.append(
                    Message(role="tool", content=result.content or "", call_id=call_id, name=names.get(call_id or ""))
                )
    while messages and messages[-1].role != "assistant":
        messages.pop()  # a trajectory cut off after a command: the example ends on the model's last turn
    return Conversation(mode="text" if text_mode else "tools", messages=messages)


def _is_text_step(message: str, calls: list[Any]) -> bool:
    """Whether an agent step is a text-mode reply: the agent records the one fenced bash block it
    ran (or the submit command) as a call of its own, with the reply's text as the message."""
    if len(calls) != 1:
        return False
    call = calls[0]
    if call.function_name == "submit":
        return SUBMIT_COMMAND in message
    command = call.arguments.get("command")
    return isinstance(command, str) and "```" in message and command.strip() in message
