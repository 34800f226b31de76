"""Benchmark 1: the wall time of one validation check in a fresh container vs the same script bare.

A check is one trial (`trial_in` in a fresh container) as the oracle check runs it (fresh container, log folders, solution copied
in, solve.sh under xtrace, the xtrace log read back, tests copied in, test.sh, reward read, container
removed). The baseline is the same solve.sh (same xtrace) and test.sh run with bash on the host,
in the same loop, interleaved, so machine load hits both alike. Scripts of 1, 10 and 100 commands
(odd commands `echo` a row, even ones run `wc`). A second pass splits a 10-command check into its
phases, next to `docker run --rm --network none IMAGE true` (the engine's own floor) in the same run.

    python3 bench/sandbox_overhead.py [--quick]
"""

from __future__ import annotations

import asyncio
import io
import os
import subprocess
import sys
import tarfile
import tempfile
import time
import uuid
from pathlib import Path, PurePosixPath

from _common import REPO, footer, header, median, ms, parser, ratio, summary, table

sys.path.insert(0, str(REPO))  # tests.support: the tiny task the tests write
from tests.support.tasks import write_task  # noqa: E402  (its Dockerfile: the bundled seeds' first layers)

os.environ["RST_RUN_LABEL"] = f"bench-{uuid.uuid4().hex[:12]}"  # our containers only, on a shared engine

from rst_synth.sandbox import Limits, Sandbox, files_of_tar, make_sandbox  # noqa: E402
from rst_synth.task import Task, TaskPaths  # noqa: E402
from rst_synth.harness import LOG_DIRS  # noqa: E402
from rst_synth.harness.container import _TRACED_SOLVE  # noqa: E402
from rst_synth.harness.tamper import clean_env, env_command  # noqa: E402
from rst_synth.harness.verifier import _PREPARE, _run_script, verify  # noqa: E402
from rst_synth.validator.trial import trial_in  # noqa: E402

SIZES = (1, 10, 100)
TARGET_SEC = 0.5
TEST_SH = """#!/bin/bash
d=${REWARD_DIR:-/logs/verifier}; mkdir -p "$d"
if [ -s out.txt ]; then echo 1 > "$d/reward.txt"; else echo 0 > "$d/reward.txt"; fi
"""
LIMITS = Limits()  # what a task.toml without [environment] limits gets


def script(commands: int) -> str:
    lines = [f'echo "row {k}" >> out.txt' if k % 2 else "wc -l out.txt > count.txt" for k in range(1, commands + 1)]
    return "#!/bin/bash\nset -e\n" + "\n".join(lines) + "\n"


def bare(solve: str, workdir: Path) -> float:
    """solve.sh then test.sh with bash on the host, exactly as the check runs them; seconds."""
    for name, body in (("solve.sh", solve), ("test.sh", TEST_SH)):
        (workdir / name).write_text(body)
    (workdir / "out.txt").unlink(missing_ok=True)
    env = {**os.environ, "REWARD_DIR": str(workdir / "logs")}
    started = time.perf_counter()
    subprocess.run(["bash", "-c", "exec 19>xtrace.log; env BASH_XTRACEFD=19 SHELLOPTS=xtrace bash solve.sh"],
                   cwd=workdir, check=True)
    subprocess.run(["bash", "test.sh"], cwd=workdir, env=env, check=True)
    reward = (workdir / "logs" / "reward.txt").read_text().strip()
    elapsed = time.perf_counter() - started
    assert reward == "1", reward
    return elapsed


async def check(sandbox: Sandbox, image: str, solve: str) -> float:
    started = time.perf_counter()
    async with sandbox.container(image, LIMITS) as box:
        outcome = await trial_in(box, solution={"solve.sh": solve.encode()}, tests={"test.sh": TEST_SH.encode()},
                                 solve_timeout=60, verify_timeout=60, trace=True)
    elapsed = time.perf_counter() - started
    assert outcome.reward == 1.0, outcome.output_tail()
    return elapsed


async def phases(sandbox: Sandbox, image: str, solve: str) -> dict[str, float]:
    """The steps of a trial one by one, timed."""
    marks: dict[str, float] = {}
    last = time.perf_counter()

    def mark(name: str) -> None:
        nonlocal last
        now = time.perf_counter()
        marks[name] = now - last
        last = now

    async with sandbox.container(image, LIMITS) as box:
        mark("create + start container")
        await box.put_files({"solution/solve.sh": solve.encode()}, PurePosixPath("/"), open_dirs=LOG_DIRS)
        mark("copy solution + log folders in")
        await box.exec(_TRACED_SOLVE, timeout=60)
        mark("exec: solve.sh (xtrace)")
        await box.read_file(TaskPaths.CONTAINER_XTRACE_LOG)
        mark("read xtrace log")
        config = await box.image_config()
        mark("inspect: the image's Env and WORKDIR")
        await box.changes()
        mark("diff: what the container changed (tamper check)")
        await box.exec(_PREPARE, timeout=60, user="root")
        mark("exec as root: clear /logs/verifier and /tests")
        await box.put_files({"test.sh": TEST_SH.encode()}, TaskPaths.CONTAINER_TESTS_DIR)
        mark("copy tests in")
        command = env_command(clean_env(config.env), f"bash --noprofile --norc {TaskPaths.CONTAINER_TESTS_DIR}/test.sh")
        await box.exec(_run_script("rst-bench", command), timeout=60)
        mark("exec: test.sh, reward read between markers")
    mark("remove container")
    return marks


