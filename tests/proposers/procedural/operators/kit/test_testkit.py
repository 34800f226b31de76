"""The generated tests' helpers, called directly: a tool run under a memory cap, the process that listens
on a port and the port of a process, an HTTP call, polling."""

from __future__ import annotations

import pathlib
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


def _called(code: str) -> subprocess.CompletedProcess[bytes]:
    return testkit.run_tool(sys.executable, "-c", code)


def test_a_usage_error_needs_status_2_a_quiet_stdout_and_a_reason() -> None:
    refused = "import sys; sys.exit('usage: tool FILE')"
    testkit.assert_usage_error(_called(refused.replace("sys.exit(", "sys.stderr.write(") + "; sys.exit(2)"))
    testkit.assert_usage_error(_called("import sys; sys.stderr.write('bad FILE'); sys.exit(2)"), says=b"FILE")
    for wrong in (
        "import sys; sys.stderr.write('bad'); sys.exit(1)",  # another status
        "import sys; print('partial'); sys.stderr.write('bad'); sys.exit(2)",  # output on stdout
        "import sys; sys.exit(2)",  # no reason given
    ):
        try:
            testkit.assert_usage_error(_called(wrong))
        except AssertionError:
            continue
        raise AssertionError(f"accepted: {wrong}")
    try:
        testkit.assert_usage_error(_called("import sys; sys.stderr.write('bad'); sys.exit(2)"), says=b"FILE")
    except AssertionError:
        return
    raise AssertionError("accepted a reason that does not name the file")


def test_same_text_allows_only_a_missing_last_newline(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "out.txt"
    out.write_text("a\nb")
    testkit.assert_same_text(str(out), "a\nb\n")
    testkit.assert_same_text(str(out), "a\nb")
    try:
        testkit.assert_same_text(str(out), "a\nb\n\n")
    except AssertionError:
        return
    raise AssertionError("accepted a different text")


def _started(command: list[str], cwd: pathlib.Path) -> tuple[subprocess.Popen[str], int]:
    service = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, text=True)
    assert service.stdout is not None
    return service, int(service.stdout.readline())


def test_a_service_is_found_however_it_was_started(tmp_path: pathlib.Path) -> None:
    """`python3 -u PROGRAM` once got reward 0 from a test that looked for PROGRAM in argv[:2]."""
    script = tmp_path / "svc" / "server.py"
    script.parent.mkdir()
    script.write_text(SERVER)
    other = tmp_path / "elsewhere"
    other.mkdir()
    ways = [
        ([sys.executable, "-u", str(script), "--port", "0"], other),  # an interpreter flag
        (["env", "PYTHONUNBUFFERED=1", sys.executable, "server.py"], script.parent),  # env, a relative path
        (["setsid", "nohup", sys.executable, str(script)], other),  # detached
        (["timeout", "60", sys.executable, str(script)], other),  # a wrapper that stays as the parent
    ]
    for command, cwd in ways:
        service, port = _started(command, cwd)
        try:
            pid = testkit.eventually(lambda: testkit.serving(str(script)))
            assert pid is not None and testkit.port_of(pid) == port, command
            assert testkit.runs(pid, str(script)) and testkit.listener(port) == pid, command
        finally:
            service.kill()
            service.wait()
            subprocess.run(["pkill", "-f", str(script)], check=False)
    assert testkit.serving(str(script)) is None


def test_csv_rows_read_quoting_and_line_endings(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "out.csv"
    out.write_bytes('k,v\r\n"a,b",1\r\n\r\n"two\nlines",ü\r\n'.encode())
    assert testkit.csv_rows(out) == [["k", "v"], ["a,b", "1"], ["two\nlines", "ü"]]  # the blank line left out
    assert testkit.csv_text_rows('k,v\n"a,b",1\n\n') == [["k", "v"], ["a,b", "1"], []]  # a printed table, as it is
