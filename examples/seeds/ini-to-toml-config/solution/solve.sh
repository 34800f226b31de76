#!/bin/bash
# Reference solution: merge the INI files with configparser and emit TOML by hand.
set -euo pipefail
cd /app/config
python3 - <<'PY'
import configparser
import json
import re

parser = configparser.ConfigParser(interpolation=None)
parser.read(["defaults.ini", "site.ini"])
tables = {"server": "http"}
renames = {("server", "listen_port"): "port", ("database", "timeout_seconds"): "timeout",
           ("cache", "ttl"): "ttl_seconds"}
lists = {"allowed_origins", "export_formats"}


def convert(key, raw):
    raw = raw.strip()
    if key in lists:
        return [item.strip() for item in raw.split(",") if item.strip()]
    if raw.lower() in ("yes", "true", "on"):
        return True
    if raw.lower() in ("no", "false", "off"):
        return False
    if re.fullmatch(r"-?\d+", raw):
        return int(raw)
    if re.fullmatch(r"-?\d+\.\d+", raw):
        return float(raw)
    return raw


def render(value):
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(json.dumps(item) for item in value) + "]"
    return json.dumps(value)


out = ["config_version = 2"]
for section in parser.sections():
    out += ["", f"[{tables.get(section, section)}]"]
    for key, raw in parser.items(section):
        out.append(f"{renames.get((section, key), key)} = {render(convert(key, raw))}")
with open("app.toml", "w") as fh:
    fh.write("\n".join(out) + "\n")
PY
