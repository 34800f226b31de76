"""Re-asking about a reply that could not be used: the same chat, the reply, then the exact parse
error and a request for the broken block only. The blocks of the reply that were intact are kept,
so the answer needs to hold only the one that was not."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from jinja2 import Environment

from rst_synth.proposers.llm.parse import Expect, ReplyError, parse_reply
from rst_synth.proposers.llm.prompts import PromptBudgets, reask_message
from rst_synth.validator import Reason

REASK_HINTS: dict[Reason, str] = {
    Reason.NO_CODE_BLOCK: "the reply had no fenced code block: put the file in one whose info string names its "
    "language and path",
    Reason.MISSING_BLOCK: "no block was labelled with the path asked for",
    Reason.WRONG_LANGUAGE: "the block was labelled with another language than the file's",
    Reason.EMPTY_BLOCK: "the block was empty",
    Reason.TRUNCATED: "the reply was cut off before the block was closed: write a shorter file and close the fence",
    Reason.INVALID_PYTHON: "the module must compile, and import every module it uses",
    Reason.INVALID_BASH: "the steps must pass `bash -n`",
    Reason.INVALID_DOCKERFILE: "lines appended to the Dockerfile may not start a new stage (no FROM)",
}
"""What a parse error's reason means, shown with its quote in a re-ask."""


@dataclass
class UnusableReply(Exception):
    """A reply that could not be parsed, with what a re-ask needs."""

    stage: str
    chat: list[dict[str, str]]
    """The messages that got the reply."""
    reply: str
    error: ReplyError
    expected: list[Expect]
    """What the stage asks for."""
    seed: int
    kept: dict[str, str] = field(default_factory=dict)
    """Files of the stage that earlier replies gave intact."""


def reask_request(
    unusable: UnusableReply, env: Environment, budgets: PromptBudgets, hints: Mapping[Reason, str]
) -> tuple[list[Expect], dict[str, str], list[dict[str, str]]]:
    """(the files to ask for, the files kept from the replies so far, the chat of the re-ask)."""
    error, expected = unusable.error, unusable.expected
    broken = next((e for e in expected if e.path == error.path), None)
    asked = [replace(broken, required=True)] if broken else [e for e in expected if not e.fallback] or expected
    kept = unusable.kept
    if broken is not None:
        kept = {**kept, **salvage(unusable.reply, [e for e in expected if e is not broken])}
    message = reask_message(
        env,
        budgets,
        reason=error.reason.value,
        quote=error.quote,
        hint=REASK_HINTS.get(error.reason) or hints.get(error.reason, ""),
        files=[(e.path, e.language) for e in asked],
        single=broken is not None,
    )
    return asked, kept, [*unusable.chat, {"role": "assistant", "content": unusable.reply}, message]


def salvage(reply: str, expected: list[Expect]) -> dict[str, str]:
    """The blocks of `reply` for `expected` that parse, all taken as optional; {} when any is broken."""
    try:
        return parse_reply(reply, [replace(e, required=False) for e in expected])
    except ReplyError:
        return {}
