"""What `python-plugin-distribution` ships: the plugin distribution's module (`digest`, the plugin, and
`main`, the command that lists and runs the plugins of the group), and the tests that read the built
wheel's metadata, rebuild it from its sources, install it with its dependency offline into a folder of
their own and run the command over fake plugin distributions they write. The constants are the step's
parameters: `shipping.render` sets them."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error

WHEEL = "/app/plugins/dist/text_stats_digest-0.1.0-py3-none-any.whl"
DIST = "text-stats-digest"
MODULE = "text_stats_digest"
GROUP = "text_stats.plugins"
BASE = "text-stats"
VERSION = "0.3.0"
SCRIPT = "text-stats-plugin"
SRC = "/app/plugins/text-stats-digest"
BASE_DIST = "/app/dist"


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def plugins() -> list[tuple[str, str, str, importlib.metadata.EntryPoint]]:
    found = [
        (ep.name, ep.value, dist.metadata["Name"], ep)
        for dist in importlib.metadata.distributions()
        for ep in dist.entry_points
        if ep.group == GROUP
    ]
    return sorted(found, key=lambda item: (item[0], item[2]))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args == ["list"]:
        for name, value, dist, _ in plugins():
            print(name, value, dist)
        return 0
    if len(args) != 3 or args[0] != "run":
        print("usage: " + SCRIPT + " list | " + SCRIPT + " run NAME FILE", file=sys.stderr)
        return 2
    matches = [ep for name, _, _, ep in plugins() if name == args[1]]
    if len(matches) != 1:
        print(("ambiguous plugin: " if matches else "no plugin: ") + args[1], file=sys.stderr)
        return 2
    try:
        with open(args[2], encoding="utf-8") as f:
            text = f.read()
        result = matches[0].load()(text)
    except Exception as exc:
        print("plugin failed: " + repr(exc), file=sys.stderr)
        return 3
    print(result)
    return 0


def fake_dist(site: pathlib.Path, dist: str, module: str, entries: list[tuple[str, str]], code: str) -> None:
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8")
    lines = "".join(f"{name} = {value}\n" for name, value in entries)
    (info / "entry_points.txt").write_text(
        f"[{GROUP}]\n{lines}\n[console_scripts]\nx-{dist} = {module}:f\n", encoding="utf-8"
    )
    (site / f"{module}.py").write_text(code, encoding="utf-8")


def install(tmp_path: pathlib.Path) -> pathlib.Path:
    target = tmp_path / "target"
    command = [sys.executable, "-m", "pip", "install", "--no-index", "--no-compile", "-q", "--find-links"]
    done = subprocess.run([*command, BASE_DIST, "--target", str(target), WHEEL], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr[-1000:]
    return target


def run_with(target: pathlib.Path, site: pathlib.Path, *args: object) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ, PYTHONPATH=f"{target}:{site}")
    return subprocess.run([str(target / "bin" / SCRIPT), *map(str, args)], capture_output=True, env=env, timeout=60)


def members(path: str | pathlib.Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as wheel:
        return {name: wheel.read(name) for name in wheel.namelist()}


def test_wheel_metadata() -> None:
    with zipfile.ZipFile(WHEEL) as wheel:
        assert wheel.testzip() is None
        info = MODULE.replace("-", "_") + "-0.1.0.dist-info/"
        meta = wheel.read(info + "METADATA").decode("utf-8")
        points = wheel.read(info + "entry_points.txt").decode("utf-8")
        assert MODULE + ".py" in wheel.namelist()
    assert re.search(r"^Name: " + re.escape(DIST) + "$", meta, re.M) and re.search(r"^Version: 0\.1\.0$", meta, re.M)
    requires = [re.sub(r"[\s()]", "", r) for r in re.findall(r"^Requires-Dist: (.*)$", meta, re.M)]
    assert requires == [BASE + "==" + VERSION]  # older setuptools write `name (==1.0)`
    assert re.search(r"^\[" + re.escape(GROUP) + r"\]\ndigest = " + re.escape(MODULE) + ":digest$", points, re.M)
    assert re.search(r"^" + re.escape(SCRIPT) + " = " + re.escape(MODULE) + ":main$", points, re.M)


def test_wheel_built_from_the_sources(tmp_path: pathlib.Path) -> None:
    build = tmp_path / "src"
    shutil.copytree(SRC, build)
    command = [sys.executable, "-m", "pip", "wheel", "--no-index", "--no-build-isolation", "--no-deps", "-q", "-w"]
    done = subprocess.run([*command, str(tmp_path / "out"), str(build)], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr[-1000:]
    assert members(tmp_path / "out" / pathlib.Path(WHEEL).name) == members(WHEEL)


def test_plugin_command(tmp_path: pathlib.Path) -> None:
    target = install(tmp_path)
    text = "Grüße, plugins!\nzweite Zeile\n"
    sample = tmp_path / "sample.txt"
    sample.write_text(text, encoding="utf-8")
    site = tmp_path / "site"
    fake_dist(
        site,
        "zeta-upper",
        "zeta_upper",
        [("upper", "zeta_upper:upper"), ("broken", "zeta_upper:nope")],
        "def upper(text):\n    return text.upper().strip()\n",
    )
    fake_dist(
        site,
        "alpha-tools",
        "alpha_tools",
        [("count", "alpha_tools:count")],
        "def count(text):\n    return len(text.split())\n",
    )
    done = run_with(target, site, "list")
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.decode().splitlines() == [
        "broken zeta_upper:nope zeta-upper",
        "count alpha_tools:count alpha-tools",
        "digest " + MODULE + ":digest " + DIST,
        "upper zeta_upper:upper zeta-upper",
    ]
    ran = run_with(target, site, "run", "digest", sample)
    assert (ran.returncode, ran.stdout.decode()) == (0, hashlib.sha256(text.encode()).hexdigest() + "\n")
    assert run_with(target, site, "run", "upper", sample).stdout.decode() == text.upper().strip() + "\n"
    assert run_with(target, site, "run", "count", sample).stdout == b"4\n"
    for args in (["run", "nope", sample], ["run", "digest"]):
        assert_usage_error(run_with(target, site, *args), args)
    for args in (["run", "broken", sample], ["run", "upper", tmp_path / "missing.txt"]):
        done = run_with(target, site, *args)
        assert done.returncode == 3 and done.stdout == b"" and done.stderr.strip(), args
    twin = tmp_path / "twin"
    fake_dist(twin, "beta-digest", "beta_digest", [("digest", "beta_digest:digest")], "def digest(t):\n    return 1\n")
    assert_usage_error(run_with(target, twin, "run", "digest", sample), "twin", says=b"ambiguous")
