"""The reference of wheel-reproducible, called directly: its `main`, rendered as the task ships it, rewrites
a wheel into the stated order, permissions and timestamps and passes the shipped tests; a tool that keeps
the wrong order, ignores SOURCE_DATE_EPOCH or exits 1 on what is no wheel fails them."""

from __future__ import annotations

import io
import os
import subprocess
import zipfile
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.packaging.shipped import wheel_reproducible as shipped
from rst_synth.proposers.procedural.shipping import render
from tests.support.shipped import tool_file

CALL = "sys.exit(main(sys.argv))"


def tool(folder: Path, call: str = CALL) -> str:
    """The shipped tool as the solution writes it, run by this interpreter; `call` may patch it first."""
    folder.mkdir(parents=True, exist_ok=True)
    return tool_file(folder / "wheel_normalize", render(shipped, ["main"]), call)


def project_wheel(path: Path) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as wheel:
        wheel.writestr("text_stats-0.3.0.dist-info/RECORD", "old,,\n")
        wheel.writestr("textstats.py", "def main():\n    return 0\n")
        script = zipfile.ZipInfo("text_stats-0.3.0.data/scripts/ts", date_time=(2001, 2, 3, 4, 5, 7))
        script.external_attr = 0o100700 << 16
        wheel.writestr(script, "#!python\n")
        wheel.writestr("text_stats-0.3.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: text-stats\n")
        wheel.writestr(zipfile.ZipInfo("text_stats-0.3.0.data/"), "")
    path.write_bytes(buffer.getvalue())
    return path


@pytest.fixture
def made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project's wheel and the reference tool's output of it, where the shipped tests look."""
    monkeypatch.setattr(shipped, "WHEEL", str(project_wheel(tmp_path / "in.whl")))
    monkeypatch.setattr(shipped, "OUT", str(tmp_path / "out.whl"))
    monkeypatch.setattr(shipped, "SEED", 4)
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    done = subprocess.run([tool(tmp_path / "bin"), shipped.WHEEL, shipped.OUT], capture_output=True, env=env)
    assert done.returncode == 0 and done.stdout == b"" and done.stderr == b"", done.stderr
    (tmp_path / "scratch").mkdir()
    return tmp_path


def test_normalised_order_permissions_and_record(made: Path) -> None:
    got = shipped.entries_of(shipped.OUT)
    assert [e[0] for e in got] == [
        "text_stats-0.3.0.data/scripts/ts",
        "textstats.py",
        "text_stats-0.3.0.dist-info/METADATA",
        "text_stats-0.3.0.dist-info/RECORD",
    ]
    assert [e[2] for e in got] == [0o100755, 0o100644, 0o100644, 0o100644]
    assert {e[1] for e in got} == {(1980, 1, 1, 0, 0, 0)} and {e[3:5] for e in got} == {(zipfile.ZIP_DEFLATED, 3)}
    record = got[-1][5].decode().splitlines()
    assert record[1] == "textstats.py," + shipped.record_hash(b"def main():\n    return 0\n") + ",25"
    assert record[-1] == "text_stats-0.3.0.dist-info/RECORD,," and len(record) == 4


def test_fixed_time_reads_source_date_epoch(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000001")
    assert shipped.fixed_time() == (2023, 11, 14, 22, 13, 20)
    for early in ("1", "x1", ""):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", early)
        assert shipped.fixed_time() == (1980, 1, 1, 0, 0, 0)


def test_the_reference_passes_its_tests(made: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "TOOL", tool(made / "bin"))
    shipped.test_normalised_wheel_of_the_project()
    shipped.test_tool_is_reproducible_on_fresh_wheels(made / "scratch")
    shipped.test_tool_rejects_what_is_no_wheel(made / "scratch")


WRONG = {
    "entries in reverse order": (
        "normalized = (lambda n: lambda src: n(src)[-2::-1] + n(src)[-1:])(normalized)\n" + CALL,
        "test_tool_is_reproducible_on_fresh_wheels",
    ),
    "SOURCE_DATE_EPOCH ignored": (
        "fixed_time = lambda: (1980, 1, 1, 0, 0, 0)\n" + CALL,
        "test_tool_is_reproducible_on_fresh_wheels",
    ),
    "exit 1 on what is no wheel": ("sys.exit(min(main(sys.argv), 1))", "test_tool_rejects_what_is_no_wheel"),
    "silent on what is no wheel": (
        "sys.stderr = open(os.devnull, 'w')\n" + CALL,
        "test_tool_rejects_what_is_no_wheel",
    ),
}


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_wrong_tools_fail(made: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    call, test = WRONG[wrong]
    monkeypatch.setattr(shipped, "TOOL", tool(made / "wrong", call))
    with pytest.raises(AssertionError):
        getattr(shipped, test)(made / "scratch")


def test_an_output_in_the_input_order_fails(made: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with zipfile.ZipFile(shipped.WHEEL) as src, zipfile.ZipFile(made / "kept.whl", "w") as out:
        for info in src.infolist():
            if not info.is_dir():
                info.date_time = (1980, 1, 1, 0, 0, 0)
                out.writestr(info, src.read(info))
    monkeypatch.setattr(shipped, "OUT", str(made / "kept.whl"))
    with pytest.raises(AssertionError):
        shipped.test_normalised_wheel_of_the_project()
