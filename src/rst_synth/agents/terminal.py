"""The `llm` agent: a terminal agent on the project's LLM client, one bash command a turn.

Where the endpoint supports tools the model calls `bash` {"command"} or `submit` {}; otherwise (or
with `mode = "text"`) it answers with exactly one fenced bash block and submits with
`echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`. A reply with no command or with two gets a format
message back; three in a row end the attempt. The loop ends by exceptions-free returns of why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from jinja2 import Environment, PackageLoader, StrictUndefined
from pydantic import BaseModel, Field

from rst_synth.agents.atif import ObservationResult, StepMetrics, ToolCallRecord, TrajectoryRecorder
from rst_synth.agents.base import Ended, Shell
from rst_synth.llm import LLM, ChatResult, LLMConfig, LLMError, make_llm
from rst_synth.task import Task

SUBMIT_COMMAND = "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
MAX_FORMAT_ERRORS = 3
_BASH_BLOCK = re.compile(r"```(?:bash|sh|shell)[^\n]*\n(.*?)```", re.DOTALL)

TOOLS: list[dict[str, Any]] = [
    {
        "type": "function",
        "function": {
            "name": "bash",
            "description": "Run one bash command in the task's container and see its output.",
            "parameters": {"type": "object", "properties": {"command": {"type": "string"}}, "required": ["command"]},
        },
    },
    {
        "type": "function",
        "function": {
            "name": "submit",
            "description": "Finish: the task is complete.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
]


class TerminalAgentConfig(BaseModel):
    """Options of the llm agent."""

    mode: Literal["auto", "tools", "text"] = "auto"
    """tools: OpenAI tool calls; text: one fenced bash block a turn; auto: tools, and text from the
    first reply on when the endpoint refuses tools."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature; None: the LLM config's."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Completion tokens per reply; None: the LLM config's."""


@dataclass
class _Turn:
    """What one reply asked for: a command, a submit, or a format error to answer."""

    command: str | None = None
    submit: bool = False
    error: str | None = None


class TerminalAgent:
    name = "llm"

    def __init__(self, llm: LLM, config: TerminalAgentConfig | None = None, *, owns_llm: bool = True) -> None:
        self.llm, self.config, self._owns_llm = llm, config or TerminalAgentConfig(), owns_llm
        self.model = llm.config.model
        self._env = Environment(
            loader=PackageLoader("rst_synth.agents", "templates"), undefined=StrictUndefined, keep_trailing_newline=True
        )
        self._tools_refused = config is not None and config.mode == "text"

    async def close(self) -> None:
        if self._owns_llm:
            await self.llm.close()

    def system_prompt(self, mode: str, shell: Shell, workdir: str) -> str:
        return self._env.get_template("system.j2").render(
            mode=mode,
            workdir=workdir,
            command_timeout=f"{shell.limits.command_timeout_sec:g}",
            max_steps=shell.limits.max_steps,
        )

    async def work(self, task: Task, shell: Shell, record: TrajectoryRecorder, *, seed: int) -> Ended:
        workdir = (await shell.run("pwd", timeout=30)).output.strip() or "/app"
        mode = "text" if self._tools_refused else "tools"
        system = self.system_prompt(mode, shell, workdir)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": task.instruction},
        ]
        record.system(system)
        record.user(task.instruction)
        spent_tokens, spent_usd, format_errors, commands = 0, 0.0, 0, 0
        limits = shell.limits
        while limits.allows(commands):
            if limits.max_tokens is not None and spent_tokens >= limits.max_tokens:
                return "token_limit"
            if limits.max_usd is not None and spent_usd >= limits.max_usd:
                return "cost_limit"
            try:
                reply = await self.llm.chat(
                    messages,
                    temperature=self.config.temperature,
                    max_tokens=self.config.max_tokens,
                    seed=seed,
                    tools=TOOLS if mode == "tools" else None,
                )
            except LLMError as exc:
                if mode == "tools" and self.config.mode == "auto" and exc.reason == "bad_request":
                    self._tools_refused = True  # this endpoint has no tool calling: plain text from now on
                    mode = "text"
                    system = self.system_prompt(mode, shell, workdir)
                    messages[0] = {"role": "system", "content": system}
                    record.trajectory.steps[0].message = system  # the trajectory shows the prompt used
                    continue
                record.agent(f"[model call failed: {exc}]", extra={"error": str(exc)})
                return "llm_error"
            spent_tokens += reply.tokens_in + reply.tokens_out
            spent_usd += reply.cost_usd
            metrics = StepMetrics(
                prompt_tokens=reply.tokens_in,
                completion_tokens=reply.tokens_out,
                cached_tokens=reply.cached_tokens,
                cost_usd=reply.cost_usd,
            )
            turn = _read_tools(reply) if mode == "tools" else _read_text(reply.text)
            messages.append(_assistant_message(reply, mode))
            calls = (
                [
                    ToolCallRecord(tool_call_id=c.id, function_name=c.name, arguments=_arguments(c.arguments))
                    for c in reply.tool_calls
                ]
                if mode == "tools"
                else []
            )
            if turn.error is not None:
                format_errors += 1
                messages += _answers(reply, mode, f"Format error: {turn.error}")
                record.agent(
                    reply.text,
                    calls=calls,
                    metrics=metrics,
                    results=[ObservationResult(source_call_id=c.tool_call_id, content="not run") for c in calls],
                    extra={"format_error": turn.error},
                )
                if format_errors >= MAX_FORMAT_ERRORS:
                    return "format_errors"
                continue
            format_errors = 0
            if turn.submit:
                record.agent(reply.text, calls=calls or [_text_call(SUBMIT_COMMAND, "submit")], metrics=metrics)
                return "submitted"
            assert turn.command is not None
            commands += 1
            result = await shell.run(turn.command)
            observation = f"exit code: {result.exit_code if not result.timed_out else 'killed'}\n{result.output}"
            messages += _answers(reply, mode, observation)
            if not calls:  # text mode: the block stands for one bash call
                calls = [_text_call(turn.command, "bash", f"call_{commands}")]
            record.agent(
                reply.text,
                calls=calls,
                metrics=metrics,
                results=[ObservationResult(source_call_id=calls[0].tool_call_id, content=observation)],
            )
        return "max_steps"


