"""The reference of python-install-audit, called directly: the tool written from its `main` reports a faked
install's missing and modified files and passes the shipped tests; a wrong report, or a tool that crashes
on a missing file, reads paths from the wrong folder, leaves its report unsorted, exits 0 on problems or
writes its usage error to standard output, fails them."""

from __future__ import annotations

import random
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import TypeVar, cast

import pytest

from rst_synth.proposers.procedural.operators.packaging.shipped import install_audit as shipped
from rst_synth.proposers.procedural.shipping import render
from tests.support.shipped import tool_file

T = TypeVar("T")


class Tampers(random.Random):
    """A generator whose `sample` picks the tamperings given."""

    def __init__(self, picks: list[str]) -> None:
        super().__init__(0)
        self.picks = picks

    def sample(self, population: Sequence[T], k: int, *, counts: object = None) -> list[T]:
        assert set(self.picks) <= set(population) and len(self.picks) == k
        return cast("list[T]", list(self.picks))


def write_tool(path: Path, wrong: tuple[str, str] = ("", "")) -> str:
    """The tool as the solution writes it, with the text `wrong[0]` of its code replaced by `wrong[1]`."""
    return tool_file(path, render(shipped, ["main"]), wrong=wrong)


@pytest.fixture
def install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A faked install with an edited module, a changed script and a deleted file, its report written by
    the reference tool."""
    info = shipped.fake_install(tmp_path / "usr", Tampers(["edit", "script", "size"]))
    tool = write_tool(tmp_path / "verify_install")
    out = tmp_path / "report.txt"
    out.write_bytes(subprocess.run([tool, str(info)], capture_output=True, check=False).stdout)
    monkeypatch.setattr(shipped, "TOOL", tool)
    monkeypatch.setattr(shipped, "INFO", str(info))
    monkeypatch.setattr(shipped, "OUT", str(out))
    monkeypatch.setattr(shipped, "SEED", 1)
    (tmp_path / "fresh").mkdir()
    return info


def test_the_reference_passes_its_tests(install: Path, tmp_path: Path) -> None:
    want = "missing demo_pkg/generated.cfg\nmodified ../../bin/demo\nmodified demo_pkg/__init__.py\n"
    assert Path(shipped.OUT).read_text(encoding="utf-8") == want
    clean = shipped.fake_install(tmp_path / "clean", Tampers(["none", "none", "none"]))
    done = subprocess.run([shipped.TOOL, str(clean)], capture_output=True, check=False)
    assert (done.returncode, done.stdout) == (0, b"ok\n")
    shipped.test_verification_of_the_install()
    shipped.test_tool_on_faked_installs(tmp_path / "fresh")
    shipped.test_tool_rejects_a_folder_without_record(tmp_path / "fresh")


def test_a_wrong_report_fails(install: Path) -> None:
    for wrong in ("missing demo_pkg/generated.cfg\nmodified demo_pkg/__init__.py\n", "ok\n"):
        Path(shipped.OUT).write_text(wrong, encoding="utf-8")
        with pytest.raises(AssertionError):
            shipped.test_verification_of_the_install()


WRONG = {
    "crash on a missing file": ("test_tool_on_faked_installs", ("if not os.path.isfile(path):", "if False:")),
    "paths read from the dist-info": (
        "test_tool_on_faked_installs",
        ("os.path.dirname(os.path.abspath(info))", "os.path.abspath(info)"),
    ),
    "report unsorted": ("test_tool_on_faked_installs", ("return sorted(problems)", "return problems")),
    "exit 0 on problems": ("test_tool_on_faked_installs", ("return 1 if problems else 0", "return 0")),
    "usage error on standard output": (
        "test_tool_rejects_a_folder_without_record",
        ('(a folder with a RECORD file)", file=sys.stderr)', '(a folder with a RECORD file)")'),
    ),
}


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_wrong_tools_fail(install: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    test, change = WRONG[wrong]
    monkeypatch.setattr(shipped, "TOOL", write_tool(tmp_path / "wrong", change))
    with pytest.raises(AssertionError):
        getattr(shipped, test)(tmp_path / "fresh")
