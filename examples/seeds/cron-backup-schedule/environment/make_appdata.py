"""Writes a deterministic application data tree to back up (with cache and temp files to skip)."""
import random
import sys
from pathlib import Path

rng = random.Random(1530)
root = Path(sys.argv[1])


def write(rel, data):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    path.write_bytes(data)


write("config/app.conf", "listen = 127.0.0.1:7000\nworkers = 3\nretention_days = 30\n")
write("config/users.yml", "".join(f"- name: user{n:02d}\n  role: {rng.choice(['admin', 'viewer', 'editor'])}\n"
                                  for n in range(1, 9)))
for month in range(1, 5):
    rows = [f"2026-{month:02d}-{day:02d},{rng.choice(['A', 'B', 'C'])},{rng.randint(1, 500)}" for day in range(1, 21)]
    write(f"records/2026-{month:02d}.csv", "date,site,units\n" + "\n".join(rows) + "\n")
write("records/import-2026-05.tmp", "partial import, do not back up\n")
for n in range(1, 6):
    write(f"uploads/img-{n:03d}.bin", bytes(rng.getrandbits(8) for _ in range(rng.randint(200, 2000))))
write("uploads/scan 07 (signed).pdf", b"%PDF-1.4\n% fake scan\n" + bytes(rng.getrandbits(8) for _ in range(300)))
write("uploads/upload-42.tmp", b"\x00" * 64)
for n in range(1, 8):
    write(f"cache/thumb-{n}.bin", bytes(rng.getrandbits(8) for _ in range(512)))
write("cache/index/state.json", '{"warm": true}\n')
write(".keep-forever", "marker file, part of the backup\n")
