"""What `access-log-sessions` ships: the tool that splits each client's requests in an access log into
sessions at a stated idle gap (its `main`, written to an executable file), and the tests that split the
log again and run the tool on logs they generate. It builds on access_hits.py, which a step renders before
this module's code. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import csv
import datetime
import pathlib
import random
import re
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, csv_text_rows, run_tool
from rst_synth.proposers.procedural.operators.logs.shipped.access_hits import client_hits

TOOL = "/app/bin/access_sessions"
LOG = "/app/logs/access.log"
OUT = "/app/sessions/access_sessions.csv"
GAP = 15
SEED = 4242
GAP_TEST = 17


def sessions(text: str, gap_minutes: int) -> list[list[str]]:
    gap = datetime.timedelta(minutes=gap_minutes)
    rows: list[tuple[str, list[Any]]] = []
    for client, found in client_hits(text).items():
        found.sort(key=lambda hit: hit[0])
        current: list[Any] | None = None
        for when, size, error in found:
            if current is None or when - current[1] > gap:
                current = [when, when, 0, 0, 0]
                rows.append((client, current))
            current[1] = when
            current[2] += 1
            current[3] += size
            current[4] += error
    rows.sort(key=lambda row: (row[1][0], row[0]))
    stamp = "%Y-%m-%dT%H:%M:%SZ"
    return [["client", "start", "end", "requests", "bytes", "errors"]] + [
        [client, s.strftime(stamp), e.strftime(stamp), str(n), str(b), str(x)] for client, (s, e, n, b, x) in rows
    ]


def main(argv: list[str]) -> int:
    try:
        path, gap = argv[1:]
        if not re.fullmatch(r"[0-9]+", gap) or int(gap) < 1:
            raise ValueError(gap)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except (ValueError, OSError) as exc:
        print("usage: " + argv[0] + " LOG GAP_MINUTES (" + str(exc) + ")", file=sys.stderr)
        return 2
    csv.writer(sys.stdout, lineterminator="\n").writerows(sessions(text, int(gap)))
    return 0


def fresh_log(seed: int) -> str:
    rng = random.Random(seed)
    clients = ["10.0.0.1", "10.0.0.2", "192.168.7.40", "2001:db8::7", "client-a"]
    zones = ["+0000", "+0200", "-0500", "+0530"]
    base = datetime.datetime(2026, 3, 28, 23, 40, tzinfo=datetime.timezone.utc)  # noqa: UP017  # datetime.UTC needs 3.11
    lines = []
    for _ in range(rng.randint(40, 90)):
        when = base + datetime.timedelta(seconds=rng.choice([rng.randint(0, 7200), rng.randint(0, 400)]))
        zone = rng.choice(zones)
        offset = datetime.timedelta(hours=int(zone[1:3]), minutes=int(zone[3:])) * (1 if zone[0] == "+" else -1)
        local = when.astimezone(datetime.timezone(offset))
        size = rng.choice(["-", "0", str(rng.randint(1, 90000))])
        status = rng.choice([200, 200, 304, 404, 500, 503, 401])
        tail = rng.choice(["", ' "-" "curl/8.5"', ' "https://x.test/" "Mozilla/5.0 (X11)"'])
        request = rng.choice(["GET / HTTP/1.1", "POST /api/items?id=3 HTTP/1.1", "-"])
        lines.append(f'{rng.choice(clients)} - - [{local:%d/%b/%Y:%H:%M:%S %z}] "{request}" {status} {size}{tail}')
    # exactly the gap apart: the same session; a minute more: a new one
    lines += [
        '10.9.9.9 - - [29/Mar/2026:08:00:00 +0000] "GET / HTTP/1.1" 200 10',
        f'10.9.9.9 - - [29/Mar/2026:08:{GAP_TEST:02d}:00 +0000] "GET / HTTP/1.1" 200 20',
        f'10.9.9.9 - - [29/Mar/2026:08:{2 * GAP_TEST + 1:02d}:00 +0000] "GET / HTTP/1.1" 500 -',
    ]
    lines += ["garbage line", '10.0.0.1 - - [31/Feb/2026:10:00:00 +0000] "GET / HTTP/1.1" 200 5', ""]
    rng.shuffle(lines)
    return "\n".join(lines) + "\n"


def test_sessions_of_the_log() -> None:
    want = sessions(pathlib.Path(LOG).read_text(encoding="utf-8", errors="replace"), GAP)
    assert len(want) > 2
    assert csv_text_rows(pathlib.Path(OUT).read_text(encoding="utf-8")) == want


def test_tool_on_fresh_logs(tmp_path: pathlib.Path) -> None:
    for k in range(4):
        text = fresh_log(SEED + k)
        path = tmp_path / f"access{k}.log"
        path.write_text(text, encoding="utf-8")
        gap = (GAP_TEST, 5, 60, 1)[k]
        done = run_tool(TOOL, path, gap)
        assert done.returncode == 0, done.stderr[-500:]
        assert csv_text_rows(done.stdout.decode("utf-8")) == sessions(text, gap), k


def test_tool_rejects_bad_arguments(tmp_path: pathlib.Path) -> None:
    log = tmp_path / "a.log"
    log.write_text("", encoding="utf-8")
    for args in ([log, "0"], [log, "x"], [tmp_path / "missing.log", "5"], [log]):
        done = run_tool(TOOL, *args)
        assert_usage_error(done, args)
