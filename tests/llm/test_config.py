"""LLMConfig sources and their precedence, config errors, prices and cost."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from rst_synth.llm import DEFAULT_PRICES, LLMConfig, LLMConfigError, Price, PriceTable, cost_usd, find_price

TOML = """\
[llm]
model = "file-model"
base_url = "http://file.example/v1"
max_concurrency = 3
temperature = 0.5
timeout_sec = 30
cache_dir = "cache"

[llm.prices.file-model]
input_per_mtok = 1.0
output_per_mtok = 2.0

[other]
ignored = true
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "rst.toml"
    path.write_text(text)
    return path


def test_defaults() -> None:
    cfg = LLMConfig.from_sources(None, {})
    assert cfg == LLMConfig()
    assert (cfg.provider, cfg.api_key_env, cfg.base_url, cfg.cache_dir) == ("openai", "OPENAI_API_KEY", None, None)
    assert (cfg.max_retries, cfg.backoff_base_sec) == (5, 1.0)
    assert cfg.price_table() == DEFAULT_PRICES


@pytest.mark.parametrize(
    "base_url, timeout",
    [
        (None, 180.0),
        ("https://api.deepseek.com/v1", 180.0),
        ("http://8.8.8.8:8000/v1", 180.0),
        ("http://127.0.0.1:8080/v1", 600.0),
        ("http://localhost:8080/v1", 600.0),
        ("http://[::1]:8080/v1", 600.0),
        ("http://192.168.1.20:8000/v1", 600.0),
        ("http://10.0.0.7/v1", 600.0),
        ("http://llama:8080/v1", 600.0),  # a container or LAN host name
        ("http://gpu-box.local:8000/v1", 600.0),
    ],
)
def test_the_default_timeout_is_scaled_for_self_hosted_endpoints(base_url: str | None, timeout: float) -> None:
    assert LLMConfig(base_url=base_url).request_timeout_sec() == timeout
    assert LLMConfig(base_url=base_url, timeout_sec=42).request_timeout_sec() == 42.0  # a given limit wins


def test_file_then_env_then_overrides(tmp_path: Path) -> None:
    path = write(tmp_path, TOML)
    from_file = LLMConfig.from_sources(path, {})
    assert (from_file.model, from_file.base_url, from_file.max_concurrency) == (
        "file-model",
        "http://file.example/v1",
        3,
    )
    assert (from_file.temperature, from_file.timeout_sec, from_file.cache_dir) == (0.5, 30.0, Path("cache"))
    assert from_file.price_table()["file-model"] == Price(input_per_mtok=1.0, output_per_mtok=2.0)
    assert from_file.price_table()["gpt-4o"] == DEFAULT_PRICES["gpt-4o"]  # defaults kept

    env = {
        "RST_LLM_MODEL": "env-model",
        "RST_LLM_BASE_URL": "http://env.example/v1",
        "RST_LLM_API_KEY_ENV": "DEEPSEEK_API_KEY",
        "RST_LLM_MAX_CONCURRENCY": "5",
        "OPENAI_API_KEY": "sk-never-read-here",
    }
    from_env = LLMConfig.from_sources(path, env)
    assert (from_env.model, from_env.base_url, from_env.api_key_env) == (
        "env-model",
        "http://env.example/v1",
        "DEEPSEEK_API_KEY",
    )
    assert from_env.max_concurrency == 5 and from_env.temperature == 0.5  # the file still counts below env
    assert "sk-never-read-here" not in from_env.model_dump_json()

    final = LLMConfig.from_sources(path, env, model="cli-model", max_concurrency=None, base_url=None, max_retries=1)
    assert (final.model, final.max_concurrency, final.base_url, final.max_retries) == (
        "cli-model",
        5,
        "http://env.example/v1",
        1,
    )


def test_empty_env_values_count_as_unset() -> None:
    assert LLMConfig.from_sources(None, {"RST_LLM_MODEL": "", "RST_LLM_BASE_URL": ""}) == LLMConfig()


