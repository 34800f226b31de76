"""The reference tool of text-contact-index, called directly and as the executable a step writes (rendered from
the shipped module): it passes its tests; a tool that keeps a bare `AAA BBB CCCC` as a phone, counts a line twice
or exits 0 on an unreadable file fails them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.text.shipped import contacts as shipped
from rst_synth.proposers.procedural.shipping import render
from tests.support.shipped import tool_file

NOTES = {
    "a.txt": "Ann.Lee@Example.com (415) 555-0134 on 3/7/2025, ann.lee@example.com again\nroot@localhost 212 555 0199\n",
    "b.txt": "bob+ops@mail.acme.co.uk 2024-02-29 2023-02-29\nANN.LEE@example.com +1 303 555 0111 12/31/2024\n",
    "c.txt": "c_d@x-y.io 646.555.0142\n",
}


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name, text in NOTES.items():
        (tmp_path / name).write_text(text)
    files = [str(tmp_path / name) for name in NOTES]
    tool = tool_file(tmp_path / "contacts", render(shipped, ["main"]))
    for name, value in {"TOOL": tool, "FILES": files, "OUT": str(tmp_path / "out.csv")}.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path


def test_the_reference_passes_its_tests(folder: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert shipped.main(["contacts", *shipped.FILES]) == 0
    out = capsys.readouterr().out
    assert out.splitlines() == [
        "email,lines,phones,first_date,last_date",
        "ann.lee@example.com,2,+13035550111;+14155550134,2024-12-31,2025-03-07",
        "bob+ops@mail.acme.co.uk,1,,2024-02-29,2024-02-29",
        "c_d@x-y.io,1,+16465550142,,",
    ]
    (folder / "out.csv").write_text(out)
    shipped.test_contacts_of_the_corpus()
    (folder / "work").mkdir()
    shipped.test_tool_on_fresh_corpora(folder / "work")
    shipped.test_tool_rejects_unreadable_files(folder)


@pytest.mark.parametrize(
    "change",
    [
        ("(?<![0-9+])(?:", "(?<![0-9+])(?:[0-9]{3} [0-9]{3} |"),  # a bare `AAA BBB CCCC` taken for a phone
        ("entry[0] += 1", "entry[0] += len(EMAIL.findall(line))"),  # a line counted once per mention
    ],
)
def test_a_wrong_tool_fails(folder: Path, change: tuple[str, str]) -> None:
    tool_file(Path(shipped.TOOL), render(shipped, ["main"]), wrong=change)
    (folder / "work").mkdir()
    with pytest.raises(AssertionError):
        shipped.test_tool_on_fresh_corpora(folder / "work")


def test_a_tool_accepting_unreadable_files_fails(folder: Path) -> None:
    code = render(shipped, ["main"]).replace("UnicodeDecodeError", "KeyError")
    tool_file(Path(shipped.TOOL), code)
    with pytest.raises(AssertionError):
        shipped.test_tool_rejects_unreadable_files(folder)
