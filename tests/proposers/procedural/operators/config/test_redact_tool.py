"""config-redact-tool: where it applies, the redaction rules on hand-checked cases (words, not substrings; a
secret table keeps its keys; URL passwords in arrays and nested tables), a deterministic step whose planted host
holds secrets, its generated tests passing on its own tool and failing on tools that match substrings or drop a
URL's user name, and a child accepted against its parent."""

from __future__ import annotations

import random
import re
import tomllib
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operator import OPERATORS, Step, StepContext
from rst_synth.proposers.procedural.operators.config.shipped import redact_tool as shipped
from tests.proposers.local_step import LocalStep
from tests.proposers.local_steps import failed, outcomes
from tests.proposers.procedural.operators.config.test_layered_merge import APP, PARENT_SOLVE, artifact, discovery
from tests.support.operators import assert_accepted, extend_with, parent_task

OP = OPERATORS["config-redact-tool"]
FILES = {"/app/config/app.toml": APP.encode()}
MARK = "[REDACTED]"


def build(seed: int = 2) -> Step:
    return OP.step(artifact(), StepContext(discovery=discovery(), rng=random.Random(seed), tag="r8s2"))


def test_it_applies_to_configurations_once() -> None:
    assert OP.can_use(artifact(), discovery())
    manifest = artifact('[project]\nname = "x"\nversion = "1"\n[tool.x]\na = 1\nb = 2\n', "/app/pyproject.toml")
    assert not OP.can_use(manifest, discovery(manifest))
    assert OP.once


def test_redaction_rules() -> None:
    doc = {
        "db": {"url": "postgresql://app:pw@db:5432/x", "Password": 1234, "key_prefix": "inv:", "api-key": True},
        "mirrors": ["https://u:@a/x", "https://u@b/y", "a=redis://x:1@h b=redis://y:2@k"],
        "credentials": {"user": "svc", "nested": {"pin": 7}, "list": [1, 2], "empty": {}},
        "jobs": [{"auth_token": "t0k3n", "max_tokens": 5, "secretary": "ann", "public_keys": ["k"]}],
    }
    assert shipped.redacted(doc) == {
        "db": {"url": f"postgresql://app:{MARK}@db:5432/x", "Password": MARK, "key_prefix": "inv:", "api-key": MARK},
        "mirrors": [f"https://u:{MARK}@a/x", "https://u@b/y", f"a=redis://x:{MARK}@h b=redis://y:{MARK}@k"],
        "credentials": {"user": MARK, "nested": {"pin": MARK}, "list": MARK, "empty": {}},
        "jobs": [{"auth_token": MARK, "max_tokens": 5, "secretary": "ann", "public_keys": ["k"]}],
    }
    assert "t0k3n" not in shipped.secrets_of(doc)  # too short to look for in a saved copy


def test_build_is_deterministic_and_names_every_path() -> None:
    step = build()
    assert step == build()
    compile(step.tests, "t", "exec")
    paths = re.findall(r"'(/app/[^']+)'", step.tests)
    assert paths and all(f"`{p}`" in step.instruction for p in paths), paths
    assert [a.path for a in step.produces][1] == "/app/bin/app_redact"


def test_planted_host_holds_secrets_of_each_kind(tmp_path: Path) -> None:
    local = LocalStep(build(), tmp_path)
    local.plant()
    host = next((tmp_path / "app/incoming/r8s2").iterdir())
    doc = tomllib.loads(host.read_text())
    clean = shipped.redacted(doc)
    text = host.read_text()
    assert text.count(MARK) == 0 and str(clean).count(MARK) >= 6, clean
    assert re.search(r"://\w+:\w{16}@", text)  # a password in a URL
    assert len(shipped.secrets_of(doc)) >= 4


def test_generated_tests_pass_on_the_tool_and_fail_on_subtly_wrong_ones(tmp_path: Path) -> None:
    step = build()
    results = outcomes(step, tmp_path / "ok", files=FILES)
    assert len(results) == 3 and not failed(results), results
    words = 'return bool(SECRET_WORDS & set(words)) or words[-1] == "key"'
    assert words in step.solution
    substring = step.solution.replace(
        words, 'return any(w in key.lower() for w in SECRET_WORDS) or key.endswith("key")'
    )
    assert "test_r8s2_tool_on_made_up_documents" in failed(
        outcomes(step, tmp_path / "substring", files=FILES, solution=substring)
    )
    mask = 'return URL_PASSWORD.sub(lambda m: m.group(1) + ":" + MARK + "@", value)'
    assert mask in step.solution
    userless = step.solution.replace(mask, 'return re.sub(r"://[^/\\s@]*@", "://" + MARK + "@", value)')
    assert {"test_r8s2_saved_copy_is_redacted", "test_r8s2_tool_on_made_up_documents"} <= set(
        failed(outcomes(step, tmp_path / "userless", files=FILES, solution=userless))
    )
    whole = step.solution.replace("return {key: hidden(item) for key, item in value.items()}", "return MARK")
    assert whole != step.solution  # a secret table replaced whole loses its keys
    assert "test_r8s2_saved_copy_is_redacted" in failed(outcomes(step, tmp_path / "whole", files=FILES, solution=whole))


@pytest.mark.docker
def test_child_accepted(tmp_path: Path) -> None:
    proposal, report = extend_with("config-redact-tool", parent_task(tmp_path, PARENT_SOLVE))
    assert_accepted(proposal, report, "config-redact-tool")
