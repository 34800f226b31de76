"""Python packaging: a project the workflow built into a wheel gets a tool that rewrites any wheel
reproducibly (entries in a stated order, fixed timestamps or SOURCE_DATE_EPOCH, normalised permissions,
a regenerated RECORD); the tests check the tool's output on the project's wheel and on wheels they make,
and that two differently packed copies of one wheel come out byte for byte the same."""

from __future__ import annotations

from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import RUN_TOOL, fresh_path, inside_git, tool_path, work_root
from rst_synth.proposers.procedural.operators.packaging.wheels import project_wheel

NORMALIZE_PY = r'''
EPOCH_1980 = 315532800


def fixed_time():
    text = os.environ.get("SOURCE_DATE_EPOCH", "")
    stamp = max(int(text), EPOCH_1980) if re.fullmatch(r"[0-9]+", text) else EPOCH_1980
    t = time.gmtime(stamp)
    return (t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec - t.tm_sec % 2)


def record_hash(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")


def normalized(src):
    """(name, executable, data) of every entry of the normalised wheel, in order."""
    with zipfile.ZipFile(src) as wheel:
        files = {info.filename: (bool((info.external_attr >> 16) & 0o111), wheel.read(info))
                 for info in wheel.infolist() if not info.is_dir()}
    records = [n for n in files if re.fullmatch(r"[^/]+\.dist-info/RECORD", n)]
    if len(records) != 1:
        raise ValueError("not a wheel: no single top-level *.dist-info/RECORD")
    record = records[0]

    def meta(name):
        return name.split("/", 1)[0].endswith(".dist-info")

    order = sorted(n for n in files if not meta(n)) + sorted(n for n in files if meta(n) and n != record)
    rows = [[n, record_hash(files[n][1]), str(len(files[n][1]))] for n in order] + [[record, "", ""]]
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    return [(n, files[n][0], files[n][1]) for n in order] + [(record, False, text.getvalue().encode("utf-8"))]
'''

TOOL_MAIN = r"""
def main(argv):
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


sys.exit(main(sys.argv))
"""

FRESH_PY = r"""
def fresh_wheel(path, rng, files):
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


def fresh_files(rng):
    files = {
        "pkg/__init__.py": (False, b"VERSION = '1.0'\n"),
        "pkg/sub/core.py": (False, bytes(rng.randrange(256) for _ in range(rng.randint(0, 400)))),
        "pkg/data/ünï, code.txt": (False, "naïve, text\n".encode("utf-8")),
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


def entries_of(path):
    with zipfile.ZipFile(path) as wheel:
        return [(i.filename, i.date_time, i.external_attr >> 16, i.compress_type, i.create_system, wheel.read(i))
                for i in wheel.infolist()]


def expected(src, when):
    return [(n, when, 0o100755 if x else 0o100644, zipfile.ZIP_DEFLATED, 3, d) for n, x, d in normalized(src)]
"""


