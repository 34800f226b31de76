"""What `python-api-compat` ships: the tool that compares the public functions of two wheels of a project and
says which version bump the changes require and whether the new wheel's version declares it (its `main`,
written to an executable file), the candidate releases the step plants and the tests make up (`mutate` edits
a module's functions, `wheel_bytes` packs a wheel), and the tests that compare the tool's JSON with the
reference comparison. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import ast
import email.parser
import json
import pathlib
import random
import re
import sys
import zipfile
from typing import IO, Any

from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/pyproject_api_compat"
OLD = "/app/dist/textstats-0.3.0-py3-none-any.whl"
NEW = "/app/incoming/r5s1/textstats-0.4.0-py3-none-any.whl"
OUT = "/app/release/textstats_api.json"
SEED = 1

RANKS = ["none", "patch", "minor", "major"]


def public_api(path: str | pathlib.Path) -> tuple[str, dict[str, ast.arguments]]:
    """The wheel's METADATA version and its public functions, `module.function` -> parameters."""
    with zipfile.ZipFile(path) as wheel:
        names = [i.filename for i in wheel.infolist() if not i.is_dir()]
        metadata = [n for n in names if re.fullmatch(r"[^/]+\.dist-info/METADATA", n)]
        if len(metadata) != 1:
            raise ValueError("no single .dist-info/METADATA")
        version = email.parser.Parser().parsestr(wheel.read(metadata[0]).decode("utf-8")).get("Version", "")
        api: dict[str, ast.arguments] = {}
        for name in sorted(names):
            parts = name[:-3].split("/") if name.endswith(".py") else []
            if not parts or parts[0].endswith((".dist-info", ".data")):
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if not parts or any(p.startswith("_") for p in parts):
                continue
            tree = ast.parse(wheel.read(name).decode("utf-8"))
            for node in tree.body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
                    api[".".join(parts) + "." + node.name] = node.args
    if not re.fullmatch(r"\d+(\.\d+)*", version):
        raise ValueError("version is not N.N.N: " + repr(version))
    return version, api


def breaks(old: ast.arguments, new: ast.arguments) -> bool:
    """Whether a call that worked with the old parameters can fail with the new ones."""
    before, after = old.posonlyargs + old.args, new.posonlyargs + new.args
    if [a.arg for a in after[: len(before)]] != [a.arg for a in before]:
        return True
    if len(after) - len(new.defaults) > len(before) - len(old.defaults):
        return True  # a new positional parameter without a default, or an old one that lost its default
    old_kw = {a.arg: d is not None for a, d in zip(old.kwonlyargs, old.kw_defaults, strict=True)}
    new_kw = {a.arg: d is not None for a, d in zip(new.kwonlyargs, new.kw_defaults, strict=True)}
    if any(name not in new_kw or (default and not new_kw[name]) for name, default in old_kw.items()):
        return True
    if any(not default for name, default in new_kw.items() if name not in old_kw):
        return True
    return (old.vararg is not None and new.vararg is None) or (old.kwarg is not None and new.kwarg is None)


def extends(old: ast.arguments, new: ast.arguments) -> bool:
    """Whether the new parameters accept more than the old ones (a compatible addition)."""
    count = len(new.posonlyargs + new.args) > len(old.posonlyargs + old.args)
    keywords = {a.arg for a in new.kwonlyargs} - {a.arg for a in old.kwonlyargs}
    return count or bool(keywords) or bool(new.vararg and not old.vararg) or bool(new.kwarg and not old.kwarg)


def bump(old: str, new: str) -> str:
    a = [int(p) for p in old.split(".")] + [0, 0, 0]
    b = [int(p) for p in new.split(".")] + [0, 0, 0]
    if b[0] > a[0]:
        return "major"
    if b[0] == a[0] and b[1] > a[1]:
        return "minor"
    return "patch" if b[:2] == a[:2] and b[2] > a[2] else "none"


def compare(old_wheel: str | pathlib.Path, new_wheel: str | pathlib.Path) -> dict[str, Any]:
    old_version, old = public_api(old_wheel)
    new_version, new = public_api(new_wheel)
    changes = [{"kind": "removed", "name": n} for n in old if n not in new]
    changes += [{"kind": "added", "name": n} for n in new if n not in old]
    for name in sorted(set(old) & set(new)):
        if breaks(old[name], new[name]):
            changes.append({"kind": "signature", "name": name})
        elif extends(old[name], new[name]):
            changes.append({"kind": "extended", "name": name})
    kinds = {c["kind"] for c in changes}
    required = "major" if kinds & {"removed", "signature"} else "minor" if kinds else "patch"
    declared = bump(old_version, new_version)
    return {
        "old_version": old_version,
        "new_version": new_version,
        "changes": sorted(changes, key=lambda c: (c["name"], c["kind"])),
        "required": required,
        "declared": declared,
        "ok": declared != "none" and RANKS.index(declared) >= RANKS.index(required),
    }


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: " + argv[0] + " OLD.whl NEW.whl", file=sys.stderr)
        return 2
    try:
        found = compare(argv[1], argv[2])
    except (OSError, ValueError, SyntaxError, UnicodeDecodeError, zipfile.BadZipFile) as exc:
        print("cannot compare: " + str(exc), file=sys.stderr)
        return 2
    print(json.dumps(found, indent=2))
    return 0


