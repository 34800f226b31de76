"""Builds a deterministic records tree under argv[1]: text, binary, hidden, temp and cache files."""
import os
import random
import sys
from pathlib import Path

rng = random.Random(20260512)
root = Path(sys.argv[1])


def text(rel, lines):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{line}\n" for line in lines))


def blob(rel, size):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(bytes(rng.randrange(256) for _ in range(size)))


for month in range(1, 7):
    rows = [f"INV-{month:02d}{i:03d},{rng.randint(100, 99999) / 100:.2f}" for i in range(rng.randint(5, 25))]
    text(f"invoices/2025-{month:02d}.csv", ["invoice,amount", *rows])
text("invoices/.index", [f"2025-{m:02d}.csv" for m in range(1, 7)])
text("invoices/2025-04.csv.tmp", ["invoice,amount", "INV-draft,0.00"])
text("reports/Q1 summary.txt", [f"month {m}: {rng.randint(10, 99)} invoices" for m in (1, 2, 3)])
text("reports/Q2 summary.txt", [f"month {m}: {rng.randint(10, 99)} invoices" for m in (4, 5, 6)])
text("reports/cache/render-1.html", ["<p>stale</p>"])
text("reports/cache.txt", ["notes about the cache, not a cache"])
text("reports/cache-old/readme.txt", ["kept on purpose"])
blob("scans/receipt-001.png", 2048)
blob("scans/receipt-002.png", 3072)
blob("scans/nested/receipt-003.png", 1536)
blob("scans/nested/cache/thumb-003.png", 512)
text("scans/upload.tmp", ["partial"])
blob("cache/index.bin", 4096)
(root / "empty.log").write_text("")
text("README", ["Accounting records, 2025 H1.", "Do not edit by hand."])
os.symlink("invoices/2025-06.csv", root / "latest.csv")
os.symlink("../scans", root / "reports/scans-link")
