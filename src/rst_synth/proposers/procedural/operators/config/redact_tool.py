"""A copy of a host's configuration to share with a vendor: the host's file (the workflow's configuration with
the secrets the host holds: passwords, tokens, an API key, a credentials table, a password in a URL) redacted by
a tool with stated key patterns, everything else kept exactly; the tests run the tool on documents they make up."""

from __future__ import annotations

import copy
import re
from typing import Any

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.config.documents import (
    config_document,
    doc_ext,
    document_output,
    leaves,
    places_ok,
    tables,
)
from rst_synth.proposers.procedural.operators.config.drift_report import HOSTS
from rst_synth.proposers.procedural.operators.config.shipped import redact_tool as shipped
from rst_synth.proposers.procedural.operators.config.shipped.documents import dump_doc
from rst_synth.proposers.procedural.operators.kit.families import ToolOperator
from rst_synth.proposers.procedural.operators.kit.workflow import (
    fresh_path,
    plant,
    planted_dir,
    stem_of,
    tool_path,
    work_root,
)
from rst_synth.proposers.procedural.shipping import render

URL = re.compile(r"([a-z][a-z0-9+.-]*://)([^/\s:@]*@)?(\S+)")


def _secret(rng: Any) -> str:
    alphabet = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "".join(rng.choice(alphabet) for _ in range(16))


def _node(doc: dict[str, Any], table: str) -> dict[str, Any]:
    for part in table.split("."):
        doc = doc[part]
    return doc


def _with_secrets(doc: dict[str, Any], ctx: StepContext) -> dict[str, Any]:
    """The host's copy of the configuration with what the host alone holds: a password and a token in two
    tables, a credentials table, and a password in a URL (one the configuration has, or a new one)."""
    rng, host = ctx.rng, copy.deepcopy(doc)
    found = sorted(tables(doc), key=lambda t: (t.count("."), t))
    first, second = (rng.sample(found, 2) if len(found) > 1 else found * 2)[:2]
    for table, names in ((first, ("password", "db_password")), (second, ("api_token", "api_key"))):
        node = _node(host, table)
        name = next((n for n in names if n not in node), None)
        if name is not None:
            node[name] = _secret(rng)
    urls = sorted(p for p, v in leaves(doc).items() if isinstance(v, str) and URL.fullmatch(v) and v.count("@") <= 1)
    user = rng.choice(["svc", "deploy", "inventory"])
    if urls:
        path = rng.choice(urls)
        *parents, key = path.split(".")
        node = _node(host, ".".join(parents)) if parents else host
        scheme, login, rest = URL.fullmatch(node[key]).groups()  # type: ignore[union-attr]  # matched above
        node[key] = f"{scheme}{(login or user + '@')[:-1]}:{_secret(rng)}@{rest}"
    else:
        _node(host, first)["upstream_url"] = f"https://{user}:{_secret(rng)}@upstream.internal/api"
    name = next(n for n in ("credentials", "service_credentials", "host_credentials") if n not in host)
    host[name] = {"user": user, "secret_pin": rng.randint(100000, 999999), "rotated": rng.choice([True, False])}
    return host


@register
class ConfigRedactTool(ToolOperator):
    """A shareable copy of a host's configuration: secrets redacted by stated key patterns, nothing else changed."""

    name = "config-redact-tool"
    kinds = (Kind.CONFIG, Kind.JSON)
    once = True  # the tool redacts any document: a second step would write it again

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        doc = config_document(artifact)
        return doc is not None and places_ok(artifact, discovery, "bin", "incoming", "share")

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        doc = config_document(artifact)
        assert doc is not None  # applies() checked it
        ext, name = doc_ext(artifact), ctx.rng.choice(HOSTS)
        host_path = fresh_path(ctx, planted_dir(ctx), f"{name}.{ext}")
        tool = tool_path(ctx, artifact, "redact")
        out = fresh_path(ctx, f"{work_root(ctx.discovery)}/share", f"{stem_of(artifact)}_{name}_redacted.{ext}")
        seed = ctx.rng.randrange(10**6)
        dockerfile = plant(host_path, dump_doc(_with_secrets(doc, ctx), host_path))
        run = f"{q(tool)} {q(host_path)} > {q(out)}"
        solution = self.tool_solution(tool, render(shipped, ["main"]), "sys.exit(main(sys.argv))", run, out)
        checks = [n for n in dir(shipped) if n.startswith("test_")]
        tests = render(shipped, checks, tag=ctx.tag, TOOL=tool, HOST=host_path, OUT=out, SEED=seed)
        instruction = (
            f"The vendor supporting the service needs host `{name}`'s configuration `{host_path}` (the "
            f"configuration `{artifact.path}` as the host holds it, secrets included; already in the environment), "
            f"and it must not see a secret. Write a redaction tool `{tool}` (an executable file with a `#!` line): "
            f"`{tool} FILE` reads FILE (TOML when its name ends in `.toml`, otherwise a JSON object) and prints "
            "the redacted document in the same format (layout and key order are up to you). A key, at any depth "
            "(tables inside arrays included), is secret when "
            "one of its words (the key's name in any letter case, split at `_` and `-`) is `password`, `passwd`, "
            "`secret`, `secrets`, `token`, `credential`, `credentials` or `apikey`, or when its last word is `key` "
            "(`api_key` and `key` are secret; `key_prefix`, `public_keys`, `max_tokens` and `secretary` are not). "
            'The value of a secret key becomes the string `"[REDACTED]"`, whatever its type; when it is a table, '
            "the table keeps its keys and every value in it that is not a table becomes that string, at any depth "
            "(an array is one value). Every other string, at any depth (in arrays, and in tables inside arrays, "
            "too), has the password of each URL in it replaced: text of the form `SCHEME://USER:PASSWORD@`, where "
            "SCHEME is a letter followed by letters, digits, `+`, `-` or `.`, USER (possibly empty) has no `/`, "
            "`:`, `@` or whitespace, and PASSWORD (possibly empty) has no `/`, `@` or whitespace, becomes "
            "`SCHEME://USER:[REDACTED]@`, taken from left to right without overlapping; the rest of the string "
            "stays as it is. Every other key and value stays exactly as it is (same types, same values). The "
            "tool exits 0 after printing; it prints one line to standard error, nothing to standard output, and "
            "exits 2 when it does not get exactly one argument, or when FILE cannot be read or parsed or is not a "
            f"table. Then run it on `{host_path}` and save its output as `{out}` (create the folder)."
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            dockerfile=dockerfile,
            produces=[
                document_output(out, ext, end_result=True),
                self.executable(tool),
            ],
        )
