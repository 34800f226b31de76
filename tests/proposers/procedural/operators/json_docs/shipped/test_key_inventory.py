"""The reference of json-key-inventory, called directly: its list passes its test; a path missing, listed
twice, out of code-point order or written without its `[]` fails it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.json_docs.shipped import key_inventory as shipped

DOC = [{"id": 1, "meta": {"owner": "ann"}, "tags": [{"k": 1}], "Zed": None}, {"id": 2, "items": [[{"x": 0}]]}]
RIGHT = ["[].Zed", "[].id", "[].items", "[].items[][].x", "[].meta", "[].meta.owner", "[].tags", "[].tags[].k"]


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "doc.json"
    src.write_text(json.dumps(DOC), encoding="utf-8")
    monkeypatch.setattr(shipped, "SRC", str(src))
    monkeypatch.setattr(shipped, "OUT", str(tmp_path / "paths.txt"))
    return tmp_path / "paths.txt"


def test_the_reference_passes_its_test(out: Path) -> None:
    shipped.write_key_paths()
    assert out.read_text().splitlines() == RIGHT
    shipped.test_sorted_key_paths()


def test_a_missing_final_newline_passes(out: Path) -> None:
    out.write_text("\n".join(RIGHT))
    shipped.test_sorted_key_paths()


@pytest.mark.parametrize(
    "lines",
    [
        RIGHT[:-1],
        [*RIGHT, RIGHT[-1]],
        sorted(RIGHT, key=str.lower),
        [p.replace("[][]", "[]") for p in RIGHT],
        ["[]", *RIGHT],
    ],
)
def test_a_wrong_list_fails(out: Path, lines: list[str]) -> None:
    out.write_text("".join(p + "\n" for p in lines))
    with pytest.raises(AssertionError):
        shipped.test_sorted_key_paths()
