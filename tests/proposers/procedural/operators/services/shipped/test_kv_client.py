"""The reference of kv-client-tool, called directly against a kvd (the loopback-kv-service seed) started
here: `live_port` finds its port, the rendered client (its DEFAULT_PORT set as the solution's sed sets it)
dumps the store and passes the step's tests; a client that sends a prefix unencoded, one that sends any N
to `incr` and one that exits 1 when nothing answers fail them."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.services.shipped import kv_client as shipped
from rst_synth.proposers.procedural.shipping import render
from tests.support.shipped import tool_file
from tests.support.tasks import SEEDS

KVD = (SEEDS / "loopback-kv-service" / "environment" / "kvd.py").read_text()
REFERENCE = render(shipped, ["main"])
STORE = {"stock:SKU-1": "12", "stock:SKU-2": "-3", "moves:a b": "40", "moves:ü+x": "line\nnext"}


START = {
    "python3 PROGRAM": lambda program: [sys.executable, program],
    "python3 -u PROGRAM": lambda program: [sys.executable, "-u", program],
    "env python3 NAME, in its folder": lambda program: ["env", sys.executable, Path(program).name],
    "setsid nohup python3 PROGRAM": lambda program: ["setsid", "nohup", sys.executable, program],
}
"""Equivalent ways to start the service that the instruction allows (`run it with python3`)."""


@pytest.fixture
def kvd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[int]:
    """A kvd copy under tmp_path on a free port holding STORE, started one of the START ways; the shipped
    module's constants point at it."""
    program = tmp_path / "kvd.py"
    program.write_text(KVD)
    port = shipped.free_port()
    command = [*START[getattr(request, "param", "python3 PROGRAM")](str(program)), "--host", "127.0.0.1"]
    command += ["--port", str(port)]
    server = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert shipped.eventually(lambda: shipped.listener(port)), "kvd did not start"
    for key, value in STORE.items():
        assert shipped.http(port, "/kv/" + urllib.parse.quote(key, safe=""), "PUT", value.encode())[0] == 200
    monkeypatch.setattr(shipped, "PROGRAM", str(program))
    monkeypatch.setattr(shipped, "HOST_OPTION", True)
    monkeypatch.setattr(shipped, "PORT", port)
    monkeypatch.setattr(shipped, "DUMP", str(tmp_path / "dump.json"))
    (tmp_path / "fresh").mkdir()
    try:
        yield port
    finally:
        server.kill()
        server.wait()


def client(path: Path, port: int, code: str = REFERENCE) -> str:
    code, found = re.subn(r"^DEFAULT_PORT = 0$", f"DEFAULT_PORT = {port}", code, flags=re.MULTILINE)
    assert found == 1  # the line the solution's sed rewrites
    return tool_file(path, code)


@pytest.mark.parametrize("kvd", sorted(START), indirect=True)
def test_the_reference_passes_its_tests(kvd: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert shipped.live_port() == kvd
    monkeypatch.setattr(shipped, "TOOL", client(tmp_path / "kvdctl", kvd))
    with open(shipped.DUMP, "wb") as out:
        assert subprocess.run([shipped.TOOL, "dump"], stdout=out).returncode == 0
    assert shipped.ctl("get", "moves:ü+x") == (0, "line\nnext")
    shipped.test_dump_of_the_live_store()
    shipped.test_tool_reads_the_live_service()
    shipped.test_tool_speaks_the_protocol(tmp_path / "fresh")


WRONG = {
    "prefix sent unencoded": ('"/keys?prefix=" + urllib.parse.quote(prefix, safe="")', '"/keys?prefix=" + prefix'),
    "incr takes any N": ('re.fullmatch(r"[+-]?\\d+", args[1])', "args[1]"),
    "exit 1 when unreachable": ("        return 3\n", "        return 1\n"),
}


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_wrong_clients_fail(kvd: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    right, bad = WRONG[wrong]
    assert right in REFERENCE
    monkeypatch.setattr(shipped, "TOOL", client(tmp_path / "kvdctl", kvd, REFERENCE.replace(right, bad)))
    shipped.test_tool_reads_the_live_service()  # what these wrong clients still get right
    with pytest.raises(AssertionError):
        shipped.test_tool_speaks_the_protocol(tmp_path / "fresh")
