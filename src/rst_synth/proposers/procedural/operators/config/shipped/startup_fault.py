"""What `config-startup-fault` ships: the service's configuration loader planted on the host (`load_main`:
every value of the baseline at its dotted path with its type, the first problem refused), the diagnosis and
repair of a hand-edited host file (`problems`, `fixed_doc`: values written as text decoded to the type the
loader needs, missing values taken from the baseline) and the tests. The constants are the step's parameters:
`shipping.render` sets them."""

from __future__ import annotations

import copy
import json
import pathlib
import re
import sys
from typing import Any

from rst_synth.proposers.procedural.operators.config.shipped.documents import dump_doc, load_doc
from rst_synth.proposers.procedural.operators.config.shipped.typed import typed
from rst_synth.proposers.procedural.operators.kit.testkit import run_tool

SCHEMA = {"http.port": "integer", "http.debug": "boolean", "database.timeout": "float", "http.origins": "array"}
BASELINE = "/app/config/app.toml"
HOST = "/app/incoming/r1s1/web-02.toml"
LOADER = "/app/incoming/r1s1/load_config"
FIXED = "/app/fixed/web-02.toml"
DIAGNOSIS = "/app/fixed/web-02_diagnosis.json"

LOADER_TYPES = ("string", "integer", "float", "boolean", "array")
WORDS = {"true": True, "yes": True, "on": True, "1": True, "false": False, "no": False, "off": False, "0": False}


class FixError(Exception):
    pass


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    for name, kind in (("boolean", bool), ("integer", int), ("float", float), ("string", str), ("array", list)):
        if isinstance(value, kind):
            return name
    return "table"


def lookup(doc: Any, path: str) -> tuple[bool, Any]:
    """Whether the dotted path names a value of the document, and the value."""
    for part in path.split("."):
        if not isinstance(doc, dict) or part not in doc:
            return False, None
        doc = doc[part]
    return True, doc


def accepted(kind: str, value: Any) -> bool:
    found = type_name(value)
    return found == kind or (kind == "float" and found == "integer")


def problems(doc: dict[str, Any]) -> dict[str, dict[str, str]]:
    """Every path the loader needs that the document lacks or holds with a type the loader does not accept."""
    found: dict[str, dict[str, str]] = {}
    for path, kind in SCHEMA.items():
        present, value = lookup(doc, path)
        if not present:
            found[path] = {"expected": kind, "found": "missing"}
        elif not accepted(kind, value):
            found[path] = {"expected": kind, "found": type_name(value)}
    return found


def load_main(argv: list[str]) -> int:
    """The service's loader: exit 0 when the service can start with FILE, 1 naming the first problem."""
    if len(argv) != 2:
        print("usage: " + argv[0] + " FILE", file=sys.stderr)
        return 2
    try:
        doc = load_doc(argv[1])
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print("error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    for path, problem in problems(doc).items():
        if problem["found"] == "missing":
            print("cannot start: " + path + ": missing", file=sys.stderr)
        else:
            print(
                "cannot start: " + path + ": expected " + problem["expected"] + ", got " + problem["found"],
                file=sys.stderr,
            )
        return 1
    print("configuration ok")
    return 0


def decoded(kind: str, text: Any, item: str) -> Any:
    """The value a hand edit meant by writing `text` where the loader needs a value of type `kind`."""
    if not isinstance(text, str):
        raise FixError("not text: " + repr(text))
    word = text.strip()
    if kind == "integer" and re.fullmatch(r"[+-]?[0-9]+", word):
        return int(word)
    if kind == "float" and re.fullmatch(r"[+-]?[0-9]+(\.[0-9]+)?", word):
        return float(word)
    if kind == "boolean" and word.lower() in WORDS:
        return WORDS[word.lower()]
    if kind == "array":
        parts = [part.strip() for part in word.split(",") if part.strip()]
        return parts if item == "string" else [decoded(item, part, "string") for part in parts]
    raise FixError(kind + ": " + repr(text))


def item_type(baseline: dict[str, Any], path: str) -> str:
    """The type of the items of the baseline's array at `path` (strings when it is empty)."""
    value = lookup(baseline, path)[1]
    return type_name(value[0]) if isinstance(value, list) and value else "string"


def put(doc: dict[str, Any], path: str, value: Any) -> None:
    *parents, key = path.split(".")
    for part in parents:
        doc = doc.setdefault(part, {})
    doc[key] = value


def fixed_doc(host: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    """The host's document with every fault repaired as the hand edit meant, everything else as it is."""
    fixed = copy.deepcopy(host)
    for path, problem in problems(host).items():
        if problem["found"] == "missing":
            value = lookup(baseline, path)[1]
        else:
            value = decoded(problem["expected"], lookup(host, path)[1], item_type(baseline, path))
        put(fixed, path, copy.deepcopy(value))
    return fixed


def write_fixed() -> None:
    host = load_doc(HOST)
    pathlib.Path(FIXED).write_text(dump_doc(fixed_doc(host, load_doc(BASELINE)), FIXED), encoding="utf-8")
    report = json.dumps(problems(host), indent=2, sort_keys=True) + "\n"
    pathlib.Path(DIAGNOSIS).write_text(report, encoding="utf-8")


def test_fixed_host_starts() -> None:
    assert run_tool(LOADER, HOST).returncode == 1  # the planted host's file keeps the service down
    done = run_tool(LOADER, FIXED)
    assert done.returncode == 0, done.stderr[-300:]
    assert problems(load_doc(FIXED)) == {}


def test_fixed_host_holds_what_the_edit_meant() -> None:
    want = fixed_doc(load_doc(HOST), load_doc(BASELINE))
    got = load_doc(FIXED)
    assert typed(got) == typed(want), (got, want)


def test_diagnosis_names_every_fault() -> None:
    want = problems(load_doc(HOST))
    assert want
    assert json.loads(pathlib.Path(DIAGNOSIS).read_text(encoding="utf-8")) == want
