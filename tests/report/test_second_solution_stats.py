"""`rst stats` and `rst report` per round: the share of candidates whose second solution passed, counted once per
candidate over its attempts; a skip (no second solution could be written, or a disputed one) is not
a run."""

from __future__ import annotations

from pathlib import Path

from rst_synth.cli.tables import stats_table
from rst_synth.report import run_stats
from rst_synth.report.html import write_report
from rst_synth.store import RunPaths, Store
from tests.report.test_html import _Page


def _attempt(second: str | None) -> dict[str, object]:
    checks = [{"check": c, "verdict": "pass"} for c in ("static", "build", "oracle", "nop", "parent")]
    if second is not None:
        checks.append({"check": "second_solution", "verdict": second})
    return {"checks": checks, "duration_sec": 1.0}


def _store(root: Path) -> Store:
    store = Store(RunPaths(root).db)
    attempts = {
        1: {"fixed": ["fail", "pass"], "failed": ["fail", "fail"], "skipped": ["skip"], "none": [None]},
        2: {"plain": [None]},
    }
    for round_, candidates in attempts.items():
        store.start_round(round_)
        for cid, seconds in candidates.items():
            key = f"r{round_}-{cid}"
            store.add_candidate(key, round_, "p", 0)
            for n, second in enumerate(seconds):
                store.record_attempt(key, n, _attempt(second), second == "pass")
        store.finish_round(round_)
    return store


def test_share_of_candidates_whose_second_solution_passed(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.check_candidates("second_solution") == {1: (2, 1)}
    one, two = run_stats(store)
    assert one.second_solution_share == 0.5  # "fixed" passed on its repair, "failed" never; the skip is no run
    assert two.second_solution_share is None
    headers = [str(c.header) for c in stats_table([one, two]).columns]
    assert "2nd sol." in headers
    assert "2nd sol." not in [str(c.header) for c in stats_table([two]).columns]  # shown where it ran


def test_the_report_shows_the_share_per_round_where_it_ran(tmp_path: Path) -> None:
    store = _store(tmp_path)
    out = write_report(RunPaths(tmp_path), store, tmp_path / "site")
    page = _Page(out.read_text())
    [checks] = [t for t in page.tables if t[0][:2] == ["round", "static"]]  # pass rate per check
    [column] = [k for k, header in enumerate(checks[0]) if header.startswith("second solution")]
    assert [(row[0], row[column]) for row in checks[1:]] == [("1", "50%"), ("2", "-")]
    store.close()

    plain = tmp_path / "plain"
    plain.mkdir()
    store = Store(RunPaths(plain).db)
    store.start_round(1)
    store.add_candidate("c", 1, "p", 0)
    store.record_attempt("c", 0, _attempt(None), True)
    out = write_report(RunPaths(plain), store, tmp_path / "plain-site")
    assert "second solution" not in out.read_text()  # no column where it never ran
    store.close()
