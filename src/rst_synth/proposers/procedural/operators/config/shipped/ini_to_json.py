"""What `config-to-json` ships for a INI file: the script that writes the document as JSON, and the test
that parses the source again and compares. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import configparser
import json
import pathlib

SRC = "/app/config/app.ini"
OUT = "/app/config/app_ini.json"


def load_config(path: str) -> dict[str, dict[str, str]]:
    cp = configparser.ConfigParser(interpolation=None)
    with open(path, encoding="utf-8") as f:
        cp.read_file(f)
    return {name: dict(cp[name]) for name in cp.sections()}


def write_json() -> None:
    pathlib.Path(OUT).write_text(json.dumps(load_config(SRC), indent=2) + "\n")


def test_config_as_json() -> None:
    assert json.loads(pathlib.Path(OUT).read_text()) == load_config(SRC)
