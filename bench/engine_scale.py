"""Benchmark 4: the engine at scale, on a synthetic store of 100,000 accepted tasks.

Builds a run directory whose store holds N tasks over 10 rounds (round 0: the 13 seeds), with
candidates (a third of them rejected), attempts (some after a repair) and rounds rows, every row
written through Store (add_candidate, record_attempt, reject_candidate, accept). Fingerprints are
NoveltyIndex MinHashes: a pool of generated step texts is fingerprinted with
NoveltyIndex.fingerprint; a task's `added` fingerprint is the union (elementwise min) of its 1-3
steps, its `whole` fingerprint the union of its parent's and its added one (MinHash of a union of
shingle sets), so siblings and ancestors look alike as they do in a real run.

Then times, each against a baseline measured in the same run:
  insertion   Store.accept per task      vs the same 3 SQL statements on a plain sqlite3 twin database
  load        Engine(...) (loads every fingerprint into the NoveltyIndex) vs fetching the fingerprint rows
  frontier    frontier(store, last round + 1) vs SELECT id, root_id of that round
  duplicate   NoveltyIndex.duplicate_of vs one MinHash.jaccard
  run_stats   in-process                 vs one scan of attempts, candidates and tasks
  rst stats   subprocess on the big run  vs `rst stats` on a 100-task run
  memory      peak RSS (VmHWM) of the engine process (a fresh subprocess) vs its RSS after imports

    python3 bench/engine_scale.py [--quick] [--tasks N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from _common import RST, SEEDS, footer, header, median, ms, parser, ratio, summary, table
from rst_synth.engine.novelty import NoveltyIndex
from rst_synth.store import RunPaths, Store, TaskRow
from rst_synth.store.rows import SCHEMA

ROUNDS = 10
CHECKS = ("static", "build", "oracle", "nop", "determinism", "parent", "novelty")
OPERATORS = ("csv_filter", "csv_groupby", "json_flatten", "json_select", "text_grep", "sqlite_query",
             "archive_pack", "git_tag", "config_edit", "python_patch", "checksum", "sort_dedup")
FAILS = (("oracle", "tests_failed"), ("parent", "parent_solution_passes"), ("nop", "tests_pass_without_work"),
         ("build", "build_failed"), ("novelty", "near_duplicate"), ("determinism", "nondeterministic"))
TARGET_FRONTIER, TARGET_DUP, TARGET_STATS = 0.050, 0.005, 1.0


# -- synthetic data ----------------------------------------------------------------------------

class Generator:
    """Step texts, their fingerprints, and a lineage tree of tasks over them."""

    def __init__(self, steps: int, seed: int = 0) -> None:
        self.rng = random.Random(seed)
        self.index = NoveltyIndex()
        self.vocab = [f"{w}{i}" for i in range(800) for w in ("csv", "row", "app", "out", "key")]
        self.pool = np.stack([self._fingerprint(self._step_text()) for _ in range(steps)])

    def _words(self, n: int) -> str:
        return " ".join(self.rng.choice(self.vocab) for _ in range(n))

    def _step_text(self) -> str:
        op = self.rng.choice(OPERATORS)
        return f"Then {op}: {self._words(14)}.\n# --- step {op} ---\n{self._words(10)} > /app/{self._words(2)}\n"

    def _fingerprint(self, text: str) -> np.ndarray:
        return self.index.fingerprint(text).hashvalues.copy()

    def seed_fingerprint(self) -> np.ndarray:
        return self._fingerprint(self._words(320))

    def child(self, parent_whole: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[int]]:
        picks = self.rng.sample(range(len(self.pool)), self.rng.randint(1, 3))
        added = self.pool[picks].min(axis=0)
        return np.minimum(parent_whole, added), added, picks


def blob(hashvalues: np.ndarray) -> bytes:
    """Exactly NoveltyIndex.dump of a MinHash with these hash values."""
    return np.asarray(hashvalues, dtype=np.uint64).tobytes()


def report(accepted: bool, fail: tuple[str, str] | None) -> dict[str, object]:
    checks = []
    for check in CHECKS:
        after_failure = fail is not None and CHECKS.index(check) > CHECKS.index(fail[0])
        verdict = "fail" if fail and check == fail[0] else ("skip" if after_failure else "pass")
        checks.append({"check": check, "verdict": verdict, "reason": fail[1] if verdict == "fail" else "ok",
                       "detail": "", "duration_sec": 1.234, "reward": 1.0 if verdict == "pass" else 0.0,
                       "output_tail": "--- test.sh ---\n" + "." * 120 + " [100%]\n4 passed in 0.31s\n"})
    return {"checks": checks, "rejection": None if accepted else {"check": fail[0], "reason": fail[1]},  # type: ignore[index]
            "duration_sec": 4.2}


class Twin:
    """The baseline: a plain sqlite3 database of the same schema getting the same rows."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.executescript(SCHEMA)

    def add_candidates(self, rows: list[tuple[str, int, str | None, int]]) -> None:
        self.db.execute("BEGIN")
        self.db.executemany("INSERT INTO candidates(id, round, parent_id, seed, status) VALUES (?,?,?,?,'pending')", rows)
        self.db.execute("COMMIT")

    def accept(self, cid: str, row: tuple[object, ...], whole: bytes, added: bytes) -> None:
        self.db.execute("BEGIN IMMEDIATE")
        self.db.execute("INSERT INTO tasks(id, name, round, parent_id, root_id, path, proposer, steps, solution_lines, "
                        "executed_commands, oracle_sec, build_sec, tokens_in, tokens_out, cost_usd, repair_attempts, "
                        "created_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", row)
        self.db.execute("INSERT OR REPLACE INTO fingerprints(task_id, whole, added) VALUES (?,?,?)", (row[0], whole, added))
        self.db.execute("UPDATE candidates SET status = 'accepted', task_id = ?, updated_at = ? WHERE id = ?",
                        (row[0], time.time(), cid))
        self.db.execute("COMMIT")


