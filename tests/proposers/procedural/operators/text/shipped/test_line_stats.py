"""The reference of text-line-stats, called directly: its statistics pass its test; a line miscounted, a
word not lowercased or ties broken the other way fail it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.text.shipped import line_stats as shipped

TEXT = "Beta alpha\nbeta, gamma 42\r\n\nalpha BETA\n"


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "notes.txt").write_bytes(TEXT.encode())
    monkeypatch.setattr(shipped, "SRC", str(tmp_path / "notes.txt"))
    monkeypatch.setattr(shipped, "OUT", str(tmp_path / "stats.json"))
    return tmp_path / "stats.json"


def test_the_reference_passes_its_test(out: Path) -> None:
    shipped.write_stats()
    assert json.loads(out.read_text()) == {
        "lines": 4,
        "words": 7,
        "top_words": [
            {"word": "beta", "count": 3},
            {"word": "alpha", "count": 2},
            {"word": "42", "count": 1},
            {"word": "gamma", "count": 1},
        ],
    }
    shipped.test_line_and_word_stats()


def test_empty_and_unterminated_text() -> None:
    assert shipped.stats("") == {"lines": 0, "words": 0, "top_words": []}
    assert shipped.stats("a\nb")["lines"] == 2


@pytest.mark.parametrize(
    "change",
    [
        lambda d: {**d, "lines": 5},
        lambda d: {**d, "top_words": [{"word": "Beta", "count": 3}, *d["top_words"][1:]]},
        lambda d: {**d, "top_words": [d["top_words"][0], d["top_words"][1], d["top_words"][3], d["top_words"][2]]},
    ],
)
def test_wrong_stats_fail(out: Path, change: object) -> None:
    shipped.write_stats()
    assert callable(change)
    out.write_text(json.dumps(change(json.loads(out.read_text()))))
    with pytest.raises(AssertionError):
        shipped.test_line_and_word_stats()
