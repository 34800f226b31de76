"""The cron rules the schedule operators ship, called directly: lists, ranges and steps expand as stated,
the day fields combine by the OR rule only when both are restricted, a malformed entry names its line."""

from __future__ import annotations

import datetime

import pytest

from rst_synth.proposers.procedural.operators.schedule.shipped import cron

START = datetime.datetime(2026, 3, 1, 0, 0)  # a Sunday


def test_fields_expand_as_stated() -> None:
    assert cron.cron_values("5,20-30/5,*/25", 0, 59) == {0, 5, 20, 25, 30, 50}
    for bad in ("60", "30-10", "*/0", "1/2", "mon", ""):
        assert cron.cron_values(bad, 0, 59) is None, bad


def test_day_fields_or_when_both_are_restricted() -> None:
    # the 13th or any Friday, in March 2026: Friday the 6th comes first, then the 13th (also a Friday), the 20th
    assert [r.split()[0] for r in cron.next_runs("0 0 13 * 5 job\n", False, START, 3)] == [
        "2026-03-06T00:00",
        "2026-03-13T00:00",
        "2026-03-20T00:00",
    ]
    # a day-of-week alone: Sundays only (7 is Sunday too), strictly after START
    assert cron.next_runs("0 0 * * 7 job\n", False, START, 1) == ["2026-03-08T00:00 1"]


def test_runs_merge_by_time_then_line_and_stop_at_the_window() -> None:
    text = "# c\nMAILTO=x\n0 12 * * * a\n0 12 * * 0-6 b\n"
    assert cron.next_runs(text, False, START, 3) == ["2026-03-01T12:00 3", "2026-03-01T12:00 4", "2026-03-02T12:00 3"]
    assert cron.next_runs("0 0 30 2 * never\n", False, START, 1) == []
    leap = cron.next_runs("0 12 29 2 * job\n", False, START, 1)
    assert leap == ["2028-02-29T12:00 1"]


@pytest.mark.parametrize("line", ["0 0 * * *", "61 * * * * job", "@daily job", "0 0 * jan * job"])
def test_a_malformed_entry_names_its_line(line: str) -> None:
    with pytest.raises(cron.MalformedEntry) as bad:
        cron.cron_entries(f"# header\n{line}\n", False)
    assert bad.value.args == (2,)


def test_the_user_field_needs_one_more_field() -> None:
    assert cron.cron_entries("0 0 * * * root job\n", True)[0][0] == 1
    with pytest.raises(cron.MalformedEntry):
        cron.cron_entries("0 0 * * * job\n", True)
