"""Shared helpers of the benchmarks: medians, markdown tables, the summary line, machine load."""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SEEDS = REPO / "examples" / "seeds"
# Measure this checkout's code (or RST_BENCH_SRC's, to compare versions), wherever the editable
# install points, here and in the subprocesses started (`python3 -m rst_synth.cli` is `rst`).
SRC = os.environ.get("RST_BENCH_SRC", str(REPO / "src"))
sys.path.insert(0, SRC)
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (SRC, os.environ.get("PYTHONPATH")) if p)
RST = [sys.executable, "-m", "rst_synth.cli"]


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--quick", action="store_true", help="fewer repetitions (about 2 minutes or less)")
    return p


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


def ratio(value: float, baseline: float) -> str:
    return "-" if not baseline else f"{value / baseline:.2f}x"


def ms(sec: float) -> str:
    return f"{sec * 1000:.1f} ms" if sec < 1 else f"{sec:.2f} s"


def table(title: str, headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print a markdown table (pastes into bench/README.md unchanged)."""
    print(f"\n### {title}\n")
    print("| " + " | ".join(headers) + " |")
    print("|" + "|".join("---" for _ in headers) + "|")
    for row in rows:
        print("| " + " | ".join(str(cell) for cell in row) + " |")
    sys.stdout.flush()


def summary(name: str, figure: str, target: str, ok: bool) -> None:
    print(f"\nSUMMARY: {name}: {figure} (target {target}): {'PASS' if ok else 'MISS'}")


def machine_load() -> str:
    """One line: cores, load average, and how many containers are running on the engine (ours or not)."""
    running = "?"
    try:
        out = subprocess.run(["docker", "ps", "-q"], capture_output=True, text=True, timeout=20)
        running = str(len(out.stdout.split()))
    except (OSError, subprocess.TimeoutExpired):
        pass
    one, five, _ = os.getloadavg()
    return (f"{os.cpu_count()} cores, load average {one:.1f} (1 min) {five:.1f} (5 min), "
            f"{running} containers running, python {platform.python_version()}")


def header(name: str, args: argparse.Namespace) -> float:
    print(f"# {name}{' --quick' if getattr(args, 'quick', False) else ''}")
    if SRC != str(REPO / "src"):
        print(f"code measured: {SRC}")
    print(f"machine: {machine_load()}")
    return time.monotonic()


def footer(started: float) -> None:
    print(f"\nmachine after: {machine_load()}; took {time.monotonic() - started:.0f} s")
