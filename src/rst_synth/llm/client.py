"""OpenAICompatibleLLM: chat completions against any OpenAI-compatible endpoint.

The SDK's own retries are off (max_retries=0): this module retries itself, so that every
attempt is counted, backoff is ours (exponential with jitter, Retry-After honoured), and the
final error says in one line what happened and where. The API key lives only in this object
and in the SDK client it builds; it is masked out of every message we produce.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import random
import re
import time
from collections.abc import Mapping
from typing import Any, Self
from urllib.parse import urlparse

import openai

from rst_synth.llm.base import ChatResult, ErrorReason, LLMError, ToolCall
from rst_synth.llm.cache import ResponseCache, request_key
from rst_synth.llm.config import LLMConfig
from rst_synth.llm.prices import PriceTable

log = logging.getLogger(__name__)

LOCAL_PLACEHOLDER_KEY = "sk-local"
"""Sent to a local server (127.0.0.1, localhost) when no key is set: most ignore it, the SDK needs one."""

_KEY_SHAPE = re.compile(r"\b(sk-|Bearer\s+)[A-Za-z0-9._\-]{6,}")
_SERVER_TEXT_CHARS = 200


def is_local_url(base_url: str | None) -> bool:
    """True for an endpoint on this machine's loopback (127.0.0.0/8, ::1, localhost)."""
    if not base_url:
        return False
    host = urlparse(base_url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_api_key(config: LLMConfig, env: Mapping[str, str] | None = None) -> str:
    """The key from the variable `config.api_key_env` names; a placeholder for a local server."""
    env = os.environ if env is None else env
    key = (env.get(config.api_key_env) or "").strip()
    if key:
        return key
    if is_local_url(config.base_url):
        return LOCAL_PLACEHOLDER_KEY
    raise LLMError(
        "auth",
        f"set {config.api_key_env} to your API key (or point base_url at a local server); "
        f"endpoint: {config.base_url or 'the OpenAI API'}",
    )


class OpenAICompatibleLLM:
    """An `LLM` on `openai.AsyncOpenAI`, with our retries, concurrency limit, cache and counters."""

    def __init__(self, config: LLMConfig, *, env: Mapping[str, str] | None = None) -> None:
        self.config = config
        self._api_key = resolve_api_key(config, env)
        self._client = openai.AsyncOpenAI(
            base_url=config.base_url,
            api_key=self._api_key,
            timeout=config.request_timeout_sec(),
            max_retries=0,
        )
        self.endpoint = (config.base_url or str(self._client.base_url)).rstrip("/")
        """Where requests go, for messages (never carries the key)."""
        self._semaphore = asyncio.Semaphore(config.max_concurrency)
        self._cache = ResponseCache(config.cache_dir) if config.cache_dir is not None else None
        self._prices = PriceTable(config.price_table())
        self._rng = random.Random()
        # Run statistics. `calls` counts answered chat() calls, cache hits included; tokens and
        # cost count what was actually spent, so cache hits add nothing to them.
        self.calls = 0
        self.cache_hits = 0
        self.tokens_in = 0
        self.tokens_out = 0
        self.cost_usd = 0.0
        self.attempts = 0
        """HTTP requests sent, retries included."""
        self.failures = 0
        """chat() calls that ended in an LLMError."""

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM(model={self.config.model!r}, endpoint={self.endpoint!r})"

    def stats(self) -> dict[str, float | int]:
        return {
            "calls": self.calls,
            "cache_hits": self.cache_hits,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost_usd": self.cost_usd,
            "attempts": self.attempts,
            "failures": self.failures,
        }

    async def chat(
        self,
        messages: list[dict[str, Any]],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        tools: list[dict[str, Any]] | None = None,
    ) -> ChatResult:
        request: dict[str, Any] = {
            "model": self.config.model,
            "messages": messages,
            "temperature": self.config.temperature if temperature is None else temperature,
            "max_tokens": self.config.max_tokens if max_tokens is None else max_tokens,
            "seed": seed,
            "tools": tools,
        }
        key = request_key(**request) if self._cache is not None else None
        if self._cache is not None and key is not None:
            hit = self._cache.get(key)
            if hit is not None:
                self.calls += 1
                self.cache_hits += 1
                self._log_call(hit, latency=0.0, attempts=0)
                return hit

        started = time.monotonic()
        try:
            # The slot is held through backoff sleeps too: a rate-limited endpoint then sees fewer
            # requests, not the same number from more waiting calls.
            async with self._semaphore:
                result, attempts = await self._send(request)
        except LLMError as exc:
            self.failures += 1
            log.warning(
                "llm call failed: %s",
                exc,
                extra={"llm": {"model": self.config.model, "reason": exc.reason, "failed": True}},
            )
            raise
        self.calls += 1
        self.tokens_in += result.tokens_in
        self.tokens_out += result.tokens_out
        self.cost_usd += result.cost_usd
        if self._cache is not None and key is not None:
            self._cache.put(key, result, request)
        self._log_call(result, latency=time.monotonic() - started, attempts=attempts)
        return result

    async def close(self) -> None:
        await self._client.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    # -- one call, with retries --------------------------------------------------------------

    async def _send(self, request: dict[str, Any]) -> tuple[ChatResult, int]:
        """The reply and the number of attempts it took; LLMError when none succeeded."""
        kwargs = {name: value for name, value in request.items() if value is not None}
        total = self.config.max_retries + 1
        reason: ErrorReason = "server_error"
        last = ""
        for attempt in range(1, total + 1):
            self.attempts += 1
            retry_after: float | None = None
            try:
                completion = await self._client.chat.completions.create(**kwargs)
            except openai.APITimeoutError:  # before APIConnectionError: it is a subclass
                reason, last = "timeout", f"timeout after {self.config.request_timeout_sec():g}s"
            except openai.APIConnectionError as exc:
                cause = type(exc.__cause__).__name__ if exc.__cause__ else "connection error"
                reason, last = "connection", f"dropped connection ({cause})"
            except openai.APIStatusError as exc:
                status = exc.status_code
                if status == 429:
                    reason, last = "rate_limited", "HTTP 429"
                    retry_after = _retry_after(exc.response.headers)
                elif status >= 500:
                    reason, last = "server_error", f"HTTP {status}"
                else:  # our request is wrong or not allowed: sending it again cannot help
                    fatal: ErrorReason = "auth" if status in (401, 403) else "bad_request"
                    text = self._redact(_server_text(exc))
                    raise LLMError(fatal, f"HTTP {status} from {self.endpoint}: {text}") from None
            except (ValueError, openai.OpenAIError) as exc:
                # A 200 whose body is not the JSON we expect (JSONDecodeError is a ValueError).
                text = self._redact(str(exc))[:_SERVER_TEXT_CHARS]
                raise LLMError("bad_reply", f"unreadable reply from {self.endpoint}: {text}") from None
            else:
                return self._result(completion), attempt
            if attempt < total:
                delay = self._backoff(attempt, retry_after)
                fields = {"llm": {"model": self.config.model, "reason": reason, "attempt": attempt}}
                if reason == "timeout":  # the server may still be working on it: say so where people look
                    log.warning(
                        "llm attempt %d/%d: no reply from %s within %s; sending it again from scratch in %.2fs "
                        "(a slow server needs a larger [llm] timeout_sec)",
                        attempt,
                        total,
                        self.endpoint,
                        last.removeprefix("timeout after "),
                        delay,
                        extra=fields,
                    )
                else:
                    log.info(
                        "llm attempt %d/%d failed (%s), retrying in %.2fs", attempt, total, last, delay, extra=fields
                    )
                await asyncio.sleep(delay)
        raise LLMError(reason, f"{total} attempts, last {last} from {self.endpoint}")

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        cfg = self.config
        delay = min(cfg.backoff_max_sec, cfg.backoff_base_sec * 2 ** (attempt - 1))
        # Jitter spreads the retries of calls that failed together, so they do not collide again.
        delay *= 0.5 + self._rng.random() / 2
        if retry_after is not None:
            delay = max(delay, min(retry_after, cfg.backoff_max_sec))
        return float(delay)

    def _result(self, completion: Any) -> ChatResult:
        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list) or not choices:
            raise LLMError("bad_reply", f"no choices in the reply from {self.endpoint}")
        choice = choices[0]
        message = getattr(choice, "message", None)
        content = getattr(message, "content", None)
        finish_reason = getattr(choice, "finish_reason", None)
        tool_calls = [
            ToolCall(id=str(call.id), name=str(call.function.name), arguments=str(call.function.arguments or ""))
            for call in (getattr(message, "tool_calls", None) or [])
            if getattr(call, "function", None) is not None
        ]
        if tool_calls and not content:
            content = ""
        elif not isinstance(content, str) or not content:
            refusal = getattr(message, "refusal", None)
            why = (
                f"refused: {self._redact(str(refusal))[:_SERVER_TEXT_CHARS]}"
                if refusal
                else (f"finish_reason={finish_reason}")
            )
            raise LLMError("bad_reply", f"no content in the reply from {self.endpoint} ({why})")

        usage = getattr(completion, "usage", None)
        tokens_in = int(getattr(usage, "prompt_tokens", 0) or 0)
        tokens_out = int(getattr(usage, "completion_tokens", 0) or 0)
        details = getattr(usage, "prompt_tokens_details", None)
        # OpenAI reports prompt-cache hits in prompt_tokens_details; DeepSeek in prompt_cache_hit_tokens.
        cached = int(getattr(details, "cached_tokens", 0) or getattr(usage, "prompt_cache_hit_tokens", 0) or 0)
        model = str(getattr(completion, "model", None) or self.config.model)
        cost = self._prices.cost(self.config.model, tokens_in, tokens_out, cached, also=model)
        return ChatResult(
            text=content or "",
            tool_calls=tool_calls,
            tokens_in=tokens_in,
            tokens_out=tokens_out,
            cached_tokens=cached,
            cost_usd=cost,
            cache_hit=False,
            model=model,
            finish_reason=finish_reason,
        )

    def _redact(self, text: str) -> str:
        """`text` with our key, and anything shaped like a key, masked."""
        if self._api_key and len(self._api_key) >= 4:
            text = text.replace(self._api_key, "***")
        return _KEY_SHAPE.sub(lambda m: f"{m.group(1)}***", text)

    def _log_call(self, result: ChatResult, *, latency: float, attempts: int) -> None:
        fields = {
            "model": result.model,
            "tokens_in": result.tokens_in,
            "tokens_out": result.tokens_out,
            "cached_tokens": result.cached_tokens,
            "cost_usd": result.cost_usd,
            "latency_sec": round(latency, 3),
            "cache_hit": result.cache_hit,
            "attempts": attempts,
        }
        log.info(
            "llm call model=%s tokens_in=%d tokens_out=%d cost_usd=%.6f latency=%.2fs cache_hit=%s attempts=%d",
            result.model,
            result.tokens_in,
            result.tokens_out,
            result.cost_usd,
            latency,
            result.cache_hit,
            attempts,
            extra={"llm": fields},
        )


def _retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds the server asks us to wait (Retry-After in seconds, or retry-after-ms)."""
    try:
        if headers.get("retry-after-ms"):
            return float(headers["retry-after-ms"]) / 1000
        if headers.get("retry-after"):
            return float(headers["retry-after"])
    except ValueError:
        pass  # an HTTP date: rare from these APIs; our own backoff will do
    return None


def _server_text(exc: openai.APIStatusError) -> str:
    """The server's own error message, short."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return str(inner["message"])[:_SERVER_TEXT_CHARS]
    return str(exc.message)[:_SERVER_TEXT_CHARS]