def twin_accept(twin: Twin, cid: str, row: TaskRow, whole: bytes, added: bytes) -> float:
    values = (*row.model_dump().values(),)
    values = (*values[:7], json.dumps(values[7]), *values[8:], time.time())
    started = time.perf_counter()
    twin.accept(cid, values, whole, added)
    return time.perf_counter() - started


def build(run: Path, tasks: int, gen: Generator, attempts_extra: float, reject_share: float,
          twin: Twin | None, twin_every: int = 1) -> dict[str, float]:
    """Fill run/run.db; returns seconds spent in Store.accept (all, and on the rows the twin also
    got: every `twin_every`-th) and in the twin's inserts."""
    RunPaths(run).root.mkdir(parents=True, exist_ok=True)
    store = Store(RunPaths(run).db)
    rng = random.Random(1)
    roots = sorted(p.name for p in SEEDS.iterdir() if (p / "task.toml").is_file())
    per_round = [len(roots)] + [(tasks - len(roots)) // (ROUNDS - 1)] * (ROUNDS - 1)
    per_round[-1] += tasks - sum(per_round)
    previous: list[tuple[str, str, np.ndarray]] = []  # (id, root, whole) of the last round
    spent = {"accept": 0.0, "twin": 0.0, "accept_sampled": 0.0, "accepted": 0, "sampled": 0}
    for round_, count in enumerate(per_round):
        store.start_round(round_)
        fanout: dict[str, int] = {}
        planned: list[tuple[str, TaskRow, np.ndarray, np.ndarray]] = []
        candidates: list[tuple[str, int, str | None, int]] = []
        with store.transaction():
            for k in range(count + int(count * reject_share / (1 - reject_share)) if round_ else count):
                accepted = round_ == 0 or k < count
                if round_ == 0:
                    task_id, root, parent_id, whole = roots[k], roots[k], None, gen.seed_fingerprint()
                    added, steps, cid = whole, [], f"r00-{roots[k]}"
                else:
                    parent_id, root, parent_whole = rng.choice(previous)
                    j = fanout[parent_id] = fanout.get(parent_id, -1) + 1
                    whole, added, picks = gen.child(parent_whole)
                    cid, steps = f"r{round_:02d}-{parent_id}-{j}", [OPERATORS[p % len(OPERATORS)] for p in picks]
                    task_id = f"{root}-r{round_}-{rng.getrandbits(40):010x}"
                store.add_candidate(cid, round_, parent_id, rng.getrandbits(31))
                candidates.append((cid, round_, parent_id, 0))
                fail = rng.choice(FAILS)
                if round_ and rng.random() < attempts_extra:  # a rejected first attempt, then a repair
                    store.record_attempt(cid, 0, report(False, fail), False)
                    store.record_attempt(cid, 1, report(accepted, None if accepted else fail), accepted)
                else:
                    store.record_attempt(cid, 0, report(accepted, None if accepted else fail), accepted)
                if not accepted:
                    store.reject_candidate(cid, fail[0], fail[1], f"{fail[1]}: synthetic rejection")
                    continue
                row = TaskRow(id=task_id, name=f"rst/{task_id}", round=round_, parent_id=parent_id, root_id=root,
                              path=f"tasks/r{round_:02d}/{task_id}", proposer="procedural" if round_ else None,
                              steps=steps, solution_lines=40 + 12 * round_ + rng.randint(0, 30),
                              executed_commands=30 + 20 * round_ + rng.randint(0, 60),
                              oracle_sec=round(rng.uniform(0.5, 4.0), 3), build_sec=round(rng.uniform(0, 30), 3),
                              tokens_in=0, tokens_out=0, cost_usd=0.0, repair_attempts=0)
                planned.append((cid, row, whole, added))
        if twin is not None:
            twin.add_candidates(candidates)
        current = []
        for k, (cid, row, whole, added) in enumerate(planned):
            w, a = blob(whole), blob(added)
            sampled = twin is not None and k % twin_every == 0
            if sampled and k % (2 * twin_every) == 0:  # the twin goes first every other time
                spent["twin"] += twin_accept(twin, cid, row, w, a)  # type: ignore[arg-type]
            started = time.perf_counter()
            store.accept(cid, row, w, a)
            elapsed = time.perf_counter() - started
            spent["accept"] += elapsed
            if sampled:
                spent["accept_sampled"] += elapsed
                spent["sampled"] += 1
                if k % (2 * twin_every):
                    spent["twin"] += twin_accept(twin, cid, row, w, a)  # type: ignore[arg-type]
            current.append((row.id, row.root_id, whole))
        spent["accepted"] += len(planned)
        store.finish_round(round_)
        previous = current
    store.close()
    return spent


def queries(gen: Generator, run: Path, count: int) -> np.ndarray:
    """New children of last-round parents (and a few exact re-proposals): (count, 2, num_perm)."""
    store = Store(RunPaths(run).db)
    last = max(r["round"] for r in store.rounds())
    ids = [t for t, *_ in store._db.execute("SELECT id FROM tasks WHERE round = ?", (last,))]
    out = []
    for k in range(count):
        row = store._db.execute("SELECT whole, added FROM fingerprints WHERE task_id = ?", (gen.rng.choice(ids),)).fetchone()
        whole, added = (np.frombuffer(b, dtype=np.uint64).astype(np.uint32) for b in row)
        out.append(np.stack([whole, added]) if k % 10 == 0 else np.stack(gen.child(whole)[:2]))
    store.close()
    return np.stack(out)


# -- the engine process (a fresh subprocess, so its memory is its own) -----------------------------

def measure(run: Path, reps: int) -> dict[str, object]:
    from rst_synth.engine import Engine, SynthConfig, frontier
    from rst_synth.report import run_stats

    import datasketch  # noqa: F401  (imported by the first NoveltyIndex: code, not data)

    paths = RunPaths(run)
    store = Store(paths.db)
    out: dict[str, object] = {"rss_imports_kb": memory_kb()["VmRSS"]}
    started = time.perf_counter()
    raw = store._db.execute("SELECT task_id, whole, added FROM fingerprints").fetchall()
    out["load_base"] = time.perf_counter() - started
    del raw
    started = time.perf_counter()
    engine = Engine(SynthConfig(seeds_dir=str(SEEDS)), paths, store, proposer=None, validator=None)  # type: ignore[arg-type]
    out["load"] = time.perf_counter() - started
    out["tasks"] = len(engine.novelty)
    last = max(r["round"] for r in store.rounds())
    out["last_round_tasks"] = store._db.execute("SELECT COUNT(*) FROM tasks WHERE round = ?", (last,)).fetchone()[0]

    frontier_times, frontier_base = [], []
    for _ in range(reps * 4):
        started = time.perf_counter()
        store._db.execute("SELECT id, root_id FROM tasks WHERE round = ?", (last,)).fetchall()
        frontier_base.append(time.perf_counter() - started)
        started = time.perf_counter()
        chosen = frontier(store, last + 1, cap=engine.config.frontier_cap, run_seed=engine.config.seed)
        frontier_times.append(time.perf_counter() - started)
    out["frontier"], out["frontier_base"], out["frontier_size"] = median(frontier_times), median(frontier_base), len(chosen)

    novelty = engine.novelty
    qs = np.load(run / "queries.npy")
    digests = [(novelty.load(blob(w)), novelty.load(blob(a))) for w, a in qs]
    dup, found, candidates = [], 0, []
    for whole, added in digests:
        started = time.perf_counter()
        twin = novelty.duplicate_of(whole, added)
        dup.append(time.perf_counter() - started)
        found += twin is not None
        candidates.append(len(novelty._whole.query(whole)))
    a, b = digests[0]
    jac = []
    for _ in range(200):
        started = time.perf_counter()
        a.jaccard(b)
        jac.append(time.perf_counter() - started)
    out.update(dup=median(dup), dup_p95=float(np.percentile(dup, 95)), dup_base=median(jac), dup_found=found,
               dup_queries=len(digests), dup_candidates=median(candidates))

    stats, stats_base = [], []
    for _ in range(reps):
        started = time.perf_counter()
        for query in ("SELECT COUNT(*), SUM(LENGTH(checks)) FROM attempts", "SELECT COUNT(*), SUM(attempts) FROM candidates",
                      "SELECT COUNT(*), SUM(solution_lines) FROM tasks"):
            store._db.execute(query).fetchone()
        stats_base.append(time.perf_counter() - started)
        started = time.perf_counter()
        result = run_stats(store)
        stats.append(time.perf_counter() - started)
    out.update(stats=median(stats), stats_base=median(stats_base), stats_rounds=len(result))
    out["rss_peak_kb"] = memory_kb()["VmHWM"]
    out["ru_maxrss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return out


def memory_kb() -> dict[str, int]:
    """VmRSS and VmHWM (peak RSS) of this process image. getrusage's ru_maxrss is also printed, but it
    can carry the parent's peak over the vfork + exec that started this process."""
    lines = Path("/proc/self/status").read_text().splitlines()
    return {k: int(v.split()[0]) for k, v in (line.split(":", 1) for line in lines) if k in ("VmRSS", "VmHWM")}


def rst_stats(run: Path, reps: int) -> float:
    times = []
    for _ in range(reps):
        started = time.perf_counter()
        subprocess.run([*RST, "stats", str(run)], check=True, capture_output=True)
        times.append(time.perf_counter() - started)
    return median(times)


def print_results(m: dict[str, Any], spent: dict[str, float], rounds: int, reps: int, big: float, base: float) -> None:
    accept_each, twin_each = spent["accept_sampled"] / spent["sampled"], spent["twin"] / spent["sampled"]
    rss_mb, rss0_mb = m["rss_peak_kb"] / 1024, m["rss_imports_kb"] / 1024
    table(f"Engine at scale: {m['tasks']} tasks, {rounds} rounds (medians of {reps} runs; frontier {reps * 4} runs; "
          f"duplicate {m['dup_queries']} queries)",
          ["operation", "time", "baseline (same run)", "baseline time", "ratio", "target"],
          [[f"insertion: Store.accept, per task ({spent['sampled']:.0f} tasks)",
            f"{accept_each * 1e6:.0f} us ({1 / accept_each:,.0f}/s)",
            "same 3 statements, plain sqlite3", f"{twin_each * 1e6:.0f} us ({1 / twin_each:,.0f}/s)",
            ratio(accept_each, twin_each), "-"],
           [f"Engine(...) load of {m['tasks']} fingerprints", ms(m["load"]), "fetch the fingerprint rows",
            ms(m["load_base"]), ratio(m["load"], m["load_base"]), "-"],
           [f"frontier ({m['last_round_tasks']} tasks -> {m['frontier_size']})", ms(m["frontier"]),
            "SELECT id, root_id of the round", ms(m["frontier_base"]), ratio(m["frontier"], m["frontier_base"]),
            f"< {TARGET_FRONTIER * 1000:.0f} ms"],
           [f"duplicate_of ({m['dup_found']}/{m['dup_queries']} found, {m['dup_candidates']:.0f} LSH candidates)",
            f"{m['dup'] * 1000:.3f} ms (p95 {m['dup_p95'] * 1000:.3f})", "one MinHash.jaccard",
            f"{m['dup_base'] * 1000:.4f} ms", ratio(m["dup"], m["dup_base"]), f"< {TARGET_DUP * 1000:.0f} ms"],
           [f"run_stats in-process ({m['stats_rounds']} rounds)", ms(m["stats"]),
            "one scan of attempts, candidates, tasks", ms(m["stats_base"]), ratio(m["stats"], m["stats_base"]), "-"],
           ["`rst stats RUN` (subprocess)", ms(big), "`rst stats` on a 100-task run", ms(base), ratio(big, base),
            f"< {TARGET_STATS:.0f} s"],
           [f"peak RSS of the engine process (VmHWM; ru_maxrss {m['ru_maxrss_kb'] / 1024:.0f} MiB)", f"{rss_mb:.0f} MiB",
            "RSS after imports", f"{rss0_mb:.0f} MiB",
            ratio(rss_mb, rss0_mb), f"({(rss_mb - rss0_mb) * 1024 / m['tasks']:.1f} KiB/task)"]])
    ok = m["frontier"] < TARGET_FRONTIER and m["dup"] < TARGET_DUP and big < TARGET_STATS
    summary("engine_scale", f"frontier {ms(m['frontier'])}, duplicate {m['dup'] * 1000:.2f} ms, rst stats {ms(big)} "
            f"at {m['tasks']} tasks", "< 50 ms, < 5 ms, < 1 s", ok)


def main() -> None:
    p = parser(__doc__.split("\n")[0])
    p.add_argument("--tasks", type=int, default=100_000)
    p.add_argument("--keep", type=Path, help="build the run here and keep it (default: a temporary folder)")
    p.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()
    reps = 3 if args.quick else 7
    if args.measure:  # the engine process
        print(json.dumps(measure(args.measure, reps)))
        return
    t0 = header("engine_scale", args)
    work = Path(tempfile.mkdtemp(prefix="rst-bench-scale-"))
    run = args.keep or work / "run"
    if run.exists():
        shutil.rmtree(run)
    try:
        started = time.perf_counter()
        gen = Generator(steps=4000 if args.quick else 20000)
        gen_sec = time.perf_counter() - started
        started = time.perf_counter()
        spent = build(run, args.tasks, gen, attempts_extra=0.2, reject_share=0.1 if args.quick else 1 / 3,
                      twin=Twin(work / "twin.db"), twin_every=5 if args.quick else 1)
        build_sec = time.perf_counter() - started
        np.save(run / "queries.npy", queries(gen, run, 200))
        build(work / "small", 100, Generator(steps=50), 0.0, 0.0, None)
        counts = sqlite3.connect(RunPaths(run).db).execute(
            "SELECT (SELECT COUNT(*) FROM tasks), (SELECT COUNT(*) FROM candidates), (SELECT COUNT(*) FROM attempts), "
            "(SELECT COUNT(*) FROM rounds)").fetchone()
        print(f"\nstore: {counts[0]} tasks, {counts[1]} candidates, {counts[2]} attempts, {counts[3]} rounds, "
              f"{RunPaths(run).db.stat().st_size / 2**20:.0f} MiB; fingerprint pool {len(gen.pool)} steps in "
              f"{gen_sec:.1f} s, store built in {build_sec:.1f} s")
        proc = subprocess.run([sys.executable, __file__, "--measure", str(run), *(["--quick"] if args.quick else [])],
                              check=True, capture_output=True, text=True)
        big, base = rst_stats(run, reps), rst_stats(work / "small", reps)
    finally:
        shutil.rmtree(work, ignore_errors=True)  # with --keep, the run is not in here
    print_results(json.loads(proc.stdout), spent, counts[3], reps, big, base)
    footer(t0)


if __name__ == "__main__":
    main()
