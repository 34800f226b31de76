"""What `config-layered-merge` ships: the layers tool (`main`: a base merged with an overlay, then environment
variables) and the tests, which check its saved results and run it on fresh layers they make up. The constants
are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import copy
import json
import pathlib
import random
import re
import sys
import tomllib
from typing import Any

from rst_synth.proposers.procedural.operators.config.shipped.documents import dump_doc, load_doc
from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/app_layers"
BASE = "/app/config/app.toml"
PREFIX = "APP"
SEED = 1
CASES = [("/app/incoming/r1s1/staging.toml", "/app/incoming/r1s1/staging.env", "/app/effective/app_staging.toml")]

UNSET = "!unset"
TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")


class LayerError(Exception):
    pass


def overlay(base: dict[str, Any], top: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    merged = dict(base)
    for key, value in top.items():
        path = prefix + key
        if value == UNSET:
            merged.pop(key, None)
        elif isinstance(value, dict):
            if key in merged and not isinstance(merged[key], dict):
                raise LayerError(path + ": a table replaces a value")
            merged[key] = overlay(merged.get(key, {}), value, path + ".")
        elif isinstance(merged.get(key), dict):
            raise LayerError(path + ": a value replaces a table")
        else:
            merged[key] = value
    return merged


def env_pairs(text: str, prefix: str) -> list[tuple[str, str]]:
    pairs = []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, eq, value = line.partition("=")
        if not eq:
            raise LayerError(f"line {number}: not NAME=value")
        name, value = name.strip(), value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        if name.startswith(prefix + "__"):
            pairs.append((name, value))
    return pairs


def convert(text: str, old: Any, name: str) -> Any:
    if isinstance(old, bool):
        if text.lower() in TRUE_WORDS + FALSE_WORDS:
            return text.lower() in TRUE_WORDS
    elif isinstance(old, int):
        if re.fullmatch(r"[+-]?[0-9]+", text):
            return int(text)
    elif isinstance(old, float):
        if re.fullmatch(r"[+-]?[0-9]+(\.[0-9]+)?", text):
            return float(text)
    elif isinstance(old, list):
        sample = old[0] if old else ""
        return [convert(item.strip(), sample, name) for item in text.split(",") if item.strip()]
    else:
        return text
    raise LayerError(f"{name}: {text!r} does not fit the type of the value it replaces")


def apply_env(doc: dict[str, Any], pairs: list[tuple[str, str]], prefix: str) -> None:
    for name, text in pairs:
        parts = name[len(prefix) + 2:].lower().split("__")  # fmt: skip
        node: Any = doc
        for part in parts[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict) or parts[-1] not in node or isinstance(node[parts[-1]], dict):
            raise LayerError(name + ": no such key")
        node[parts[-1]] = convert(text, node[parts[-1]], name)


def effective(base: Any, top: Any, variables: str | None, prefix: str) -> dict[str, Any]:
    doc = copy.deepcopy(overlay(load_doc(base), load_doc(top)))
    if variables is not None:
        apply_env(doc, env_pairs(variables, prefix), prefix)
    return doc


def main(argv: list[str]) -> int:
    if len(argv) not in (3, 4):
        print("usage: " + argv[0] + " BASE OVERLAY [ENVFILE]", file=sys.stderr)
        return 2
    try:
        variables = None
        if len(argv) == 4:
            with open(argv[3], encoding="utf-8") as f:
                variables = f.read()
        text = dump_doc(effective(argv[1], argv[2], variables, PREFIX), argv[1])
    except (OSError, UnicodeDecodeError, ValueError, LayerError) as exc:
        print("error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


NAMES = ["alpha", "host", "port", "timeout", "level", "max_items", "retry_count", "name", "enabled", "ratio",
         "paths", "mode", "owner", "limits", "region"]  # fmt: skip
TEXTS = ["Zürich", 'say "hi"', "a = b", "plain", "", "東京", "x y z"]


def fresh_leaf(rng: random.Random, kind: str) -> Any:
    if kind == "string":
        return rng.choice(TEXTS)
    if kind == "integer":
        return rng.randint(-100, 100000)
    if kind == "float":
        return rng.randint(-999, 99999) / 100
    if kind == "boolean":
        return rng.random() < 0.5
    return [rng.randint(0, 99) for _ in range(rng.randint(0, 3))] if rng.random() < 0.5 else \
        [rng.choice(["a", "b c", "ü"]) for _ in range(rng.randint(1, 3))]  # fmt: skip


def fresh_doc(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    kinds = ["string", "integer", "float", "boolean", "array"] + (["table"] * 2 if depth < 2 else [])
    doc = {}
    for key in rng.sample(NAMES, rng.randint(2, 5)):
        kind = rng.choice(kinds)
        doc[key] = fresh_doc(rng, depth + 1) if kind == "table" else fresh_leaf(rng, kind)
    return doc


def fresh_overlay(rng: random.Random, base: dict[str, Any]) -> dict[str, Any]:
    top: dict[str, Any] = {}
    for key, value in base.items():
        roll = rng.random()
        if isinstance(value, dict) and roll < 0.6:
            top[key] = fresh_overlay(rng, value)
        elif roll < 0.2:
            top[key] = UNSET
        elif roll < 0.45:
            kind = rng.choice(["string", "integer", "float", "boolean", "array"])
            top[key] = fresh_leaf(rng, kind) if rng.random() < 0.8 or isinstance(value, dict) else {"x": 1}
    extra = rng.choice([n for n in NAMES + ["zeta", "omega"] if n not in base] or ["zz"])
    top[extra] = rng.choice([UNSET, fresh_leaf(rng, "integer"), {"inner": fresh_leaf(rng, "string"), "gone": UNSET}])
    return top


def env_text(rng: random.Random, doc: dict[str, Any], prefix: str) -> str:
    lines = ["# generated", "", "OTHER__PORT=1", prefix + "_SINGLE=2"]
    found = []

    def walk(node: dict[str, Any], parts: list[str]) -> None:
        for key, value in node.items():
            if isinstance(value, dict):
                walk(value, parts + [key])
            else:
                found.append((parts + [key], value))

    walk(doc, [])
    for parts, value in rng.sample(found, min(len(found), rng.randint(1, 4))):
        name = "__".join([prefix] + [p.upper() if rng.random() < 0.8 else p for p in parts])
        if isinstance(value, bool):
            text = rng.choice(["true", "Yes", "OFF", "0", "on", "maybe"] if rng.random() < 0.9 else ["2"])
        elif isinstance(value, int):
            text = rng.choice([str(rng.randint(-5, 900)), "+7", "007", "12.5" if rng.random() < 0.2 else "3"])
        elif isinstance(value, float):
            text = rng.choice(["2", "-0.5", "10.25", "1e3" if rng.random() < 0.2 else "4.0"])
        elif isinstance(value, list):
            text = rng.choice([" 1, 2,,3 ", "x, y", "", "5"])
        else:
            text = rng.choice(["blue-green", '"quoted value"', "a=b=c", " spaced "])
        lines.append(name + "=" + text)
    if rng.random() < 0.15:
        lines.append(prefix + "__NO_SUCH__KEY=1")
    return "\n".join(lines) + "\n"


def test_effective_configuration_per_environment() -> None:
    for layer, env, out in CASES:
        want = effective(BASE, layer, pathlib.Path(env).read_text(encoding="utf-8"), PREFIX)
        assert want != load_doc(BASE)
        assert load_doc(out) == want, out


def test_tool_on_fresh_layers(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(16):
        ext = (".toml", ".json")[k % 2]
        base = fresh_doc(rng)
        top = fresh_overlay(rng, base)
        paths = [tmp_path / f"base{k}{ext}", tmp_path / f"top{k}{ext}", tmp_path / f"env{k}.env"]
        paths[0].write_text(dump_doc(base, ext), encoding="utf-8")
        paths[1].write_text(dump_doc(top, ext), encoding="utf-8")
        try:
            merged = overlay(base, top)
        except LayerError:
            merged = base
        paths[2].write_text(env_text(rng, merged, PREFIX), encoding="utf-8")
        args = paths if k % 5 else paths[:2]
        try:
            want = effective(paths[0], paths[1], paths[2].read_text(encoding="utf-8") if k % 5 else None, PREFIX)
        except LayerError:
            want = None
        done = run_tool(TOOL, *args)
        if want is None:
            assert_usage_error(done, k)
        else:
            assert done.returncode == 0, (k, done.stderr[-500:])
            assert parse_as(done.stdout.decode("utf-8"), ext) == want, k


def parse_as(text: str, ext: str) -> Any:
    return tomllib.loads(text) if ext == ".toml" else json.loads(text)


def test_tool_rejects_bad_layers(tmp_path: pathlib.Path) -> None:
    base = tmp_path / "base.toml"
    base.write_text('[db]\nport = 5432\nhosts = ["a"]\n[log]\nlevel = "info"\n', encoding="utf-8")
    bad = {"table.toml": "db = 1\n", "value.toml": "[log.level]\nx = 1\n", "syntax.toml": "[db\n"}
    for name, text in bad.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        done = run_tool(TOOL, base, tmp_path / name)
        assert_usage_error(done, name)
    empty = tmp_path / "empty.toml"
    empty.write_text("", encoding="utf-8")
    for line in ("__DB__PORT=x1", "__DB__NOPE=1", "__DB=1", "__LOG__LEVEL__X=1", "__DB__PORT=1.5"):
        env = tmp_path / "bad.env"
        env.write_text(PREFIX + line + "\n", encoding="utf-8")
        done = run_tool(TOOL, base, empty, env)
        assert_usage_error(done, line)
    env.write_text(PREFIX + '__DB__HOSTS=" x , y,, z"\n' + PREFIX + "__DB__PORT=+7\n", encoding="utf-8")
    done = run_tool(TOOL, base, empty, env)
    want = {"db": {"port": 7, "hosts": ["x", "y", "z"]}, "log": {"level": "info"}}
    assert tomllib.loads(done.stdout.decode()) == want
