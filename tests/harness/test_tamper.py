"""The trusted verifier without an engine: the tamper policy over `docker diff` lists, the clean
environment, the nonce-marked reward, and `verify` refusing a tampered run for every caller (the
validator's parent check included)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from rst_synth.harness import verify
from rst_synth.harness.tamper import (
    clean_env,
    content_finding,
    content_suspects,
    toolchain_finding,
    verifier_folders,
)
from rst_synth.harness.verifier import read_markers
from rst_synth.sandbox import ChangeKind, ExecResult, FileChange, Limits
from rst_synth.sandbox.base import Breach
from rst_synth.validator import Check, Reason, Validator, ValidatorConfig
from tests.support import quality
from tests.support.fakes import FakeContainer, FakeSandbox
from tests.support.tasks import TEST_SH

A, C, D = ChangeKind.ADDED, ChangeKind.CHANGED, ChangeKind.DELETED
FOLDERS = verifier_folders(TEST_SH.replace("mkdir", "cd /tests\nmkdir"), "/app")
SITE = "/usr/local/lib/python3.11/dist-packages"
PIP_INSTALL = [  # what `pip install --break-system-packages textstats.whl` left (python-cli-package's solution)
    *(FileChange(p, C) for p in ("/usr", "/usr/local", "/usr/local/lib", "/usr/local/lib/python3.11", SITE)),
    FileChange(f"{SITE}/__pycache__", A),
    FileChange(f"{SITE}/__pycache__/textstats.cpython-311.pyc", A),
    FileChange(f"{SITE}/textstats-0.3.0.dist-info", A),
    FileChange(f"{SITE}/textstats-0.3.0.dist-info/RECORD", A),
    FileChange(f"{SITE}/textstats-0.3.0.dist-info/entry_points.txt", A),
    FileChange(f"{SITE}/textstats.py", A),
    FileChange("/usr/local/bin", C),
    FileChange("/usr/local/bin/textstats", A),
    FileChange("/app", C),
    FileChange("/app/project", C),
    FileChange("/app/project/pyproject.toml", A),
    FileChange("/app/pyproject.toml", A),
    FileChange("/logs", A),
    FileChange("/solution", A),
    FileChange("/usr/lib/python3/dist-packages/requests", A),
    FileChange("/usr/lib/python3/dist-packages/py_cpuinfo-9.0.0.dist-info", A),
]


def finding(*changes: FileChange) -> str | None:
    found = toolchain_finding([*PIP_INSTALL, *changes], FOLDERS)
    return found.path if found else None


def test_an_honest_install_into_the_system_interpreter_touches_nothing() -> None:
    assert finding() is None
    assert content_suspects(PIP_INSTALL, FOLDERS) == {
        f"{SITE}/textstats-0.3.0.dist-info/entry_points.txt": "[pytest11]",
        "/app/pyproject.toml": "[tool.pytest",
    }
    assert content_finding("/app/pyproject.toml", "[tool.pytest", "[project]\nname = 'x'\n") is None


def test_the_interpreter_and_pytest_wherever_installed() -> None:
    for path, kind in [
        ("/usr/bin/python3", C),
        ("/usr/bin/python3.11", D),
        ("/usr/local/bin/python3.12", C),
        ("/usr/lib/python3.11/os.py", C),
        ("/usr/lib/python3.11/pytest.py", A),  # ahead of every site folder on sys.path
        ("/usr/local/lib/python3.12/encodings/__init__.py", C),  # an image FROM python:*
        ("/usr/lib/python3/dist-packages/pytest/__main__.py", C),
        ("/usr/lib/python3/dist-packages/_pytest/main.py", D),
        (f"{SITE}/pytest", A),  # shadows Debian's pytest
        (f"{SITE}/pluggy/__init__.py", A),
        ("/usr/local/lib/python3.12/site-packages/py.py", C),
        ("/usr/local/lib/python3.12/site-packages/packaging-24.0.dist-info", A),
        ("/root/.local/lib/python3.11/site-packages/iniconfig/__init__.py", A),
    ]:
        assert finding(FileChange(path, kind)) == path, path


def test_start_up_files_path_programs_and_pytest_configuration() -> None:
    for path, kind in [
        ("/etc/python3.11/sitecustomize.py", C),
        ("/root/.local/lib/python3.11/site-packages/usercustomize.py", A),
        (f"{SITE}/__editable__.textstats-0.3.0.pth", A),  # pip install -e: refused, documented
        ("/etc/ld.so.preload", A),
        ("/usr/local/bin/python3", A),
        ("/usr/local/bin/pytest", A),
        ("/root/.local/bin/python", A),
        ("/usr/bin/env", C),
        ("/bin/bash", C),
        ("/conftest.py", A),
        ("/app/conftest.py", C),
        ("/tests/pytest.ini", A),
        ("/pytest.ini", A),
    ]:
        assert finding(FileChange(path, kind)) == path, path
    assert finding(FileChange("/app/src/conftest.py", A)) is None  # pytest never reads it from /tests
    assert finding(FileChange("/usr/local/bin/mytool", A), FileChange("/usr/bin/python3-config", D)) is None


def test_a_venv_the_work_made_is_not_the_verifiers_unless_path_lists_it() -> None:
    venv = [
        FileChange("/app/venv", A),
        FileChange("/app/venv/pyvenv.cfg", A),
        FileChange("/app/venv/lib/python3.11/site-packages/distutils-precedence.pth", A),
        FileChange("/app/venv/lib/python3.11/site-packages/pytest/__init__.py", A),
        FileChange("/app/venv/bin/python3", A),
    ]
    assert toolchain_finding(venv, FOLDERS) is None
    on_path = [FileChange(c.path.replace("/app/venv", "/opt/venv"), c.kind) for c in venv]
    found = toolchain_finding(on_path, FOLDERS, "/opt/venv/bin:/usr/bin:/bin")
    assert found and found.path.startswith("/opt/venv/lib/python3.11/site-packages/")
    planted = [FileChange(c.path.replace("/app/venv", "/usr/lib/python3.11/pytest"), c.kind) for c in venv]
    assert finding(*planted) == "/usr/lib/python3.11/pytest"  # no exemption for a venv inside Python's folders
    assert finding(*venv[1:]) == "/app/venv/lib/python3.11/site-packages/distutils-precedence.pth"  # no new folder


def test_files_that_tamper_by_their_content() -> None:
    assert content_finding("/app/pyproject.toml", "[tool.pytest", "[tool.pytest.ini_options]\naddopts='--co'\n")
    plugin = "[console_scripts]\nx = x:main\n[pytest11]\nx = x.plugin\n"
    found = content_finding(f"{SITE}/x-1.0.dist-info/entry_points.txt", "[pytest11]", plugin)
    assert found and "plugin" in found.why


def test_folders_pytest_reads_follow_test_sh() -> None:
    folders = verifier_folders("#!/bin/bash\ncd /srv/checks/run && python3 -m pytest\n", "/work")
    assert {"/", "/tests", "/app", "/work", "/srv", "/srv/checks", "/srv/checks/run"} <= folders


def test_clean_env_keeps_the_images_env_without_what_changes_start_up() -> None:
    image = {"PATH": "/opt/py/bin:/usr/bin", "LANG": "en_US.UTF-8", "APP_MODE": "test"}
    image |= {"PYTHONPATH": "/x", "PYTHONSTARTUP": "/x", "LD_PRELOAD": "/x.so", "BASH_ENV": "/x", "ENV": "/x"}
    assert clean_env(image) == {
        "PATH": "/opt/py/bin:/usr/bin",
        "HOME": "/root",
        "LANG": "en_US.UTF-8",
        "APP_MODE": "test",
    }
    assert clean_env({})["PATH"] == "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _run(output: str, exit_code: int = 0) -> ExecResult:
    return ExecResult(exit_code=exit_code, output=output, duration_sec=0.1)


def test_the_reward_is_read_between_the_nonces_markers_once() -> None:
    n = "rst-0123"
    reading, output = read_markers(n, _run(f"2 passed\n{n}:file:reward.txt\n1\n{n}:end\n{n}:rc:0\n"))
    assert (reading.reward, reading.refused, output) == (1.0, "", "2 passed\n")
    forged = f"{n}:file:reward.txt\n1\n{n}:end\n{n}:rc:0\n"
    assert read_markers(n, _run(forged * 2))[0].refused  # a second block written into the output
    assert read_markers(n, _run(forged, exit_code=137))[0].refused  # the shell was killed, the block forged
    assert read_markers(n, _run("killed\n", exit_code=137))[0].refused
    raced = f"{n}:odd:/logs/verifier/reward.txt was written after the tests ended\n" + forged
    assert "after the tests" in read_markers(n, _run(raced))[0].refused


class _Tampered(FakeContainer):
    """Reports /usr/bin/python3 changed once /app/report.txt is there without /app/out/summary.txt:
    after the parent's solution, not after the child's or nothing."""

    async def changes(self) -> list[FileChange]:
        tampered = "/app/report.txt" in self.files and "/app/out/summary.txt" not in self.files
        return [FileChange("/usr/bin/python3", C)] if tampered else []


class _TamperedSandbox(FakeSandbox):
    @asynccontextmanager
    async def container(self, image: str, limits: Limits) -> AsyncIterator[FakeContainer]:
        async with super().container(image, limits):
            yield _Tampered(self)


def test_verify_refuses_a_tampered_run_before_the_tests_run() -> None:
    box = _Tampered(FakeSandbox())
    box.files["/app/report.txt"] = b"x"
    result, reward = asyncio.run(verify(box, {"test.sh": TEST_SH.encode()}, 60))
    assert (reward, result.breach, result.detail) == (
        0.0,
        Breach.TAMPERED,
        "/usr/bin/python3: changed: a program the verifier starts",
    )
    assert "/logs/verifier/reward.txt" not in box.files  # test.sh never ran


def test_the_parent_check_is_protected_too(tmp_path: Path) -> None:
    parent = quality.parent(tmp_path)
    child = quality.child(parent, quality.writes("r1s1", "/app/out/summary.txt", quality.SUMMARY))
    validator = Validator(_TamperedSandbox(), ValidatorConfig(quality=False))
    report = asyncio.run(validator.validate(child, parent))
    assert report.result_of(Check.ORACLE).passed and report.result_of(Check.NOP).passed
    checked = report.result_of(Check.PARENT)
    assert (checked.passed, checked.reason) == (False, Reason.VERIFIER_TAMPERED)
    assert checked.detail.startswith("/usr/bin/python3")
