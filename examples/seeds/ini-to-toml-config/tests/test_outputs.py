"""Checks of the merged TOML config, computed from the two INI files."""
import configparser
import re
import tomllib
from pathlib import Path

CONFIG = Path("/app/config")
LISTS = {"allowed_origins", "export_formats"}
RENAMES = {
    ("server", "listen_port"): "port",
    ("database", "timeout_seconds"): "timeout",
    ("cache", "ttl"): "ttl_seconds",
}


def typed(key, raw):
    raw = raw.strip()
    if key in LISTS:
        return [part.strip() for part in raw.split(",") if part.strip()]
    if raw.lower() in {"yes", "true", "on"}:
        return True
    if raw.lower() in {"no", "false", "off"}:
        return False
    if re.fullmatch(r"-?[0-9]+", raw):
        return int(raw)
    if re.fullmatch(r"-?[0-9]+\.[0-9]+", raw):
        return float(raw)
    return raw


def expected():
    parser = configparser.ConfigParser(interpolation=None)
    parser.read([CONFIG / "defaults.ini", CONFIG / "site.ini"])
    result = {"config_version": 2}
    for section in parser.sections():
        table = result.setdefault("http" if section == "server" else section, {})
        for key, raw in parser.items(section):
            table[RENAMES.get((section, key), key)] = typed(key, raw)
    return result


def actual():
    with (CONFIG / "app.toml").open("rb") as fh:
        return tomllib.load(fh)


def test_inputs_intact():
    defaults = (CONFIG / "defaults.ini").read_text()
    site = (CONFIG / "site.ini").read_text()
    assert defaults.count("\n[") + defaults.startswith("[") == 4
    assert "[features]" in site and "listen_port" in site


def test_version_and_tables():
    data = actual()
    assert data.get("config_version") == 2 and type(data["config_version"]) is int
    assert set(data) == set(expected())


def test_renamed_keys():
    data = actual()
    assert "server" not in data
    assert "port" in data["http"] and "listen_port" not in data["http"]
    assert "timeout" in data["database"] and "timeout_seconds" not in data["database"]
    assert "ttl_seconds" in data["cache"] and "ttl" not in data["cache"]


def test_overrides_win():
    site = configparser.ConfigParser(interpolation=None)
    site.read(CONFIG / "site.ini")
    data = actual()
    for section in site.sections():
        table = data["http" if section == "server" else section]
        for key, raw in site.items(section):
            assert table[RENAMES.get((section, key), key)] == typed(key, raw), (section, key)


def test_value_types():
    data, want = actual(), expected()
    for table, values in want.items():
        if not isinstance(values, dict):
            continue
        for key, value in values.items():
            assert type(data[table][key]) is type(value), (table, key, data[table][key])


def test_literal_strings():
    data, want = actual(), expected()
    assert data["logging"]["format"] == want["logging"]["format"]
    assert data["http"]["banner"] == want["http"]["banner"]


def test_whole_config_equal():
    assert actual() == expected()