def test_env_defaults_to_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RST_LLM_MODEL", "from-os-environ")
    assert LLMConfig.from_sources().model == "from-os-environ"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("[llm\nmodel = 1\n", "not valid TOML"),
        ('[llm]\nmodel = "a"\nmodel = "b"\n', "not valid TOML"),
        ('[llm]\nmax_retries = "many"\n', "[llm] max_retries: Input should be a valid integer"),
        ("[llm]\nmax_concurrency = 0\n", "[llm] max_concurrency: Input should be greater than or equal to 1"),
        ("[llm]\ntemprature = 0.2\n", "[llm] temprature: Extra inputs are not permitted"),
        ("[llm.prices.m]\ninput_per_mtok = 1\n", "[llm] prices.m.output_per_mtok: Field required"),
        ('llm = "gpt-4o"\n', "llm: expected a table [llm]"),
    ],
)
def test_bad_file_is_one_line_naming_file_and_field(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(LLMConfigError) as caught:
        LLMConfig.from_sources(path, {})
    message = str(caught.value)
    assert str(path) in message and expected in message and "\n" not in message


def test_missing_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(LLMConfigError, match="config file not found"):
        LLMConfig.from_sources(tmp_path / "nope.toml", {})


def test_bad_env_and_override_values_name_their_source() -> None:
    with pytest.raises(
        LLMConfigError, match="environment variable RST_LLM_MAX_CONCURRENCY: Input should be a valid integer"
    ):
        LLMConfig.from_sources(None, {"RST_LLM_MAX_CONCURRENCY": "lots"})
    with pytest.raises(LLMConfigError, match="option timeout_sec: Input should be greater than 0"):
        LLMConfig.from_sources(None, {}, timeout_sec=0)
    with pytest.raises(LLMConfigError, match="unknown LLM setting 'modle'"):
        LLMConfig.from_sources(None, {}, modle="x")


def test_config_file_without_llm_table_gives_defaults(tmp_path: Path) -> None:
    assert LLMConfig.from_sources(write(tmp_path, "[other]\nx = 1\n"), {}) == LLMConfig()


def test_cost_of_known_models() -> None:
    assert cost_usd("gpt-4o", 1_000_000, 0) == pytest.approx(2.50)
    assert cost_usd("gpt-4o", 0, 1_000_000) == pytest.approx(10.00)
    assert cost_usd("gpt-4o", 1_000_000, 0, cached=1_000_000) == pytest.approx(1.25)
    assert cost_usd("gpt-4o-mini", 2000, 1000, cached=1000) == pytest.approx(
        (1000 * 0.15 + 1000 * 0.075 + 1000 * 0.60) / 1e6
    )
    assert cost_usd("deepseek-chat", 1_000_000, 1_000_000) == pytest.approx(0.28 + 0.42)
    for name in ("gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "deepseek-chat", "deepseek-reasoner"):
        assert name in DEFAULT_PRICES
    # cached can never exceed the prompt, nor go negative
    assert cost_usd("gpt-4o", 10, 0, cached=50) == cost_usd("gpt-4o", 10, 0, cached=10)


def test_cached_price_defaults_to_input_price() -> None:
    prices = {"m": Price(input_per_mtok=4.0, output_per_mtok=8.0)}
    assert cost_usd("m", 1_000_000, 0, cached=500_000, prices=prices) == pytest.approx(4.0)


def test_model_names_with_suffixes_and_vendor_prefixes() -> None:
    assert find_price("gpt-4o-mini-2024-07-18", DEFAULT_PRICES) == DEFAULT_PRICES["gpt-4o-mini"]
    assert find_price("gpt-4o-2024-08-06", DEFAULT_PRICES) == DEFAULT_PRICES["gpt-4o"]
    assert find_price("openai/gpt-4.1-mini", DEFAULT_PRICES) == DEFAULT_PRICES["gpt-4.1-mini"]
    assert find_price("gpt-4omni", DEFAULT_PRICES) is None


def test_unknown_model_is_free_with_one_warning(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    table = PriceTable()
    assert table.cost("mystery-model", 1000, 1000) == 0.0
    assert table.cost("mystery-model", 1000, 1000) == 0.0
    assert table.cost("mystery-model", 5, 5, also="gpt-4o") > 0  # the name the server answered with
    warnings = [r for r in caplog.records if "mystery-model" in r.getMessage()]
    assert len(warnings) == 1 and "\n" not in warnings[0].getMessage()
    assert cost_usd("another-mystery", 1, 1) == 0.0


def test_config_prices_override_the_list_prices(tmp_path: Path) -> None:
    path = write(
        tmp_path, "[llm.prices.gpt-4o]\ninput_per_mtok = 1.0\noutput_per_mtok = 1.0\ncached_input_per_mtok = 0.0\n"
    )
    table = PriceTable(LLMConfig.from_sources(path, {}).price_table())
    assert table.cost("gpt-4o", 1_000_000, 1_000_000, cached=500_000) == pytest.approx(1.5)
