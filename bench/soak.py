"""Benchmark: the soak. Many candidates through the real Engine, then what they left behind.

  fake   N candidates (default 1,000) with the fake proposer and the fake sandbox
         (tests/support/fakes.py): the engine's own memory and bookkeeping, no container
  real   M candidates (default 40) with the fake proposer on the real Docker engine: leaked
         containers, memory, store against disk

Every fifth child is broken (its test wants a file it never makes), so both runs reject as well
as accept. Reported: candidates, accepted/rejected, seconds, RSS of this process at the marks,
containers left (real: those carrying this process's run label), and whether the tasks in the
store are exactly the task directories on disk with nothing pending or half-written.

    python3 bench/soak.py [--quick] [--fake N] [--real M] [--keep DIR]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from _common import REPO, footer, header, parser, summary, table

sys.path.insert(0, str(REPO))  # tests.support: the fakes and the soak itself

from rst_synth.sandbox import make_sandbox
from tests.support.docker import our_containers
from tests.support.fakes import FakeSandbox
from tests.support.soak import rss_mb, soak, unique_run_label, write_seeds


def main() -> None:
    p = parser(__doc__.splitlines()[0])
    p.add_argument("--fake", type=int, default=1000, help="candidates on the fakes")
    p.add_argument("--real", type=int, default=40, help="candidates on the real engine (0: skip)")
    p.add_argument("--keep", type=Path, help="keep the run directories here")
    args = p.parse_args()
    if args.quick:
        args.real = min(args.real, 8)
    started = header("soak", args)
    unique_run_label()
    root = args.keep or Path(tempfile.mkdtemp(prefix="rst-soak-"))
    rows, ok = [], True
    print(f"RSS after imports: {rss_mb():.1f} MB")
    fake_marks = tuple(m for m in (100, 1000, args.fake) if m <= args.fake)
    sandbox = FakeSandbox()
    fake = soak(root / "fake", write_seeds(root / "fake-seeds", 10), sandbox, args.fake, fake_marks)
    rows.append(("fake", fake, sandbox.live))
    ok &= fake.store_and_disk_agree and sandbox.live == 0 and fake.pending == 0
    if args.real:
        real_marks = tuple(sorted({min(10, args.real), args.real}))
        seeds = write_seeds(root / "real-seeds", 2)
        real = soak(root / "real", seeds, make_sandbox("docker"), args.real, real_marks, workers=2)
        leaked = len(our_containers())
        rows.append(("real", real, leaked))
        ok &= real.store_and_disk_agree and leaked == 0
    table(
        "Soak",
        ["engine", "candidates", "accepted", "rejected", "errors", "seconds", "RSS MB at marks", "containers left",
         "store tasks", "disk tasks", "pending", "half-written", "store = disk"],
        [(name, r.candidates, r.accepted, r.rejected, r.errors, r.seconds,
          ", ".join(f"{k}: {v}" for k, v in r.rss_mb.items()), left, r.store_tasks, r.disk_tasks, r.pending,
          r.staging_left, "yes" if r.store_and_disk_agree else "NO") for name, r, left in rows],
    )  # fmt: skip
    growth = fake.rss_mb.get(fake_marks[-1], 0) - fake.rss_mb.get(fake_marks[0], 0)
    summary("soak", f"0 leaked, store = disk, RSS +{growth:.1f} MB from {fake_marks[0]} to {fake_marks[-1]}",
            "0 leaked, store = disk, RSS growth < 60 MB", ok and growth < 60)  # fmt: skip
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)
    footer(started)


if __name__ == "__main__":
    main()
