"""What `wheel-reproducible` ships: the tool that rewrites a wheel reproducibly (entries in a stated order,
fixed timestamps or SOURCE_DATE_EPOCH, normalised permissions, a regenerated RECORD; its `main`, written
to an executable file), and the tests that check its output on the project's wheel and on fresh wheels
packed twice in different ways, and that it refuses what is no wheel. The constants are the step's
parameters: `shipping.render` sets them."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import pathlib
import random
import re
import sys
import time
import zipfile

from rst_synth.proposers.procedural.operators.kit.testkit import run_tool

TOOL = "/app/bin/pyproject_wheel_normalize"
WHEEL = "/app/dist/text_stats-0.3.0-py3-none-any.whl"
OUT = "/app/dist-repro/text_stats-0.3.0-py3-none-any.whl"
SEED = 1

EPOCH_1980 = 315532800


def fixed_time() -> tuple[int, int, int, int, int, int]:
    text = os.environ.get("SOURCE_DATE_EPOCH", "")
    stamp = max(int(text), EPOCH_1980) if re.fullmatch(r"[0-9]+", text) else EPOCH_1980
    t = time.gmtime(stamp)
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec - t.tm_sec % 2)


def record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


# fmt: off
# The layout of the generated code before it moved here: a refactor keeps the tasks' bytes.
def normalized(src: str | pathlib.Path) -> list[tuple[str, bool, bytes]]:
    """(name, executable, data) of every entry of the normalised wheel, in order."""
    with zipfile.ZipFile(src) as wheel:
        files = {info.filename: (bool((info.external_attr >> 16) & 0o111), wheel.read(info))
                 for info in wheel.infolist() if not info.is_dir()}
    records = [n for n in files if re.fullmatch(r"[^/]+\.dist-info/RECORD", n)]
    if len(records) != 1:
        raise ValueError("not a wheel: no single top-level *.dist-info/RECORD")
    record = records[0]

    def meta(name: str) -> bool:
        return name.split("/", 1)[0].endswith(".dist-info")

    order = sorted(n for n in files if not meta(n)) + sorted(n for n in files if meta(n) and n != record)
    rows = [[n, record_hash(files[n][1]), str(len(files[n][1]))] for n in order] + [[record, "", ""]]
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    return [(n, files[n][0], files[n][1]) for n in order] + [(record, False, text.getvalue().encode("utf-8"))]
# fmt: on


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: " + argv[0] + " IN.whl OUT.whl", file=sys.stderr)
        return 2
    try:
        entries = normalized(argv[1])
    except (OSError, ValueError, zipfile.BadZipFile) as exc:
        print("error: " + str(exc), file=sys.stderr)
        return 2
    when = fixed_time()
    with zipfile.ZipFile(argv[2], "w") as out:
        for name, executable, data in entries:
            info = zipfile.ZipInfo(name, date_time=when)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3
            info.external_attr = (0o100755 if executable else 0o100644) << 16
            out.writestr(info, data)
    return 0


# fmt: off
def fresh_wheel(path: str | pathlib.Path, rng: random.Random, files: dict[str, tuple[bool, bytes]]) -> None:
    names = list(files)
    rng.shuffle(names)
    with zipfile.ZipFile(path, "w") as wheel:
        for directory in sorted({n.rsplit("/", 1)[0] + "/" for n in names if "/" in n})[: rng.randint(0, 2)]:
            wheel.writestr(zipfile.ZipInfo(directory, date_time=(2019, 5, 6, 7, 8, 10)), b"")
        for name in names:
            stamp = (rng.randint(1990, 2030), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), 5, 9)
            info = zipfile.ZipInfo(name, date_time=stamp)
            info.compress_type = rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
            executable, data = files[name]
            info.external_attr = rng.choice([0o100755, 0o100775, 0o100711]) << 16 if executable else \
                rng.choice([0o100644, 0o100600, 0o100664, 0]) << 16
            wheel.writestr(info, data)
# fmt: on


def fresh_files(rng: random.Random) -> dict[str, tuple[bool, bytes]]:
    files = {
        "pkg/__init__.py": (False, b"VERSION = '1.0'\n"),
        "pkg/sub/core.py": (False, bytes(rng.randrange(256) for _ in range(rng.randint(0, 400)))),
        "pkg/data/ünï, code.txt": (False, "naïve, text\n".encode()),
        "zz_top.py": (False, b""),
        "pkg-1.0.data/scripts/run-pkg": (True, b"#!python\nprint(1)\n"),
        "pkg-1.0.dist-info/METADATA": (False, b"Metadata-Version: 2.1\nName: pkg\nVersion: 1.0\n"),
        "pkg-1.0.dist-info/WHEEL": (False, b"Wheel-Version: 1.0\nTag: py3-none-any\n"),
        "pkg-1.0.dist-info/entry_points.txt": (False, b"[console_scripts]\npkg = pkg:main\n"),
        "pkg-1.0.dist-info/RECORD": (False, b"stale,,\n"),
    }
    if rng.random() < 0.5:
        files["pkg-1.0.dist-info/licenses/LICENSE"] = (False, b"MIT\n")
    return files


# fmt: off
def entries_of(path: str | pathlib.Path) -> list[tuple[str, tuple[int, ...], int, int, int, bytes]]:
    with zipfile.ZipFile(path) as wheel:
        return [(i.filename, i.date_time, i.external_attr >> 16, i.compress_type, i.create_system, wheel.read(i))
                for i in wheel.infolist()]
# fmt: on


def expected(src: str | pathlib.Path, when: tuple[int, ...]) -> list[tuple[str, tuple[int, ...], int, int, int, bytes]]:
    return [(n, when, 0o100755 if x else 0o100644, zipfile.ZIP_DEFLATED, 3, d) for n, x, d in normalized(src)]


def test_normalised_wheel_of_the_project() -> None:
    got = entries_of(OUT)
    assert got == expected(WHEEL, (1980, 1, 1, 0, 0, 0))
    names = [entry[0] for entry in got]
    assert any(not n.split("/")[0].endswith(".dist-info") for n in names) and names[-1].endswith("/RECORD")


def test_tool_is_reproducible_on_fresh_wheels(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(3):
        files = fresh_files(rng)
        first, second = tmp_path / f"a{k}.whl", tmp_path / f"b{k}.whl"
        fresh_wheel(first, rng, files)
        fresh_wheel(second, rng, files)
        outs = [tmp_path / f"out{k}{n}.whl" for n in range(3)]
        for src, dst in zip((first, second, first), outs):  # noqa: B905  # python3 before strict=
            done = run_tool("env", "-u", "SOURCE_DATE_EPOCH", TOOL, src, dst)
            assert done.returncode == 0, done.stderr[-500:]
        assert entries_of(outs[0]) == expected(first, (1980, 1, 1, 0, 0, 0))
        assert outs[0].read_bytes() == outs[1].read_bytes() == outs[2].read_bytes()
        epoch = rng.choice([1700000001, 1234567890, 1, 4102444799])
        dst = tmp_path / f"dated{k}.whl"
        done = run_tool("env", f"SOURCE_DATE_EPOCH={epoch}", TOOL, second, dst)
        assert done.returncode == 0, done.stderr[-500:]
        when = time.gmtime(max(epoch, 315532800))
        stamp = (when.tm_year, when.tm_mon, when.tm_mday, when.tm_hour, when.tm_min, when.tm_sec - when.tm_sec % 2)
        assert entries_of(dst) == expected(first, stamp)


def test_tool_rejects_what_is_no_wheel(tmp_path: pathlib.Path) -> None:
    text = tmp_path / "text.whl"
    text.write_text("not a zip", encoding="utf-8")
    bare = tmp_path / "bare.whl"
    with zipfile.ZipFile(bare, "w") as z:
        z.writestr("pkg/__init__.py", "")
        z.writestr("pkg/x.dist-info/RECORD", "")
    for src in (text, bare, tmp_path / "missing.whl"):
        done = run_tool(TOOL, src, tmp_path / "out.whl")
        assert done.returncode == 2 and done.stderr.strip(), src  # the instruction promises no empty stdout
