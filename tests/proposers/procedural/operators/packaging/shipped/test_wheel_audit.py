"""The reference of wheel-audit, called directly: the tool written from its `main` reports a hand-made
wheel's problems and passes the shipped tests; a wrong report, or a tool that forgets `async def`, exits 0
on problems or crashes on what is no zip, fails them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.packaging.shipped import wheel_audit as shipped
from rst_synth.proposers.procedural.shipping import render
from tests.support.shipped import tool_file


def write_tool(path: Path, wrong: tuple[str, str] = ("", "")) -> str:
    """The tool as the solution writes it, with the text `wrong[0]` of its code replaced by `wrong[1]`."""
    return tool_file(path, render(shipped, ["main"]), wrong=wrong)


@pytest.fixture
def wheel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project wheel whose RECORD forgot a module and whose WHEEL file, changed after RECORD was written,
    names another tag, its report written by the reference tool."""
    files = shipped.good_files()
    files["demo_pkg/late.py"] = b"def late():\n    return 2\n"
    files["demo_pkg-1.2.0.dist-info/WHEEL"] = b"Wheel-Version: 1.0\nTag: py2-none-any\n"
    path = tmp_path / "dist" / "demo_pkg-1.2.0-py3-none-any.whl"
    path.parent.mkdir()
    shipped.write_wheel(path, files)
    tool = write_tool(tmp_path / "wheel_audit")
    out = tmp_path / "report.txt"
    out.write_bytes(subprocess.run([tool, str(path)], capture_output=True, check=False).stdout)
    monkeypatch.setattr(shipped, "TOOL", tool)
    monkeypatch.setattr(shipped, "WHEEL", str(path))
    monkeypatch.setattr(shipped, "OUT", str(out))
    (tmp_path / "fresh").mkdir()
    return path


def test_the_reference_passes_its_tests(wheel: Path, tmp_path: Path) -> None:
    done = subprocess.run([shipped.TOOL, str(wheel)], capture_output=True, check=False)
    want = b"record-hash demo_pkg-1.2.0.dist-info/WHEEL\nrecord-missing demo_pkg/late.py\nwheel-tag\n"
    assert (done.returncode, done.stdout) == (1, want)
    shipped.test_audit_of_the_project_wheel()
    shipped.test_tool_on_broken_wheels(tmp_path / "fresh")
    shipped.test_tool_rejects_what_is_no_zip(tmp_path / "fresh")


def test_a_wrong_report_fails(wheel: Path) -> None:
    Path(shipped.OUT).write_text("record-missing demo_pkg/late.py\n", encoding="utf-8")
    with pytest.raises(AssertionError):
        shipped.test_audit_of_the_project_wheel()
    Path(shipped.OUT).write_text("wheel-tag\nrecord-missing demo_pkg/late.py\n", encoding="utf-8")
    with pytest.raises(AssertionError):
        shipped.test_audit_of_the_project_wheel()


WRONG = {
    "async def not counted": (
        "test_tool_on_broken_wheels",
        ("(ast.FunctionDef, ast.AsyncFunctionDef)", "ast.FunctionDef"),
    ),
    "digest with its padding": ("test_tool_on_broken_wheels", ('.rstrip(b"=")', "")),
    "exit 0 on problems": ("test_tool_on_broken_wheels", ("return 1 if problems else 0", "return 0")),
    "crash on what is no zip": ("test_tool_rejects_what_is_no_zip", ("zipfile.BadZipFile, ", "")),
}


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_wrong_tools_fail(wheel: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    test, change = WRONG[wrong]
    monkeypatch.setattr(shipped, "TOOL", write_tool(tmp_path / "wrong", change))
    with pytest.raises(AssertionError):
        getattr(shipped, test)(tmp_path / "fresh")
