"""`rst synth` shared and stopped: one owner per run directory, and SIGINT/SIGTERM at any point
(build, oracle, discovery, a model call) ends in one line, exit 130/143, no container left,
nothing half-written, and a resume that completes."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from rst_synth.engine import SynthConfig
from rst_synth.store.lock import RunLock
from tests.support.fake_server import FakeOpenAI, Reply
from tests.support.tasks import BASE_DOCKERFILE, REPO, write_task

FAKES = ["--proposer", "tests.support.fakes:make_fake_proposer", "--backend", "tests.support.fakes:FakeSandbox"]
NOISE = ("Traceback", "Task was destroyed", "never retrieved", "already in progress", "could not remove")


def rst_process(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "rst_synth.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
    )


def run_rst(*args: str, env: dict[str, str] | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rst_synth.cli", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=timeout,
    )


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def run_containers(run: Path) -> list[str]:
    label = f"label=rst-synth.run-dir={run.resolve()}"
    out = subprocess.run(["docker", "ps", "-aq", "--filter", label], capture_output=True, text=True, check=True)
    return out.stdout.split()


def accepted(run: Path) -> int:
    if not (run / "run.db").is_file():
        return 0
    with sqlite3.connect(run / "run.db") as db:
        try:
            return int(db.execute("SELECT COUNT(*) FROM tasks").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def stop(proc: subprocess.Popen[str], signum: int = signal.SIGTERM) -> tuple[int, str, str, float]:
    started = time.monotonic()
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out, err, time.monotonic() - started


def assert_clean_stop(run: Path, code: int, err: str, want: int = 143) -> None:
    assert code == want, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("interrupted by SIG"), err
    assert not any(noise in err for noise in NOISE), err
    assert not list(run.glob("tasks/r*/.*tmp-*"))  # no half-written task directory
    SynthConfig.load(run / "run.toml")  # run.toml whole
    with sqlite3.connect(run / "run.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for (path,) in db.execute("SELECT path FROM tasks"):
            assert (run / path / "task.toml").is_file()


def fake_seed(root: Path) -> Path:
    from tests.support.fakes import touch_test

    write_task(root / "seeds", name="seed0", solve="touch /app/seed0\n", tests={"test_s.py": touch_test("/app/seed0")})
    return root / "seeds"


def test_a_second_synth_on_a_held_directory_stops_at_once_naming_the_holder(tmp_path: Path) -> None:
    seeds, run = fake_seed(tmp_path), tmp_path / "run"
    assert run_rst("synth", str(seeds), "--out", str(run), "--rounds", "0", *FAKES).returncode == 0
    before = (run / "run.toml").read_text()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from rst_synth.store.lock import RunLock; "
         "RunLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(60)", str(run)],
        stdout=subprocess.PIPE, text=True, cwd=REPO,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        second = run_rst("synth", "--out", str(run), "--rounds", "3", *FAKES)
        assert time.monotonic() - started < 15
        assert second.returncode == 1
        assert second.stderr.strip() == (
            f"error: {run}: in use by process {holder.pid} (rst synth, eval or gc); wait for it to end or stop it "
            f"(kill {holder.pid}), then run this again"
        )
        assert (run / "run.toml").read_text() == before  # the refused one wrote nothing
    finally:
        holder.kill()
        holder.wait()
    with RunLock(run):  # the holder's death released it
        pass


def test_sigint_before_the_work_starts_is_one_line_and_130(tmp_path: Path) -> None:
    seeds, run = fake_seed(tmp_path), tmp_path / "run"
    proc = rst_process("synth", str(seeds), "--out", str(run), "--rounds", "0", *FAKES)
    deadline = time.monotonic() + 30
    while not (run / "run.lock").exists() and time.monotonic() < deadline:
        time.sleep(0.005)  # the lock is taken a moment before run.toml is written: signal right then
    code, _, err, _ = stop(proc, signal.SIGINT)
    assert code == 130 and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    SynthConfig.load(run / "run.toml")  # written whole all the same


@pytest.mark.docker
def test_two_real_synths_on_one_directory(tmp_path: Path) -> None:
    seeds, run = tmp_path / "seeds", tmp_path / "run"
    write_task(seeds, name="slow", solve="sleep 6\necho hello > /app/out.txt\n")
    first = rst_process("synth", str(seeds), "--out", str(run), "--rounds", "0")
    wait_for(lambda: bool(run_containers(run)), 180, "the first run's containers")
    second = run_rst("synth", "--out", str(run), "--rounds", "0", timeout=60)
    assert second.returncode == 1 and f"in use by process {first.pid}" in second.stderr
    assert run_containers(run)  # the second did not prune the first one's containers
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert not any(noise in err for noise in NOISE), err
    assert accepted(run) == 1 and not run_containers(run)


@pytest.mark.docker
def test_sigterm_during_an_image_build(tmp_path: Path) -> None:
    seeds, run = tmp_path / "seeds", tmp_path / "run"
    nonce = uuid.uuid4().hex  # never cached
    write_task(seeds, name="slow-build", dockerfile=BASE_DOCKERFILE + f"RUN echo {nonce} && sleep 40\n")
    proc = rst_process("synth", str(seeds), "--out", str(run), "--rounds", "0")
    wait_for(lambda: (run / "run.db").exists(), 60, "the store")
    time.sleep(4)  # the build's RUN step sleeps
    code, _, err, seconds = stop(proc)
    assert_clean_stop(run, code, err)
    assert seconds < 20 and not run_containers(run)
    assert accepted(run) == 0


@pytest.mark.docker
def test_sigterm_during_the_oracle_then_resume_completes(tmp_path: Path) -> None:
    seeds, run = tmp_path / "seeds", tmp_path / "run"
    write_task(seeds, name="slow-oracle", solve="sleep 8\necho hello > /app/out.txt\n")
    proc = rst_process("synth", str(seeds), "--out", str(run), "--rounds", "0")
    wait_for(lambda: len(run_containers(run)) >= 2, 180, "oracle and nop containers")
    code, _, err, seconds = stop(proc)
    assert_clean_stop(run, code, err)
    assert seconds < 20 and not run_containers(run)
    resumed = run_rst("synth", "--out", str(run))
    assert resumed.returncode == 0, resumed.stderr
    assert accepted(run) == 1 and not run_containers(run)


@pytest.mark.docker
def test_sigterm_during_discovery(tmp_path: Path) -> None:
    seeds, run = tmp_path / "seeds", tmp_path / "run"
    # The oracle runs traced (fast); only discovery runs solve.sh untraced, and there it sleeps.
    test = "from pathlib import Path\n\ndef test_o():\n    assert Path('/app/out.txt').read_text() == 'hi\\n'\n"
    write_task(
        seeds,
        name="slow-discovery",
        solve='[[ "$SHELLOPTS" == *xtrace* ]] || sleep 60\necho hi > /app/out.txt\n',
        instruction="Write hi to /app/out.txt.\n",
        tests={"test_o.py": test},
    )
    run.mkdir()
    SynthConfig(seeds_dir=str(seeds.resolve()), rounds=1, fanout=1, determinism_runs=0).dump(run / "run.toml")
    proc = rst_process("synth", "--out", str(run))
    wait_for(lambda: accepted(run) == 1 and bool(run_containers(run)), 240, "round 1's discovery container")
    code, _, err, seconds = stop(proc)
    assert_clean_stop(run, code, err)
    assert seconds < 20 and not run_containers(run)


@pytest.mark.docker
def test_sigterm_during_a_model_call(tmp_path: Path) -> None:
    seeds, run = tmp_path / "seeds", tmp_path / "run"
    write_task(seeds, name="greeting")
    env = {**os.environ, "OPENAI_API_KEY": "sk-test-shutdown"}
    with FakeOpenAI() as server:
        server.responder = lambda body: Reply("never mind", delay_sec=120)
        proc = rst_process(
            "synth", str(seeds), "--out", str(run), "--rounds", "1", "--fanout", "1",
            "--proposer", "llm", "--model", "fake-model", "--base-url", server.base_url, env=env,
        )  # fmt: skip
        wait_for(lambda: server.in_flight >= 1, 240, "a model call in flight")
        code, _, err, seconds = stop(proc)
    assert_clean_stop(run, code, err)
    assert seconds < 20 and not run_containers(run)
