"""One way to name a swappable part (sandbox, LLM provider, proposer, agent, executor): a short
name from the part's own table of built-ins, or any dotted path `package.module:factory`, so an
outside package adds a backend without editing ours.

A leaf module like `task`: every part may import it, it imports nothing of ours.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def resolve(kind: str, name: str, builtins: Mapping[str, str]) -> Callable[..., Any]:
    """The factory `name` stands for; ValueError (one line) when it is unknown or cannot be imported."""
    target = builtins.get(name, name)
    if ":" in target:
        module_name, _, attribute = target.partition(":")
    elif "." in target:
        module_name, _, attribute = target.rpartition(".")
    else:
        known = ", ".join(sorted(builtins))
        raise ValueError(f"unknown {kind} {name!r}; known: {known}, or a dotted path package.module:factory")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(f"{kind} {name!r}: cannot import {module_name}: {exc}") from None
    factory: Callable[..., Any] | None = getattr(module, attribute, None)
    if not callable(factory):
        raise ValueError(f"{kind} {name!r}: {module_name} has no factory {attribute!r}")
    return factory
