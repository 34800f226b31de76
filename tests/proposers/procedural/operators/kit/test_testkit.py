"""The generated tests' helpers, called directly: a tool run under a memory cap, the process that listens
on a port and the port of a process, an HTTP call, polling."""

from __future__ import annotations

import subprocess
import sys

from rst_synth.proposers.procedural.operators.kit import testkit


def test_run_tool_captures_and_caps_memory() -> None:
    done = testkit.run_tool(sys.executable, "-c", "import sys; print(sys.stdin.read().upper())", stdin=b"hi")
    assert done.returncode == 0 and done.stdout == b"HI\n"
    greedy = testkit.run_tool(sys.executable, "-c", "x = bytearray(512 * 1024 * 1024)", limit_mb=256)
    assert greedy.returncode != 0 and b"MemoryError" in greedy.stderr


SERVER = (
    "import http.server, sys\n"
    "server = http.server.HTTPServer(('127.0.0.1', 0), http.server.SimpleHTTPRequestHandler)\n"
    "print(server.server_address[1], flush=True)\n"
    "server.serve_forever()\n"
)


def test_a_listener_is_found_by_its_port_and_its_port_by_its_pid() -> None:
    service = subprocess.Popen([sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True)
    try:
        assert service.stdout is not None
        port = int(service.stdout.readline())
        assert testkit.eventually(lambda: testkit.listener(port)) == service.pid
        assert testkit.port_of(service.pid) == port
        assert testkit.http(port, "/")[0] == 200
        assert testkit.argv_of(service.pid)[1:3] == ["-c", SERVER]
    finally:
        service.kill()
        service.wait()
    assert not testkit.alive(service.pid)
    assert testkit.listener(port) is None
