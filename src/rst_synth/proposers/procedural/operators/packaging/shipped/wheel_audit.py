"""What `wheel-audit` ships: the tool that checks a wheel against the packaging rules (its file name, its
.dist-info folder, METADATA and WHEEL, RECORD, console-script entry points; its `main`, written to an
executable file), the wheels the tests build and break in known ways, and the tests that compare the
tool's report with the reference audit. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import ast
import base64
import configparser
import csv
import email.parser
import hashlib
import io
import os
import pathlib
import re
import sys
import zipfile

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/pyproject_wheel_audit"
WHEEL = "/app/dist/text_stats-0.3.0-py3-none-any.whl"
OUT = "/app/audit/text_stats-0.3.0-py3-none-any.txt"

FILENAME = re.compile(r"([A-Za-z0-9_.]+)-([A-Za-z0-9_.!+]+)(-[0-9][^-]*)?-([^-]+)-([^-]+)-([^-]+)\.whl")


def normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


def audit(path: str | pathlib.Path) -> list[str]:
    found = FILENAME.fullmatch(os.path.basename(path))
    if found is None:
        return ["bad-filename"]
    name, version = found[1], found[2]
    tag = "-".join(found.group(4, 5, 6))
    with zipfile.ZipFile(path) as wheel:
        files = {i.filename: wheel.read(i) for i in wheel.infolist() if not i.is_dir()}
    infos = sorted({n.split("/", 1)[0] for n in files if n.split("/", 1)[0].endswith(".dist-info")})
    if len(infos) != 1 or normal(infos[0]) != normal(name + "-" + version + ".dist-info"):
        return ["dist-info-mismatch"]
    info = infos[0]
    problems: list[str] = []
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
    listed = {row[0]: row for row in rows if row}
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
    points.optionxform = str  # type: ignore[assignment,method-assign]
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


def main(argv: list[str]) -> int:
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


def write_wheel(path: str | pathlib.Path, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as wheel:
        for name, data in files.items():
            wheel.writestr(name, data)


def record_of(files: dict[str, bytes], info: str) -> bytes:
    rows = [
        [n, "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(d).digest()).rstrip(b"=").decode(), str(len(d))]
        for n, d in files.items()
    ] + [[info + "/RECORD", "", ""]]
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    return text.getvalue().encode()


def good_files(info: str = "demo_pkg-1.2.0.dist-info") -> dict[str, bytes]:
    files = {
        "demo_pkg/__init__.py": b"def main():\n    return 0\n\n\nasync def serve():\n    return 1\n",
        "demo_pkg/cli.py": b"import sys\n\ndef run():\n    return 0\n",
        "demo_pkg/data/ünï.txt": b"x\n",
        info + "/METADATA": b"Metadata-Version: 2.1\nName: Demo.Pkg\nVersion: 1.2.0\n",
        info + "/WHEEL": b"Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py2-none-any\nTag: py3-none-any\n",
        info + "/entry_points.txt": b"[console_scripts]\ndemo = demo_pkg:main\ndemo-cli = demo_pkg.cli:run\n",
    }
    files[info + "/RECORD"] = record_of(files, info)
    return files


def broken_cases() -> list[tuple[str, str, dict[str, bytes]]]:
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


def test_audit_of_the_project_wheel() -> None:
    want = "".join(p + "\n" for p in audit(WHEEL)) or "ok\n"
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == want


def test_tool_on_broken_wheels(tmp_path: pathlib.Path) -> None:
    for case, name, files in broken_cases():
        folder = tmp_path / case
        folder.mkdir()
        write_wheel(folder / name, files)
        want = audit(folder / name)
        assert (want == []) == (case == "ok"), (case, want)
        done = run_tool(TOOL, folder / name)
        assert done.stdout.decode("utf-8") == ("".join(p + "\n" for p in want) or "ok\n"), case
        assert done.returncode == (1 if want else 0), (case, done.stderr[-300:])


def test_tool_rejects_what_is_no_zip(tmp_path: pathlib.Path) -> None:
    text = tmp_path / "demo-1.0-py3-none-any.whl"
    text.write_text("no zip", encoding="utf-8")
    for args in ([text], [tmp_path / "missing-1.0-py3-none-any.whl"], []):
        assert_usage_error(run_tool(TOOL, *args), args)
