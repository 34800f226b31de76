"""The llm part: async chat completions with retries, usage and cost, and an on-disk cache.

config = LLMConfig.from_sources(Path("rst.toml"), os.environ, model=cli_model)
llm = make_llm(config)
try:
    result = await llm.chat([{"role": "user", "content": "hello"}])
finally:
    await llm.close()
"""

from __future__ import annotations

from rst_synth.llm.base import ERROR_REASONS, LLM, ChatResult, ErrorReason, LLMError, ToolCall
from rst_synth.llm.cache import ResponseCache, request_key
from rst_synth.llm.config import ENV_VARS, LLMConfig, LLMConfigError
from rst_synth.llm.prices import DEFAULT_PRICES, Price, PriceTable, cost_usd, find_price
from rst_synth.registry import resolve

PROVIDERS: dict[str, str] = {"openai": "rst_synth.llm.client:OpenAICompatibleLLM"}
"""Built-in clients by provider short name; any dotted path `package.module:factory` works too.
"openai" speaks the OpenAI chat-completions API, so it serves any compatible endpoint
(vLLM, DeepSeek, OpenRouter, llama.cpp server, ...) through `base_url`."""


def make_llm(config: LLMConfig) -> LLM:
    """The client for `config.provider`; reads the API key from the environment now.
    Raises LLMError("auth") when the key is missing and the endpoint is not local."""
    try:
        factory = resolve("LLM provider", config.provider, PROVIDERS)
    except ValueError as exc:
        raise LLMConfigError(str(exc)) from None
    llm: LLM = factory(config)
    return llm


__all__ = [
    "DEFAULT_PRICES",
    "ENV_VARS",
    "ERROR_REASONS",
    "LLM",
    "PROVIDERS",
    "ChatResult",
    "ErrorReason",
    "LLMConfig",
    "LLMConfigError",
    "LLMError",
    "Price",
    "PriceTable",
    "ToolCall",
    "ResponseCache",
    "cost_usd",
    "find_price",
    "make_llm",
    "request_key",
]