@register
class WheelReproducible(Operator):
    """A tool that rewrites a wheel reproducibly, run on the wheel the workflow built."""

    name = "wheel-reproducible"
    kinds = (Kind.CONFIG,)
    tools = ("python3",)
    weight = 3.0
    once = True  # the tool is the same program whatever the wheel: a second step would copy it

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return project_wheel(artifact, discovery) is not None and not any(
            inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "dist-repro")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        wheel = project_wheel(artifact, ctx.discovery)
        assert wheel is not None  # applies() checked it
        tool = tool_path(ctx, artifact, "wheel_normalize")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/dist-repro", PurePosixPath(wheel).name)
        seed = ctx.rng.randrange(10**6)
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(out.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import base64, csv, hashlib, io, os, re, sys, time, zipfile
{NORMALIZE_PY.strip()}

{TOOL_MAIN.strip()}
PY
chmod 0755 {q(tool)}
env -u SOURCE_DATE_EPOCH {q(tool)} {q(wheel)} {q(out)}"""
        tests = f"""
TOOL, WHEEL, OUT, SEED = {tool!r}, {wheel!r}, {out!r}, {seed}
{NORMALIZE_PY}{FRESH_PY}{RUN_TOOL}

def test_{ctx.tag}_normalised_wheel_of_the_project():
    got = entries_of(OUT)
    assert got == expected(WHEEL, (1980, 1, 1, 0, 0, 0))
    names = [entry[0] for entry in got]
    assert any(not n.split("/")[0].endswith(".dist-info") for n in names) and names[-1].endswith("/RECORD")


def test_{ctx.tag}_tool_is_reproducible_on_fresh_wheels(tmp_path):
    rng = random.Random(SEED)
    for k in range(3):
        files = fresh_files(rng)
        first, second = tmp_path / f"a{{k}}.whl", tmp_path / f"b{{k}}.whl"
        fresh_wheel(first, rng, files)
        fresh_wheel(second, rng, files)
        outs = [tmp_path / f"out{{k}}{{n}}.whl" for n in range(3)]
        for src, dst in zip((first, second, first), outs):
            done = run_tool("env", "-u", "SOURCE_DATE_EPOCH", TOOL, src, dst)
            assert done.returncode == 0, done.stderr[-500:]
        assert entries_of(outs[0]) == expected(first, (1980, 1, 1, 0, 0, 0))
        assert outs[0].read_bytes() == outs[1].read_bytes() == outs[2].read_bytes()
        epoch = rng.choice([1700000001, 1234567890, 1, 4102444799])
        dst = tmp_path / f"dated{{k}}.whl"
        done = run_tool("env", f"SOURCE_DATE_EPOCH={{epoch}}", TOOL, second, dst)
        assert done.returncode == 0, done.stderr[-500:]
        when = time.gmtime(max(epoch, 315532800))
        stamp = (when.tm_year, when.tm_mon, when.tm_mday, when.tm_hour, when.tm_min, when.tm_sec - when.tm_sec % 2)
        assert entries_of(dst) == expected(first, stamp)


def test_{ctx.tag}_tool_rejects_what_is_no_wheel(tmp_path):
    text = tmp_path / "text.whl"
    text.write_text("not a zip", encoding="utf-8")
    bare = tmp_path / "bare.whl"
    with zipfile.ZipFile(bare, "w") as z:
        z.writestr("pkg/__init__.py", "")
        z.writestr("pkg/x.dist-info/RECORD", "")
    for src in (text, bare, tmp_path / "missing.whl"):
        done = run_tool(TOOL, src, tmp_path / "out.whl")
        assert done.returncode == 2 and done.stderr.strip(), src
"""
        instruction = " ".join(
            f"""Next, make the project's wheel reproducible. Write a command-line tool `{tool}` (an executable
            file with a `#!` line): `{tool} IN.whl OUT.whl` writes OUT.whl, a zip archive holding exactly the files
            of the wheel IN.whl (directory entries dropped) with the same contents, except the wheel's top-level
            `NAME.dist-info/RECORD`, which is written anew. Entries come in this order: the files outside the
            top-level `*.dist-info` folder sorted by name, then the `*.dist-info` files sorted by name except
            RECORD, then RECORD (names sorted in code-point order). Every entry is deflate-compressed, made on Unix
            (create system 3), with the permission bits `0644` (`0755` when the entry had any execute bit in IN)
            of a regular file (`0o100644`/`0o100755` in the upper 16 bits of the external attributes), and the
            timestamp of the environment variable SOURCE_DATE_EPOCH (seconds since 1970 UTC, read as UTC; a value
            before 1980-01-01 counts as 1980-01-01 00:00:00) rounded down to an even second, or 1980-01-01
            00:00:00 when that variable is unset or not a number. RECORD is CSV (`,`-separated, lines ending in
            `\\n`) with one row per entry in the same order: `NAME,sha256=DIGEST,SIZE`, DIGEST being the
            URL-safe base64 of the SHA-256 of the entry's content without `=` padding and SIZE its length in bytes;
            its own row is `NAME,,`. The same files packed in another order or with other timestamps must give a
            byte-identical OUT.whl. When IN.whl cannot be read, is not a zip archive, or has not exactly one
            top-level `*.dist-info/RECORD`, the tool prints an error to standard error and exits 2; otherwise it
            exits 0. Then, with SOURCE_DATE_EPOCH unset, run it on `{wheel}` (the wheel of `{artifact.path}`) to
            write `{out}` (create the folder).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[
                Artifact(path=out, kind=Kind.ARCHIVE, details={"format": "zip"}),
                Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True),
            ],
        )
