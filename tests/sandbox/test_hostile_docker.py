"""Hostile seed tasks through the real engine (Engine, Validator, DockerSandbox): each ends with a
reason code in the store, no container of ours is left, and the host barely notices.

Set RST_HOSTILE_REPORT=FILE to append one JSON line per case (reason, containers left, the peak
of extra host processes and of extra disk used while it ran): the table of the hardening report."""

from __future__ import annotations

import json
import os
import resource
import shutil
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rst_synth.engine import Engine, SynthConfig
from rst_synth.sandbox import Sandbox
from rst_synth.store import CandidateRow, RunPaths, Store
from rst_synth.task import Task
from rst_synth.validator import Validator, ValidatorConfig
from tests.support.docker import our_containers, run_async
from tests.support.fakes import FakeProposer
from tests.support.tasks import BASE_DOCKERFILE, GREETING_TEST, write_task

pytestmark = pytest.mark.docker

# Writes the reward only when the tests pass: a reward file the solution left would be read as is.
REWARD_ON_PASS = """#!/bin/bash
mkdir -p /logs/verifier
python3 -m pytest -q -p no:cacheprovider /tests && echo 1 > /logs/verifier/reward.txt
exit 0
"""


@dataclass
class HostWatch:
    """Samples the host's process count and the free disk under the engine's data root."""

    root: Path
    processes: list[int] = field(default_factory=list)
    free: list[int] = field(default_factory=list)

    def sample(self) -> None:
        self.processes.append(sum(1 for name in os.listdir("/proc") if name.isdigit()))
        self.free.append(shutil.disk_usage(self.root).free)


@contextmanager
def watching_host() -> Iterator[HostWatch]:
    root = Path("/var/lib/docker") if Path("/var/lib/docker").is_dir() else Path("/")
    watch, done = HostWatch(root), threading.Event()
    watch.sample()

    def loop() -> None:
        while not done.wait(0.2):
            watch.sample()

    sampler = threading.Thread(target=loop, daemon=True)
    sampler.start()
    try:
        yield watch
    finally:
        done.set()
        sampler.join()
        watch.sample()


def run_seed(tmp_path: Path, seed: Path) -> CandidateRow:
    """Round 0 of a run whose only seed is `seed`: the candidate as the store recorded it."""
    paths = RunPaths(tmp_path / "run")
    paths.root.mkdir(parents=True)
    config = SynthConfig(seeds_dir=str(seed.parent), rounds=0)

    async def work(sandbox: Sandbox) -> CandidateRow:
        store = Store(paths.db)
        try:
            await Engine(config, paths, store, FakeProposer(), Validator(sandbox, ValidatorConfig())).run()
            row = store.candidates(0)[0]
        finally:
            store.close()
        return row

    return run_async(work)


