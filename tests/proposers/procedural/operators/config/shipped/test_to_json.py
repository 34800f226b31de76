"""The references of config-to-json (TOML and INI), called directly: the JSON they write passes their test;
a value typed otherwise, a lost table or option fails it."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import pytest

from rst_synth.proposers.procedural.operators.config.shipped import ini_to_json, toml_to_json

TOML = 'name = "svc"\nport = 8080\n\n[db]\nhost = "localhost"\nretries = 3\n\n[[users]]\nid = 1\n'
INI = "[server]\nPort = 8080\nname = svc ; kept\n\n[db]\nhost = localhost\n"


@pytest.fixture(params=[(toml_to_json, TOML), (ini_to_json, INI)], ids=["toml", "ini"])
def shipped(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    module: ModuleType = request.param[0]
    text: str = request.param[1]
    src = tmp_path / "app.conf"
    src.write_text(text)
    monkeypatch.setattr(module, "SRC", str(src))
    monkeypatch.setattr(module, "OUT", str(tmp_path / "out.json"))
    return module


def test_the_reference_passes_its_test(shipped: ModuleType) -> None:
    shipped.write_json()
    shipped.test_config_as_json()


def test_the_toml_reference_keeps_types(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "app.toml").write_text(TOML)
    monkeypatch.setattr(toml_to_json, "SRC", str(tmp_path / "app.toml"))
    monkeypatch.setattr(toml_to_json, "OUT", str(tmp_path / "out.json"))
    toml_to_json.write_json()
    want = {"name": "svc", "port": 8080, "db": {"host": "localhost", "retries": 3}, "users": [{"id": 1}]}
    assert json.loads((tmp_path / "out.json").read_text()) == want


def test_the_ini_reference_reads_as_configparser(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "app.ini").write_text(INI)
    monkeypatch.setattr(ini_to_json, "SRC", str(tmp_path / "app.ini"))
    monkeypatch.setattr(ini_to_json, "OUT", str(tmp_path / "out.json"))
    ini_to_json.write_json()
    want = {"server": {"port": "8080", "name": "svc ; kept"}, "db": {"host": "localhost"}}
    assert json.loads((tmp_path / "out.json").read_text()) == want


def test_wrong_json_fails(shipped: ModuleType) -> None:
    shipped.write_json()
    out = Path(shipped.OUT)
    data = json.loads(out.read_text())
    for wrong in ({**data, "db": {**data["db"], "host": "remote"}}, {k: v for k, v in data.items() if k != "db"}):
        out.write_text(json.dumps(wrong))
        with pytest.raises(AssertionError):
            shipped.test_config_as_json()
    if shipped is toml_to_json:
        out.write_text(json.dumps({**data, "port": "8080"}))
        with pytest.raises(AssertionError):
            shipped.test_config_as_json()
