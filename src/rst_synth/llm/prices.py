"""Prices per million tokens, and the cost of a call.

The defaults below are the providers' public list prices as we knew them (USD per million
tokens, standard tier, 2025); they drift, and discounts or batch tiers differ, so treat them as
a starting point and override them in the config ([llm.prices."model"]).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field

log = logging.getLogger(__name__)


class Price(BaseModel):
    """What one million tokens of a model cost, in USD."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_per_mtok: float = Field(ge=0)
    """Prompt tokens not served from the provider's prompt cache."""
    output_per_mtok: float = Field(ge=0)
    """Completion tokens."""
    cached_input_per_mtok: float | None = Field(default=None, ge=0)
    """Prompt tokens served from the provider's prompt cache; None: same as input."""


# List prices (input, output, cached input), to be overridden by config.
DEFAULT_PRICES: dict[str, Price] = {
    name: Price(input_per_mtok=i, output_per_mtok=o, cached_input_per_mtok=c)
    for name, (i, o, c) in {
        "gpt-4o": (2.50, 10.00, 1.25),
        "gpt-4o-mini": (0.15, 0.60, 0.075),
        "gpt-4.1": (2.00, 8.00, 0.50),
        "gpt-4.1-mini": (0.40, 1.60, 0.10),
        "gpt-4.1-nano": (0.10, 0.40, 0.025),
        "o3": (2.00, 8.00, 0.50),
        "o4-mini": (1.10, 4.40, 0.275),
        "gpt-5": (1.25, 10.00, 0.125),
        "gpt-5-mini": (0.25, 2.00, 0.025),
        "gpt-5-nano": (0.05, 0.40, 0.005),
        # DeepSeek V3.2 prices (chat and reasoner alike); "cached" is their cache-hit input price.
        "deepseek-chat": (0.28, 0.42, 0.028),
        "deepseek-reasoner": (0.28, 0.42, 0.028),
    }.items()
}


def find_price(model: str, prices: Mapping[str, Price]) -> Price | None:
    """The price of `model`: an exact entry, else the longest entry it extends with a dash
    (servers answer "gpt-4o-mini-2024-07-18" for "gpt-4o-mini"), also after a "vendor/" prefix."""
    for name in (model, model.rsplit("/", 1)[-1]):
        if name in prices:
            return prices[name]
        stems = [key for key in prices if name.startswith(key + "-")]
        if stems:
            return prices[max(stems, key=len)]
    return None


def price_cost(price: Price, tokens_in: int, tokens_out: int, cached: int = 0) -> float:
    """USD for one call; `cached` is the part of `tokens_in` the provider's prompt cache served."""
    cached = max(0, min(cached, tokens_in))
    cached_rate = price.input_per_mtok if price.cached_input_per_mtok is None else price.cached_input_per_mtok
    return (
        (tokens_in - cached) * price.input_per_mtok + cached * cached_rate + tokens_out * price.output_per_mtok
    ) / 1_000_000


class PriceTable:
    """Prices by model, warning once per unknown model (its calls then count as free)."""

    def __init__(self, prices: Mapping[str, Price] | None = None) -> None:
        self.prices: dict[str, Price] = dict(DEFAULT_PRICES if prices is None else prices)
        self._warned: set[str] = set()

    def cost(self, model: str, tokens_in: int, tokens_out: int, cached: int = 0, *, also: str | None = None) -> float:
        """The cost of a call to `model` (or, when that is unknown, to `also`: the name the
        server answered with)."""
        price = find_price(model, self.prices)
        if price is None and also:
            price = find_price(also, self.prices)
        if price is None:
            if model not in self._warned:
                self._warned.add(model)
                log.warning("no price for model %r: its calls count as $0; add it under [llm.prices]", model)
            return 0.0
        return price_cost(price, tokens_in, tokens_out, cached)


def cost_usd(
    model: str, tokens_in: int, tokens_out: int, cached: int = 0, prices: Mapping[str, Price] | None = None
) -> float:
    """USD for one call to `model` by `prices` (default: the list prices above); an unknown model
    costs 0.0 with one warning line."""
    return PriceTable(prices).cost(model, tokens_in, tokens_out, cached)
