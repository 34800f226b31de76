"""The service operators (service-watchdog, kv-client-tool): which running services discovery's files reveal,
determinism and the paths their instructions name, their generated tests run here against a live kvd with
the reference tools and with wrong ones, and a child per operator accepted on the real engine."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from rst_synth.proposers.artifacts import Artifact, classify
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.kit.workflow import plant
from rst_synth.proposers.procedural.operators.services.running import GROUPS, KV, find_services
from rst_synth.proposers.procedural.operators.services.shipped import csv_server
from rst_synth.proposers.procedural.shipping import python_tool, render
from tests.proposers.local_steps import failed, outcomes
from tests.support.operators import assert_accepted, extend_with
from tests.support.tasks import BASE_DOCKERFILE, SEEDS, write_task

KVD = (SEEDS / "loopback-kv-service" / "environment" / "kvd.py").read_text()
PARENT_SOLVE = """mkdir -p /app/report
nohup python3 /opt/kvd/kvd.py --host 127.0.0.1 --port 8765 >>/var/log/kvd.log 2>&1 </dev/null &
python3 - <<'PY'
import time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen("http://127.0.0.1:8765/health", timeout=2)
        break
    except OSError:
        time.sleep(0.1)
for key, value in {"stock:SKU-104": "12", "stock:SKU-733": "-3", "moves:ams1": "40", "moves:fra2": "17"}.items():
    request = urllib.request.Request(f"http://127.0.0.1:8765/kv/{key}", data=value.encode(), method="PUT")
    urllib.request.urlopen(request, timeout=5)
PY
touch /app/.parent-done
"""
PARENT_TEST = "from pathlib import Path\n\ndef test_parent_ran():\n    assert Path('/app/.parent-done').exists()\n"
SERVER = python_tool(render(csv_server, ["main"], GROUP="region", VALUE="amount"), "main()")


def kv_parent(root: Path) -> Path:
    return write_task(
        root,
        name="kv-parent",
        solve=PARENT_SOLVE,
        tests={"test_parent.py": PARENT_TEST},
        dockerfile=BASE_DOCKERFILE + plant("/opt/kvd/kvd.py", KVD),
        instruction="Start the key-value service `/opt/kvd/kvd.py` on 127.0.0.1 port 8765 and load it.\n",
    )


def artifact(path: str, text: str, *, new: bool = True, input: bool = False) -> Artifact:
    kind, details, sample = classify(path, text.encode())
    size = len(text.encode())
    return Artifact(path=path, kind=kind, size=size, new=new, input=input, details=details, sample=sample)


FOLDERS = ("/app", "/opt", "/var")
"""Where the steps of a kvd parent read and write: moved below a temporary root on this machine."""


def kv_discovery() -> tuple[Artifact, Discovery]:
    program = artifact("/opt/kvd/kvd.py", KVD, new=False, input=True)
    report = artifact("/app/report/low_stock.txt", "SKU-733 -3\nSKU-104 12\n")
    return program, Discovery(workdir="/app", artifacts=[program, report], tools=["python3"])


def build(name: str, program: Artifact, found: Discovery, seed: int = 4) -> Step:
    ctx = StepContext(discovery=found, rng=random.Random(seed), taken_paths=found.paths(), tag="s1")
    return OPERATORS[name].step(program, ctx)


def test_services_found_by_their_program() -> None:
    program, found = kv_discovery()
    server = artifact("/app/bin/region_amount_server.py", SERVER)
    other = artifact("/app/tool.py", "import argparse\nprint('--port')\n")
    services = find_services(found.model_copy(update={"artifacts": [*found.artifacts, server, other]}))
    assert [(s.program, s.protocol, s.name, s.host_option) for s in services] == [
        ("/opt/kvd/kvd.py", KV, "kvd", True),
        ("/app/bin/region_amount_server.py", GROUPS, "region_amount_server", False),
    ]
    assert find_services(Discovery(workdir="/app", artifacts=[found.artifacts[1], other])) == []


def test_watchdog_and_client_apply_where_they_should() -> None:
    program, found = kv_discovery()
    server = artifact("/app/bin/region_amount_server.py", SERVER)
    with_server = found.model_copy(update={"artifacts": [*found.artifacts, server]})
    watchdog, client = OPERATORS["service-watchdog"], OPERATORS["kv-client-tool"]
    assert watchdog.can_use(program, found) and watchdog.can_use(server, with_server)
    assert client.can_use(program, found) and not client.can_use(server, with_server)
    assert watchdog.final and watchdog.once and client.once and not client.final  # its dump is a document
    log = found.artifacts[1]
    assert not watchdog.can_use(log, found) and not client.can_use(log, found)
    assert not client.can_use(program, found.model_copy(update={"tools": ["sqlite3"]}))  # no python3, no apt-get


def test_builds_are_deterministic_and_name_their_paths() -> None:
    program, found = kv_discovery()
    watchdog = build("service-watchdog", program, found)
    assert watchdog == build("service-watchdog", program, found)
    for path in ("/app/bin/kvd_watchdog", "/app/run/kvd.pid", "/app/run/kvd_watchdog.pid", "/app/run/kvd.log"):
        assert f"`{path}`" in watchdog.instruction, path
    assert "/opt/kvd/kvd.py" in watchdog.instruction and "must not be restarted now" in watchdog.instruction
    client = build("kv-client-tool", program, found)
    assert client == build("kv-client-tool", program, found)
    for path in ("/app/bin/kvdctl", "/app/derived/kvd_dump.json", "/opt/kvd/kvd.py"):
        assert f"`{path}`" in client.instruction, path
    assert [a.path for a in client.produces] == ["/app/derived/kvd_dump.json", "/app/bin/kvdctl"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def live_kvd(tmp_path: Path) -> Iterator[Path]:
    """A root folder where kvd runs (`<root>/opt/kvd/kvd.py`) on a free port with a few keys, its output in
    `<root>/var/log/kvd.log`; stopped afterwards with whatever the test started around it (a watchdog, its
    restarts)."""
    port, root = free_port(), tmp_path
    (root / "opt" / "kvd").mkdir(parents=True)
    (root / "opt" / "kvd" / "kvd.py").write_text(KVD)
    (root / "var" / "log").mkdir(parents=True)
    log = (root / "var" / "log" / "kvd.log").open("ab")
    command = [sys.executable, f"{root}/opt/kvd/kvd.py", "--host", "127.0.0.1", "--port", str(port)]
    server = subprocess.Popen(command, stdout=log, stderr=log, start_new_session=True)
    for _ in range(100):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2)
            break
        except OSError:
            time.sleep(0.1)
    for key, value in {"stock:SKU-1": "12", "stock:SKU-2": "-3", "moves:ams1": "40"}.items():
        request = urllib.request.Request(f"http://127.0.0.1:{port}/kv/{key}", data=value.encode(), method="PUT")
        urllib.request.urlopen(request, timeout=5)
    try:
        yield root
    finally:
        for pid in _ours(str(root)):
            os.kill(pid, signal.SIGKILL)
        server.kill()
        server.wait()


def _ours(root: str) -> list[int]:
    """Processes whose command line names a file under `root` (the kvd copy, the watchdog, its restarts)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and root.encode() in (proc / "cmdline").read_bytes():
                found.append(int(proc.name))
        except OSError:
            continue
    return [pid for pid in found if pid != os.getpid()]


