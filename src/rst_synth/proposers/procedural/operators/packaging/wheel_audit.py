"""A wheel audit: a tool that checks a wheel against the packaging rules it must follow (its file name,
its .dist-info folder, METADATA and WHEEL against the name, version and tags, RECORD against every file,
console-script entry points against the modules shipped), run on the wheel a project was built into. The
tests run it on wheels they break in known ways."""

from __future__ import annotations

from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import RUN_TOOL, fresh_path, inside_git, tool_path, work_root
from rst_synth.proposers.procedural.operators.packaging.wheels import project_wheel

AUDIT_PY = r"""
FILENAME = re.compile(r"([A-Za-z0-9_.]+)-([A-Za-z0-9_.!+]+)(-[0-9][^-]*)?-([^-]+)-([^-]+)-([^-]+)\.whl")


def normal(name):
    return re.sub(r"[-_.]+", "_", name).lower()


def audit(path):
    found = FILENAME.fullmatch(os.path.basename(path))
    if found is None:
        return ["bad-filename"]
    name, version = found[1], found[2]
    tag = "-".join(found.group(4, 5, 6))
    with zipfile.ZipFile(path) as wheel:
        files = {i.filename: wheel.read(i) for i in wheel.infolist() if not i.is_dir()}
    infos = {n.split("/", 1)[0] for n in files if n.split("/", 1)[0].endswith(".dist-info")}
    if len(infos) != 1 or normal(infos.pop()) != normal(name + "-" + version + ".dist-info"):
        return ["dist-info-mismatch"]
    info = [n.split("/", 1)[0] for n in files if n.split("/", 1)[0].endswith(".dist-info")][0]
    problems = []
    fields = email.parser.Parser().parsestr(files.get(info + "/METADATA", b"").decode("utf-8", "replace"))
    if normal(fields.get("Name", "")) != normal(name):
        problems.append("metadata-name")
    if fields.get("Version", "") != version:
        problems.append("metadata-version")
    tags = email.parser.Parser().parsestr(files.get(info + "/WHEEL", b"").decode("utf-8", "replace")).get_all("Tag")
    if tag not in (tags or []):
        problems.append("wheel-tag")
    record = info + "/RECORD"
    rows = list(csv.reader(io.StringIO(files.get(record, b"").decode("utf-8", "replace"))))
    listed = {}
    for row in rows:
        if row:
            listed[row[0]] = row
    for name_ in sorted(set(files) - set(listed)):
        problems.append("record-missing " + name_)
    for name_ in sorted(set(listed) - set(files)):
        problems.append("record-extra " + name_)
    for name_ in sorted(set(listed) & set(files)):
        if name_ == record:
            continue
        row = listed[name_]
        digest = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(files[name_]).digest()).rstrip(b"=").decode()
        if len(row) != 3 or row[1] != digest or row[2] != str(len(files[name_])):
            problems.append("record-hash " + name_)
    points = configparser.ConfigParser(delimiters=("=",), interpolation=None)
    points.optionxform = str
    points.read_string(files.get(info + "/entry_points.txt", b"").decode("utf-8", "replace"))
    if points.has_section("console_scripts"):
        for script, target in points.items("console_scripts"):
            module, _, function = target.strip().partition(":")
            base = module.strip().replace(".", "/")
            source = files.get(base + ".py", files.get(base + "/__init__.py"))
            if source is None:
                problems.append("entry-point-module " + script)
                continue
            tree = ast.parse(source)
            names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
            if function.strip().split(".")[0] not in names:
                problems.append("entry-point-function " + script)
    return sorted(problems)
"""

TOOL_MAIN = r"""
def main(argv):
    if len(argv) != 2:
        print("usage: " + argv[0] + " WHEEL", file=sys.stderr)
        return 2
    try:
        problems = audit(argv[1])
    except (OSError, zipfile.BadZipFile, SyntaxError, ValueError, configparser.Error) as exc:
        print("cannot audit " + argv[1] + ": " + str(exc), file=sys.stderr)
        return 2
    sys.stdout.write("".join(p + "\n" for p in problems) or "ok\n")
    return 1 if problems else 0


sys.exit(main(sys.argv))
"""

FRESH_PY = r"""
def write_wheel(path, files):
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)


def record_of(files, info):
    rows = [[n, "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode(), str(len(d))]
            for n, d in files.items()] + [[info + "/RECORD", "", ""]]
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    return text.getvalue().encode()


def good_files(info="demo_pkg-1.2.0.dist-info"):
    files = {
        "demo_pkg/__init__.py": b"def main():\n    return 0\n\n\nasync def serve():\n    return 1\n",
        "demo_pkg/cli.py": b"import sys\n\ndef run():\n    return 0\n",
        "demo_pkg/data/ünï.txt": "x\n".encode(),
        info + "/METADATA": b"Metadata-Version: 2.1\nName: Demo.Pkg\nVersion: 1.2.0\n",
        info + "/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py2-none-any\nTag: py3-none-any\n",
        info + "/entry_points.txt": b"[console_scripts]\ndemo = demo_pkg:main\ndemo-cli = demo_pkg.cli:run\n",
    }
    files[info + "/RECORD"] = record_of(files, info)
    return files


def broken_cases():
    info = "demo_pkg-1.2.0.dist-info"
    name = "demo_pkg-1.2.0-py3-none-any.whl"
    cases = [("ok", name, good_files())]
    files = good_files()
    files["demo_pkg/extra.py"] = b"x = 1\n"
    cases.append(("unlisted", name, files))
    files = good_files()
    files["demo_pkg/cli.py"] += b"# changed\n"
    del files["demo_pkg/data/ünï.txt"]
    cases.append(("changed", name, files))
    files = good_files()
    files[info + "/METADATA"] = b"Metadata-Version: 2.1\nName: other\nVersion: 1.2\n"
    files[info + "/WHEEL"] = b"Wheel-Version: 1.0\nTag: cp311-cp311-linux_x86_64\n"
    files[info + "/RECORD"] = record_of({k: v for k, v in files.items() if not k.endswith("RECORD")}, info)
    cases.append(("metadata", name, files))
    files = good_files()
    points = b"[console_scripts]\na = demo_pkg:nope\nb = demo_pkg.missing:run\nc = demo_pkg:serve\n"
    files[info + "/entry_points.txt"] = points
    files[info + "/RECORD"] = record_of({k: v for k, v in files.items() if not k.endswith("RECORD")}, info)
    cases.append(("entry", name, files))
    cases.append(("other-info", "demo_pkg-1.3.0-py3-none-any.whl", good_files()))
    cases.append(("filename", "demo_pkg-py3-none-any.whl", good_files()))
    return cases
"""


