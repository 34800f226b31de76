"""The reference of config-check-tool, called directly: its validator's reports and the tool written from it
pass the shipped tests; a wrong report, or a tool that misses a rule, fails them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.config.shipped import check_tool as shipped
from rst_synth.proposers.procedural.shipping import python_tool, render

SCHEMA = {"name": "string", "port": "integer", "db": "table", "db.ratio": "float", "db.on": "boolean"}
GOOD = 'name = "svc"\nport = 80\n[db]\nratio = 2\non = true\n'
BROKEN = 'name = 1\nport = 80\nextra = "x"\n[db]\nratio = 0.5\n'


def write_tool(path: Path, code: str) -> None:
    path.write_text(python_tool(code, "sys.exit(main())"))
    path.chmod(0o755)


@pytest.fixture
def tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The reference tool, written as the solution writes it, run on a valid and a broken document."""
    monkeypatch.setattr(shipped, "SCHEMA", SCHEMA)
    path = tmp_path / "check"
    write_tool(path, render(shipped, ["main"], SCHEMA=SCHEMA))
    for name, text in (("SRC", GOOD), ("VARIANT", BROKEN)):
        (tmp_path / f"{name}.toml").write_text(text)
        monkeypatch.setattr(shipped, name, str(tmp_path / f"{name}.toml"))
    for name, src in (("OUT_OK", shipped.SRC), ("OUT_BAD", shipped.VARIANT)):
        out = tmp_path / f"{name}.txt"
        out.write_bytes(subprocess.run([str(path), src], capture_output=True).stdout)
        monkeypatch.setattr(shipped, name, str(out))
    monkeypatch.setattr(shipped, "TOOL", str(path))
    monkeypatch.setattr(shipped, "SEED", 7)
    return path


def run_all(tmp_path: Path) -> None:
    shipped.test_check_of_the_config()
    shipped.test_check_of_the_broken_copy()
    for test in (
        shipped.test_tool_accepts_a_reordered_valid_document,
        shipped.test_tool_reports_each_problem,
        shipped.test_tool_rejects_invalid_toml,
    ):
        case = tmp_path / test.__name__
        case.mkdir()
        test(case)


def test_the_reference_passes_its_tests(tool: Path, tmp_path: Path) -> None:
    assert Path(shipped.OUT_OK).read_text() == "ok\n"
    assert Path(shipped.OUT_BAD).read_text().splitlines() == [
        "db.on: missing",
        "extra: unknown",
        "name: expected string, got integer",
    ]
    run_all(tmp_path)


def test_main_reports_and_exits(
    tool: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    for path, status in ((shipped.SRC, 0), (shipped.VARIANT, 1)):
        monkeypatch.setattr(sys, "argv", ["check", path])
        assert shipped.main() == status
        assert capsys.readouterr().out.splitlines() == shipped.expected(path)
    (tmp_path / "bad.toml").write_text("a = = 1\n")
    monkeypatch.setattr(sys, "argv", ["check", str(tmp_path / "bad.toml")])
    assert shipped.main() == 2
    seen = capsys.readouterr()
    assert seen.out == "" and seen.err.startswith("invalid TOML: ")


def test_a_wrong_report_fails(tool: Path) -> None:
    Path(shipped.OUT_BAD).write_text("name: expected string, got integer\nextra: unknown\n")  # a line lost
    with pytest.raises(AssertionError):
        shipped.test_check_of_the_broken_copy()
    Path(shipped.OUT_OK).write_text("")
    with pytest.raises(AssertionError):
        shipped.test_check_of_the_config()


@pytest.mark.parametrize(
    ("wrong", "right", "fails"),
    [
        ('not (want == "float" and got == "integer")', "True", "reports_each_problem"),
        ("return 1 if lines else 0", "return 0", "reports_each_problem"),
        ("return 2\n", "return 1\n", "rejects_invalid_toml"),
    ],
)
def test_a_wrong_tool_fails(tool: Path, tmp_path: Path, wrong: str, right: str, fails: str) -> None:
    code = render(shipped, ["main"], SCHEMA=SCHEMA)
    assert wrong in code
    write_tool(tool, code.replace(wrong, right))
    test = getattr(shipped, f"test_tool_{fails}")
    with pytest.raises(AssertionError):
        test(tmp_path)
