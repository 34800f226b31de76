"""The JSON Schema subset of `json-schema-check`: the schema a document implies (`derive`), the validator's
error lines (`errors`), and the variants of a document with known errors the tests make (`VARIANTS_PY`).
`SCHEMA_PY` is both the reference the solution writes and what the tests compute with."""

from __future__ import annotations

SCHEMA_PY = r"""
def kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def derive(value):
    name = kind(value)
    if name == "object":
        return {"type": "object", "properties": {k: derive(v) for k, v in sorted(value.items())},
                "required": sorted(value), "additionalProperties": False}
    if name == "array":
        schema = {"type": "array"}
        for item in value:
            schema = {"type": "array", "items": merge(schema["items"], derive(item)) if "items" in schema
                      else derive(item)}
        return schema
    return {"type": name}


def names(schema):
    return schema["type"] if isinstance(schema["type"], list) else [schema["type"]]


def merge(a, b):
    if a == b:
        return a
    if a["type"] == b["type"] == "object":
        keys = sorted(set(a["properties"]) | set(b["properties"]))
        props = {}
        for k in keys:
            if k in a["properties"] and k in b["properties"]:
                props[k] = merge(a["properties"][k], b["properties"][k])
            else:
                props[k] = a["properties"].get(k) or b["properties"][k]
        required = sorted(set(a["required"]) & set(b["required"]))
        return {"type": "object", "properties": props, "required": required, "additionalProperties": False}
    if a["type"] == b["type"] == "array":
        if "items" in a and "items" in b:
            return {"type": "array", "items": merge(a["items"], b["items"])}
        return a if "items" in a else b
    found = set(names(a)) | set(names(b))
    if {"integer", "number"} <= found:
        found.discard("integer")
    return {"type": found.pop()} if len(found) == 1 else {"type": sorted(found)}


def fits(value, types):
    name = kind(value)
    return name in types or (name == "integer" and "number" in types)


def errors(schema, value, pointer=""):
    types = names(schema)
    if not fits(value, types):
        return [(pointer, "expected " + "|".join(types))]
    found = []
    if isinstance(value, dict) and "properties" in schema:
        for key in schema["required"]:
            if key not in value:
                found.append((pointer, "missing property " + json.dumps(key, ensure_ascii=False)))
        for key, item in value.items():
            where = pointer + "/" + key.replace("~", "~0").replace("/", "~1")
            if key in schema["properties"]:
                found += errors(schema["properties"][key], item, where)
            elif schema.get("additionalProperties") is False:
                found.append((where, "unexpected property"))
    if isinstance(value, list) and "items" in schema:
        for n, item in enumerate(value):
            found += errors(schema["items"], item, f"{pointer}/{n}")
    return found


def lines(schema, value):
    return [json.dumps(p, ensure_ascii=False) + ": " + m for p, m in sorted(errors(schema, value))] or ["ok"]
"""

VARIANTS_PY = r'''
KEYS = ["id", "a/b", "~x", "Zürich", "", "total", "items", "meta"]


def fresh(rng, depth=0):
    roll = rng.random()
    if depth < 3 and roll < 0.4:
        return {k: fresh(rng, depth + 1) for k in rng.sample(KEYS, rng.randint(1, 4))}
    if depth < 3 and roll < 0.55:
        item = fresh(rng, depth + 1)
        return [json.loads(json.dumps(item)) for _ in range(rng.randint(1, 3))]
    return rng.choice([rng.randint(-9, 99), rng.randint(0, 999) / 8, "text", True, None])


def places(value, path=()):
    """Paths (keys and indexes) of every value in the document, the root first."""
    found = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            found += places(v, path + (k,))
    elif isinstance(value, list):
        for n, v in enumerate(value):
            found += places(v, path + (n,))
    return found


def at(value, path):
    for step in path:
        value = value[step]
    return value


def variants(doc, seed, count):
    """Copies of `doc`, each with a few edits: a member dropped or added, a value of another type, an
    integer written as 2.0 (still an integer), a float where an integer was."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        copy = json.loads(json.dumps(doc))
        for _ in range(rng.randint(1, 3)):
            spots = places(copy)
            path = rng.choice(spots)
            target = at(copy, path)
            roll = rng.random()
            if isinstance(target, dict) and target and roll < 0.3:
                del target[rng.choice(sorted(target))]
            elif isinstance(target, dict) and roll < 0.5:
                target[rng.choice(["extra", "a/b~c", "Zoë"])] = rng.choice([1, "x", None])
            elif path and roll < 0.85:
                parent = at(copy, path[:-1])
                old = parent[path[-1]]
                parent[path[-1]] = rng.choice(
                    [float(old) if kind(old) == "integer" else 7, old + 0.5 if kind(old) == "integer" else "7",
                     {"k": 1}, [1], None, False])
            elif isinstance(target, list):
                target.append(rng.choice([1, "x", {"z": None}]))
        out.append(copy)
    return out
'''