def mutate(source: str, rng: random.Random) -> str:
    """The module with one to three of its public functions changed the way a next release changes them."""
    tree = ast.parse(source)
    for k in range(rng.randint(1, 3)):
        functions = [n for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]
        change = rng.choice(["extend", "add", "remove", "require", "rename", "undefault", "keyword"])
        if change == "add" or not functions:
            tree.body += ast.parse(f"def added_{k}(value):\n    return value\n").body
            continue
        node = rng.choice(functions)
        args = node.args
        if change == "remove" and node.name == "main":
            change = "extend"  # the console script keeps its function
        if change == "remove":
            tree.body.remove(node)
        elif change == "extend":
            args.kwonlyargs.append(ast.arg(f"opt_{k}"))
            args.kw_defaults.append(ast.Constant(None))
        elif change == "keyword":
            args.kwonlyargs.append(ast.arg(f"need_{k}"))
            args.kw_defaults.append(None)
        elif change == "require" and not args.defaults and args.vararg is None:
            args.args.append(ast.arg(f"need_{k}"))
        elif change == "rename" and args.args:
            args.args[0].arg += "_renamed"
        elif change == "undefault" and args.defaults:
            args.defaults.pop(0)
        else:
            args.args.append(ast.arg(f"opt_{k}"))
            args.defaults.append(ast.Constant(0))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def wheel_bytes(path: str | pathlib.Path | IO[bytes], dist: str, version: str, modules: dict[str, str]) -> None:
    """A wheel of `modules` (archive path -> source) with fixed timestamps."""
    info = f"{dist}-{version}.dist-info"
    files = {**modules, f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n"}
    files[f"{info}/WHEEL"] = "Wheel-Version: 1.0\nGenerator: release\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    files[f"{info}/RECORD"] = "".join(f"{n},,\n" for n in files) + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, text in files.items():
            wheel.writestr(zipfile.ZipInfo(name, (2020, 1, 1, 0, 0, 0)), text)


def random_module(rng: random.Random) -> str:
    """A module of public and private functions with every kind of parameter, and a class."""
    lines = ["import os", "", "", "class Helper:", "    def method(self, x):", "        return x", ""]
    for k in range(rng.randint(3, 6)):
        positional = [f"p{j}" for j in range(rng.randint(0, 3))]
        defaults = rng.randint(0, len(positional))
        params = positional[: len(positional) - defaults] + [
            f"{p}=None" for p in positional[len(positional) - defaults :]
        ]
        if rng.random() < 0.3:
            params.append("*args")
        elif rng.random() < 0.4:
            params.append("*")
            params.append(rng.choice(["flag=False", "mode"]))
        if rng.random() < 0.2:
            params.append("**extra")
        name = f"_private{k}" if rng.random() < 0.2 else f"func{k}"
        lines += [f"def {name}({', '.join(params)}):", "    return os.sep", ""]
    return "\n".join(lines) + "\n"


def test_comparison_of_the_planted_release() -> None:
    got = json.loads(pathlib.Path(OUT).read_text(encoding="utf-8"))
    assert got == compare(OLD, NEW)


def test_tool_on_generated_releases(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(8):
        base = {"demo/__init__.py": random_module(rng), "demo/_impl.py": random_module(rng)}
        base["demo/cli.py"] = random_module(rng)
        later = {name: mutate(text, rng) if rng.random() < 0.7 else text for name, text in base.items()}
        versions = ["1.4.2", rng.choice(["1.4.3", "1.5.0", "2.0.0", "1.4.2", "1.10", "2"])]
        old, new = tmp_path / f"old{k}.whl", tmp_path / f"new{k}.whl"
        wheel_bytes(old, "demo", versions[0], base)
        wheel_bytes(new, "demo", versions[1], later)
        done = run_tool(TOOL, old, new)
        assert done.returncode == 0, (k, done.stderr[-300:])
        assert json.loads(done.stdout) == compare(old, new), k


def test_tool_refuses_what_it_cannot_compare(tmp_path: pathlib.Path) -> None:
    good = tmp_path / "good.whl"
    wheel_bytes(good, "demo", "1.0.0", {"demo.py": "def f():\n    pass\n"})
    broken = tmp_path / "broken.whl"
    wheel_bytes(broken, "demo", "1.0.0", {"demo.py": "def f(:\n"})
    dev = tmp_path / "dev.whl"
    wheel_bytes(dev, "demo", "1.1.0.dev1+local", {"demo.py": "def f():\n    pass\n"})
    text = tmp_path / "text.whl"
    text.write_text("not a zip\n", encoding="utf-8")
    for args in ([good], [good, good, good], [good, broken], [good, dev], [text, good], [good, tmp_path / "no.whl"]):
        assert_usage_error(run_tool(TOOL, *args), args)