def record(case: str, row: CandidateRow, watch: HostWatch, **extra: object) -> None:
    entry = {
        "case": case,
        "status": row.status,
        "check": row.rejection_check,
        "reason": row.rejection_reason or "ok",
        "detail": (row.detail or "")[:160],
        "containers_left": len(our_containers()),
        "peak_extra_processes": max(watch.processes) - watch.processes[0],
        "processes_after": watch.processes[-1] - watch.processes[0],
        "peak_extra_disk_mb": round((watch.free[0] - min(watch.free)) / 2**20),
        "disk_after_mb": round((watch.free[0] - watch.free[-1]) / 2**20),
        **extra,
    }
    if os.environ.get("RST_HOSTILE_REPORT"):
        with open(os.environ["RST_HOSTILE_REPORT"], "a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
    print(entry)
    assert entry["containers_left"] == 0


def hostile(tmp_path: Path, name: str, case: str, **task: object) -> tuple[CandidateRow, HostWatch]:
    seed = write_task(tmp_path / "seeds", name=name, **task)  # type: ignore[arg-type]
    with watching_host() as watch:
        row = run_seed(tmp_path, seed)
    return row, watch


def test_fork_bomb_is_stopped_at_the_pids_limit(tmp_path: Path) -> None:
    row, watch = hostile(tmp_path, "fork-bomb", "fork bomb", solve=":(){ :|:& };:\nsleep 60\n")
    record("fork bomb", row, watch)
    assert (row.status, row.rejection_check, row.rejection_reason) == ("rejected", "oracle", "pids_limit")
    assert max(watch.processes) - watch.processes[0] < 1024 + 200  # one container's pids limit, plus noise


def test_allocating_past_the_memory_limit(tmp_path: Path) -> None:
    row, watch = hostile(
        tmp_path,
        "memory-hog",
        "memory",
        solve="python3 -c \"b = b'x' * (2 * 1024**3)\"\necho hello > /app/out.txt\n",
        toml_extra="[environment]\nmemory_mb = 256\n",
    )
    record("allocate 2 GB under a 256 MB limit", row, watch)
    assert (row.rejection_check, row.rejection_reason) == ("oracle", "memory_limit")


def test_writing_past_the_disk_limit(tmp_path: Path) -> None:
    row, watch = hostile(
        tmp_path,
        "disk-filler",
        "disk",
        solve="head -c 40G /dev/zero > /app/filler\necho hello > /app/out.txt\n",
        toml_extra="[environment]\nstorage_mb = 256\n",
    )
    record("write 40 GB under a 256 MB disk limit", row, watch)
    assert (row.rejection_check, row.rejection_reason) == ("oracle", "disk_limit")
    assert "past the limit of 256 MB" in (row.detail or "")
    assert watch.free[0] - watch.free[-1] < 200 * 2**20  # what it wrote went with its container


def test_100_mb_on_stdout_is_capped_and_the_task_still_judged(tmp_path: Path) -> None:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    row, watch = hostile(
        tmp_path,
        "loud",
        "stdout",
        solve="head -c 100000000 /dev/zero | tr '\\0' 'x'\necho hello > /app/out.txt\n",
    )
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    record("100 MB on stdout", row, watch, peak_rss_growth_mb=round(grown_mb))
    assert row.status == "accepted"
    assert grown_mb < 60  # two oracle runs streamed 200 MB; a 1 MB capture of each was kept


@pytest.mark.parametrize(
    ("variant", "test_sh", "want"),
    [
        # The engine's diff shows the planted conftest.py: the run is refused (harness/tamper.py).
        ("plants a conftest.py in /tests", None, "verifier_tampered"),
        ("writes reward 1 itself", REWARD_ON_PASS, "no_reward_file"),
    ],
)
def test_a_solution_that_tampers_with_the_verifier_is_not_trusted(
    tmp_path: Path, variant: str, test_sh: str | None, want: str
) -> None:
    # Without the work done: a conftest that makes every read return the expected text, /tests
    # deleted, and a reward file of 1 written before the tests ever run.
    conftest = (
        "printf 'import pathlib\\npathlib.Path.read_text = lambda self, *a, **k: \"hello\\\\n\"\\n'"
        " > /tests/conftest.py\n"
    )
    solve = (
        "rm -rf /tests && mkdir -p /tests /logs/verifier\n"
        + (conftest if "conftest" in variant else "")
        + "echo 1 > /logs/verifier/reward.txt\n"
    )
    options: dict[str, object] = {"solve": solve}
    if test_sh:
        options["test_sh"] = test_sh
    row, watch = hostile(tmp_path, "tamper", variant, **options)
    record(f"solution {variant}", row, watch)
    assert (row.rejection_check, row.rejection_reason) == ("oracle", want)


def test_a_solution_cannot_kill_pid_1_or_the_keepalive(tmp_path: Path) -> None:
    solve = (
        "kill -KILL 1 || true\nkill -TERM 1 || true\nkill -HUP 1 || true\n"
        "pkill -KILL -x sleep || kill -KILL $(pgrep -x sleep) || true\n"
        "sleep 2\necho hello > /app/out.txt\n"
    )
    dockerfile = BASE_DOCKERFILE.replace("python3-pytest", "python3-pytest procps")
    row, watch = hostile(tmp_path, "killer", "kill", solve=solve, dockerfile=dockerfile)
    record("solution kills PID 1 and the keep-alive", row, watch)
    assert row.status == "accepted"  # the container outlived every attempt; the work then passed


def test_a_dockerfile_that_reaches_for_the_network_during_a_check(tmp_path: Path) -> None:
    dockerfile = (
        BASE_DOCKERFILE
        + "ENV http_proxy=http://192.0.2.1:3128 https_proxy=http://192.0.2.1:3128\n"
        + "COPY fetch.py /usr/local/bin/fetch\n"
        + 'ENTRYPOINT ["python3", "/usr/local/bin/fetch"]\n'
    )
    seed = write_task(
        tmp_path / "seeds",
        name="online",
        dockerfile=dockerfile,
        solve="python3 /usr/local/bin/fetch > /app/page.txt\necho hello > /app/out.txt\n",
    )
    (seed / "environment" / "fetch.py").write_text(
        "import socket, urllib.request\n"
        "socket.create_connection(('1.1.1.1', 53), timeout=20)\n"
        "print(urllib.request.urlopen('http://example.com', timeout=20).read()[:20])\n"
    )
    started = time.monotonic()
    with watching_host() as watch:
        row = run_seed(tmp_path, seed)
    seconds = round(time.monotonic() - started)
    record("Dockerfile reaches the network at check time", row, watch, seconds=seconds)
    assert (row.rejection_check, row.rejection_reason) == ("oracle", "tests_failed")
    assert "Network is unreachable" in (row.detail or "") or seconds < 40  # refused at once, not timed out


@pytest.mark.parametrize("where", ["outside", "inside"])
def test_symlinks_in_a_task_directory_are_rejected_and_never_followed(tmp_path: Path, where: str) -> None:
    seed = write_task(tmp_path / "seeds", name="linked")
    secret = tmp_path / "host-secret.txt"
    secret.write_text("host secret\n")
    (seed / "environment" / "data.txt").write_text("data\n")
    target = secret if where == "outside" else Path("data.txt")
    (seed / "environment" / "notes.txt").symlink_to(target)
    with watching_host() as watch:
        row = run_seed(tmp_path, seed)
    record(f"symlink {where} the task directory", row, watch)
    assert (row.status, row.rejection_check, row.rejection_reason) == ("rejected", "static", "bad_task")
    assert "notes.txt: is a symbolic link" in (row.detail or "") and "\n" not in (row.detail or "")
    assert not list((tmp_path / "run").rglob("notes.txt"))  # never copied anywhere


def test_a_2_gb_task_directory_is_refused_before_it_is_read(tmp_path: Path) -> None:
    seed = write_task(tmp_path / "seeds", name="huge")
    with (seed / "environment" / "blob.bin").open("wb") as handle:  # sparse: 2 GB long, no disk used
        handle.truncate(2 * 2**30)
    with watching_host() as watch:
        row = run_seed(tmp_path, seed)
    record("2 GB task directory (sparse file)", row, watch)
    assert (row.rejection_check, row.rejection_reason) == ("static", "bad_task")
    assert "more than 256 MB" in (row.detail or "")


def test_file_names_with_spaces_newlines_and_unicode_survive_the_round_trip(tmp_path: Path) -> None:
    names = ["my data.txt", "new\nline.txt", "ünïcødé ✓.txt"]
    seed = write_task(
        tmp_path / "seeds",
        name="odd-names",
        dockerfile=BASE_DOCKERFILE + "COPY . /app/ctx/\n",
        solve='cd /app/ctx && for f in *.txt; do cat "$f"; done > /app/all.txt\necho hello > /app/out.txt\n',
        tests={
            "test_outputs.py": GREETING_TEST
            + "\ndef test_all_files_read():\n    assert sorted(Path('/app/all.txt').read_text().split()) == "
            + repr(sorted(f"body{i}" for i in range(len(names))))
            + "\n"
        },
    )
    for i, name in enumerate(names):
        (seed / "environment" / name).write_text(f"body{i}\n")
    with watching_host() as watch:
        row = run_seed(tmp_path, seed)
    record("file names with spaces, newlines, unicode", row, watch)
    assert row.status == "accepted", row.detail
    saved = Task.load(tmp_path / "run" / "tasks" / "r00" / "odd-names")
    assert {f"environment/{name}" for name in names} <= set(saved.files)
