"""The reference of csv-quarantine-malformed, called directly: on a small raw feed (CRLF, a blank line,
quoted commas, each reason, first reason wins) its accepted records and reject report are exact and pass
the tests, also as the rendered script; a record stripped, renumbered or let through fails them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.tables.shipped import quarantine_malformed as shipped
from rst_synth.proposers.procedural.shipping import python_script, render

BASE = 'region,amount,note\nnorth,1.50,a\n"south, x",2,b\n'
FEED = (
    "region,amount,note\r\n"
    "north,1.50,a\r\n"  # 1: a row of the base
    "east,3,c\r\n"  # 2
    "east,3\r\n"  # 3
    '"  ",4,d\r\n'  # 4
    "west,1e3,e\r\n"  # 5
    "east,3,c\r\n"  # 6: accepted earlier
    "\r\n"
    '"west, q", -2 ,f\r\n'  # 7
    ",x,g\r\n"  # 8: no key and no number: the first reason
    "a,b,c,d\r\n"  # 9
)
ACCEPTED = 'region,amount,note\neast,3,c\n"west, q", -2 ,f\n'
REJECTS = (
    "record,reason\n1,duplicate\n3,wrong_field_count\n4,missing_key\n5,bad_number\n6,duplicate\n"
    "8,missing_key\n9,wrong_field_count\n"
)


@pytest.fixture
def feed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    (tmp_path / "base.csv").write_text(BASE, encoding="utf-8")
    (tmp_path / "raw.csv").write_bytes(FEED.encode("utf-8"))
    params = {
        "SRC": str(tmp_path / "base.csv"),
        "FEED": str(tmp_path / "raw.csv"),
        "KEY": "region",
        "VALUE": "amount",
        "ACCEPTED": str(tmp_path / "accepted.csv"),
        "REJECTS": str(tmp_path / "rejects.csv"),
    }
    for name, value in params.items():
        monkeypatch.setattr(shipped, name, value)
    return params


def test_the_reference_quarantines_by_the_rules(feed: dict[str, str]) -> None:
    shipped.main()
    assert Path(shipped.ACCEPTED).read_text(encoding="utf-8") == ACCEPTED
    assert Path(shipped.REJECTS).read_text(encoding="utf-8") == REJECTS
    shipped.test_accepted_records()
    shipped.test_reject_report()


def test_the_rendered_script_writes_the_same(feed: dict[str, str]) -> None:
    script = python_script(render(shipped, ["main"], **feed), "main()")
    done = subprocess.run(["bash", "-c", script], capture_output=True)
    assert done.returncode == 0, done.stderr
    assert Path(shipped.ACCEPTED).read_text(encoding="utf-8") == ACCEPTED
    assert Path(shipped.REJECTS).read_text(encoding="utf-8") == REJECTS


@pytest.mark.parametrize(
    ("name", "wrong"),
    [
        ("ACCEPTED", ACCEPTED.replace(" -2 ", "-2")),  # a record changed
        ("ACCEPTED", ACCEPTED + "east,3,c\n"),  # a duplicate let through
        ("REJECTS", REJECTS.replace("9,wrong", "10,wrong").replace("8,missing", "9,missing")),  # a blank line counted
        ("REJECTS", REJECTS.replace("8,missing_key", "8,bad_number")),  # not the first reason
    ],
)
def test_a_wrong_split_fails(feed: dict[str, str], name: str, wrong: str) -> None:
    shipped.main()
    Path(getattr(shipped, name)).write_text(wrong, encoding="utf-8")
    with pytest.raises(AssertionError):
        shipped.test_accepted_records()
        shipped.test_reject_report()
