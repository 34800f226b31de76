"""What `config-redact-tool` ships: the redaction tool (`main`: the values of secret keys and the passwords of
URLs replaced by a mark, every other value kept as it is) and the tests, which check the saved copy of the
planted host file and run the tool on documents they make up. The constants are the step's parameters:
`shipping.render` sets them."""

from __future__ import annotations

import json
import pathlib
import random
import re
import sys
import tomllib
from typing import Any

from rst_synth.proposers.procedural.operators.config.shipped.documents import dump_doc, load_doc
from rst_synth.proposers.procedural.operators.config.shipped.typed import typed
from rst_synth.proposers.procedural.operators.kit.testkit import assert_usage_error, run_tool

TOOL = "/app/bin/app_redact"
HOST = "/app/incoming/r1s1/web-02.toml"
OUT = "/app/share/app_web-02_redacted.toml"
SEED = 1

MARK = "[REDACTED]"
SECRET_WORDS = frozenset({"password", "passwd", "secret", "secrets", "token", "credential", "credentials", "apikey"})
URL_PASSWORD = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*):[^/\s@]*@")


def secret_name(key: str) -> bool:
    """A secret key: one of its words (split at `_` and `-`, any case) names a secret, or its last one is `key`."""
    words = re.split(r"[_-]", key.lower())
    return bool(SECRET_WORDS & set(words)) or words[-1] == "key"


def hidden(value: Any) -> Any:
    """A secret key's value: a table keeps its keys, anything else becomes the mark."""
    if isinstance(value, dict):
        return {key: hidden(item) for key, item in value.items()}
    return MARK


def cleaned(value: Any) -> Any:
    """A value under no secret key: URL passwords in strings masked, arrays and tables entered."""
    if isinstance(value, str):
        return URL_PASSWORD.sub(lambda m: m.group(1) + ":" + MARK + "@", value)
    if isinstance(value, list):
        return [cleaned(item) for item in value]
    if isinstance(value, dict):
        return redacted(value)
    return value


def redacted(doc: dict[str, Any]) -> dict[str, Any]:
    return {key: hidden(value) if secret_name(key) else cleaned(value) for key, value in doc.items()}


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: " + argv[0] + " FILE", file=sys.stderr)
        return 2
    try:
        doc = load_doc(argv[1])
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        print("error: " + " ".join(str(exc).split()), file=sys.stderr)
        return 2
    sys.stdout.write(dump_doc(redacted(doc), argv[1]))
    return 0


def secrets_of(value: Any, secret: bool = False) -> set[str]:
    """The texts a redacted copy must not show: strings and numbers under secret keys, URL passwords."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            found |= secrets_of(item, secret or secret_name(key))
    elif isinstance(value, list):
        for item in value:
            found |= secrets_of(item, secret)
    elif secret and not isinstance(value, bool) and value is not None:
        found.add(str(value))
    elif isinstance(value, str):
        found |= {m.group(0)[len(m.group(1)) + 1 : -1] for m in URL_PASSWORD.finditer(value)}
    return {text for text in found if len(text) >= 6}


KEYS = ["port", "host", "name", "level", "url", "dsn", "origins", "enabled", "ratio"]
SECRETS = ["password", "db_password", "API_KEY", "signing-key", "auth_token", "Secret", "passwd", "key"]
DECOYS = ["key_prefix", "public_keys", "max_tokens", "secretary", "keyboard", "token_count_limit_x"]


def fresh_text(rng: random.Random) -> str:
    user = rng.choice(["svc", "admin", "", "app.user"])
    password = rng.choice(["hunter2xyz", "p:ss", "", "s3cr3t#x!", "a" * 12])
    host = rng.choice(["db.internal:5432", "cache", "[::1]:6379"])
    return rng.choice(
        [
            rng.choice(["postgresql", "redis", "https", "s3+https"])
            + "://"
            + user
            + ":"
            + password
            + "@"
            + host
            + "/x",
            "https://" + user + "@" + host + "/no-password",
            "mailto:ops@example.test",
            "primary=redis://a:" + password + "@h1 replica=redis://b:" + password + "@h2",
            "plain text: with a colon @ and at",
            rng.choice(["info", "", "Zürich", "x y"]),
        ]
    )


def fresh_value(rng: random.Random, depth: int, json_doc: bool) -> Any:
    pick = rng.random()
    if pick < 0.2 and depth < 3:
        return fresh_table(rng, depth + 1, json_doc)
    if pick < 0.3:
        return [fresh_text(rng) for _ in range(rng.randint(0, 3))]
    if pick < 0.35 and depth < 3:
        return [fresh_table(rng, depth + 1, json_doc) for _ in range(rng.randint(1, 2))]
    if pick < 0.4 and json_doc:
        return None
    return rng.choice([rng.randint(-5, 99999), rng.random() * 100, True, False, fresh_text(rng), fresh_text(rng)])


def fresh_table(rng: random.Random, depth: int, json_doc: bool) -> dict[str, Any]:
    names = rng.sample(KEYS + SECRETS + DECOYS, rng.randint(1, 6))
    return {name: fresh_value(rng, depth, json_doc) for name in names}


def test_saved_copy_is_redacted() -> None:
    host = load_doc(HOST)
    want = redacted(host)
    assert typed(load_doc(OUT)) == typed(want)
    text = pathlib.Path(OUT).read_text(encoding="utf-8")
    shown = json.dumps(want, ensure_ascii=False)  # a secret's text may also be a value that stays (a user name)
    leaked = sorted(s for s in secrets_of(host) if s in text and s not in shown)
    assert not leaked, leaked


def test_tool_on_made_up_documents(tmp_path: pathlib.Path) -> None:
    rng = random.Random(SEED)
    for k in range(16):
        json_doc = k % 2 == 1
        doc = fresh_table(rng, 0, json_doc)
        doc["section_" + str(k)] = fresh_table(rng, 1, json_doc)
        path = tmp_path / ("doc" + str(k) + (".json" if json_doc else ".toml"))
        path.write_text(dump_doc(doc, path), encoding="utf-8")
        done = run_tool(TOOL, path)
        assert done.returncode == 0, (k, done.stderr[-300:])
        text = done.stdout.decode("utf-8")
        got = json.loads(text) if json_doc else tomllib.loads(text)
        assert typed(got) == typed(redacted(load_doc(path))), (k, text[-800:])


def test_tool_refuses_bad_calls(tmp_path: pathlib.Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text('[a]\npassword = "x"\n', encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text("[a\n", encoding="utf-8")
    listed = tmp_path / "list.json"
    listed.write_text("[1, 2]", encoding="utf-8")
    for args in ([], [good, good], [bad], [listed], [tmp_path / "none.toml"]):
        assert_usage_error(run_tool(TOOL, *args), args)
