"""What every container of the Docker backend gets, on the real engine: capabilities, privileges,
PID 1, network, the caps on time, output and reads, and one removal per container."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from pathlib import PurePosixPath

import pytest
from docker.errors import ImageNotFound

from rst_synth.sandbox import Limits, SandboxError, make_sandbox
from rst_synth.sandbox.base import Breach
from rst_synth.sandbox.docker import DockerSandbox
from rst_synth.sandbox.hardening import KEPT_CAPABILITIES
from tests.support.docker import our_containers

pytestmark = pytest.mark.docker
IMAGE = "debian:bookworm-slim"
# Capability bit numbers (linux/capability.h) of the ones kept.
CAP_BITS = {
    "CHOWN": 0,
    "DAC_OVERRIDE": 1,
    "FOWNER": 3,
    "FSETID": 4,
    "KILL": 5,
    "SETGID": 6,
    "SETUID": 7,
    "NET_BIND_SERVICE": 10,
}


def sandbox(**options: object) -> DockerSandbox:
    made = make_sandbox("docker", **options)
    assert isinstance(made, DockerSandbox)
    return made


def test_containers_drop_capabilities_and_privileges_and_have_no_network() -> None:
    async def main() -> str:
        box_sandbox = sandbox()
        try:
            async with box_sandbox.container(IMAGE, Limits()) as box:
                result = await box.exec(
                    "grep -E '^(CapEff|CapBnd|NoNewPrivs)' /proc/self/status; ls /sys/class/net; "
                    "tr '\\0' ' ' < /proc/1/cmdline; echo; cat /sys/fs/cgroup/pids/pids.max 2>/dev/null "
                    "|| cat /sys/fs/cgroup/pids.max",
                    timeout=30,
                )
                assert result.ok, result.output
                return result.output
        finally:
            await box_sandbox.close()

    output = asyncio.run(main())
    fields = dict(line.split(":\t") for line in output.splitlines() if ":\t" in line)
    wanted = sum(1 << CAP_BITS[name] for name in KEPT_CAPABILITIES)
    assert int(fields["CapEff"], 16) == wanted and int(fields["CapBnd"], 16) == wanted
    assert fields["NoNewPrivs"].strip() == "1"
    assert output.split("\n")[3:4] == ["lo"]  # loopback only
    assert "read -r -t 1 -u 9" in output  # our keep-alive is PID 1
    assert output.strip().endswith("1024")


def test_every_exec_has_a_wall_clock_ceiling() -> None:
    async def main() -> tuple[bool, float]:
        box_sandbox = sandbox(max_exec_sec=2.0)
        try:
            async with box_sandbox.container(IMAGE, Limits()) as box:
                started = time.monotonic()
                result = await box.exec("sleep 60", timeout=float("inf"))
                return result.timed_out, time.monotonic() - started
        finally:
            await box_sandbox.close()

    timed_out, seconds = asyncio.run(main())
    assert timed_out and seconds < 15


def test_output_and_reads_are_capped() -> None:
    async def main() -> None:
        box_sandbox = sandbox(output_cap=4096, read_cap=1000)
        try:
            async with box_sandbox.container(IMAGE, Limits()) as box:
                loud = await box.exec("head -c 1000000 /dev/zero | tr '\\0' x; echo; echo tail-marker", timeout=60)
                assert loud.ok and loud.dropped_bytes > 990_000
                assert len(loud.output) < 4096 + 100 and loud.output.rstrip().endswith("tail-marker")
                await box.exec("head -c 5000 /dev/zero | tr '\\0' y > /big.txt", timeout=30)
                assert await box.read_file(PurePosixPath("/big.txt")) == b"y" * 1000
                assert await box.read_file(PurePosixPath("/missing.txt")) is None
                with pytest.raises(SandboxError, match="more than"):
                    await box.get_archive(PurePosixPath("/big.txt"))
        finally:
            await box_sandbox.close()

    asyncio.run(main())


def test_a_task_cannot_lift_its_own_limits_past_the_sandbox_ceilings() -> None:
    made = sandbox(max_disk_mb=512)
    try:
        resolved = made._resolve(Limits(cpus=10_000, memory_mb=10**9, disk_mb=10**9))
    finally:
        asyncio.run(made.close())
    assert resolved.disk_mb == 512
    assert resolved.cpus is not None and resolved.cpus <= made._cpus
    assert resolved.memory_mb is not None and resolved.memory_mb <= (made._memory_total_mb or 10**9)


def test_a_container_stopped_from_outside_reports_a_breach_not_an_error() -> None:
    async def main() -> Breach | None:
        box_sandbox = sandbox()
        try:
            async with box_sandbox.container(IMAGE, Limits()) as box:
                box_sandbox._api.kill(box.id)  # as if its PID 1 had gone
                result = await box.exec("echo hello", timeout=30)
                return result.breach
        finally:
            await box_sandbox.close()

    assert asyncio.run(main()) is Breach.GONE


def test_cancelling_work_removes_each_container_once(caplog: pytest.LogCaptureFixture) -> None:
    """Cancelled mid-exec (what SIGTERM does), every container is removed exactly once: by its own
    exit and by close() together, with no "already in progress" and no task left pending."""
    caplog.set_level(logging.DEBUG)

    async def main() -> int:
        box_sandbox = sandbox()
        started = asyncio.Event()

        async def one() -> None:
            async with box_sandbox.container(IMAGE, Limits()) as box:
                started.set()
                await box.exec("sleep 60", timeout=120)

        tasks = [asyncio.create_task(one()) for _ in range(3)]
        await started.wait()
        await asyncio.sleep(1.0)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await box_sandbox.close()
        return len(box_sandbox._live)

    assert asyncio.run(main()) == 0
    assert not our_containers()
    messages = [r.getMessage() for r in caplog.records]
    assert not [m for m in messages if "could not remove" in m or "pending" in m or "never retrieved" in m]


def test_cancelling_while_the_engine_creates_leaves_no_container() -> None:
    """A create call runs in a thread that outlives its cancelled caller (SIGTERM just as a
    container is being made): the removal waits for it, so the container never outlives the run."""

    async def main() -> None:
        box_sandbox = sandbox()
        async with box_sandbox.container(IMAGE, Limits()):
            pass  # settles how this engine takes a disk limit, as a run's first containers do
        real_create = box_sandbox._api.create_container
        calling = asyncio.Event()
        loop = asyncio.get_running_loop()

        def slow_create(*args: object, **kwargs: object) -> object:
            loop.call_soon_threadsafe(calling.set)
            time.sleep(1.5)  # the engine is slow; the caller is cancelled meanwhile
            return real_create(*args, **kwargs)

        box_sandbox._api.create_container = slow_create  # type: ignore[method-assign]

        async def one() -> None:
            async with box_sandbox.container(IMAGE, Limits()):
                await asyncio.sleep(60)

        task = asyncio.create_task(one())
        await calling.wait()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        await asyncio.sleep(2.0)  # past the slow create, were it still running unwaited
        await box_sandbox.close()

    asyncio.run(main())
    assert not our_containers()


def test_an_image_removed_between_its_build_and_its_use_is_built_again() -> None:
    """Runs share the image of a build context; another run's `rst gc` may remove it meanwhile."""
    marker = uuid.uuid4().hex
    context = {"Dockerfile": f"FROM {IMAGE}\nRUN echo {marker} > /marker\n".encode()}

    async def main() -> tuple[str, str]:
        box = sandbox()
        try:
            info = await box.ensure_image(context, marker * 2, timeout=120)
            await box.remove_image(info.tag)
            assert await box.image_labels(info.tag) is None
            async with box.container(info.tag, Limits()) as container:
                result = await container.exec("cat /marker", timeout=30)
            await box.remove_image(info.tag)
            return info.tag, result.output.strip()
        finally:
            await box.close()

    tag, seen = asyncio.run(main())
    assert seen == marker
    # A sandbox that never ensured the tag cannot know how to build it: the engine's error stands.
    with pytest.raises(ImageNotFound):

        async def unknown() -> None:
            box = sandbox()
            try:
                async with box.container(tag, Limits()):
                    pass
            finally:
                await box.close()

        asyncio.run(unknown())
