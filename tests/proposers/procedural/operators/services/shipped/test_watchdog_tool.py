"""The reference of service-watchdog, called directly: its `main` refuses a call without `--`, `show_pid`
finds the process running a program, and the rendered tool passes the step's tests: on a groups server put
under it as the solution does (killed, back on its port with the same log), and on processes the tests
start; a tool that leaves its pid file behind on SIGTERM fails them."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.services.shipped import csv_server
from rst_synth.proposers.procedural.operators.services.shipped import watchdog as shipped
from rst_synth.proposers.procedural.shipping import python_tool, render
from tests.support.shipped import tool_file

REFERENCE = render(shipped, ["main"])


def test_main_needs_the_separator(capsys: pytest.CaptureFixture[str]) -> None:
    assert shipped.main(["watchdog", "pid", "log", "sleep", "1"]) == 2
    assert shipped.main(["watchdog", "pid", "log", "--"]) == 2
    assert "usage:" in capsys.readouterr().err


def test_show_pid_finds_the_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "svc.py"
    program.write_text("import time\ntime.sleep(60)\n")
    process = subprocess.Popen([sys.executable, str(program)])
    try:
        monkeypatch.setattr(shipped, "PROGRAM", str(program))
        assert shipped.eventually(lambda: shipped.serving(str(program)))
        shipped.show_pid()
        assert capsys.readouterr().out == f"{process.pid}\n"
    finally:
        process.kill()
        process.wait()
    shipped.show_pid()
    assert capsys.readouterr().out == "None\n"


START = {
    "python3 PROGRAM": lambda program: [sys.executable, program],
    "python3 -u PROGRAM": lambda program: [sys.executable, "-u", program],
    "env python3 NAME, in its folder": lambda program: ["env", sys.executable, Path(program).name],
}
"""Equivalent ways to run the service that the instruction allows: the tests find it whichever was used."""


@pytest.fixture
def service(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[Path]:
    """A groups server on a free port under the reference watchdog, put there as the step's solution does,
    started one of the START ways."""
    server, data, log = tmp_path / "server.py", tmp_path / "data.csv", tmp_path / "server.log"
    server.write_text(python_tool(render(csv_server, ["main"], GROUP="k", VALUE="v"), "main()"))
    data.write_text("k,v\na,1\n")
    port = csv_server.free_port()
    start = START[getattr(request, "param", "python3 PROGRAM")](str(server))
    command = [*start, "--port", str(port), "--data", str(data)]
    monkeypatch.chdir(tmp_path)  # the watchdog starts its command again from its own working directory
    with log.open("ab") as out:
        first = subprocess.Popen(command, stdout=out, stderr=out, start_new_session=True)
    csv_server.wait_healthy(port)
    for name, value in {
        "TOOL": tool_file(tmp_path / "watchdog", REFERENCE),
        "PIDFILE": str(tmp_path / "svc.pid"),
        "WATCHDOG_PIDFILE": str(tmp_path / "watchdog.pid"),
        "PROGRAM": str(server),
        "PROTOCOL": "groups",
        "FALLBACK_LOG": str(tmp_path / "fallback.log"),
    }.items():
        monkeypatch.setattr(shipped, name, value)
    Path(shipped.PIDFILE).write_text(f"{first.pid}\n")
    watchdog = subprocess.Popen([shipped.TOOL, shipped.PIDFILE, str(log), "--", *command], **shipped.QUIET)
    Path(shipped.WATCHDOG_PIDFILE).write_text(f"{watchdog.pid}\n")
    (tmp_path / "fresh").mkdir()
    try:
        yield tmp_path
    finally:
        watchdog.send_signal(signal.SIGTERM)
        assert watchdog.wait(timeout=15) == 0
        first.kill()
        first.wait()


@pytest.mark.parametrize("service", sorted(START), indirect=True)
def test_the_reference_passes_its_tests(service: Path) -> None:
    before = shipped.pid_in(shipped.PIDFILE)
    shipped.test_watchdog_brings_the_service_back()
    assert shipped.pid_in(shipped.PIDFILE) not in (None, before)
    shipped.test_watchdog_starts_restarts_and_stops(service / "fresh")


def test_a_watchdog_that_keeps_its_pid_file_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    right = "os.remove(pidfile)"
    assert right in REFERENCE
    monkeypatch.setattr(shipped, "TOOL", tool_file(tmp_path / "watchdog", REFERENCE.replace(right, "pass")))
    with pytest.raises(AssertionError):
        shipped.test_watchdog_starts_restarts_and_stops(tmp_path)
    left = [p for p in os.listdir("/proc") if p.isdigit() and str(tmp_path) in " ".join(shipped.argv_of(p))]
    assert left == [], "the tests' clean-up left processes behind"
