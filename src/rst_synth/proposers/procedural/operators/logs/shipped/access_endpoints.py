"""What `access-log-endpoints` ships: the script that reports the requests, bytes and server-error rate of
each method and path of an access log, and the tests that read the log again. It builds on access_hits.py,
which a step renders before this module's code. The constants are the step's parameters: `shipping.render`
sets them."""

from __future__ import annotations

import csv
import pathlib

from rst_synth.proposers.procedural.operators.kit.testkit import csv_rows
from rst_synth.proposers.procedural.operators.logs.shipped.access_hits import requests_of

LOG = "/app/logs/access.log"
OUT = "/app/logs/access_endpoints.csv"


def endpoints(text: str) -> list[list[str]]:
    found: dict[tuple[str, str], list[int]] = {}
    for _, _, request, status, size in requests_of(text):
        parts = request.split(" ")
        if len(parts) != 3 or not parts[1].startswith("/"):
            continue
        path = parts[1].split("?", 1)[0].split("#", 1)[0]
        cell = found.setdefault((parts[0], path), [0, 0, 0])
        cell[0] += 1
        cell[1] += size
        cell[2] += status >= 500
    rows = [[m, p, str(n), str(b), str(e), f"{e / n:.4f}"] for (m, p), (n, b, e) in found.items()]
    rows.sort(key=lambda row: (-int(row[2]), row[0], row[1]))
    return [["method", "path", "requests", "bytes", "server_errors", "error_rate"]] + rows


def write_endpoints() -> None:
    with open(LOG, encoding="utf-8", errors="replace") as f:
        table = endpoints(f.read())
    with open(OUT, "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows(table)


def test_traffic_per_endpoint() -> None:
    got = csv_rows(OUT)
    want = endpoints(pathlib.Path(LOG).read_text(encoding="utf-8", errors="replace"))
    assert [r[:5] for r in got] == [r[:5] for r in want]
    assert got[0] == want[0]
    assert all(abs(float(g[5]) - float(w[5])) < 0.00006 for g, w in zip(got[1:], want[1:]))  # noqa: B905  # 3.10+


def test_every_request_with_a_path_counted_once() -> None:
    text = pathlib.Path(LOG).read_text(encoding="utf-8", errors="replace")
    with_path = [r for r in requests_of(text) if len(r[2].split(" ")) == 3 and r[2].split(" ")[1].startswith("/")]
    body = csv_rows(OUT)[1:]
    assert sum(int(r[2]) for r in body) == len(with_path)
    assert sum(int(r[3]) for r in body) == sum(r[4] for r in with_path)
