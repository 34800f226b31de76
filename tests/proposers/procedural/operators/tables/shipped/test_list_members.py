"""The reference of csv-list-members, called directly: its table passes its tests (repeats within a cell
counted once, empty values and filtered rows ignored); a member missing, a count that disagrees with the
members or rows out of order fail them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.tables.shipped import list_members as shipped


@pytest.fixture
def out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "roster.csv"
    src.write_text(
        "username,team,extra_groups\n"
        " bo ,ops,vpn; reports\n"
        "al,ops,reports;;reports\n"
        "cy,web,vpn\n"
        "di,ops,\n"
        "ed,ops,wiki;vpn\n"
    )
    for name, value in {
        "SRC": str(src),
        "LIST": "extra_groups",
        "SEP": ";",
        "KEY": "username",
        "FCOL": "team",
        "FVAL": "ops",
        "HEAD": "group",
        "OUT": str(tmp_path / "members.csv"),
    }.items():
        monkeypatch.setattr(shipped, name, value)
    return tmp_path / "members.csv"


def test_the_reference_passes_its_tests(out: Path) -> None:
    shipped.write_members()
    assert out.read_text().splitlines() == ["group,members,count", "reports,al bo,2", "vpn,bo ed,2", "wiki,ed,1"]
    shipped.test_members_per_listed_value()
    shipped.test_counts_are_member_counts()


@pytest.mark.parametrize(
    "rows",
    [
        ["reports,al bo,2", "vpn,bo ed cy,3", "wiki,ed,1"],  # the filter not applied
        ["reports,al bo,3", "vpn,bo ed,2", "wiki,ed,1"],  # a repeat within a cell counted twice
        ["vpn,bo ed,2", "reports,al bo,2", "wiki,ed,1"],  # a tie not broken by value
        ["reports,al bo,2", "vpn,bo ed,2"],  # a value left out
    ],
)
def test_wrong_tables_fail(out: Path, rows: list[str]) -> None:
    out.write_text("\n".join(["group,members,count", *rows]) + "\n")
    with pytest.raises(AssertionError):
        shipped.test_members_per_listed_value()
        shipped.test_counts_are_member_counts()
