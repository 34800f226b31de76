"""The LLM protocol: one async chat call in, the reply text with its usage and cost out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol, get_args, runtime_checkable

from pydantic import BaseModel

if TYPE_CHECKING:
    from rst_synth.llm.config import LLMConfig

ErrorReason = Literal["auth", "bad_request", "rate_limited", "server_error", "timeout", "connection", "bad_reply"]
ERROR_REASONS: frozenset[str] = frozenset(get_args(ErrorReason))

RETRYABLE_REASONS: frozenset[str] = frozenset({"rate_limited", "server_error", "timeout", "connection"})
"""Failures worth another attempt: the same request may well succeed a moment later."""


class ToolCall(BaseModel):
    """One function call the assistant asked for (OpenAI tool calling)."""

    id: str
    name: str
    arguments: str
    """The arguments as the model wrote them: JSON text, not always valid."""


class ChatResult(BaseModel):
    """One assistant reply and what it cost."""

    text: str
    """The assistant message's content ("" when the reply is only tool calls)."""
    tool_calls: list[ToolCall] = []
    """Function calls the assistant asked for, when the request offered tools."""
    tokens_in: int
    """Prompt tokens, cached ones included (the API's `prompt_tokens`)."""
    tokens_out: int
    """Completion tokens (reasoning tokens included where the model reports them so)."""
    cached_tokens: int = 0
    """Prompt tokens the provider served from its own prompt cache (billed at a lower rate)."""
    cost_usd: float
    """Price of this call from the price table; 0 for a reply from our response cache."""
    cache_hit: bool
    """True when the reply came from the on-disk response cache, with no request sent."""
    model: str
    """The model that answered, as the server names it (may carry a date suffix)."""
    finish_reason: str | None = None
    """`stop`, `length`, ... as the server says; None when it says nothing."""


class LLMError(RuntimeError):
    """A chat call failed for good: `reason` says how, the message says it in one line.

    The message never contains the API key: the client builds it from status codes, the base
    URL and the server's error text, with anything shaped like a key masked.
    """

    def __init__(self, reason: ErrorReason, detail: str = "") -> None:
        if reason not in ERROR_REASONS:
            raise ValueError(f"unknown LLMError reason {reason!r}")
        detail = " ".join(detail.split())  # one line, whatever the server sent
        super().__init__(f"{reason}: {detail}" if detail else reason)
        self.reason: ErrorReason = reason
        self.detail = detail

    @property
    def retryable(self) -> bool:
        return self.reason in RETRYABLE_REASONS


@runtime_checkable
class LLM(Protocol):
    """A chat-completion backend, registered by provider short name (see `make_llm`)."""

    config: LLMConfig

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> ChatResult:
        """The assistant's reply to `messages` (OpenAI chat message dicts); None options fall back
        to the config's; `tools` offers functions the reply may call. Raises LLMError once retries
        are spent or on a non-retryable error."""
        ...

    async def close(self) -> None:
        """Release the HTTP connections; the object is unusable afterwards."""
        ...
