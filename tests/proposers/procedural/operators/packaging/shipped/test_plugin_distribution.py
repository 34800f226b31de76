"""The reference of python-plugin-distribution, called directly: its module, installed by hand beside its
metadata, passes the shipped command test, and a hand-made wheel with the promised metadata passes the
metadata test; a module that sorts by distribution, exits 2 on a failing plugin, misses an ambiguity,
reports on standard output or digests other bytes, and a wheel without the pinned dependency or the plugin,
fail them. (The tests' own pip builds and installs run in the operator's slow test.)"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

import pytest

from rst_synth.proposers.procedural.operators.packaging.plugin_distribution import module_source
from rst_synth.proposers.procedural.operators.packaging.shipped import plugin_distribution as shipped


def fake_install(target: Path, source: str) -> Path:
    """What `pip install --target` makes of the wheel: the module, its dist-info and the console script."""
    shipped.fake_dist(target, shipped.DIST, shipped.MODULE, [("digest", shipped.MODULE + ":digest")], source)
    script = target / "bin" / shipped.SCRIPT
    script.parent.mkdir()
    script.write_text(f"#!{sys.executable}\nimport sys\nfrom {shipped.MODULE} import main\nsys.exit(main())\n")
    script.chmod(0o755)
    return target


def command_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str) -> None:
    monkeypatch.setattr(shipped, "install", lambda folder: fake_install(folder / "target", source))
    shipped.test_plugin_command(tmp_path)


def test_the_module_passes_the_command_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = module_source(shipped.GROUP, shipped.SCRIPT)
    assert source.startswith('"""Plugins of text_stats.plugins: `text-stats-plugin list`')
    compile(source, "module", "exec")
    assert shipped.digest("Grüße") == "f83e039796c6453a10f5519e39fd113901572316a1a8ea07cb525d2801dfd074"
    command_test(tmp_path, monkeypatch, source)


WRONG_MODULE = {
    "sorted by distribution first": ("(item[0], item[2])", "(item[2], item[0])"),
    "a failing plugin exits 2": ("return 3", "return 2"),
    "an ambiguous name runs the first": ("if len(matches) != 1:", "if not matches:"),
    "errors on standard output": ('print("plugin failed: " + repr(exc), file=sys.stderr)', 'print("failed")'),
    "digest of UTF-16": ('text.encode("utf-8")', 'text.encode("utf-16")'),
}


@pytest.mark.parametrize("wrong", sorted(WRONG_MODULE))
def test_wrong_modules_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    source = module_source(shipped.GROUP, shipped.SCRIPT)
    old, new = WRONG_MODULE[wrong]
    assert old in source
    with pytest.raises(AssertionError):
        command_test(tmp_path, monkeypatch, source.replace(old, new))


METADATA = "Metadata-Version: 2.1\nName: text-stats-digest\nVersion: 0.1.0\nRequires-Dist: text-stats==0.3.0\n"
POINTS = (
    "[console_scripts]\ntext-stats-plugin = text_stats_digest:main\n\n"
    "[text_stats.plugins]\ndigest = text_stats_digest:digest\n"
)


def hand_made_wheel(path: Path, metadata: str = METADATA, points: str = POINTS) -> str:
    info = "text_stats_digest-0.1.0.dist-info/"
    with zipfile.ZipFile(path, "w") as wheel:
        wheel.writestr("text_stats_digest.py", module_source(shipped.GROUP, shipped.SCRIPT))
        wheel.writestr(info + "METADATA", metadata)
        wheel.writestr(info + "entry_points.txt", points)
    return str(path)


def test_metadata_test(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shipped, "WHEEL", hand_made_wheel(tmp_path / "good.whl"))
    shipped.test_wheel_metadata()
    old_style = METADATA.replace("text-stats==0.3.0", "text-stats (==0.3.0)")  # older setuptools
    monkeypatch.setattr(shipped, "WHEEL", hand_made_wheel(tmp_path / "old.whl", old_style))
    shipped.test_wheel_metadata()


WRONG_WHEEL = {
    "dependency not pinned": (METADATA.replace("==0.3.0", ""), POINTS),
    "another version": (METADATA.replace("Version: 0.1.0", "Version: 0.1"), POINTS),
    "a second dependency": (METADATA + "Requires-Dist: requests\n", POINTS),
    "plugin in another group": (METADATA, POINTS.replace("[text_stats.plugins]", "[plugins]")),
    "script runs another function": (METADATA, POINTS.replace(":main", ":run")),
}


@pytest.mark.parametrize("wrong", sorted(WRONG_WHEEL))
def test_wrong_wheels_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wrong: str) -> None:
    monkeypatch.setattr(shipped, "WHEEL", hand_made_wheel(tmp_path / "wrong.whl", *WRONG_WHEEL[wrong]))
    with pytest.raises(AssertionError):
        shipped.test_wheel_metadata()