async def lean_check(sandbox: Sandbox, image: str, solve: str) -> float:
    """What-if: the same check in 7 engine calls instead of 9 (the log folders travel in the solution's
    archive, and one archive of /logs brings back the xtrace log and the reward)."""
    started = time.perf_counter()
    async with sandbox.container(image, LIMITS) as box:
        archive = io.BytesIO()
        with tarfile.open(fileobj=archive, mode="w") as tar:
            for folder in ("logs", "logs/verifier", "logs/agent", "solution"):
                info = tarfile.TarInfo(folder)
                info.type, info.mode = tarfile.DIRTYPE, 0o777 if folder.startswith("logs") else 0o755
                tar.addfile(info)
            data = solve.encode()
            info = tarfile.TarInfo("solution/solve.sh")
            info.size, info.mode = len(data), 0o755
            tar.addfile(info, io.BytesIO(data))
        await box._sandbox._call(box._api.put_archive, box.id, "/", archive.getvalue())  # type: ignore[attr-defined]
        await box.exec(_TRACED_SOLVE, timeout=60)
        await verify(box, {"test.sh": TEST_SH.encode()}, 60)
        logs = files_of_tar(await box.get_archive(PurePosixPath("/logs")) or b"")
    elapsed = time.perf_counter() - started
    assert logs["verifier/reward.txt"].strip() == b"1" and "agent/rst-xtrace.log" in logs, sorted(logs)
    return elapsed


def api_ping(sandbox: Sandbox) -> float:
    api = sandbox._api  # type: ignore[attr-defined]
    started = time.perf_counter()
    api.ping()
    return time.perf_counter() - started


def docker_run_floor(image: str) -> float:
    started = time.perf_counter()
    subprocess.run(["docker", "run", "--rm", "--network", "none", "--label", "rst-synth=1", image, "true"],
                   check=True, capture_output=True)
    return time.perf_counter() - started


async def main() -> None:
    args = parser(__doc__.split("\n")[0]).parse_args()
    t0 = header("sandbox_overhead", args)
    reps = 5 if args.quick else 15
    sandbox = make_sandbox("docker")
    try:
        with tempfile.TemporaryDirectory(prefix="rst-bench-bare-") as tmp:
            task = Task.load(write_task(Path(tmp), name="image"))
            info = await sandbox.ensure_image(task.files_under(TaskPaths.ENVIRONMENT_DIR), task.environment_hash(),
                                              timeout=900)
            print(f"image {info.tag} ({'built' if info.built else 'cached'}); {reps} runs per size, interleaved")
            host = {n: [] for n in SIZES}
            box = {n: [] for n in SIZES}
            await check(sandbox, info.tag, script(1))  # warm-up (engine caches, page cache)
            bare(script(1), Path(tmp))
            for _ in range(reps):
                for n in SIZES:
                    host[n].append(bare(script(n), Path(tmp)))
                    box[n].append(await check(sandbox, info.tag, script(n)))
        rows = []
        for n in SIZES:
            over = median([b - h for b, h in zip(box[n], host[n])])
            rows.append([n, ms(median(host[n])), ms(median(box[n])), ms(over), ratio(median(box[n]), median(host[n]))])
        fixed = median([b - h for b, h in zip(box[1], host[1])])
        slope = (median([b - h for b, h in zip(box[100], host[100])]) - fixed) / 99
        table(f"One validation check vs the same script bare on the host (medians of {reps} runs)",
              ["commands", "bare on host", "check in fresh container", "overhead (median of pairs)",
               "ratio container / bare"], rows)
        print(f"\nextra cost per command in the container: {slope * 1000:+.2f} ms")

        parts: dict[str, list[float]] = {}
        floor, pings, cpu, lean, full = [], [], [], [], []
        for _ in range(reps):
            for name, sec in (await phases(sandbox, info.tag, script(10))).items():
                parts.setdefault(name, []).append(sec)
            floor.append(docker_run_floor(info.tag))
            pings.append(api_ping(sandbox))
            started = time.process_time()
            full.append(await check(sandbox, info.tag, script(10)))
            cpu.append(time.process_time() - started)
            lean.append(await lean_check(sandbox, info.tag, script(10)))
        total = sum(median(v) for v in parts.values())
        base = median(floor)
        table(f"Phases of a 10-command check (medians of {reps} runs) against `docker run --rm --network none IMAGE true`",
              ["phase", "time", "share of check", "ratio to docker run floor"],
              [[name, ms(median(v)), f"{100 * median(v) / total:.0f}%", ratio(median(v), base)] for name, v in parts.items()]
              + [["**sum**", ms(total), "100%", ratio(total, base)],
                 ["`docker run --rm --network none IMAGE true` (baseline)", ms(base), "-", "1.00x"],
                 ["one Engine API round trip (`/_ping`)", ms(median(pings)), "-", ratio(median(pings), base)],
                 ["CPU time of this process per check", ms(median(cpu)), "-", ratio(median(cpu), base)],
                 ["whole check, run_trial (9 engine calls)", ms(median(full)), "-", ratio(median(full), base)],
                 ["what-if: the same check in 7 engine calls", ms(median(lean)), "-", ratio(median(lean), base)]])
    finally:
        await sandbox.close()
    summary("sandbox_overhead", f"fixed overhead of a check {ms(fixed)} median "
            f"({ratio(median(box[1]), median(host[1]))} a bare 1-command run; docker run floor {ms(base)})",
            f"<= {TARGET_SEC} s", fixed <= TARGET_SEC)
    footer(t0)


if __name__ == "__main__":
    asyncio.run(main())
