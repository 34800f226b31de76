"""The references of access-log-bursts and access-log-endpoints (on access_hits.py), called directly:
their reports pass their tests (offsets read as UTC, malformed lines and impossible dates skipped, the
window's ends included, query strings dropped); a burst one short, a window wider than asked, an endpoint
split by its query string or a wrong error rate fail them."""

from __future__ import annotations

from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.logs.shipped import access_bursts, access_endpoints

LOG = (
    'a - - [01/Apr/2026:10:00:00 +0200] "GET /x?q=1 HTTP/1.1" 200 10\n'
    'a - - [01/Apr/2026:08:01:00 +0000] "GET /x HTTP/1.1" 500 -\n'  # 60 s after, in UTC
    'b - - [01/Apr/2026:08:00:30 +0000] "POST /y HTTP/1.1" 201 5\n'
    'a - - [01/Apr/2026:08:03:00 +0000] "-" 400 1\n'
    "junk\n"
    'c - - [31/Feb/2026:08:00:00 +0000] "GET / HTTP/1.1" 200 5\n'
)


@pytest.fixture
def log(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    src = tmp_path / "access.log"
    src.write_text(LOG)
    for module in (access_bursts, access_endpoints):
        monkeypatch.setattr(module, "LOG", str(src))
        monkeypatch.setattr(module, "OUT", str(tmp_path / f"{module.__name__}.csv"))
    monkeypatch.setattr(access_bursts, "WINDOW", 60)
    return tmp_path


def test_the_bursts_pass_their_tests(log: Path) -> None:
    access_bursts.write_bursts()
    assert Path(access_bursts.OUT).read_text().splitlines() == [
        "client,requests,from,to",
        "a,2,2026-04-01T08:00:00Z,2026-04-01T08:01:00Z",
        "b,1,2026-04-01T08:00:30Z,2026-04-01T08:00:30Z",
    ]
    access_bursts.test_busiest_window_per_client()
    access_bursts.test_windows_fit_and_hold_their_count()


@pytest.mark.parametrize(
    "rows",
    [
        ["a,1,2026-04-01T08:00:00Z,2026-04-01T08:00:00Z", "b,1,2026-04-01T08:00:30Z,2026-04-01T08:00:30Z"],
        ["a,3,2026-04-01T08:00:00Z,2026-04-01T08:03:00Z", "b,1,2026-04-01T08:00:30Z,2026-04-01T08:00:30Z"],
        ["a,2,2026-04-01T08:00:00Z,2026-04-01T08:01:00Z"],
    ],
)
def test_wrong_bursts_fail(log: Path, rows: list[str]) -> None:
    Path(access_bursts.OUT).write_text("\n".join(["client,requests,from,to", *rows]) + "\n")
    with pytest.raises(AssertionError):
        access_bursts.test_busiest_window_per_client()
        access_bursts.test_windows_fit_and_hold_their_count()


HEADER = "method,path,requests,bytes,server_errors,error_rate"


def test_the_endpoints_pass_their_tests(log: Path) -> None:
    access_endpoints.write_endpoints()
    assert Path(access_endpoints.OUT).read_text().splitlines() == [
        HEADER,
        "GET,/x,2,10,1,0.5000",
        "POST,/y,1,5,0,0.0000",
    ]
    access_endpoints.test_traffic_per_endpoint()
    access_endpoints.test_every_request_with_a_path_counted_once()


@pytest.mark.parametrize(
    "rows",
    [
        ["GET,/x,1,0,1,1.0000", "GET,/x?q=1,1,10,0,0.0000", "POST,/y,1,5,0,0.0000"],
        ["GET,/x,2,10,1,0.5001", "POST,/y,1,5,0,0.0000"],
        ["GET,/x,2,10,2,1.0000", "POST,/y,1,5,0,0.0000"],  # a 400 counted a server error
    ],
)
def test_wrong_endpoints_fail(log: Path, rows: list[str]) -> None:
    Path(access_endpoints.OUT).write_text("\n".join([HEADER, *rows]) + "\n")
    with pytest.raises(AssertionError):
        access_endpoints.test_traffic_per_endpoint()
        access_endpoints.test_every_request_with_a_path_counted_once()
