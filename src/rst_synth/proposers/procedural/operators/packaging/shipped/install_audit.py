"""What `python-install-audit` ships: the tool that checks an installed distribution's files against its
RECORD (its `main`, written to an executable file), the installs the tests fake and tamper with (paths
outside the site folder, bytecode, a changed script), and the tests that compare the tool's report with the
reference verification. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import pathlib
import random
import sys

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/textstats_0_3_0_verify_install"
INFO = "/usr/local/lib/python3.11/dist-packages/textstats-0.3.0.dist-info"
OUT = "/app/audit/textstats_0_3_0_install.txt"
SEED = 1


def verify(info: str | pathlib.Path) -> list[str]:
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


def main(argv: list[str]) -> int:
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


def fake_install(root: pathlib.Path, rng: random.Random) -> pathlib.Path:
    site = root / "lib" / "site-packages"
    info = site / "demo_pkg-2.0.dist-info"
    files = {
        "demo_pkg/__init__.py": b"def main():\n    return 0\n",
        "demo_pkg/__pycache__/__init__.cpython-311.pyc": bytes(range(40)),
        "demo_pkg/data/ünï, x.txt": b"text\n",
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


def test_verification_of_the_install() -> None:
    want = "".join(p + "\n" for p in verify(INFO)) or "ok\n"
    assert pathlib.Path(OUT).read_text(encoding="utf-8") == want


def test_tool_on_faked_installs(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(4):
        info = fake_install(tmp_path / str(k), rng)
        want = verify(info)
        done = run_tool(TOOL, info)
        assert done.stdout.decode("utf-8") == ("".join(p + "\n" for p in want) or "ok\n"), k
        assert done.returncode == (1 if want else 0), (k, done.stderr[-300:])


def test_tool_rejects_a_folder_without_record(tmp_path: pathlib.Path) -> None:
    for args in ([tmp_path], [], [tmp_path / "missing.dist-info"]):
        assert_usage_error(run_tool(TOOL, *args), args)
