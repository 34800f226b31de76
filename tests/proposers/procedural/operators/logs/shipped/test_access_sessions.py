"""The reference of access-log-sessions, called directly: its `main` as a tool passes the tests (times in
UTC, exactly the gap apart still one session, bad arguments exit 2); a tool that splits at the gap itself,
or exits 1 on bad arguments, fails them."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import rst_synth
from rst_synth.proposers.procedural.operators.logs.shipped import access_sessions as shipped

LOG = (
    'a - - [01/Apr/2026:10:00:00 +0200] "GET / HTTP/1.1" 200 10\n'
    'a - - [01/Apr/2026:08:15:00 +0000] "GET / HTTP/1.1" 404 -\n'  # exactly 15 minutes after, in UTC
    'b - - [01/Apr/2026:08:01:00 +0000] "GET / HTTP/1.1" 500 7\n'
    "junk\n"
    'a - - [01/Apr/2026:08:31:00 +0000] "GET / HTTP/1.1" 200 1\n'
)


def tool(tmp_path: Path, body: str) -> str:
    path = tmp_path / "sessions"
    src = Path(rst_synth.__file__).parents[1]
    path.write_text(f"#!{sys.executable}\nimport sys\nsys.path.insert(0, {str(src)!r})\n{body}")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "access.log"
    src.write_text(LOG)
    for name, value in {"LOG": str(src), "OUT": str(tmp_path / "sessions.csv"), "GAP": 15, "SEED": 5}.items():
        monkeypatch.setattr(shipped, name, value)
    (tmp_path / "fresh").mkdir()
    return tmp_path


def test_the_reference_passes_its_tests(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "TOOL", tool(run, f"from {shipped.__name__} import main\nsys.exit(main(sys.argv))\n"))
    done = shipped.run_tool(shipped.TOOL, shipped.LOG, 15)
    assert done.returncode == 0
    assert done.stdout.decode().splitlines() == [
        "client,start,end,requests,bytes,errors",
        "a,2026-04-01T08:00:00Z,2026-04-01T08:15:00Z,2,10,1",
        "b,2026-04-01T08:01:00Z,2026-04-01T08:01:00Z,1,7,1",
        "a,2026-04-01T08:31:00Z,2026-04-01T08:31:00Z,1,1,0",
    ]
    Path(shipped.OUT).write_bytes(done.stdout)
    shipped.test_sessions_of_the_log()
    shipped.test_tool_on_fresh_logs(run / "fresh")
    shipped.test_tool_rejects_bad_arguments(run)


def test_a_split_at_the_gap_itself_fails(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = (
        f"import {shipped.__name__} as m\n_s = m.sessions\n"
        "m.sessions = lambda text, gap: _s(text, gap - 0.001)\nsys.exit(m.main(sys.argv))\n"
    )
    monkeypatch.setattr(shipped, "TOOL", tool(run, body))
    with pytest.raises(AssertionError):
        shipped.test_tool_on_fresh_logs(run / "fresh")


def test_exit_1_on_bad_arguments_fails(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    body = f"from {shipped.__name__} import main\nsys.exit(1 if main(sys.argv) == 2 else 0)\n"
    monkeypatch.setattr(shipped, "TOOL", tool(run, body))
    with pytest.raises(AssertionError):
        shipped.test_tool_rejects_bad_arguments(run)
