"""The on-disk response cache on its own: keys, files, tolerance of damage."""

from __future__ import annotations

import json
from pathlib import Path

from rst_synth.llm import ChatResult, ResponseCache, request_key

MESSAGES = [{"role": "user", "content": "hi"}]


def result(**changes: object) -> ChatResult:
    fields: dict[str, object] = {
        "text": "hello",
        "tokens_in": 3,
        "tokens_out": 1,
        "cost_usd": 0.01,
        "cache_hit": False,
        "model": "m",
    }
    fields.update(changes)
    return ChatResult.model_validate(fields)


def test_key_is_stable_and_covers_every_request_field() -> None:
    key = request_key("m", MESSAGES, 0.2, 100, 1)
    assert key == request_key("m", [{"content": "hi", "role": "user"}], 0.2, 100, 1)  # key order is irrelevant
    assert len(key) == 64 and int(key, 16) >= 0
    variants = {
        request_key("m2", MESSAGES, 0.2, 100, 1),
        request_key("m", [{"role": "user", "content": "hi!"}], 0.2, 100, 1),
        request_key("m", MESSAGES, 0.3, 100, 1),
        request_key("m", MESSAGES, 0.2, 101, 1),
        request_key("m", MESSAGES, 0.2, 100, 2),
        request_key("m", MESSAGES, None, 100, 1),
    }
    assert key not in variants and len(variants) == 6


def test_round_trip_marks_hits(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = request_key("m", MESSAGES, None, None, None)
    assert cache.get(key) is None
    cache.put(key, result(), {"model": "m", "messages": MESSAGES})
    path = tmp_path / key[:2] / f"{key}.json"
    assert path.is_file() and json.loads(path.read_text())["result"]["cost_usd"] == 0.01
    hit = cache.get(key)
    assert hit == result(cache_hit=True, cost_usd=0.0)
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temp file left


def test_damaged_entries_are_misses(tmp_path: Path) -> None:
    cache = ResponseCache(tmp_path)
    key = request_key("m", MESSAGES, None, None, None)
    cache.put(key, result())
    path = cache.path(key)
    for damage in ("", "{", "[]", '{"result": {"text": 1}}', "\xff\xfe"):
        path.write_text(damage, encoding="latin-1")
        assert cache.get(key) is None
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert cache.get(key) is None


def test_unwritable_cache_does_not_fail_the_call(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = ResponseCache(blocker)
    cache.put("ab" * 32, result())  # logged, not raised
    assert cache.get("ab" * 32) is None
