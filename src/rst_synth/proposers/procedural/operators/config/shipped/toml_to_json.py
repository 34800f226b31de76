"""What `config-to-json` ships for a TOML file: the script that writes the document as JSON, and the test
that parses the source again and compares. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import json
import pathlib
import tomllib
from typing import Any

SRC = "/app/config/app.toml"
OUT = "/app/config/app_toml.json"


def load_config(path: str) -> dict[str, Any]:
    with open(path, "rb") as f:
        return tomllib.load(f)


def write_json() -> None:
    pathlib.Path(OUT).write_text(json.dumps(load_config(SRC), indent=2) + "\n")


def test_config_as_json() -> None:
    assert json.loads(pathlib.Path(OUT).read_text()) == load_config(SRC)
