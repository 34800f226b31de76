"""The tolerance check on the real engine: tests that compare a JSON output's bytes, or find a service by
the position of an argument, reject right work done another way; tests that parse the output and find
the service by its program anywhere in its command line accept it."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

import pytest

from rst_synth.sandbox import FileDigest, Limits, Sandbox
from rst_synth.task import Lineage, StepRecord, Task
from rst_synth.validator import Check, CheckResult, Reason, Validator, ValidatorConfig, Verdict
from rst_synth.validator.tolerance import prepare, tolerance
from tests.support import quality
from tests.support.docker import our_containers, run_async
from tests.support.tasks import BASE_DOCKERFILE, TEST_SH

pytestmark = pytest.mark.docker

TOTALS = "/app/totals.json"
STRICT_JSON = (
    f'from pathlib import Path\n\n\ndef test_totals():\n    assert Path("{TOTALS}").read_text() == {{text!r}}\n'
)
PARSED_JSON = (
    "import json\nfrom pathlib import Path\n\n\ndef test_totals():\n"
    f'    assert json.loads(Path("{TOTALS}").read_text()) == {{{{"north": 12, "south": 7}}}}\n'
)


def json_child(root: Path, test: str) -> tuple[Task, Task]:
    up = quality.parent(root)
    text = '{"north": 12, "south": 7}\n'
    solution = f"printf '%s\\n' '{text.strip()}' > {TOTALS}\n"
    instruction = f"Write {TOTALS}: a JSON object of each region's total, `north` 12 and `south` 7."
    step = quality.step("r1s1", solution, test.format(text=text), instruction)
    return quality.child(up, step), up


@pytest.mark.parametrize("kept", [False, True], ids=["in-full", "from-kept-state"])
@pytest.mark.parametrize("strict", [True, False], ids=["bytes-compared", "parsed"])
def test_a_json_output_written_another_way(tmp_path: Path, strict: bool, kept: bool) -> None:
    """From the parent's kept state the check's test run is the mutation batch's last; in full, its own."""
    child, parent = json_child(tmp_path, STRICT_JSON if strict else PARSED_JSON)
    config = ValidatorConfig(keep_states=kept)
    report = run_async(lambda sandbox: Validator(sandbox, config).validate(child, parent))
    result = report.result_of(Check.TOLERANCE.value)
    if strict:
        assert (result.verdict, result.reason) == (Verdict.FAIL, Reason.TESTS_TOO_STRICT), result
        assert TOTALS in result.detail and "indented" in result.detail
        assert not report.accepted and report.first_failure == result
    else:
        assert report.accepted, report.first_failure
        assert result.passed and TOTALS in result.detail
    assert our_containers() == []


SERVER = """import http.server

KEPT = {"body": b"up\\n" if "MEMORY" != "memory" else b"none\\n"}


class Up(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.end_headers()
        self.wfile.write(KEPT["body"])

    def do_PUT(self):
        KEPT["body"] = self.rfile.read(int(self.headers["Content-Length"]))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", 8765), Up).serve_forever()
"""
FIND = """import os
import urllib.request


def served():
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")
        except OSError:
            continue
        if MATCH:
            return pid
    return None


def test_the_service_runs_and_answers():
    assert served() is not None
    assert urllib.request.urlopen("http://127.0.0.1:8765/", timeout=5).read() == b"up\\n"
"""
BY_POSITION = 'argv[:2] == [b"python3", b"serve.py"]'
ANYWHERE = 'any(a.rsplit(b"/", 1)[-1] == b"serve.py" for a in argv)'


def check_service(match: str, root: Path, memory: bool = False, restartable: bool | None = None) -> CheckResult:
    """`memory`: the service answers "up" only once the work PUT it there, so a restart loses it."""
    task = quality.parent(root)  # declares no contract: the server script is compared by its bytes
    server = SERVER.replace("MEMORY", "memory" if memory else "files")
    new = {"tests/test_step_r1s1.py": FIND.replace("MATCH", match)}
    if memory:  # the tests' source is read for what they check: as a child's new module
        task = task.model_copy(deep=True)
        for rel, text in new.items():
            task.set_text(rel, text)
        task.config.metadata.lineage = Lineage(
            added=[StepRecord(name="t", tag="r1s1", solution_lines=(1, 1), instruction_lines=(1, 1), test_module=rel)]
        )

    async def work(sandbox: Sandbox) -> CheckResult:
        context = {"Dockerfile": BASE_DOCKERFILE.encode()}
        image = await sandbox.ensure_image(context, "tolerance-docker-" + "0" * 40, timeout=600)
        async with sandbox.container(image.tag, Limits()) as box:
            tests = {"test.sh": TEST_SH.encode(), "test_step_r1s1.py": FIND.replace("MATCH", match).encode()}
            await box.put_files(tests, PurePosixPath("/tests"))
            await box.put_files({"serve.py": server.encode()}, PurePosixPath("/app"))
            started = "cd /app && (setsid python3 serve.py >/dev/null 2>&1 </dev/null &) && sleep 1"
            assert (await box.exec(started, timeout=30)).ok
            put = "import urllib.request as u; u.urlopen(u.Request('http://127.0.0.1:8765/', b'up\\n', method='PUT'))"
            assert (await box.exec(f'python3 -c "{put}"', timeout=30)).ok
            assert (await box.exec("bash /tests/test.sh && grep -qx 1 /logs/verifier/reward.txt", timeout=60)).ok
            outputs = {"/app/serve.py": FileDigest(size=len(server), sha256="")}
            prepared = await prepare(box, task, outputs)
            return await tolerance(box, task, prepared, verify_timeout=60, restartable=restartable)

    return run_async(work)


def test_a_service_found_by_the_position_of_an_argument_is_refused(tmp_path: Path) -> None:
    result = check_service(BY_POSITION, tmp_path)
    assert (result.verdict, result.reason) == (Verdict.FAIL, Reason.TESTS_TOO_STRICT), result
    assert "-u /app/serve.py" in result.detail and "started in an equivalent way" in result.detail


def test_a_service_found_by_its_program_anywhere_is_accepted_started_another_way(tmp_path: Path) -> None:
    result = check_service(ANYWHERE, tmp_path)
    assert result.passed, result
    assert "service started as" in result.detail and "-u /app/serve.py" in result.detail


@pytest.mark.parametrize("match", [BY_POSITION, ANYWHERE], ids=["by-position", "anywhere"])
def test_a_service_that_keeps_its_data_in_memory_is_judged_by_the_tests_source(tmp_path: Path, match: str) -> None:
    result = check_service(match, tmp_path, memory=True)
    if match == BY_POSITION:
        assert (result.verdict, result.reason) == (Verdict.FAIL, Reason.TESTS_TOO_STRICT), result
        assert "keeps its data in memory" in result.detail and "position of an argument (line" in result.detail
    else:
        assert result.passed and "not started again" in result.detail, result


def test_services_known_not_to_survive_a_restart_are_left_running_and_judged_by_the_source(tmp_path: Path) -> None:
    """What the validator passes where the parent's kept state, its services restarted, did not prove."""
    result = check_service(BY_POSITION, tmp_path, memory=True, restartable=False)
    assert (result.verdict, result.reason) == (Verdict.FAIL, Reason.TESTS_TOO_STRICT), result
    assert "keeps its data in memory" in result.detail
    assert check_service(ANYWHERE, tmp_path / "b", memory=True, restartable=False).passed
