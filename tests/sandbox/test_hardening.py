"""The sandbox's bounded readers and limit bookkeeping, without an engine."""

from __future__ import annotations

import asyncio
import io
import math
import tarfile

import pytest

from rst_synth.sandbox.base import Breach, ExecResult
from rst_synth.sandbox.hardening import (
    MAX_EXEC_SEC,
    ChunkReader,
    OutputCapture,
    exec_ceiling,
    in_daemon_thread,
    limit_counters,
)
from rst_synth.validator import Reason


def test_output_capture_keeps_head_and_tail_within_the_cap() -> None:
    capture = OutputCapture(cap=1000)
    capture.add(b"START" + b"a" * 300)
    for _ in range(1000):
        capture.add(b"b" * 97)
    capture.add(b"c" * 200 + b"END")
    text = capture.text()
    assert text.startswith("START") and text.endswith("END")
    assert capture.total == 5 + 300 + 97_000 + 203
    assert capture.dropped == capture.total - 1000
    assert f"[... {capture.dropped} bytes of output dropped ...]" in text
    assert len(text) < 1000 + 60


def test_output_capture_below_the_cap_is_verbatim() -> None:
    capture = OutputCapture(cap=1000)
    for part in (b"one\n", b"two\n", "ünï\n".encode()):
        capture.add(part)
    assert capture.text() == "one\ntwo\nünï\n" and capture.dropped == 0


def test_limit_counters_read_cgroup_v1_and_v2() -> None:
    v1 = "oom_kill_disable 0\nunder_oom 0\noom_kill 2\nmax 17\n"
    v2 = "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\nmax 0\n"  # memory.events then pids.events
    assert limit_counters(v1) == {"oom_kill": 2, "max": 17}
    assert limit_counters(v2)["oom_kill"] == 1
    assert limit_counters("cat: no such file\n") == {}


def test_every_breach_is_a_reason_code_of_the_same_name() -> None:
    for breach in Breach:
        assert Reason(breach.value).value == breach.value


def test_exec_ceiling_bounds_every_timeout() -> None:
    assert exec_ceiling(30) == 30
    for wild in (math.inf, math.nan, -1.0, 0.0, 1e12):
        assert exec_ceiling(wild) == MAX_EXEC_SEC
    assert exec_ceiling(500, ceiling=60) == 60


def test_a_breach_makes_an_exec_not_ok() -> None:
    assert ExecResult(0, "", 0.1).ok
    assert not ExecResult(0, "", 0.1, breach=Breach.MEMORY).ok


def test_chunk_reader_streams_a_tar_and_stops_at_what_was_asked() -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo("big.txt")
        body = b"x" * 100_000
        info.size = len(body)
        tar.addfile(info, io.BytesIO(body))
    data = buffer.getvalue()
    pulled: list[int] = []

    def chunks():  # type: ignore[no-untyped-def]
        for start in range(0, len(data), 4096):
            pulled.append(start)
            yield data[start : start + 4096]

    with tarfile.open(fileobj=io.BufferedReader(ChunkReader(chunks())), mode="r|") as tar:
        member = next(iter(tar))
        handle = tar.extractfile(member)
        assert handle is not None
        assert handle.read(1000) == b"x" * 1000
    assert len(pulled) < len(data) // 4096  # the rest of the stream was never read


def test_daemon_thread_calls_return_and_raise_into_the_loop() -> None:
    async def main() -> None:
        assert await in_daemon_thread(lambda: 41 + 1) == 42

        def boom() -> None:
            raise ValueError("from the thread")

        with pytest.raises(ValueError, match="from the thread"):
            await in_daemon_thread(boom)

    asyncio.run(main())