def test_client_tests_pass_the_reference_and_catch_wrong_clients(live_kvd: Path) -> None:
    step = build("kv-client-tool", *kv_discovery())
    assert failed(outcomes(step, live_kvd, folders=FOLDERS)) == []
    for right, bad in (
        ('"/keys?prefix=" + urllib.parse.quote(prefix, safe="")', '"/keys?prefix=" + prefix'),  # + is a space
        (
            'args[0]))[0] == 200 else 1\n    elif command == "keys"',
            'args[0]))[0] > 0 else 1\n    elif command == "keys"',
        ),
    ):
        assert right in step.solution, right
        results = outcomes(step, live_kvd, solution=step.solution.replace(right, bad, 1), folders=FOLDERS)
        assert failed(results) == ["test_s1_tool_speaks_the_protocol"], (right, results)


def test_watchdog_tests_pass_the_reference_and_catch_a_zombie_blind_one(live_kvd: Path) -> None:
    step = build("service-watchdog", *kv_discovery())
    assert failed(outcomes(step, live_kvd, folders=FOLDERS)) == []
    for pid in _ours(str(live_kvd / "app")):  # the watchdog: the next one adopts the service from its pid file
        os.kill(pid, signal.SIGKILL)
    right = 'return state not in ("Z", "X")'
    assert right in step.solution
    wrong = step.solution.replace(right, "return True", 1)
    results = outcomes(step, live_kvd, solution=wrong, folders=FOLDERS, only="adopts")
    assert failed(results) == ["test_s1_watchdog_adopts_only_its_command"], results


@pytest.mark.docker
@pytest.mark.parametrize("name", ["service-watchdog", "kv-client-tool"])
def test_child_accepted(tmp_path: Path, name: str) -> None:
    proposal, report = extend_with(name, kv_parent(tmp_path))
    assert_accepted(proposal, report, name)
