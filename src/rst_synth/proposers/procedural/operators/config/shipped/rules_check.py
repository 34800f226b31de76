"""What `config-rules-check` ships: the rules tool (`main`: a configuration checked against a rules file of
required keys, ranges, allowed values and patterns) and the tests, which check the saved violations of the planted
candidate and its repair from the baseline, and run the tool on rules and documents they make up. The constants
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

from rst_synth.proposers.procedural.operators.config.shipped.documents import dump_doc, load_doc, toml_text
from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/app_rules"
BASELINE = "/app/config/app.toml"
RULES = "/app/incoming/r1s1/rules.toml"
CANDIDATE = "/app/incoming/r1s1/candidate.toml"
CHECKED = "/app/rollout/app_candidate_violations.json"
REPAIRED = "/app/rollout/app_candidate_repaired.toml"
SEED = 1
CHECKS = ("required", "min", "max", "one_of", "pattern")


class RulesError(Exception):
    pass


def number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def same(a: Any, b: Any) -> bool:
    """Equal values of the same type: 1 is not 1.0, true is not 1, arrays and tables item by item."""
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def load_rules(path: Any) -> list[dict[str, Any]]:
    with open(path, "rb") as f:
        rules = tomllib.loads(f.read().decode("utf-8")).get("rule", [])
    if not isinstance(rules, list) or not all(isinstance(r, dict) for r in rules):
        raise RulesError("rule: not an array of tables")
    for rule in rules:
        if not isinstance(rule.get("path"), str) or not rule["path"] or set(rule) - {"path", *CHECKS}:
            raise RulesError("a rule without a path, or with an unknown check")
        if not isinstance(rule.get("required", False), bool):
            raise RulesError(rule["path"] + ": required is not a boolean")
        if any(key in rule and not number(rule[key]) for key in ("min", "max")):
            raise RulesError(rule["path"] + ": a bound is not a number")
        if not isinstance(rule.get("one_of", []), list):
            raise RulesError(rule["path"] + ": one_of is not an array")
        if "pattern" in rule:
            if not isinstance(rule["pattern"], str):
                raise RulesError(rule["path"] + ": pattern is not a string")
            re.compile(rule["pattern"])
    return rules


def lookup(doc: Any, path: str) -> tuple[bool, Any]:
    for part in path.split("."):
        if not isinstance(doc, dict) or part not in doc:
            return False, None
        doc = doc[part]
    return True, doc


def violations(rules: list[dict[str, Any]], doc: dict[str, Any]) -> list[dict[str, str]]:
    found: dict[tuple[str, str], None] = {}
    for rule in rules:
        path = rule["path"]
        present, value = lookup(doc, path)
        if not present:
            if rule.get("required", False):
                found[(path, "required")] = None
            continue
        if "min" in rule and not (number(value) and value >= rule["min"]):
            found[(path, "min")] = None
        if "max" in rule and not (number(value) and value <= rule["max"]):
            found[(path, "max")] = None
        if "one_of" in rule and not any(same(value, item) for item in rule["one_of"]):
            found[(path, "one_of")] = None
        if "pattern" in rule and not (isinstance(value, str) and re.fullmatch(rule["pattern"], value)):
            found[(path, "pattern")] = None
    return [{"path": path, "check": check} for path, check in found]


def repair(baseline: dict[str, Any], candidate: dict[str, Any], rules: list[dict[str, Any]]) -> dict[str, Any]:
    """The candidate with each path that breaks a rule set back to the baseline's value."""
    fixed = copy.deepcopy(candidate)
    for path in dict.fromkeys(v["path"] for v in violations(rules, candidate)):
        present, value = lookup(baseline, path)
        if not present:
            raise RulesError(path + ": the baseline has no value")
        node = fixed
        for part in path.split(".")[:-1]:
            node = node.setdefault(part, {})
        node[path.split(".")[-1]] = copy.deepcopy(value)
    return fixed


def write_repaired() -> None:
    doc = repair(load_doc(BASELINE), load_doc(CANDIDATE), load_rules(RULES))
    out = pathlib.Path(REPAIRED)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(dump_doc(doc, out), encoding="utf-8")


