"""Checks of the running kvd service and the report, computed from the stock export."""
import collections
import csv
import json
import urllib.request
from pathlib import Path

BASE = "http://127.0.0.1:8765"
MOVES = Path("/app/data/stock_moves.csv")
LOG = Path("/var/log/kvd.log")
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never via a proxy


def get(path):
    with OPENER.open(BASE + path, timeout=5) as resp:
        return resp.status, resp.read().decode()


def totals():
    stock, moves = collections.Counter(), collections.Counter()
    with MOVES.open() as fh:
        for row in csv.DictReader(fh):
            stock[row["sku"]] += int(row["delta"])
            moves[row["warehouse"]] += 1
    return stock, moves


def listeners(port):
    """Local addresses (hex, as in /proc/net/tcp*) listening on `port`."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        path = Path(table)
        if not path.exists():
            continue
        for line in path.read_text().splitlines()[1:]:
            fields = line.split()
            address, hexport = fields[1].rsplit(":", 1)
            if fields[3] == "0A" and int(hexport, 16) == port:
                found.append(address)
    return found


def test_export_untouched():
    assert len(MOVES.read_text().splitlines()) == 261


def test_service_healthy():
    assert get("/health") == (200, "ok\n")


def test_listens_on_loopback_only():
    assert listeners(8765) == ["0100007F"]


def test_exact_key_set():
    stock, moves = totals()
    expected = sorted([f"stock:{s}" for s in stock] + [f"moves:{w}" for w in moves])
    status, body = get("/keys")
    assert status == 200
    assert json.loads(body) == expected


def test_stock_values():
    stock, _ = totals()
    for sku, net in stock.items():
        status, body = get(f"/kv/stock:{sku}")
        assert status == 200 and int(body.strip()) == net, sku


def test_warehouse_move_counts():
    _, moves = totals()
    for warehouse, count in moves.items():
        status, body = get(f"/kv/moves:{warehouse}")
        assert status == 200 and int(body.strip()) == count, warehouse


def test_low_stock_report():
    stock, _ = totals()
    expected = sorted(((sku, n) for sku, n in stock.items() if n < 150), key=lambda kv: (kv[1], kv[0]))
    lines = [line.split() for line in Path("/app/report/low_stock.txt").read_text().splitlines() if line.strip()]
    assert lines == [[sku, str(n)] for sku, n in expected]


def test_requests_logged_to_file():
    get("/health?probe=verifier-7f3a")
    assert "probe=verifier-7f3a" in LOG.read_text()
