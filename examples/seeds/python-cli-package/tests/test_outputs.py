"""Checks of the package build, the system install and the command's output."""
import collections
import json
import re
import subprocess
import tomllib
import zipfile
from pathlib import Path

PROJECT = Path("/app/project")
WHEEL = Path("/app/dist/textstats-0.3.0-py3-none-any.whl")
NOTES = [Path(f"/app/data/notes-{n}.txt") for n in range(1, 5)]


def run(*args):
    return subprocess.run(args, cwd="/", capture_output=True, text=True, timeout=60)


def test_pyproject_names_the_project():
    data = tomllib.loads((PROJECT / "pyproject.toml").read_text())
    assert data["project"]["name"] == "textstats"
    assert "setuptools" in data["build-system"]["build-backend"]


def test_wheel_metadata():
    with zipfile.ZipFile(WHEEL) as whl:
        names = whl.namelist()
        assert "textstats.py" in names
        meta = whl.read("textstats-0.3.0.dist-info/METADATA").decode()
        entry = whl.read("textstats-0.3.0.dist-info/entry_points.txt").decode()
    assert re.search(r"^Name: textstats$", meta, re.M)
    assert re.search(r"^Version: 0\.3\.0$", meta, re.M)
    assert re.search(r"^textstats\s*=\s*textstats:main\s*$", entry, re.M)


def test_installed_regular_package():
    code = (
        "import importlib.metadata as md, textstats\n"
        "print(md.version('textstats'))\n"
        "print(textstats.__file__)\n"
        "ep = [e for e in md.entry_points(group='console_scripts') if e.name == 'textstats']\n"
        "print(ep[0].load() is textstats.main)\n"
    )
    result = run("python3", "-c", code)
    assert result.returncode == 0, result.stderr
    version, origin, same = result.stdout.split()
    assert version == "0.3.0"
    assert not origin.startswith("/app/")
    assert "-packages/" in origin
    assert same == "True"


def test_command_on_path():
    result = run("textstats", "--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "textstats 0.3.0"


def expected_stats(top):
    counts = collections.Counter()
    lines = 0
    for path in NOTES:
        text = path.read_text(encoding="utf-8")
        lines += len(text.splitlines())
        for token in re.findall(r"[a-z']+", text.lower()):
            if token.strip("'"):
                counts[token.strip("'")] += 1
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return {"files": 4, "lines": lines, "words": sum(counts.values()),
            "unique_words": len(counts), "top": [[w, n] for w, n in ranked]}


def test_wordstats_output():
    got = json.loads(Path("/app/out/wordstats.json").read_text())
    assert got == expected_stats(8)
