"""The reference tool of text-tfidf-terms, called directly and as the executable a step writes (rendered from
the shipped module): it passes its tests; a tool that keeps apostrophes at word ends, or exits 0 on bad
arguments, fails them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.text.shipped import tfidf as shipped
from rst_synth.proposers.procedural.shipping import render
from tests.support.shipped import tool_file

NOTES = {"a.txt": "Don't stop 'x' x x y common\n", "b.txt": "y Z common\n", "c.txt": "common only here\n"}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in NOTES.items():
        (tmp_path / name).write_text(text)
    files = [str(tmp_path / name) for name in NOTES]
    tool = tool_file(tmp_path / "tfidf", render(shipped, ["main"]))
    for name, value in {"TOOL": tool, "FILES": files, "OUT": str(tmp_path / "out.csv"), "TOP": 2}.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path


def test_the_reference_passes_its_tests(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert shipped.main(["tfidf", "2", *shipped.FILES]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[:3] == ["file,rank,term,count,tfidf", "a.txt,1,x,3,0.470834", "a.txt,2,don't,1,0.156945"]
    (folder / "out.csv").write_text(out)
    shipped.test_terms_of_the_folder()
    (folder / "work").mkdir()
    shipped.test_tool_on_fresh_texts(folder / "work")
    shipped.test_tool_rejects_bad_arguments(folder)


def test_a_tool_keeping_apostrophes_fails(folder: Path) -> None:
    code = render(shipped, ["main"]).replace("""w.strip("'")""", "w")
    tool_file(Path(shipped.TOOL), code)
    (folder / "work").mkdir()
    with pytest.raises(AssertionError):
        shipped.test_tool_on_fresh_texts(folder / "work")


def test_a_tool_accepting_bad_arguments_fails(folder: Path) -> None:
    tool_file(Path(shipped.TOOL), render(shipped, ["main"]).replace("return 2", "return 0"))
    with pytest.raises(AssertionError):
        shipped.test_tool_rejects_bad_arguments(folder)


def test_wrong_scores_fail(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shipped.main(["tfidf", "2", *shipped.FILES])
    out = capsys.readouterr().out
    for wrong in (out.replace("0.470834", "0.470836"), out.replace("a.txt,1,x", "a.txt,1,X"), out.rsplit("\n", 2)[0]):
        (folder / "out.csv").write_text(wrong)
        with pytest.raises(AssertionError):
            shipped.test_terms_of_the_folder()
