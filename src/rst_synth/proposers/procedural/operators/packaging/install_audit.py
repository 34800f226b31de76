"""An installed distribution checked against its RECORD: a tool that reports files missing or modified, run
on the package the workflow installed (files nobody recorded are left alone: a later step may write beside
the metadata). The tests run it on installs they fake and tamper with (paths outside the site folder,
bytecode, a changed script)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import RUN_TOOL, fresh_path, inside_git, work_root

_DIST_INFO = re.compile(r".+-packages/[^/]+\.dist-info/RECORD")

VERIFY_PY = r"""
def verify(info):
    site = os.path.dirname(os.path.abspath(info))
    with open(os.path.join(info, "RECORD"), encoding="utf-8", newline="") as f:
        rows = [row for row in csv.reader(f) if row]
    problems = []
    for row in rows:
        path = os.path.normpath(os.path.join(site, row[0]))
        if not os.path.isfile(path):
            problems.append("missing " + row[0])
            continue
        if len(row) >= 3 and row[1]:
            with open(path, "rb") as f:
                data = f.read()
            algorithm, _, digest = row[1].partition("=")
            mine = base64.urlsafe_b64encode(hashlib.new(algorithm, data).digest()).rstrip(b"=").decode()
            if mine != digest or (row[2] and int(row[2]) != len(data)):
                problems.append("modified " + row[0])
    return sorted(problems)
"""

TOOL_MAIN = r"""
def main(argv):
    if len(argv) != 2 or not os.path.isfile(os.path.join(argv[1], "RECORD")):
        print("usage: " + argv[0] + " DIST_INFO_FOLDER (a folder with a RECORD file)", file=sys.stderr)
        return 2
    try:
        problems = verify(argv[1])
    except (OSError, ValueError, IndexError) as exc:
        print("cannot verify: " + str(exc), file=sys.stderr)
        return 2
    sys.stdout.write("".join(p + "\n" for p in problems) or "ok\n")
    return 1 if problems else 0


sys.exit(main(sys.argv))
"""

FRESH_PY = r"""
def fake_install(root, rng):
    site = root / "lib" / "site-packages"
    info = site / "demo_pkg-2.0.dist-info"
    files = {
        "demo_pkg/__init__.py": b"def main():\n    return 0\n",
        "demo_pkg/__pycache__/__init__.cpython-311.pyc": bytes(range(40)),
        "demo_pkg/data/ünï, x.txt": "text\n".encode(),
        "demo_pkg-2.0.dist-info/METADATA": b"Name: demo-pkg\nVersion: 2.0\n",
        "demo_pkg-2.0.dist-info/INSTALLER": b"pip\n",
        "demo_pkg-2.0.dist-info/REQUESTED": b"",
        "../../bin/demo": b"#!/usr/bin/python3\nimport demo_pkg\n",
    }
    rows = []
    for name, data in files.items():
        path = site / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        rows.append([name, "sha256=" + digest, str(len(data))])
    rows.append(["demo_pkg-2.0.dist-info/RECORD", "", ""])
    rows.append(["demo_pkg/generated.cfg", "", ""])
    (site / "demo_pkg" / "generated.cfg").write_text("x = 1\n", encoding="utf-8")
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    (info / "RECORD").write_text(text.getvalue(), encoding="utf-8")
    tamper = rng.sample(["edit", "delete", "script", "size", "none"], 3)
    if "edit" in tamper:
        (site / "demo_pkg" / "__init__.py").write_bytes(b"def main():\n    return 1\n")
    if "delete" in tamper:
        (site / "demo_pkg" / "data" / "ünï, x.txt").unlink()
    if "script" in tamper:
        (root / "bin" / "demo").write_bytes(b"#!/usr/bin/python3\nimport os\n")
    if "size" in tamper:
        (site / "demo_pkg" / "generated.cfg").unlink()
    return info
"""


def _installed_record(artifact: Artifact) -> bool:
    return bool(_DIST_INFO.fullmatch(artifact.path)) and artifact.kind is Kind.TEXT


@register
class PythonInstallAudit(Operator):
    """Check an installed distribution's files against its RECORD, with a tool tested on faked installs."""

    name = "python-install-audit"
    kinds = (Kind.TEXT,)
    tools = ("python3",)
    weight = 3.0
    final = True  # a verification report
    once = True  # the tool is the same program whatever the distribution

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return _installed_record(artifact) and not any(inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "audit"))

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        info = artifact.directory
        name = PurePosixPath(info).name
        dist = re.sub(r"[^A-Za-z0-9_]+", "_", name.removesuffix(".dist-info"))
        tool = fresh_path(ctx, f"{work_root(ctx.discovery)}/bin", f"{dist}_verify_install")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/audit", f"{dist}_install.txt")
        seed = ctx.rng.randrange(10**6)
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(out.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import base64, csv, hashlib, os, sys
{VERIFY_PY.strip()}

{TOOL_MAIN.strip()}
PY
chmod 0755 {q(tool)}
{q(tool)} {q(info)} > {q(out)} || test $? -eq 1"""
        tests = f"""
TOOL, INFO, OUT, SEED = {tool!r}, {info!r}, {out!r}, {seed}
{VERIFY_PY}{FRESH_PY}{RUN_TOOL}

def test_{ctx.tag}_verification_of_the_install():
    want = "".join(p + "\\n" for p in verify(INFO)) or "ok\\n"
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == want


def test_{ctx.tag}_tool_on_faked_installs(tmp_path):
    rng = random.Random(SEED)
    for k in range(4):
        info = fake_install(tmp_path / str(k), rng)
        want = verify(info)
        done = run_tool(TOOL, info)
        assert done.stdout.decode("utf-8") == ("".join(p + "\\n" for p in want) or "ok\\n"), k
        assert done.returncode == (1 if want else 0), (k, done.stderr[-300:])


def test_{ctx.tag}_tool_rejects_a_folder_without_record(tmp_path):
    for args in ([tmp_path], [], [tmp_path / "missing.dist-info"]):
        done = run_tool(TOOL, *args)
        assert done.returncode == 2 and done.stdout == b"" and done.stderr.strip(), args
"""
        instruction = " ".join(
            f"""Next, verify the installed distribution `{info}` against its RECORD. Write a command-line tool
            `{tool}` (an executable file with a `#!` line): `{tool} FOLDER` takes an installed `*.dist-info`
            folder; its RECORD file is CSV with rows `PATH,HASH,SIZE`, PATH relative to the folder that holds the
            dist-info (it may lead out of it with `..`), HASH `ALGORITHM=DIGEST` (DIGEST the URL-safe base64 of the
            file's digest by that hashlib algorithm, without `=` padding) or empty, SIZE in bytes or empty. For
            each row the tool reports `missing PATH` when the file does not exist, else `modified PATH` when the
            row has a HASH and the file's digest differs, or a SIZE and the file's size differs. PATH is written
            as in RECORD. It prints the problems sorted in code-point order, one per line, and exits 1,
            or prints the single line `ok` and exits 0; without exactly one argument naming a folder that holds
            a RECORD file, or when RECORD cannot be read, it prints an error to standard error, nothing to standard
            output, and exits 2. Then run it on `{info}` and save its output as `{out}` (create the
            folder).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[Artifact(path=out, kind=Kind.TEXT), Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)],
        )
