"""`rst synth --executor ray` on a real local Ray cluster: a head and a second node started by the test
(`ray start`, each with its own `container_slots` and node state folder), sharing this machine's one
container engine. Compared with the local executor on the same seeds.

To keep CI time down the runs use 3 of the 13 bundled seeds with fanout 1 (three whose chains
validated quickly when measured); the cluster, the seeds and the local reference
run are made once per module. The whole module took 7 minutes at load 19 on the 2-core dev machine.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import shutil
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from rst_synth.store import RunPaths, Store
from rst_synth.task import Task
from rst_synth.validator import ValidationReport
from tests.executors.cluster import RayCluster
from tests.support.docker import our_containers
from tests.support.tasks import REPO, SEEDS

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SEED_NAMES = ("access-log-report", "sales-csv-rollup", "ini-to-toml-config")
OWNER_LABEL = "rst-synth.ray-owner"


def rst(*args: str, env: dict[str, str] | None = None, timeout: float = 1200) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "rst_synth.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO, timeout=timeout, env=env)


def synth(seeds: Path, run: Path, rounds: int, *extra: str) -> list[str]:
    return ["synth", str(seeds), "--out", str(run), "--rounds", str(rounds), "--fanout", "1", *extra]


def accepted(run: Path, up_to_round: int | None = None) -> dict[str, tuple[int, str | None, str]]:
    """id -> (round, parent, digest of the task's instruction and files; task.toml holds timings)."""
    store = Store(RunPaths(run).db)
    try:
        rows = [r for r in store.tasks() if up_to_round is None or r.round <= up_to_round]
    finally:
        store.close()
    out = {}
    for row in rows:
        task = Task.load(run / row.path)
        digest = hashlib.sha256(task.instruction.encode())
        for rel in sorted(task.files):
            digest.update(rel.encode() + b"\0" + task.files[rel])
        out[row.id] = (row.round, row.parent_id, digest.hexdigest()[:16])
    return out


def placements(run: Path) -> list[dict[str, object]]:
    """The executor's log lines: which node answered which piece of work."""
    lines = (run / "logs" / "run.jsonl").read_text().splitlines()
    return [entry for entry in map(json.loads, lines) if entry.get("executor") == "ray"]


def statuses(run: Path) -> dict[str, str]:
    db = sqlite3.connect(RunPaths(run).db)
    try:
        return dict(db.execute("SELECT id, status FROM candidates").fetchall())
    finally:
        db.close()


def owners_of_containers() -> set[str]:
    """The owner labels of this session's containers now on the engine."""
    ids = our_containers()
    if not ids:
        return set()
    out = subprocess.run(
        ["docker", "inspect", "--format", '{{index .Config.Labels "' + OWNER_LABEL + '"}}', *ids],
        capture_output=True,
        text=True,
    )
    return {line for line in out.stdout.split() if line and line != "<no value>"}


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("seeds")
    for name in SEED_NAMES:
        shutil.copytree(SEEDS / name, folder / name)
    return folder


@pytest.fixture(scope="module")
def local_run(seeds: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The reference: the same synthesis with the local executor."""
    run = tmp_path_factory.mktemp("local") / "run"
    started = time.monotonic()
    result = rst(*synth(seeds, run, 2))
    assert result.returncode == 0, result.stdout + result.stderr
    print(f"\nlocal executor, 2 rounds: {time.monotonic() - started:.0f} s")
    return run


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RayCluster]:
    ray_cluster = RayCluster(tmp_path_factory.mktemp("ray"))
    try:
        ray_cluster.start_head(slots=2)
        ray_cluster.add_node("second", slots=2)
        ray_cluster.wait_nodes(2)
        yield ray_cluster
    finally:
        ray_cluster.stop()


def test_two_nodes_accept_what_the_local_executor_accepts(
    seeds: Path, local_run: Path, cluster: RayCluster, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    started = time.monotonic()
    result = rst(*synth(seeds, run, 2, "--executor", "ray", "--ray-address", cluster.address), env=cluster.driver_env())
    assert result.returncode == 0, result.stdout + result.stderr
    elapsed = time.monotonic() - started
    ray_set, local_set = accepted(run), accepted(local_run)
    work = placements(run)
    nodes = Counter(str(entry["node"])[:12] for entry in work if entry["kind"] == "validate")
    print(f"\nray executor on {cluster.address}, 2 nodes, 2 rounds: {elapsed:.0f} s")
    print(f"validations per node: {dict(nodes)}; discoveries: {sum(e['kind'] == 'discover' for e in work)}")
    for task_id in sorted(set(ray_set) | set(local_set)):
        print(f"  {task_id:45} local {local_set.get(task_id)}  ray {ray_set.get(task_id)}")
    print(f"accepted sets equal: {ray_set == local_set} ({len(ray_set)} tasks)")
    assert ray_set == local_set
    assert len(nodes) == 2, f"both nodes should have validated: {nodes}"
    assert statuses(run) == statuses(local_run)
    keys = [entry["key"] for entry in work if entry["kind"] == "validate"]
    assert len(keys) == len(set(keys)), "a validation was answered twice"


def test_a_worker_killed_mid_round_loses_and_duplicates_nothing(
    seeds: Path, local_run: Path, cluster: RayCluster, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    command = synth(seeds, run, 1, "--executor", "ray", "--ray-address", cluster.address)
    driver = subprocess.Popen(
        [sys.executable, "-m", "rst_synth.cli", *command],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        env=cluster.driver_env(),
    )
    try:
        victims = _kill_second_node_while_it_works(cluster, run, driver)
        killed_at = time.strftime("%Y-%m-%dT%H:%M:%S")  # the run log's clock
        orphans = {owner for owner in owners_of_containers() if int(owner.split(".")[-2]) in victims}
        print(f"\nkilled the second node ({len(victims)} processes); owners of containers left: {len(orphans)}")
        assert orphans, "the node was killed while one of its workers had a container up"
        cluster.add_node("second", slots=2)  # the node returns while the driver goes on
        out, _ = driver.communicate(timeout=1200)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert driver.returncode == 0, out.decode(errors="replace")[-4000:]
    cluster.wait_nodes(2)
    expected = accepted(local_run, up_to_round=1)
    got = accepted(run)
    after = [f"{e['kind']} {e['key']} on {str(e['node'])[:8]}" for e in placements(run) if str(e["time"]) >= killed_at]
    print(f"round 1 done after the kill; accepted sets equal to the local run's rounds 0-1: {got == expected}")
    print("answered after the kill: " + "; ".join(after))
    assert got == expected
    _nothing_lost_or_twice(run, local_run, up_to_round=1)

    # A resumed driver runs nothing again; on connecting, every node (the returned one too) prunes
    # the containers its dead workers left.
    again = rst(*synth(seeds, run, 1, "--executor", "ray", "--ray-address", cluster.address), env=cluster.driver_env())
    assert again.returncode == 0, again.stdout + again.stderr
    assert accepted(run) == got
    left = {owner for owner in owners_of_containers() if int(owner.split(".")[-2]) in victims}
    print(f"after the node returned: containers of dead workers left: {len(left)}")
    assert not left


def test_a_killed_driver_resumes_on_the_cluster(
    seeds: Path, local_run: Path, cluster: RayCluster, tmp_path: Path
) -> None:
    """kill -9 of `rst synth` mid-round: Ray ends the dead driver's tasks, the same command resumes,
    and the nodes prune what the ended tasks left when the new driver connects."""
    run = tmp_path / "run"
    command = [sys.executable, "-m", "rst_synth.cli"]
    command += synth(seeds, run, 1, "--executor", "ray", "--ray-address", cluster.address)
    driver = subprocess.Popen(
        command, cwd=REPO, env=cluster.driver_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 900
        while not (_round_started(run, 1) and _containers_of(run)):
            assert driver.poll() is None, "the run ended before round 1 had a container up"
            assert time.monotonic() < deadline, "round 1 never started"
            time.sleep(0.5)
        driver.kill()
    finally:
        driver.wait(timeout=60)
    pending = [cid for cid, status in statuses(run).items() if status == "pending"]
    print(f"\nkilled the driver in round 1 with {len(pending)} candidates pending")
    resumed = rst(*command[3:], env=cluster.driver_env())
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert accepted(run) == accepted(local_run, up_to_round=1)
    _nothing_lost_or_twice(run, local_run, up_to_round=1)
    assert not _containers_of(run), "containers of the killed driver's tasks are left"
    print(f"resumed: accepted sets equal to the local run's rounds 0-1 ({len(accepted(run))} tasks)")


def _nothing_lost_or_twice(run: Path, local_run: Path, up_to_round: int) -> None:
    """Every candidate ended as in the local run, no validation attempt was recorded twice, and the
    tasks on disk are the store's."""
    local = {cid: s for cid, s in statuses(local_run).items() if int(cid[1:3]) <= up_to_round}
    assert statuses(run) == local
    db = sqlite3.connect(RunPaths(run).db)
    try:
        repeated = db.execute(
            "SELECT candidate_id, attempt, COUNT(*) FROM attempts GROUP BY candidate_id, attempt HAVING COUNT(*) > 1"
        ).fetchall()
    finally:
        db.close()
    assert not repeated, f"validation attempts recorded twice: {repeated}"
    on_disk = {p.name for p in (run / "tasks").glob("r*/*") if not p.name.startswith(".")}
    assert on_disk == set(accepted(run))


def _containers_of(run: Path) -> list[str]:
    label = f"label=rst-synth.run-dir={run.resolve()}"
    out = subprocess.run(["docker", "ps", "-q", "--filter", label], capture_output=True, text=True)
    return out.stdout.split()


def _kill_second_node_while_it_works(cluster: RayCluster, run: Path, driver: subprocess.Popen[bytes]) -> set[int]:
    """Wait until round 1 runs and a worker of the second node has a container up, then kill the node."""
    deadline = time.monotonic() + 900
    second = cluster.nodes["second"]
    while time.monotonic() < deadline:
        assert driver.poll() is None, "the run ended before the second node got round-1 work"
        if _round_started(run, 1):
            pids = second.processes
            if any(int(owner.split(".")[-2]) in pids for owner in owners_of_containers()):
                return cluster.kill("second")
        time.sleep(0.5)
    raise AssertionError("the second node never ran round-1 work")


def _round_started(run: Path, round_: int) -> bool:
    if not RunPaths(run).db.is_file():
        return False
    db = sqlite3.connect(f"file:{RunPaths(run).db}?mode=ro", uri=True)
    try:
        return db.execute("SELECT 1 FROM rounds WHERE round = ?", (round_,)).fetchone() is not None
    except sqlite3.OperationalError:
        return False
    finally:
        db.close()


def test_eval_attempts_run_on_the_nodes_and_land_on_the_driver(
    seeds: Path, cluster: RayCluster, tmp_path: Path
) -> None:
    out = tmp_path / "evals"
    task = seeds / SEED_NAMES[0]
    args = ["eval", str(task), "--agent", "oracle", "-k", "2", "--out", str(out), "--json"]
    result = rst(*args, "--executor", "ray", "--ray-address", cluster.address, env=cluster.driver_env())
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    assert report["tasks"][0]["rewards"] == [1.0, 1.0] and report["rounds"][0]["pass@1"] == 1.0
    attempts = sorted((out / "oracle").glob("*/attempt-*"))
    assert [a.name for a in attempts] == ["attempt-0", "attempt-1"]
    assert all((a / "trajectory.json").is_file() and (a / "result.json").is_file() for a in attempts)
    lines = (out / "oracle" / "eval.jsonl").read_text().splitlines()
    work = [e for e in map(json.loads, lines) if e.get("executor") == "ray"]
    assert sorted(e["kind"] for e in work) == ["attempt", "attempt"]


def test_work_of_one_key_in_flight_runs_once(
    seeds: Path, cluster: RayCluster, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two submissions of the same key while it runs (a resubmitted candidate) share one Ray task."""
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_USAGE_STATS_ENABLED"):
        monkeypatch.setenv(name, cluster.driver_env()[name])
    from rst_synth.executors import WorkSpec, make_executor

    async def twice() -> list[ValidationReport]:
        executor = make_executor("ray", spec=WorkSpec(), address=cluster.address)
        try:
            task = Task.load(seeds / SEED_NAMES[0])
            return list(await asyncio.gather(*(executor.validate(task, None, key="r00-same") for _ in range(2))))
        finally:
            await executor.close()

    with caplog.at_level(logging.INFO, logger="rst_synth.executors.ray_cluster"):
        first, second = asyncio.run(twice())
    ran = [r for r in caplog.records if "ran on node" in r.getMessage()]
    assert first == second and first.accepted
    assert len(ran) == 1, [r.getMessage() for r in ran]
