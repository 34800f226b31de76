"""The reference of config-migrate-tool, called directly: the tool written from it migrates a document by the
rules and passes the shipped tests on what it wrote; a wrong result, a tool that rounds in binary floating
point, and one that refuses with the wrong status fail them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.config.shipped import migrate_tool as shipped
from rst_synth.proposers.procedural.operators.config.shipped.documents import load_doc
from rst_synth.proposers.procedural.shipping import python_tool, render

SOURCE_DOC = (
    'config_version = 2\n[http]\nhost = "0.0.0.0"\nport = 80\ndebug = true\n'
    '[database]\ntimeout = 2.0005\n[logging]\nlevel = "info"\n'
)
CALL = "sys.exit(main(sys.argv))"
RIGHT = "exact = decimal.Decimal(repr(value)) * 1000"


def write_tool(path: Path, code: str) -> Path:
    path.write_text(python_tool(code, CALL))
    path.chmod(0o755)
    return path


@pytest.fixture
def tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The reference tool, written as the solution writes it (the module's example rules), run on a document."""
    path = write_tool(tmp_path / "migrate", render(shipped, ["main"]))
    src, out = tmp_path / "app.toml", tmp_path / "app_v3.toml"
    src.write_text(SOURCE_DOC)
    out.write_bytes(subprocess.run([str(path), str(src)], capture_output=True, check=True).stdout)
    for name, value in (("TOOL", str(path)), ("SRC", str(src)), ("OUT", str(out)), ("SEED", 7)):
        monkeypatch.setattr(shipped, name, value)
    return path


def run_fresh(tmp_path: Path, name: str) -> None:
    case = tmp_path / name
    case.mkdir()
    shipped.test_tool_on_fresh_documents(case)


def test_the_tool_migrates_by_the_rules(tool: Path) -> None:
    assert load_doc(shipped.OUT) == {
        "config_version": 3,
        "http": {"host": "0.0.0.0", "listen_port": 80, "retries": 3},  # debug removed, a default added
        "database": {"timeout_ms": 2001},  # 2000.5 exactly, half away from zero
        "log": {"level": "info"},
    }


def test_the_reference_passes_its_tests(tool: Path, tmp_path: Path) -> None:
    shipped.test_migrated_configuration()
    run_fresh(tmp_path, "fresh")
    case = tmp_path / "unreadable"
    case.mkdir()
    shipped.test_tool_rejects_unreadable_files(case)


def test_a_wrong_result_fails(tool: Path) -> None:
    out = Path(shipped.OUT)
    out.write_text(out.read_text().replace("2001", "2000"))  # rounded half to even
    with pytest.raises(AssertionError):
        shipped.test_migrated_configuration()


def test_a_tool_rounding_in_binary_floating_point_fails(tool: Path, tmp_path: Path) -> None:
    code = render(shipped, ["main"])
    assert RIGHT in code
    write_tool(tool, code.replace(RIGHT, "exact = decimal.Decimal(value * 1000)"))
    with pytest.raises(AssertionError):
        run_fresh(tmp_path, "wrong")


def test_a_tool_refusing_with_another_status_fails(tool: Path, tmp_path: Path) -> None:
    code = render(shipped, ["main"])
    right = 'print("error: " + " ".join(str(exc).split()), file=sys.stderr)\n        return 2'
    assert right in code
    write_tool(tool, code.replace(right, right.replace("return 2", "return 1")))
    case = tmp_path / "status"
    case.mkdir()
    with pytest.raises(AssertionError):
        shipped.test_tool_rejects_unreadable_files(case)
