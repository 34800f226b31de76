"""What `config-drift-report` ships: the drift tool (`main`: hosts' configuration snapshots compared with the
baseline key path by key path, typed values compared with their types) and the tests, which check the saved
report of the planted hosts and run the tool on documents they make up. The constants are the step's
parameters: `shipping.render` sets them."""

from __future__ import annotations

import copy
import json
import pathlib
import random
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.config.shipped.documents import dump_doc, load_doc
from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/app_drift"
BASELINE = "/app/config/app.toml"
HOSTS = ["/app/incoming/r1s1/hosts/web-01.toml", "/app/incoming/r1s1/hosts/web-02.toml"]
OUT = "/app/drift/app_drift.json"
SEED = 1


class DriftError(Exception):
    pass


def flat(doc: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """Every value that is not a table, by its dotted key path (an empty table adds nothing)."""
    found: dict[str, Any] = {}
    for key, value in doc.items():
        if isinstance(value, dict):
            found.update(flat(value, prefix + key + "."))
        else:
            found[prefix + key] = value
    return found


def same(a: Any, b: Any) -> bool:
    """Equal values of the same type: 1 is not 1.0, true is not 1, arrays element by element."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and a == b


def drift(baseline: dict[str, Any], host: dict[str, Any]) -> dict[str, list[str]]:
    want, got = flat(baseline), flat(host)
    return {
        "changed": sorted(p for p in want if p in got and not same(want[p], got[p])),
        "missing": sorted(p for p in want if p not in got),
        "unexpected": sorted(p for p in got if p not in want),
    }


def host_name(path: Any) -> str:
    name = pathlib.PurePath(str(path)).name
    return name.rsplit(".", 1)[0] if "." in name else name


def report(baseline_path: Any, host_paths: list[Any]) -> dict[str, dict[str, list[str]]]:
    baseline = load_doc(baseline_path)
    found: dict[str, dict[str, list[str]]] = {}
    for path in host_paths:
        name = host_name(path)
        if name in found:
            raise DriftError(name + ": two snapshots of one host")
        found[name] = drift(baseline, load_doc(path))
    return found


def in_sync(found: dict[str, dict[str, list[str]]]) -> bool:
    return all(not paths for entry in found.values() for paths in entry.values())


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print("usage: " + argv[0] + " BASELINE HOST...", file=sys.stderr)
        return 2
    try:
        found = report(argv[1], argv[2:])
    except (OSError, UnicodeDecodeError, ValueError, DriftError) as exc:
        print("error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(found, indent=2, sort_keys=True) + "\n")
    return 0 if in_sync(found) else 1


def bent(rng: random.Random, value: Any) -> Any:
    """A value a hand edit leaves behind: often equal in Python's eyes but of another type."""
    if value is None:
        return rng.choice([0, "", False])
    if isinstance(value, bool):
        return rng.choice([int(value), not value, str(value).lower()])
    if isinstance(value, int):
        return rng.choice([float(value), str(value), value + 1, value == 1])
    if isinstance(value, float):
        return rng.choice([int(value) if value.is_integer() else value * 2, str(value), -value - 1])
    if isinstance(value, list):
        return rng.choice([list(reversed(value)) + [value[0]] if value else [1], value[:-1], value + value[:1]])
    return rng.choice([value + " ", value.upper() + "x", 1])


def fresh_host(rng: random.Random, baseline: dict[str, Any]) -> dict[str, Any]:
    host = copy.deepcopy(baseline)
    paths = sorted(flat(host))
    for path in rng.sample(paths, min(len(paths), rng.randint(0, 3))):
        *parents, key = path.split(".")
        node = host
        for part in parents:
            node = node[part]
        action = rng.choice(["bend", "bend", "drop", "table"])
        if action == "bend":
            node[key] = bent(rng, node[key])
        elif action == "drop":
            del node[key]
        else:
            node[key] = {"value": node[key]}
    if rng.random() < 0.4:
        host["extra_" + str(rng.randint(1, 9))] = {"enabled": True, "level": rng.randint(1, 3)}
    if rng.random() < 0.3:
        tables = [k for k, v in host.items() if isinstance(v, dict)]
        if tables:
            del host[rng.choice(tables)]
    return dict(reversed(list(host.items())))  # key order is no drift


def test_saved_report_of_the_hosts() -> None:
    want = report(BASELINE, HOSTS)
    assert not in_sync(want)
    assert json.loads(pathlib.Path(OUT).read_text(encoding="utf-8")) == want


def test_tool_on_fresh_snapshots(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    baseline = load_doc(BASELINE)
    ext = pathlib.PurePath(BASELINE).suffix if BASELINE.endswith(".toml") else ".json"
    base = tmp_path / ("baseline" + ext)
    base.write_text(dump_doc(baseline, base), encoding="utf-8")
    for k in range(10):
        hosts = []
        for n in range(rng.randint(1, 3)):
            path = tmp_path / f"case{k}" / f"node-{n}{ext}"
            path.parent.mkdir(exist_ok=True)
            path.write_text(dump_doc(fresh_host(rng, baseline) if k else baseline, path), encoding="utf-8")
            hosts.append(path)
        want = report(base, hosts)
        done = run_tool(TOOL, base, *hosts)
        assert done.returncode == (0 if in_sync(want) else 1), (k, done.returncode, done.stderr[-300:])
        assert json.loads(done.stdout) == want, (k, done.stdout[-600:])


def test_tool_refuses_bad_calls(tmp_path: pathlib.Path) -> None:
    good = tmp_path / "good.json"
    good.write_text('{"a": {"b": 1}}', encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text("[a\n", encoding="utf-8")
    (tmp_path / "x").mkdir()
    twin = tmp_path / "x" / "good.json"
    twin.write_text('{"a": {"b": 2}}', encoding="utf-8")
    for args in ([good], [good, bad], [good, tmp_path / "none.json"], [bad, good], [good, good, twin]):
        assert_usage_error(run_tool(TOOL, *args), args)
