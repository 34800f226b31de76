"""Benchmark 3: a round of 20 children of one parent builds at most one new image.

The procedural proposer makes 20 children of one seed (seeds 0..19, as a round with fanout 20
would); each child's build check is `ensure_image` on its environment, as the validator does.
Images are tagged in a namespace of this run only (rst-bench-<id>:<context hash>) so that every
image counts as new whatever the engine already caches; the parent's image is made first, as
round r-1 would have. Docker's layer cache is left alone, so a child that only adds a package
line costs that layer, not a whole image. Baselines (same run): one build per child (no reuse),
and the time of one build that adds a single new layer to the parent's image. The namespace's
tags are removed at the end (layers that other images use stay).

    python3 bench/image_reuse.py [--quick] [--parent SEED]   (--quick: one parent; else all seeds)
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import subprocess
import time
import uuid

from _common import SEEDS, footer, header, median, ms, parser, summary, table

RUN_ID = uuid.uuid4().hex[:8]
os.environ["RST_RUN_LABEL"] = f"bench-{RUN_ID}"

import rst_synth.sandbox.docker as docker_backend  # noqa: E402
from rst_synth.proposers.discovery import discovery_on  # noqa: E402
from rst_synth.proposers.procedural import ProceduralProposer  # noqa: E402
from rst_synth.sandbox import Sandbox, make_sandbox  # noqa: E402
from rst_synth.task import Task, TaskPaths  # noqa: E402

CHILDREN = 20
TARGET = 1


async def one_layer_build(sandbox: Sandbox, parent: Task) -> float:
    """Seconds to build the parent's image plus one new layer: what a child that needs an image costs."""
    context = parent.files_under(TaskPaths.ENVIRONMENT_DIR)
    context["Dockerfile"] = context["Dockerfile"] + f"\nRUN echo {RUN_ID} > /tmp/.rst-bench\n".encode()
    digest = hashlib.sha256(context["Dockerfile"]).hexdigest()
    started = time.perf_counter()
    info = await sandbox.ensure_image(context, digest, timeout=1800)
    assert info.built
    return time.perf_counter() - started


async def round_of(sandbox: Sandbox, name: str) -> dict[str, object]:
    """20 children of one seed and the image step of each."""
    parent = Task.load(SEEDS / name)
    await sandbox.ensure_image(parent.files_under(TaskPaths.ENVIRONMENT_DIR), parent.environment_hash(), timeout=1800)
    proposer = ProceduralProposer(discovery_on(sandbox))
    built, contexts, times, packages = 0, set(), [], set()
    for seed in range(CHILDREN):
        child = (await proposer.propose(parent, seed=seed)).task
        digest = child.environment_hash()
        started = time.perf_counter()
        info = await sandbox.ensure_image(child.files_under(TaskPaths.ENVIRONMENT_DIR), digest, timeout=1800)
        times.append(time.perf_counter() - started)
        built += info.built
        if digest != parent.environment_hash():
            contexts.add(digest)
            packages.update(line for line in child.dockerfile.splitlines() if line not in parent.dockerfile.splitlines())
    return {"name": name, "built": built, "contexts": len(contexts), "times": times,
            "added": "; ".join(sorted(packages))[:90] or "-", "one_layer": await one_layer_build(sandbox, parent)}


async def main() -> None:
    p = parser(__doc__.split("\n")[0])
    p.add_argument("--parent", help="one seed under examples/seeds (default: sales-csv-rollup with --quick, else all)")
    args = p.parse_args()
    t0 = header("image_reuse", args)
    namespace = f"rst-bench-{RUN_ID}"
    docker_backend.IMAGE_REPO = namespace  # every tag of this run is new to the engine
    names = [args.parent] if args.parent else (["sales-csv-rollup"] if args.quick else
                                               sorted(d.name for d in SEEDS.iterdir() if (d / "task.toml").is_file()))
    sandbox = make_sandbox("docker")
    rounds = []
    try:
        for name in names:
            rounds.append(await round_of(sandbox, name))
    finally:
        await sandbox.close()
        tags = subprocess.run(["docker", "images", namespace, "--format", "{{.Repository}}:{{.Tag}}"],
                              capture_output=True, text=True).stdout.split()
        if tags:
            subprocess.run(["docker", "rmi", *tags], capture_output=True)
    table(f"Rounds of {CHILDREN} children per parent: new images against one build per child (no reuse)",
          ["parent", "new images built", "new build contexts", "builds / child (no reuse: 1.00)",
           "image step, all children", "no reuse: 20 x one-layer build", "ratio", "Dockerfile lines children add"],
          [[r["name"], r["built"], r["contexts"], f"{r['built'] / CHILDREN:.2f}", ms(sum(r["times"])),
            ms(CHILDREN * r["one_layer"]), f"{sum(r['times']) / (CHILDREN * r['one_layer']):.3f}", r["added"]]
           for r in rounds])
    worst = max(rounds, key=lambda r: r["built"])
    print(f"\nmedian image step of a child: {ms(median([t for r in rounds for t in r['times']]))}; "
          f"median one-layer build: {ms(median([r['one_layer'] for r in rounds]))}")
    summary("image_reuse", f"at most {worst['built']} new image(s) in a round of {CHILDREN} children "
            f"({len(rounds)} parent(s); worst {worst['name']})", f"<= {TARGET}", worst["built"] <= TARGET)
    footer(t0)


if __name__ == "__main__":
    asyncio.run(main())
