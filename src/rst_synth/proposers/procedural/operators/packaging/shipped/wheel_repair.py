"""What `wheel-repair` ships: the broken candidate wheel of a patch release the step plants (`candidate_bytes`:
a stale RECORD hash, a wrong size, a row for a file no longer shipped, a file nobody recorded, METADATA or the
dist-info folder still at the old version, a console script that names a function the module lacks, a module
left out), the reference repair (`main`), and the tests that read the repaired wheel by the stated rules and
install it with pip. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import base64
import configparser
import csv
import email.parser
import hashlib
import io
import json
import os
import pathlib
import random
import re
import subprocess
import sys
import tomllib
import zipfile

CANDIDATE = "/app/incoming/r7s1/textstats-0.3.1-py3-none-any.whl"
PYPROJECT = "/app/project/pyproject.toml"
OUT = "/app/dist/textstats-0.3.1-py3-none-any.whl"

FAULTS = (
    "stale_hash",
    "bad_size",
    "stale_row",
    "unrecorded",
    "metadata_version",
    "dist_info_version",
    "missing_module",
)
"""What `candidate_bytes` may break besides the console script, which it always breaks."""
_VERSION_LINE = re.compile(r"""^(__version__\s*=\s*)(["'])[^"'\n]*\2""", re.MULTILINE)


def digest_of(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def with_version(source: bytes, version: str) -> bytes:
    """A module with the string its `__version__` assignment holds set to `version`."""
    text = source.decode("utf-8")
    return _VERSION_LINE.sub(lambda m: m.group(1) + m.group(2) + version + m.group(2), text).encode("utf-8")


def release_files(candidate: str, pyproject: str) -> dict[str, bytes]:
    """The files (RECORD aside) the repaired wheel must hold, by the stated rules."""
    dist, version = os.path.basename(candidate).split("-")[:2]
    with open(pyproject, "rb") as f:
        project = tomllib.load(f)
    modules = project["tool"]["setuptools"]["py-modules"]
    scripts = project["project"]["scripts"]
    info = f"{dist}-{version}.dist-info"
    files: dict[str, bytes] = {}
    with zipfile.ZipFile(candidate) as wheel:
        for item in wheel.infolist():
            top, _, rest = item.filename.partition("/")
            if item.is_dir() or (top.endswith(".dist-info") and rest in ("RECORD", "entry_points.txt")):
                continue
            files[f"{info}/{rest}" if top.endswith(".dist-info") else item.filename] = wheel.read(item)
    for module in modules:
        if f"{module}.py" not in files:
            with open(os.path.join(os.path.dirname(pyproject), f"{module}.py"), "rb") as f:
                files[f"{module}.py"] = with_version(f.read(), version)
    metadata = files[f"{info}/METADATA"].decode("utf-8")
    files[f"{info}/METADATA"] = re.sub(r"(?m)^Version:.*$", "Version: " + version, metadata).encode("utf-8")
    files[f"{info}/entry_points.txt"] = (
        "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in scripts.items())
    ).encode()
    return files


def main() -> None:
    files = release_files(CANDIDATE, PYPROJECT)
    info = next(n.split("/")[0] for n in files if n.split("/")[0].endswith(".dist-info"))
    rows = [[name, digest_of(data), str(len(data))] for name, data in files.items()]
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([*rows, [f"{info}/RECORD", "", ""]])
    with zipfile.ZipFile(OUT, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)
        wheel.writestr(f"{info}/RECORD", text.getvalue())


def candidate_bytes(
    dist: str, old: str, new: str, modules: dict[str, str], scripts: dict[str, str], rng: random.Random
) -> tuple[bytes, list[str]]:
    """The planted candidate of release `new` (modules: name -> the project's source) and the faults it has."""
    faults = ["entry_point", *rng.sample(FAULTS, 3)]
    if len(modules) < 2 and {"stale_hash", "missing_module"} <= set(faults):
        faults.remove("stale_hash")  # one module cannot be both left out and shipped with a stale hash
    names = sorted(modules)
    info = f"{dist}-{old if 'dist_info_version' in faults else new}.dist-info"
    files = {f"{n}.py": with_version(modules[n].encode("utf-8"), new) for n in names}
    files[f"{info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {dist}\nVersion: {old if 'metadata_version' in faults else new}\n"
        "Summary: Release candidate\n"
    ).encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: release-ci\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    broken = {k: v.split(":")[0] + ":" + v.split(":")[-1] + "_cli" for k, v in scripts.items()}
    files[f"{info}/entry_points.txt"] = (
        "[console_scripts]\n" + "".join(f"{k} = {v}\n" for k, v in broken.items())
    ).encode()
    files[f"{info}/top_level.txt"] = "".join(n + "\n" for n in names).encode()
    rows = {name: [name, digest_of(data), str(len(data))] for name, data in files.items()}
    if "stale_hash" in faults:
        rows[f"{names[-1]}.py"][1] = digest_of(modules[names[-1]].encode("utf-8") + b"\n# pre-release\n")
    if "bad_size" in faults:
        rows[f"{info}/METADATA"][2] = str(len(files[f"{info}/METADATA"]) + 7)
    if "stale_row" in faults:
        rows[f"{names[0]}_compat.py"] = [f"{names[0]}_compat.py", digest_of(b"# removed\n"), "10"]
    if "unrecorded" in faults:
        del rows[f"{info}/top_level.txt"]
    if "missing_module" in faults:
        del files[f"{names[0]}.py"]
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows([*rows.values(), [f"{info}/RECORD", "", ""]])
    files[f"{info}/RECORD"] = text.getvalue().encode()
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            wheel.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), data)
    return packed.getvalue(), faults


def headers(data: bytes) -> list[tuple[str, str]]:
    return sorted(email.parser.BytesParser().parsebytes(data).items())


def test_repaired_wheel_holds_the_release() -> None:
    want = release_files(CANDIDATE, PYPROJECT)
    with zipfile.ZipFile(OUT) as wheel:
        got = {i.filename: wheel.read(i) for i in wheel.infolist() if not i.is_dir()}
    info = next(n.split("/")[0] for n in want if n.split("/")[0].endswith(".dist-info"))
    assert sorted(got) == sorted([*want, f"{info}/RECORD"])
    for name, data in want.items():
        if name.endswith(("/METADATA", "/WHEEL")):
            assert headers(got[name]) == headers(data), name
        elif name.endswith("/entry_points.txt"):
            points = configparser.ConfigParser(delimiters=("=",))
            points.optionxform = str  # type: ignore[assignment,method-assign]  # script names keep their case
            points.read_string(got[name].decode("utf-8"))
            with open(PYPROJECT, "rb") as f:
                scripts = tomllib.load(f)["project"]["scripts"]
            assert points.sections() == ["console_scripts"], points.sections()
            assert dict(points["console_scripts"]) == scripts
        else:
            assert got[name] == data, name


def test_record_of_the_repaired_wheel() -> None:
    with zipfile.ZipFile(OUT) as wheel:
        files = {i.filename: wheel.read(i) for i in wheel.infolist() if not i.is_dir()}
    record = next(n for n in files if re.fullmatch(r"[^/]+\.dist-info/RECORD", n))
    rows = list(csv.reader(io.StringIO(files[record].decode("utf-8"))))
    rows = [row for row in rows if row]
    assert sorted(row[0] for row in rows) == sorted(files), "every file once, no other row"
    for row in rows:
        assert len(row) == 3, row
        if row[0] == record:
            assert row[1:] == ["", ""], row
        else:
            assert row[1:] == [digest_of(files[row[0]]), str(len(files[row[0]]))], row[0]


def test_pip_installs_the_repaired_wheel(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "site"
    command = [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--no-compile", "-q"]
    done = subprocess.run([*command, "--target", str(target), OUT], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr[-1000:]
    dist, version = os.path.basename(OUT).split("-")[:2]
    probe = (
        "import importlib.metadata as m, json, sys\n"
        "d = m.distribution(sys.argv[1])\n"
        "points = {e.name: e.value for e in d.entry_points if e.group == 'console_scripts'}\n"
        "assert all(callable(e.load()) for e in d.entry_points if e.group == 'console_scripts')\n"
        "print(json.dumps({'version': d.version, 'scripts': points}))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(target))
    ran = subprocess.run([sys.executable, "-c", probe, dist], capture_output=True, env=env, cwd=tmp_path, timeout=60)
    assert ran.returncode == 0, ran.stderr[-1000:]
    with open(PYPROJECT, "rb") as f:
        scripts = tomllib.load(f)["project"]["scripts"]
    assert json.loads(ran.stdout) == {"version": version, "scripts": scripts}
    assert all((target / "bin" / name).is_file() for name in scripts)
