"""The reference of serve-csv-http, called directly: `groups` on a CSV with quoting, CRLF, halves and an
empty field; the rendered server, started here, passes the step's tests (the live instance and a fresh one
on rewritten data); a server that rounds halves to even, reads its data once or accepts POST fails them."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.services.shipped import csv_server as shipped
from rst_synth.proposers.procedural.shipping import python_tool, render

DATA = 'amount,note,region\r\n0.125,a,"North, side"\r\n2,b,Zürich\r\n,c,Zürich\r\n-0.001,d,east\r\n1.10,e,Zürich\r\n'
REFERENCE = render(shipped, ["main"], GROUP="region", VALUE="amount")


def test_groups_sums_exactly() -> None:
    assert shipped.groups(DATA, "region", "amount") == {
        "North, side": {"rows": 1, "total": "0.13"},
        "Zürich": {"rows": 3, "total": "3.10"},
        "east": {"rows": 1, "total": "0.00"},
    }
    assert shipped.groups("", "region", "amount") == {}


START = {
    "python3 PROGRAM": lambda program: [sys.executable, program],
    "python3 -u PROGRAM": lambda program: [sys.executable, "-u", program],
    "setsid nohup PROGRAM, in its folder": lambda program: ["setsid", "nohup", "./" + Path(program).name],
}
"""Equivalent ways to run the server: its tests reach it by its port, whichever was used."""


def start(
    tmp_path: Path, code: str, data: Path, monkeypatch: pytest.MonkeyPatch, how: str = "python3 PROGRAM"
) -> subprocess.Popen[bytes]:
    server = tmp_path / "server.py"
    server.write_text(python_tool(code, "main()").replace("#!/usr/bin/env python3", f"#!{sys.executable}", 1))
    server.chmod(0o755)
    port = shipped.free_port()
    command = [*START[how](str(server)), "--port", str(port), "--data", str(data)]
    process = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.DEVNULL)
    monkeypatch.setattr(shipped, "SERVER", str(server))
    monkeypatch.setattr(shipped, "DATA", str(data))
    monkeypatch.setattr(shipped, "PORT", port)
    monkeypatch.setattr(shipped, "GROUP", "region")
    monkeypatch.setattr(shipped, "VALUE", "amount")
    shipped.wait_healthy(port)
    return process


@pytest.fixture
def data(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "ledger.csv"
    path.write_text(DATA, encoding="utf-8")
    (tmp_path / "fresh").mkdir()
    yield path


@pytest.mark.parametrize("how", sorted(START))
def test_the_reference_passes_its_tests(tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    assert 'ThreadingHTTPServer(("127.0.0.1", args.port)' in REFERENCE  # what discovery knows it by
    process = start(tmp_path, REFERENCE, data, monkeypatch, how)
    try:
        assert shipped.get(shipped.PORT, "/groups/" + "Z%C3%BCrich") == (200, '{"rows": 3, "total": "3.10"}')
        shipped.test_running_service_answers_from_the_result()
        shipped.test_service_rereads_fresh_data(tmp_path / "fresh")
    finally:
        process.kill()
        process.wait()


WRONG = {
    "halves to even": ("rounding=decimal.ROUND_HALF_UP", "rounding=decimal.ROUND_HALF_EVEN"),
    "data read once": (
        "table = groups(f.read(), group, value)",
        "table = ONCE.setdefault(0, groups(f.read(), group, value))",
    ),
    "POST accepted": ('self.reply(405, {"error": "method not allowed"})', "self.reply(200, {})"),
}


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_wrong_servers_fail(tmp_path: Path, data: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    right, bad = WRONG[wrong]
    assert right in REFERENCE
    process = start(tmp_path, "ONCE = {}\n" + REFERENCE.replace(right, bad), data, monkeypatch)
    try:
        with pytest.raises(AssertionError):
            shipped.test_running_service_answers_from_the_result()
            shipped.test_service_rereads_fresh_data(tmp_path / "fresh")
    finally:
        process.kill()
        process.wait()
