"""file_state: a scan cut short is an error, never half a state (every file it missed would look new)."""

from __future__ import annotations

import asyncio
from pathlib import PurePosixPath
from typing import Any

import pytest

from rst_synth.sandbox import ExecResult, SandboxError
from rst_synth.sandbox.listing import file_state

HASH = "ab" * 32


class OneExec:
    """A container whose only exec returns `result`."""

    def __init__(self, result: ExecResult) -> None:
        self.result = result

    async def exec(self, command: str, **kwargs: Any) -> ExecResult:
        return self.result

    async def read_file(self, path: PurePosixPath) -> bytes | None:
        return None


def test_a_finished_scan_is_parsed_and_a_cut_one_raises() -> None:
    done = ExecResult(exit_code=0, output=f"S\t3\t/app/a\n{HASH}  /app/a\n", duration_sec=0.1)
    state = asyncio.run(file_state(OneExec(done)))  # type: ignore[arg-type]
    assert list(state) == ["/app/a"] and state["/app/a"].size == 3
    cut = ExecResult(exit_code=None, output=f"S\t3\t/app/a\n{HASH}  /app/a\n", duration_sec=300, timed_out=True)
    with pytest.raises(SandboxError, match="did not finish"):
        asyncio.run(file_state(OneExec(cut)))  # type: ignore[arg-type]
