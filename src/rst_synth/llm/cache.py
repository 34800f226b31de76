"""On-disk response cache: the same request twice is answered from disk the second time.

One JSON file per request under `root/ab/abcdef....json`, named by the sha256 of the request's
canonical JSON (model, messages, temperature, max_tokens, seed): never the API key nor the base
URL. Writes are atomic (temp file + os.replace), so concurrent writers and a crash mid-write
leave either the old file or the new one; a file that does not parse is a miss, not an error.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tempfile
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from rst_synth.llm.base import ChatResult

log = logging.getLogger(__name__)

CACHE_VERSION = 1
"""Part of every key: bump it when what a key means changes, and old entries stop matching."""


def request_key(
    model: str,
    messages: list[dict[str, Any]],
    temperature: float | None,
    max_tokens: int | None,
    seed: int | None,
    tools: list[dict[str, Any]] | None = None,
) -> str:
    """The sha256 hex digest of the request's canonical JSON (sorted keys, no spaces)."""
    material = {
        "v": CACHE_VERSION,
        "model": model,
        "messages": messages,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "seed": seed,
    }
    if tools is not None:  # keys of requests without tools stay what they were
        material["tools"] = tools
    canonical = json.dumps(material, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class ResponseCache:
    """Chat results by request key, one small JSON file each."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> ChatResult | None:
        """The stored result marked as a cache hit (cost 0), or None for a miss or a bad file."""
        path = self.path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            result = ChatResult.model_validate(entry["result"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError, ValidationError) as exc:
            log.warning("ignoring unreadable cache entry %s: %s", path, type(exc).__name__)
            return None
        return result.model_copy(update={"cache_hit": True, "cost_usd": 0.0})

    def put(self, key: str, result: ChatResult, request: dict[str, Any] | None = None) -> None:
        """Store `result` (as it was billed) atomically; `request` is kept beside it for people
        reading the cache, and must hold no secret. A failed write is logged, never raised."""
        path = self.path(key)
        entry = {"version": CACHE_VERSION, "key": key, "request": request, "result": result.model_dump()}
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{key[:16]}.", suffix=".tmp", dir=path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(entry, handle, ensure_ascii=False, indent=1)
                os.replace(tmp, path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError as exc:
            # Losing a cache entry costs one repeated call later; failing the run would cost more.
            log.warning("could not write cache entry %s: %s", path, exc)