def main(argv: list[str]) -> int:
    if len(argv) != 3:
        print("usage: " + argv[0] + " RULES FILE", file=sys.stderr)
        return 2
    try:
        found = violations(load_rules(argv[1]), load_doc(argv[2]))
    except (OSError, UnicodeDecodeError, ValueError, re.error, RulesError) as exc:
        print("error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    sys.stdout.write(json.dumps(found, indent=2, ensure_ascii=False) + "\n")
    return 1 if found else 0


def pairs(found: Any) -> list[tuple[str, str]]:
    """The (path, check) pairs of a list of violations, in a fixed order (the list's order is free), each once."""
    assert isinstance(found, list) and all(isinstance(v, dict) and set(v) == {"path", "check"} for v in found)
    got = [(v["path"], v["check"]) for v in found]
    assert len(got) == len(set(got)), got
    return sorted(got)


def leaves(doc: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in doc.items():
        if isinstance(value, dict):
            found.update(leaves(value, prefix + key + "."))
        else:
            found[prefix + key] = value
    return found


def fresh_rules(rng: random.Random, baseline: dict[str, Any]) -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = []
    for path, value in leaves(baseline).items():
        if value is None:
            continue  # a JSON null has no TOML form for a rule to name
        rule: dict[str, Any] = {"path": path}
        if rng.random() < 0.3:
            rule["required"] = rng.random() < 0.8
        if number(value) and rng.random() < 0.7:
            rule[rng.choice(["min", "max", "both"])] = value
            if "both" in rule:
                rule["min"], rule["max"] = rule.pop("both") - rng.randint(0, 5), value + rng.randint(0, 5)
        elif isinstance(value, str) and rng.random() < 0.6:
            rule["pattern"] = rng.choice([r"\S+", r"[a-z]+", "[^ ]*", re.escape(value[:3]) + ".*"])
        if rng.random() < 0.4:
            rule["one_of"] = rng.choice([[value, "other"], [True, False], [1, 2, 3], [float(1), "1"], []])
        if len(rule) > 1:
            rules.append(rule)
    rules.append({"path": "not.there", "required": rng.random() < 0.5})
    return rules


def fresh_doc(rng: random.Random, baseline: dict[str, Any]) -> dict[str, Any]:
    doc = copy.deepcopy(baseline)
    for path in rng.sample(sorted(leaves(doc)), min(4, len(leaves(doc)))):
        node = doc
        for part in path.split(".")[:-1]:
            node = node[part]
        key, old = path.split(".")[-1], node[path.split(".")[-1]]
        node[key] = rng.choice([None, True, 1, 1.0, 0, -3, 10**6, "1", old, f"{old} ", "x y", "abc", "Abc", [1, 2]])
        if node[key] is None:
            del node[key]
    return doc


def test_saved_violations_of_the_candidate() -> None:
    want = violations(load_rules(RULES), load_doc(CANDIDATE))
    assert want
    assert pairs(json.loads(pathlib.Path(CHECKED).read_text(encoding="utf-8"))) == pairs(want)


def test_candidate_repaired_from_the_baseline() -> None:
    rules = load_rules(RULES)
    want = repair(load_doc(BASELINE), load_doc(CANDIDATE), rules)
    got = load_doc(REPAIRED)
    assert same(got, want)
    assert violations(rules, got) == []


def test_tool_on_fresh_rules_and_documents(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    baseline = load_doc(BASELINE)
    for k in range(12):
        rules = fresh_rules(rng, baseline)
        rules_path = tmp_path / f"rules{k}.toml"
        rules_path.write_text("".join(rule_text(r) for r in rules), encoding="utf-8")
        assert load_rules(rules_path) == rules
        for n in range(3):
            doc = fresh_doc(rng, baseline) if n else baseline
            path = tmp_path / f"doc{k}_{n}{'.toml' if BASELINE.endswith('.toml') else '.json'}"
            path.write_text(dump_doc(doc, path), encoding="utf-8")
            want = violations(rules, load_doc(path))
            done = run_tool(TOOL, rules_path, path)
            assert done.returncode == (1 if want else 0), (k, n, done.returncode, done.stderr[-300:])
            assert pairs(json.loads(done.stdout)) == pairs(want), (k, n, rules, doc)


def rule_text(rule: dict[str, Any]) -> str:
    """A rule as a `[[rule]]` table of a TOML rules file."""
    return "\n[[rule]]\n" + toml_text(rule)


def test_tool_refuses_bad_calls(tmp_path: pathlib.Path) -> None:
    doc = tmp_path / "doc.json"
    doc.write_text('{"a": {"b": 1}}', encoding="utf-8")
    bad = {
        "unknown.toml": '[[rule]]\npath = "a.b"\nbetween = [1, 2]\n',
        "no_path.toml": "[[rule]]\nmin = 1\n",
        "bound.toml": '[[rule]]\npath = "a.b"\nmin = "1"\n',
        "bool_bound.toml": '[[rule]]\npath = "a.b"\nmax = true\n',
        "regex.toml": '[[rule]]\npath = "a.b"\npattern = "("\n',
        "broken.toml": "[[rule]\n",
    }
    for name, text in bad.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        assert_usage_error(run_tool(TOOL, tmp_path / name, doc), name)
    good = tmp_path / "good.toml"
    good.write_text('[[rule]]\npath = "a.b"\nmin = 0\n', encoding="utf-8")
    for args in ([good], [good, tmp_path / "missing.json"], [good, doc, doc]):
        assert_usage_error(run_tool(TOOL, *args), args)
