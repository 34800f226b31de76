"""The compiled operators' shared test helpers, called directly: a checkout-like copy keeps sources and the
step's build files only, and two programs compare equal only when every run matches."""

from __future__ import annotations

import pathlib
import shutil

import pytest

from rst_synth.proposers.procedural.operators.compiled.shipped import build_checks


def test_a_fresh_copy_keeps_sources_headers_and_named_build_files(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    top = tmp_path / "src"
    (top / "include" / "sub").mkdir(parents=True)
    (top / "tool").mkdir()
    (top / "include" / "sub" / "a.h").write_text("int a;\n")
    (top / "tool" / "main.c").write_text("int main(void) { return 0; }\n")
    (top / "tool" / "Makefile").write_text("all:\n")
    (top / "tool" / "main.o").write_bytes(b"\x7fELF")
    monkeypatch.setattr(build_checks, "TOP", str(top))
    monkeypatch.setattr(build_checks, "INCLUDE_DIRS", [str(top / "include")])
    dest = build_checks.fresh_copy(tmp_path / "copy", [(str(top / "tool"), ("Makefile",)), (str(top / "include"), ())])
    assert sorted(build_checks.tree(dest)) == ["include/sub/a.h", "tool/Makefile", "tool/main.c"]


def test_same_runs_compares_status_and_output(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = tmp_path / "in.txt"
    data.write_text("x\n")
    monkeypatch.setattr(build_checks, "PROGRAM_NAME", "cat")
    monkeypatch.setattr(build_checks, "INPUTS", [str(data)])
    cat = shutil.which("cat")
    assert cat is not None
    copy = tmp_path / "cat-copy"
    shutil.copy2(cat, copy)
    assert build_checks.assert_same_runs(cat, copy, tmp_path) == 2
    wc = shutil.which("wc")
    assert wc is not None
    with pytest.raises(AssertionError):
        build_checks.assert_same_runs(cat, wc, tmp_path)
