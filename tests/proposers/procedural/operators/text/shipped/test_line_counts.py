"""The references of text-pattern-count and text-unique-counts, called directly: what they write passes their
tests; a line numbered wrongly, a count off by one or ties ordered otherwise fail them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.text.shipped import line_counts as shipped

TEXT = "b error\r\nok\n\nerrors: a\nok\nb error\r\n"


@pytest.fixture
def paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    (tmp_path / "app.log").write_bytes(TEXT.encode())
    for name, value in {"SRC": "app.log", "TOKEN": "error", "OUT": "out.txt", "COUNT": "count.txt"}.items():
        monkeypatch.setattr(shipped, name, str(tmp_path / value) if "." in value else value)
    return tmp_path / "out.txt", tmp_path / "count.txt"


def test_the_pattern_reference_passes_its_tests(paths: tuple[Path, Path]) -> None:
    out, count = paths
    shipped.write_matches()
    assert out.read_bytes() == b"1:b error\r\n4:errors: a\n6:b error\r\n"
    assert count.read_text() == "3\n"
    shipped.test_numbered_matching_lines()
    shipped.test_match_count()


def test_the_unique_reference_passes_its_test(paths: tuple[Path, Path]) -> None:
    out, _ = paths
    shipped.write_unique_counts()
    assert out.read_bytes() == b"2\tb error\r\n2\tok\n1\t\n1\terrors: a\n"
    shipped.test_distinct_lines_with_counts()


def test_an_unterminated_last_line_still_passes(paths: tuple[Path, Path]) -> None:
    out, _ = paths
    shipped.write_unique_counts()
    out.write_bytes(out.read_bytes()[:-1])
    shipped.test_distinct_lines_with_counts()


@pytest.mark.parametrize(
    "wrong",
    [b"1:b error\r\n5:errors: a\n6:b error\r\n", b"1:b error\n4:errors: a\n6:b error\n", b"1:b error\r\n4:errors: a\n"],
)
def test_wrong_matches_fail(paths: tuple[Path, Path], wrong: bytes) -> None:
    out, _ = paths
    shipped.write_matches()
    out.write_bytes(wrong)
    with pytest.raises(AssertionError):
        shipped.test_numbered_matching_lines()


def test_a_wrong_count_fails(paths: tuple[Path, Path]) -> None:
    _, count = paths
    shipped.write_matches()
    count.write_text("2\n")
    with pytest.raises(AssertionError):
        shipped.test_match_count()


@pytest.mark.parametrize("wrong", [b"2\tok\n2\tb error\r\n1\t\n1\terrors: a\n", b"2\tb error\r\n2\tok\n1\terrors: a\n"])
def test_wrong_unique_counts_fail(paths: tuple[Path, Path], wrong: bytes) -> None:
    out, _ = paths
    out.write_bytes(wrong)
    with pytest.raises(AssertionError):
        shipped.test_distinct_lines_with_counts()
