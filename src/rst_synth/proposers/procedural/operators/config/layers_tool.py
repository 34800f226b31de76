"""The source text of the layered-configuration tool (merge rules, environment variables) and of its
tests' generators of fresh layers: shared by the tool a step writes and the tests that check it."""

MERGE_PY = r"""
UNSET = "!unset"
TRUE_WORDS, FALSE_WORDS = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


class LayerError(Exception):
    pass


def overlay(base, top, prefix=""):
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


def env_pairs(text, prefix):
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


def convert(text, old, name):
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


def apply_env(doc, pairs, prefix):
    for name, text in pairs:
        parts = name[len(prefix) + 2:].lower().split("__")
        node = doc
        for part in parts[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if not isinstance(node, dict) or parts[-1] not in node or isinstance(node[parts[-1]], dict):
            raise LayerError(name + ": no such key")
        node[parts[-1]] = convert(text, node[parts[-1]], name)


def effective(base, top, env_text, prefix):
    doc = copy.deepcopy(overlay(load_doc(base), load_doc(top)))
    if env_text is not None:
        apply_env(doc, env_pairs(env_text, prefix), prefix)
    return doc
"""

TOOL_MAIN = r"""
def main(argv):
    if len(argv) not in (3, 4):
        print("usage: " + argv[0] + " BASE OVERLAY [ENVFILE]", file=sys.stderr)
        return 2
    try:
        env_text = None
        if len(argv) == 4:
            with open(argv[3], encoding="utf-8") as f:
                env_text = f.read()
        text = dump_doc(effective(argv[1], argv[2], env_text, PREFIX), argv[1])
    except (OSError, UnicodeDecodeError, ValueError, LayerError) as exc:
        print("error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    sys.stdout.write(text)
    return 0


sys.exit(main(sys.argv))
"""

FRESH_PY = r"""
NAMES = ["alpha", "host", "port", "timeout", "level", "max_items", "retry_count", "name", "enabled", "ratio",
         "paths", "mode", "owner", "limits", "region"]
TEXTS = ["Zürich", 'say "hi"', "a = b", "plain", "", "東京", "x y z"]


def fresh_leaf(rng, kind):
    if kind == "string":
        return rng.choice(TEXTS)
    if kind == "integer":
        return rng.randint(-100, 100000)
    if kind == "float":
        return rng.randint(-999, 99999) / 100
    if kind == "boolean":
        return rng.random() < 0.5
    return [rng.randint(0, 99) for _ in range(rng.randint(0, 3))] if rng.random() < 0.5 else \
        [rng.choice(["a", "b c", "ü"]) for _ in range(rng.randint(1, 3))]


def fresh_doc(rng, depth=0):
    kinds = ["string", "integer", "float", "boolean", "array"] + (["table"] * 2 if depth < 2 else [])
    doc = {}
    for key in rng.sample(NAMES, rng.randint(2, 5)):
        kind = rng.choice(kinds)
        doc[key] = fresh_doc(rng, depth + 1) if kind == "table" else fresh_leaf(rng, kind)
    return doc


def fresh_overlay(rng, base):
    top = {}
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


def env_text(rng, doc, prefix):
    lines = ["# generated", "", "OTHER__PORT=1", prefix + "_SINGLE=2"]
    found = []

    def walk(node, parts):
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
"""
