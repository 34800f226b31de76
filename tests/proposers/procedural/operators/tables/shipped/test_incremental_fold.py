"""The reference of csv-incremental-fold, called directly: its `main` as a tool folds the batches (one
malformed) and passes the tests (the ledger, a rerun, fresh batches); a tool that counts a rerun twice,
exits 0 after a rejection or takes `1e3` for an amount fails them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import rst_synth
from rst_synth.proposers.procedural.operators.tables.shipped import incremental_fold as shipped


def tool(tmp_path: Path, body: str) -> str:
    path = tmp_path / "fold"
    src = Path(rst_synth.__file__).parents[1]
    name = shipped.__name__
    prelude = f"import {name} as shipped\nshipped.GROUP = {shipped.GROUP!r}\nfrom {name} import main\n"
    path.write_text(f"#!{sys.executable}\nimport sys, re\nsys.path.insert(0, {str(src)!r})\n{prelude}{body}")
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    files = {
        "sales.csv": 'region,amount,note\nnorth,1.50,a\n"Zürich, q",-2,b\n',
        "batch-001.csv": "amount,region\r\n3.25, north \r\n",
        "batch-002.csv": "region,amount\nsouth,1e3\n",
        "batch-003.csv": "",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.setattr(shipped, "FILES", [str(tmp_path / name) for name in files])
    monkeypatch.setattr(shipped, "LEDGER", str(tmp_path / "ledger.json"))
    monkeypatch.setattr(shipped, "GROUP", "region")
    (tmp_path / "fresh").mkdir()
    return tmp_path


def test_the_reference_passes_its_tests(run: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "TOOL", tool(run, "sys.exit(main())\n"))
    done = subprocess.run([shipped.TOOL, shipped.LEDGER, *shipped.FILES], capture_output=True)
    assert done.returncode == 1 and done.stderr == b"rejected batch-002.csv\n"
    assert shipped.ledger(shipped.LEDGER)["totals"]["north"] == {"rows": 2, "total_cents": 475}
    shipped.test_ledger_holds_each_good_batch_once()
    shipped.test_rerun_counts_nothing_twice(run / "fresh")
    shipped.test_tool_folds_fresh_batches_incrementally(run / "fresh")


WRONG = {
    "rerun counted twice": (
        "shipped.load = (lambda load: lambda state: {**load(state), 'applied': {}})(shipped.load)\nsys.exit(main())\n"
    ),
    "exit 0 after a rejection": "main()\n",
    "a bad value accepted": "shipped.CENTS = re.compile(r'-?[0-9.e]+')\nsys.exit(main())\n",
}


@pytest.mark.parametrize("wrong", sorted(WRONG))
def test_wrong_tools_fail(run: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    reference = tool(run, "sys.exit(main())\n")
    subprocess.run([reference, shipped.LEDGER, *shipped.FILES], capture_output=True)
    monkeypatch.setattr(shipped, "TOOL", tool(run / "fresh", WRONG[wrong]))
    with pytest.raises(AssertionError):
        shipped.test_rerun_counts_nothing_twice(run / "fresh")
        shipped.test_tool_folds_fresh_batches_incrementally(run / "fresh")