@register
class WheelAudit(Operator):
    """A wheel audit tool with stated packaging rules, run on the wheel the project was built into."""

    name = "wheel-audit"
    kinds = (Kind.CONFIG,)
    tools = ("python3",)
    weight = 3.0
    final = True  # an audit is a report
    once = True  # the tool is the same program whatever the wheel: a second step would copy it

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        root = work_root(discovery)
        return project_wheel(artifact, discovery) is not None and not any(
            inside_git(f"{root}/{d}/x", discovery) for d in ("bin", "audit")
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        wheel = project_wheel(artifact, ctx.discovery)
        assert wheel is not None  # applies() checked it
        tool = tool_path(ctx, artifact, "wheel_audit")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/audit", PurePosixPath(wheel).stem + ".txt")
        solution = f"""mkdir -p {q(tool.rsplit("/", 1)[0])} {q(out.rsplit("/", 1)[0])}
cat > {q(tool)} <<'PY'
#!/usr/bin/env python3
import ast, base64, configparser, csv, email.parser, hashlib, io, os, re, sys, zipfile
{AUDIT_PY.strip()}

{TOOL_MAIN.strip()}
PY
chmod 0755 {q(tool)}
{q(tool)} {q(wheel)} > {q(out)} || test $? -eq 1"""
        tests = f"""
TOOL, WHEEL, OUT = {tool!r}, {wheel!r}, {out!r}
{AUDIT_PY}{FRESH_PY}{RUN_TOOL}

def test_{ctx.tag}_audit_of_the_project_wheel():
    want = "".join(p + "\\n" for p in audit(WHEEL)) or "ok\\n"
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == want


def test_{ctx.tag}_tool_on_broken_wheels(tmp_path):
    for case, name, files in broken_cases():
        folder = tmp_path / case
        folder.mkdir()
        write_wheel(folder / name, files)
        want = audit(folder / name)
        assert (want == []) == (case == "ok"), (case, want)
        done = run_tool(TOOL, folder / name)
        assert done.stdout.decode("utf-8") == ("".join(p + "\\n" for p in want) or "ok\\n"), case
        assert done.returncode == (1 if want else 0), (case, done.stderr[-300:])


def test_{ctx.tag}_tool_rejects_what_is_no_zip(tmp_path):
    text = tmp_path / "demo-1.0-py3-none-any.whl"
    text.write_text("no zip", encoding="utf-8")
    for args in ([text], [tmp_path / "missing-1.0-py3-none-any.whl"], []):
        done = run_tool(TOOL, *args)
        assert done.returncode == 2 and done.stdout == b"" and done.stderr.strip(), args
"""
        instruction = " ".join(
            f"""Next, audit the wheel `{wheel}` built from `{artifact.path}`. Write a command-line tool `{tool}` (an
            executable file with a `#!` line): `{tool} WHEEL` checks a wheel file and prints its problems, one per
            line, sorted in code-point order, or the single line `ok` when it has none; it exits 1 when there are
            problems, 0 otherwise. Names are compared after lower-casing and replacing each run of `-`, `_` and
            `.` by `_`. When the file name is not `NAME-VERSION-PY-ABI-PLATFORM.whl` (optionally with a build tag
            after the version) it prints only `bad-filename`; when the archive has not exactly one top-level
            `*.dist-info` folder, or that folder is not `NAME-VERSION.dist-info` for the file name's NAME and
            VERSION, it prints only `dist-info-mismatch`. Otherwise the problems are: `metadata-name` when the
            METADATA `Name` is not NAME, `metadata-version` when its `Version` is not exactly VERSION, `wheel-tag`
            when no `Tag` line of the WHEEL file is `PY-ABI-PLATFORM`; `record-missing PATH` for each file of the
            archive (directories aside) that RECORD (CSV) does not list, `record-extra PATH` for each path RECORD
            lists that is not in the archive, `record-hash PATH` for each listed file other than RECORD itself
            whose row is not `PATH,sha256=DIGEST,SIZE` with the URL-safe base64 SHA-256 of its content (no `=`
            padding) and its size in bytes; and for each console script `SCRIPT = MODULE:FUNCTION` in the
            `[console_scripts]` section of `entry_points.txt`, `entry-point-module SCRIPT` when neither
            `MODULE.py` nor `MODULE/__init__.py` (dots of MODULE as `/`) is in the archive, else
            `entry-point-function SCRIPT` when that file does not define FUNCTION (the part before any `.`) as a
            top-level function (`def` or `async def`). A file that cannot be read or is not a zip archive, or a
            wrong number of arguments, makes it print an error to standard error, nothing to standard output, and
            exit 2. Then run it on `{wheel}` and save its output as `{out}` (create the folder).""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[Artifact(path=out, kind=Kind.TEXT), Artifact(path=tool, kind=Kind.EXECUTABLE, executable=True)],
        )