def _read_tools(reply: ChatResult) -> _Turn:
    if len(reply.tool_calls) != 1:
        found = "no tool call" if not reply.tool_calls else f"{len(reply.tool_calls)} tool calls"
        return _Turn(error=f"{found}; call exactly one tool per turn: bash with a command, or submit")
    call = reply.tool_calls[0]
    if call.name == "submit":
        return _Turn(submit=True)
    if call.name != "bash":
        return _Turn(error=f"unknown tool {call.name!r}; the tools are bash and submit")
    command = _arguments(call.arguments).get("command")
    if not isinstance(command, str) or not command.strip():
        return _Turn(error='bash needs {"command": "<a non-empty command>"}')
    return _Turn(command=command)


def _read_text(text: str) -> _Turn:
    blocks = _BASH_BLOCK.findall(text)
    if len(blocks) != 1:
        found = "no ```bash block" if not blocks else f"{len(blocks)} ```bash blocks"
        return _Turn(error=f"{found}; reply with exactly one fenced bash block holding one command")
    command = blocks[0].strip()
    if not command:
        return _Turn(error="the bash block is empty")
    if command == SUBMIT_COMMAND:
        return _Turn(submit=True)
    return _Turn(command=command)


def _arguments(raw: str) -> dict[str, Any]:
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return {"_unparsed": raw}
    return value if isinstance(value, dict) else {"_unparsed": raw}


def _assistant_message(reply: ChatResult, mode: str) -> dict[str, Any]:
    if mode == "tools" and reply.tool_calls:
        return {
            "role": "assistant",
            "content": reply.text or None,
            "tool_calls": [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in reply.tool_calls
            ],
        }
    return {"role": "assistant", "content": reply.text}


def _answers(reply: ChatResult, mode: str, text: str) -> list[dict[str, Any]]:
    """The turn's answer: one tool message per tool call (the API wants each answered), else a user message."""
    if mode == "tools" and reply.tool_calls:
        return [{"role": "tool", "tool_call_id": c.id, "content": text} for c in reply.tool_calls]
    return [{"role": "user", "content": text}]


def _text_call(command: str, name: str, call_id: str = "call_submit") -> ToolCallRecord:
    return ToolCallRecord(
        tool_call_id=call_id, function_name=name, arguments={"command": command} if name == "bash" else {}
    )


def make_terminal_agent(
    *,
    llm: LLM | None = None,
    model: str | None = None,
    base_url: str | None = None,
    llm_config_file: Path | str | None = None,
    cache_dir: Path | str | None = None,
    **options: Any,
) -> TerminalAgent:
    """The registry's factory: the endpoint as the llm proposer resolves it (options, an [llm] table,
    RST_LLM_* variables), responses cached under `cache_dir`; other keywords are config fields."""
    config = TerminalAgentConfig.model_validate(options)
    if llm is not None:
        return TerminalAgent(llm, config, owns_llm=False)
    return TerminalAgent(make_llm(LLMConfig.of_endpoint(model, base_url, llm_config_file, cache_dir)), config)
