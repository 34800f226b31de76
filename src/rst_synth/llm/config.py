"""LLMConfig: which endpoint and model, how patient, how parallel, what it costs.

Sources, lowest to highest precedence: the defaults below, the [llm] table of a TOML file,
environment variables (RST_LLM_*), explicit overrides (CLI options). The API key is never part
of the config: only the *name* of the variable holding it, read when the client is built.
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rst_synth.llm.prices import DEFAULT_PRICES, Price

ENV_VARS: dict[str, str] = {
    "RST_LLM_MODEL": "model",
    "RST_LLM_BASE_URL": "base_url",
    "RST_LLM_API_KEY_ENV": "api_key_env",
    "RST_LLM_MAX_CONCURRENCY": "max_concurrency",
}
"""Environment variables read by `LLMConfig.from_sources`, and the field each one sets."""


REMOTE_TIMEOUT_SEC = 180.0
"""Default limit of one attempt against a hosted API, which starts answering within seconds."""
LOCAL_TIMEOUT_SEC = 600.0
"""Default limit of one attempt against a self-hosted server. Measured: llama.cpp serving a 1.5B
model on 2 CPU cores reads a 2.8k-4.7k token prompt and writes its reply at about 9 tokens/s, and
sends nothing before the reply is complete; 180 s cut the first request short, and a retry starts
again from scratch."""


def is_self_hosted(base_url: str | None) -> bool:
    """True for an endpoint on this machine or a private network: a loopback, private or link-local
    address, `localhost`, a `.localhost`/`.local`/`.internal` name, or a name without a dot (a
    container or LAN host name)."""
    if not base_url:
        return False
    host = (urlparse(base_url).hostname or "").lower()
    if not host:
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." not in host or host.endswith((".localhost", ".local", ".internal"))
    return address.is_loopback or address.is_private or address.is_link_local


class LLMConfigError(ValueError):
    """The LLM configuration is unusable; the message is one line naming the source and field."""


class LLMConfig(BaseModel):
    """Settings of an LLM client; see `from_sources` for how they are gathered."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    provider: str = "openai"
    """Registry name of the client implementation (`rst_synth.llm.PROVIDERS`)."""
    model: str = "gpt-4.1-mini"
    """Model name sent with every request, and the key of the price table."""
    base_url: str | None = None
    """Endpoint root, e.g. "http://127.0.0.1:8000/v1"; None: the client's default (api.openai.com)."""
    api_key_env: str = "OPENAI_API_KEY"
    """Name of the environment variable holding the API key (the key itself is never stored here).
    When it is unset, a local base_url (127.0.0.1, localhost) still works with a placeholder key."""
    timeout_sec: float | None = Field(default=None, gt=0)
    """Limit of one HTTP attempt: the connection, then each wait for the next byte (a reply that is not
    streamed comes whole, so in practice the whole request); an attempt past it counts as a timeout.
    None: `REMOTE_TIMEOUT_SEC`, or `LOCAL_TIMEOUT_SEC` for a self-hosted endpoint (`is_self_hosted`)."""
    max_retries: int = Field(default=5, ge=0)
    """Further attempts after a retryable failure (429, 5xx, timeout, dropped connection)."""
    backoff_base_sec: float = Field(default=1.0, ge=0)
    """Wait before the first retry; doubled for each further one, with random jitter."""
    backoff_max_sec: float = Field(default=60.0, ge=0)
    """Longest wait between two attempts (also caps a server's Retry-After)."""
    max_concurrency: int = Field(default=8, ge=1)
    """Requests one client keeps in flight at most; further calls wait their turn."""
    temperature: float | None = Field(default=None, ge=0, le=2)
    """Sampling temperature when a call gives none; None: the server's default."""
    max_tokens: int | None = Field(default=None, ge=1)
    """Completion token limit when a call gives none; None: the server's default."""
    cache_dir: Path | None = None
    """Directory of the on-disk response cache; None: no cache, every call is sent."""
    prices: dict[str, Price] = Field(default_factory=dict)
    """Prices per model, added to (and overriding) the built-in list prices."""

    def request_timeout_sec(self) -> float:
        """`timeout_sec`, or its default for where `base_url` points."""
        if self.timeout_sec is not None:
            return self.timeout_sec
        return LOCAL_TIMEOUT_SEC if is_self_hosted(self.base_url) else REMOTE_TIMEOUT_SEC

    def price_table(self) -> dict[str, Price]:
        """The built-in list prices with this config's entries on top."""
        return {**DEFAULT_PRICES, **self.prices}

    @classmethod
    def from_sources(
        cls,
        config_file: Path | None = None,
        env: Mapping[str, str] | None = None,
        **overrides: Any,
    ) -> LLMConfig:
        """Defaults < `config_file` [llm] < RST_LLM_* in `env` (default: os.environ) < `overrides`
        (a None override means "not given"). Raises LLMConfigError naming the file and field."""
        env = os.environ if env is None else env
        data: dict[str, Any] = {}
        origin: dict[str, str] = {}  # field -> where its value came from, for error messages

        if config_file is not None:
            for key, value in _read_table(Path(config_file)).items():
                data[key] = value
                origin[key] = f"{config_file}: [llm] {key}"
        for var, key in ENV_VARS.items():
            value = env.get(var)
            if value is not None and value != "":
                data[key] = value
                origin[key] = f"environment variable {var}"
        for key, value in overrides.items():
            if value is None:
                continue
            if key not in cls.model_fields:
                raise LLMConfigError(f"unknown LLM setting {key!r}; known: {', '.join(cls.model_fields)}")
            data[key] = value
            origin[key] = f"option {key}"

        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise LLMConfigError(_describe(exc, origin)) from None

    @classmethod
    def of_endpoint(
        cls,
        model: str | None = None,
        base_url: str | None = None,
        llm_config_file: Path | str | None = None,
        cache_dir: Path | str | None = None,
    ) -> LLMConfig:
        """The config of the endpoint keywords every model-driven factory takes (the llm proposer's,
        the llm agent's), over an [llm] table in `llm_config_file` and the RST_LLM_* variables."""
        return cls.from_sources(
            Path(llm_config_file) if llm_config_file else None,
            None,
            model=model,
            base_url=base_url,
            cache_dir=Path(cache_dir) if cache_dir else None,
        )


def _read_table(path: Path) -> dict[str, Any]:
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LLMConfigError(f"{path}: config file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LLMConfigError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise LLMConfigError(f"{path}: not valid TOML: {exc}") from None
    table = document.get("llm", {})
    if not isinstance(table, dict):
        raise LLMConfigError(f"{path}: llm: expected a table [llm], got {type(table).__name__}")
    return table


def _describe(exc: ValidationError, origin: Mapping[str, str]) -> str:
    """All validation errors on one line, each with the source of the offending field."""
    parts = []
    for error in exc.errors():
        loc = [str(part) for part in error["loc"]]
        field = loc[0] if loc else "?"
        where = origin.get(field, f"llm.{field}")
        inner = ".".join(loc[1:])
        parts.append(f"{where}{'.' + inner if inner else ''}: {error['msg']}")
    return "bad LLM config: " + "; ".join(parts)
