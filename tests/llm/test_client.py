"""OpenAICompatibleLLM over real HTTP against the scripted fake server."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest

from rst_synth.llm import LLM, ChatResult, LLMConfig, LLMError, make_llm
from rst_synth.llm.client import OpenAICompatibleLLM
from tests.support.fake_server import FakeOpenAI, Reply

T = TypeVar("T")
HELLO = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "say hello to me"}]


def config(server: FakeOpenAI, **overrides: Any) -> LLMConfig:
    settings: dict[str, Any] = {
        "model": "gpt-4o-mini",
        "base_url": server.base_url,
        "api_key_env": "RST_TEST_NO_SUCH_KEY",
        "timeout_sec": 5.0,
        "max_retries": 2,
        "backoff_base_sec": 0.01,
        "backoff_max_sec": 0.05,
    }
    settings.update(overrides)
    return LLMConfig(**settings)


def with_llm(cfg: LLMConfig, work: Callable[[OpenAICompatibleLLM], Awaitable[T]]) -> T:
    async def main() -> T:
        llm = make_llm(cfg)
        assert isinstance(llm, OpenAICompatibleLLM)
        try:
            return await work(llm)
        finally:
            await llm.close()

    return asyncio.run(main())


def failure(cfg: LLMConfig, **chat_options: Any) -> LLMError:
    async def work(llm: OpenAICompatibleLLM) -> LLMError:
        with pytest.raises(LLMError) as caught:
            await llm.chat(HELLO, **chat_options)
        assert llm.failures == 1 and llm.calls == 0
        return caught.value

    return with_llm(cfg, work)


def test_good_reply_has_text_usage_and_cost() -> None:
    with FakeOpenAI() as server:
        server.script(Reply("hello there", usage=(1000, 500)))
        cfg = config(server, temperature=0.3, max_tokens=64)

        async def work(llm: OpenAICompatibleLLM) -> ChatResult:
            assert isinstance(llm, LLM)
            result = await llm.chat(HELLO, seed=7)
            assert (llm.calls, llm.cache_hits, llm.tokens_in, llm.tokens_out) == (1, 0, 1000, 500)
            assert llm.cost_usd == pytest.approx(result.cost_usd)
            return result

        result = with_llm(cfg, work)
    assert result.text == "hello there"
    assert (result.tokens_in, result.tokens_out, result.cached_tokens) == (1000, 500, 0)
    assert result.cost_usd == pytest.approx((1000 * 0.15 + 500 * 0.60) / 1e6)
    assert not result.cache_hit and result.model == "gpt-4o-mini" and result.finish_reason == "stop"
    (body,) = server.requests
    assert body["model"] == "gpt-4o-mini" and body["messages"] == HELLO
    assert (body["temperature"], body["max_tokens"], body["seed"]) == (0.3, 64, 7)


def test_call_options_override_config_and_unset_ones_are_not_sent() -> None:
    with FakeOpenAI() as server:
        with_llm(config(server, temperature=0.3), lambda llm: llm.chat(HELLO, temperature=0.9))
        with_llm(config(server), lambda llm: llm.chat(HELLO))
    assert server.requests[0]["temperature"] == 0.9
    assert not {"temperature", "max_tokens", "seed"} & set(server.requests[1])


def test_cached_prompt_tokens_are_read_and_priced() -> None:
    body = (
        '{"id": "x", "object": "chat.completion", "created": 1, "model": "gpt-4o-mini-2024-07-18",'
        ' "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],'
        ' "usage": {"prompt_tokens": 1000, "completion_tokens": 10, "total_tokens": 1010,'
        ' "prompt_tokens_details": {"cached_tokens": 800}}}'
    )
    with FakeOpenAI() as server:
        server.script(Reply(raw_body=body))
        result = with_llm(config(server), lambda llm: llm.chat(HELLO))
    assert result.cached_tokens == 800 and result.model == "gpt-4o-mini-2024-07-18"
    assert result.cost_usd == pytest.approx((200 * 0.15 + 800 * 0.075 + 10 * 0.60) / 1e6)


def test_rate_limit_is_retried() -> None:
    with FakeOpenAI() as server:
        server.script(Reply(status=429), Reply("second time"))

        async def work(llm: OpenAICompatibleLLM) -> ChatResult:
            result = await llm.chat(HELLO)
            assert llm.attempts == 2 and llm.failures == 0
            return result

        assert with_llm(config(server), work).text == "second time"
    assert len(server.requests) == 2


def test_server_errors_exhaust_retries_into_one_clear_line() -> None:
    with FakeOpenAI() as server:
        server.responder = lambda body: Reply(status=500)
        error = failure(config(server, max_retries=3))
        assert len(server.requests) == 4
    assert error.reason == "server_error" and error.retryable
    assert str(error) == f"server_error: 4 attempts, last HTTP 500 from {server.base_url}"
    assert "\n" not in str(error)


def test_other_5xx_are_server_errors_too() -> None:
    with FakeOpenAI() as server:
        server.script(Reply(status=503), Reply(status=502), Reply("up again"))
        assert with_llm(config(server), lambda llm: llm.chat(HELLO)).text == "up again"
    assert len(server.requests) == 3


@pytest.mark.parametrize(
    ("status", "reason"), [(401, "auth"), (403, "auth"), (400, "bad_request"), (422, "bad_request")]
)
def test_client_errors_are_not_retried(status: int, reason: str) -> None:
    with FakeOpenAI() as server:
        server.responder = lambda body: Reply(status=status)
        error = failure(config(server))
        assert len(server.requests) == 1
    assert error.reason == reason and not error.retryable
    assert str(error).startswith(f"{reason}: HTTP {status} from {server.base_url}: ")


def test_wrong_path_is_a_bad_request() -> None:
    with FakeOpenAI() as server:
        error = failure(config(server, base_url=server.base_url.removesuffix("/v1")))
        assert server.requests == []
    assert error.reason == "bad_request" and "HTTP 404" in str(error)


def test_slow_replies_time_out_after_retries() -> None:
    with FakeOpenAI() as server:
        server.responder = lambda body: Reply("late", delay_sec=2.0)
        started = time.monotonic()
        error = failure(config(server, timeout_sec=0.2, max_retries=1))
        assert time.monotonic() - started < 1.5
        assert len(server.requests) == 2
    assert error.reason == "timeout"
    assert str(error) == f"timeout: 2 attempts, last timeout after 0.2s from {server.base_url}"


def test_a_retry_after_a_timeout_says_so_on_one_warning_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="rst_synth.llm.client")
    with FakeOpenAI() as server:
        server.script(Reply("late", delay_sec=2.0), Reply("in time"))
        assert with_llm(config(server, timeout_sec=0.2), lambda llm: llm.chat(HELLO)).text == "in time"
        assert len(server.requests) == 2
    (line,) = [r for r in caplog.records if r.levelno >= logging.WARNING]
    message = line.getMessage()
    assert "\n" not in message and message.startswith(f"llm attempt 1/3: no reply from {server.base_url} within 0.2s")
    assert "sending it again from scratch" in message and "[llm] timeout_sec" in message
    # Other retryable failures stay below the warning level.
    caplog.clear()
    with FakeOpenAI() as server:
        server.script(Reply(status=503), Reply("up"))
        with_llm(config(server), lambda llm: llm.chat(HELLO))
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_local_endpoint_gets_the_local_default_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RST_TEST_REMOTE_KEY", "sk-test-remote")
    with FakeOpenAI() as server:
        local = make_llm(config(server, timeout_sec=None))
        remote_url = "https://api.example.com/v1"
        remote = make_llm(config(server, timeout_sec=None, base_url=remote_url, api_key_env="RST_TEST_REMOTE_KEY"))
        assert isinstance(local, OpenAICompatibleLLM) and isinstance(remote, OpenAICompatibleLLM)
        assert (local._client.timeout, remote._client.timeout) == (600.0, 180.0)
        asyncio.run(local.close())
        asyncio.run(remote.close())


def test_dropped_connection_is_retried() -> None:
    with FakeOpenAI() as server:
        server.script(Reply(drop_connection=True), Reply("back"))
        assert with_llm(config(server), lambda llm: llm.chat(HELLO)).text == "back"
        assert len(server.requests) == 2

        server.responder = lambda body: Reply(drop_connection=True)
        error = failure(config(server, max_retries=1))
    assert error.reason == "connection" and str(error).startswith("connection: 2 attempts, last dropped connection")


def test_unreachable_server_is_a_connection_error() -> None:
    with FakeOpenAI() as server:
        base_url = server.base_url
    error = failure(LLMConfig(base_url=base_url, max_retries=1, backoff_base_sec=0.01, api_key_env="RST_TEST_NONE"))
    assert error.reason == "connection"


@pytest.mark.parametrize(
    "reply",
    [
        Reply(raw_body='{"id": "x", "choices": [{"index": 0, "message": {"role": "ass'),
        Reply(raw_body="<html>502 from a proxy, but status 200</html>"),
        Reply(raw_body='"a string"'),
        Reply(raw_body='{"object": "chat.completion", "choices": []}'),
        Reply(content=None),
        Reply(content=""),
    ],
    ids=["truncated", "html", "string", "no-choices", "null-content", "empty-content"],
)
def test_bad_replies_are_errors_not_crashes(reply: Reply) -> None:
    with FakeOpenAI() as server:
        server.script(reply)
        error = failure(config(server))
        assert len(server.requests) == 1  # not retried: the same request would get the same reply
    assert error.reason == "bad_reply" and "\n" not in str(error)


def test_repeated_call_is_served_from_the_cache(tmp_path: Path) -> None:
    cache_dir = tmp_path / "cache"
    with FakeOpenAI() as server:
        server.script(Reply("cached answer", usage=(100, 20)))
        cfg = config(server, cache_dir=cache_dir, temperature=0.0)

        async def work(llm: OpenAICompatibleLLM) -> tuple[ChatResult, ChatResult]:
            first = await llm.chat(HELLO, seed=1)
            second = await llm.chat(HELLO, seed=1)
            assert (llm.calls, llm.cache_hits, llm.attempts) == (2, 1, 1)
            assert (llm.tokens_in, llm.tokens_out) == (100, 20)  # spent once
            assert llm.cost_usd == pytest.approx(first.cost_usd)
            return first, second

        first, second = with_llm(cfg, work)
        assert len(server.requests) == 1
        assert second.text == first.text and (second.tokens_in, second.tokens_out) == (100, 20)
        assert second.cache_hit and second.cost_usd == 0.0 and not first.cache_hit and first.cost_usd > 0

        # Another client on the same directory finds it; another seed or prompt does not.
        assert with_llm(cfg, lambda llm: llm.chat(HELLO, seed=1)).cache_hit
        assert len(server.requests) == 1
        assert not with_llm(cfg, lambda llm: llm.chat(HELLO, seed=2)).cache_hit
        assert not with_llm(cfg, lambda llm: llm.chat(HELLO[1:], seed=1)).cache_hit
        assert len(server.requests) == 3

        # A corrupt entry is a miss, and the new reply replaces it.
        for path in cache_dir.rglob("*.json"):
            path.write_text("{ truncated")
        assert not with_llm(cfg, lambda llm: llm.chat(HELLO, seed=1)).cache_hit
        assert with_llm(cfg, lambda llm: llm.chat(HELLO, seed=1)).cache_hit
        assert len(server.requests) == 4
    files = list(cache_dir.rglob("*.json"))
    assert len(files) == 3 and all(p.parent.name == p.name[:2] and len(p.stem) == 64 for p in files)
    assert not list(cache_dir.rglob("*.tmp"))


def test_failures_are_not_cached(tmp_path: Path) -> None:
    with FakeOpenAI() as server:
        server.script(Reply(status=400), Reply("fine"))
        cfg = config(server, cache_dir=tmp_path)
        failure(cfg)
        assert with_llm(cfg, lambda llm: llm.chat(HELLO)).text == "fine"
        assert len(server.requests) == 2


def test_concurrency_limit_is_respected() -> None:
    with FakeOpenAI() as server:
        server.responder = lambda body: Reply(body["messages"][0]["content"], delay_sec=0.15)

        async def work(llm: OpenAICompatibleLLM) -> list[ChatResult]:
            prompts = [[{"role": "user", "content": f"n{i}"}] for i in range(6)]
            return await asyncio.gather(*(llm.chat(p) for p in prompts))

        started = time.monotonic()
        results = with_llm(config(server, max_concurrency=2), work)
        elapsed = time.monotonic() - started
    assert [r.text for r in results] == [f"n{i}" for i in range(6)]
    assert server.max_in_flight == 2 and len(server.requests) == 6
    assert elapsed >= 0.4  # three waves of two


def test_api_key_is_sent_but_never_stored_or_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    marker = f"sk-marker-{uuid.uuid4().hex}"
    monkeypatch.setenv("RST_TEST_KEY", marker)
    cache_dir = tmp_path / "cache"
    caplog.set_level(logging.DEBUG)
    with FakeOpenAI() as server:
        # Real servers echo (parts of) a rejected key in the error text; so does this one.
        echo_key = '{"error": {"message": "Incorrect API key provided: %s", "type": "invalid_request_error"}}'
        server.script(
            Reply("one"), Reply(status=500), Reply("two", usage=(5, 1)), Reply(status=401, raw_body=echo_key % marker)
        )
        cfg = config(server, api_key_env="RST_TEST_KEY", cache_dir=cache_dir, model="no-such-model")

        async def work(llm: OpenAICompatibleLLM) -> LLMError:
            await llm.chat(HELLO)
            await llm.chat(HELLO)  # cache hit
            await llm.chat(HELLO, seed=3)  # one 500, then a reply
            with pytest.raises(LLMError) as caught:
                await llm.chat(HELLO, seed=4)
            assert marker not in repr(llm) and marker not in repr(llm.config) and marker not in str(llm.stats())
            return caught.value

        error = with_llm(cfg, work)
        assert len(server.requests) == 4
        assert all(h["authorization"] == f"Bearer {marker}" for h in server.headers)
    assert (
        error.reason == "auth" and marker not in str(error) and str(error).endswith("Incorrect API key provided: ***")
    )

    stored = [p.read_text() for p in cache_dir.rglob("*") if p.is_file()]
    assert len(stored) == 2 and all(marker not in text for text in stored)
    assert caplog.records
    for record in caplog.records:
        assert marker not in record.getMessage() and marker not in repr(vars(record))
    calls = [r for r in caplog.records if r.name == "rst_synth.llm.client" and "cache_hit" in getattr(r, "llm", {})]
    assert [r.llm["cache_hit"] for r in calls] == [False, True, False]  # type: ignore[attr-defined]
    assert {"model", "tokens_in", "tokens_out", "latency_sec", "cache_hit"} <= set(calls[0].llm)  # type: ignore[attr-defined]
    unknown = [r for r in caplog.records if "no price for model" in r.getMessage()]
    assert len(unknown) == 1  # one warning for the unknown model, not one per call


def test_missing_key_is_an_auth_error_unless_the_server_is_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RST_TEST_NO_SUCH_KEY", raising=False)
    with pytest.raises(LLMError) as caught:
        make_llm(LLMConfig(base_url="https://api.example.com/v1", api_key_env="RST_TEST_NO_SUCH_KEY"))
    assert caught.value.reason == "auth" and "set RST_TEST_NO_SUCH_KEY" in str(caught.value)
    with FakeOpenAI() as server:
        with_llm(config(server), lambda llm: llm.chat(HELLO))
        localhost = config(server, base_url=server.base_url.replace("127.0.0.1", "localhost"))
        with_llm(localhost, lambda llm: llm.chat(HELLO))
    assert [h["authorization"] for h in server.headers] == ["Bearer sk-local"] * 2


def test_unknown_provider_is_refused() -> None:
    from rst_synth.llm import LLMConfigError

    with pytest.raises(LLMConfigError, match="unknown LLM provider 'nope'"):
        make_llm(LLMConfig(provider="nope", base_url="http://127.0.0.1:1/v1"))


def test_fake_server_answers_404_elsewhere_and_takes_dynamic_replies() -> None:
    import json
    import urllib.error
    import urllib.request

    with FakeOpenAI() as server:
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(server.base_url + "/models", timeout=5)
        assert caught.value.code == 404
        server.responder = lambda body: Reply(f"echo {len(body['messages'])}")
        server.script(Reply("scripted first"))
        request = urllib.request.Request(
            server.base_url + "/chat/completions",
            data=json.dumps({"model": "m", "messages": [{"role": "user", "content": "a b c"}]}).encode(),
            headers={"Content-Type": "application/json"},
        )
        replies = [json.load(urllib.request.urlopen(request, timeout=5)) for _ in range(2)]
    assert [r["choices"][0]["message"]["content"] for r in replies] == ["scripted first", "echo 1"]
    assert replies[0]["object"] == "chat.completion" and replies[0]["usage"]["prompt_tokens"] == 3
    assert replies[0]["model"] == "m" and len(server.requests) == 2
