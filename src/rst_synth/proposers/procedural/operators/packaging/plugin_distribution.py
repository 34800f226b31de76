"""A second distribution for a package the workflow built and installed: it depends on the package at its
installed version, ships a plugin in an entry-point group named after the package and a command that lists
and runs that group's plugins. The tests read the built wheel's metadata, rebuild it from its sources,
install it with its dependency offline into a folder of their own, and run the command over fake plugin
distributions they write. (Installing it into the system would make outputs no test reads, such as a
WHEEL file that is a copy of the package's own.)"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from rst_synth.proposers.artifacts import Artifact, Kind
from rst_synth.proposers.discovery import Discovery
from rst_synth.proposers.procedural.operator import Operator, Step, StepContext, q, register
from rst_synth.proposers.procedural.operators.kit.workflow import RUN_TOOL, inside_git, work_root
from rst_synth.proposers.procedural.operators.packaging.wheels import project_name, project_wheel

MODULE_PY = r'''
"""Plugins of {group}: `{script} list` and `{script} run NAME FILE`."""
import hashlib
import sys
from importlib import metadata

GROUP = "{group}"


def digest(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def plugins():
    found = [(ep.name, ep.value, dist.metadata["Name"], ep) for dist in metadata.distributions()
             for ep in dist.entry_points if ep.group == GROUP]
    return sorted(found, key=lambda item: (item[0], item[2]))


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if args == ["list"]:
        for name, value, dist, _ in plugins():
            print(name, value, dist)
        return 0
    if len(args) != 3 or args[0] != "run":
        print("usage: {script} list | {script} run NAME FILE", file=sys.stderr)
        return 2
    matches = [ep for name, _, _, ep in plugins() if name == args[1]]
    if len(matches) != 1:
        print(("ambiguous plugin: " if matches else "no plugin: ") + args[1], file=sys.stderr)
        return 2
    try:
        with open(args[2], encoding="utf-8") as f:
            text = f.read()
        result = matches[0].load()(text)
    except Exception as exc:
        print("plugin failed: " + repr(exc), file=sys.stderr)
        return 3
    print(result)
    return 0
'''

TESTS_PY = r"""
def fake_dist(site, dist, module, entries, code):
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n", encoding="utf-8")
    lines = "".join(f"{name} = {value}\n" for name, value in entries)
    (info / "entry_points.txt").write_text(f"[{GROUP}]\n{lines}\n[console_scripts]\nx-{dist} = {module}:f\n",
                                           encoding="utf-8")
    (site / f"{module}.py").write_text(code, encoding="utf-8")


def install(tmp_path):
    target = tmp_path / "target"
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-compile", "-q", "--find-links",
                           BASE_DIST, "--target", str(target), WHEEL], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr[-1000:]
    return target


def run_with(target, site, *args):
    env = dict(os.environ, PYTHONPATH=f"{target}:{site}")
    return subprocess.run([str(target / "bin" / SCRIPT), *map(str, args)], capture_output=True, env=env, timeout=60)


def members(path):
    with zipfile.ZipFile(path) as wheel:
        return {name: wheel.read(name) for name in wheel.namelist()}
"""


def _names(artifact: Artifact) -> tuple[str, str, str] | None:
    """(distribution, module, entry-point group) of the plugin distribution for the project."""
    name = project_name(artifact)
    if name is None:
        return None
    base = re.sub(r"[-_.]+", "_", name).lower()
    return f"{name}-digest", f"{base}_digest", f"{base}.plugins"


def _installed(name: str, discovery: Discovery) -> str | None:
    """The installed version of distribution `name` (its dist-info folder among the artifacts), if any."""
    stem = re.sub(r"[-_.]+", "_", name).lower()
    for artifact in discovery.artifacts:
        folder = PurePosixPath(artifact.path).parent.name
        match = re.fullmatch(r"(.+)-([0-9][^-]*)\.dist-info", folder)
        if match and re.sub(r"[-_.]+", "_", match[1]).lower() == stem and "-packages/" in artifact.path:
            return match[2]
    return None


@register
class PythonPluginDistribution(Operator):
    """A dependent distribution with an entry-point plugin and a plugin host command, built and installed."""

    name = "python-plugin-distribution"
    kinds = (Kind.CONFIG,)
    tools = ("python3",)
    weight = 3.0

    def applies(self, artifact: Artifact, discovery: Discovery) -> bool:
        names, name = _names(artifact), project_name(artifact)
        return (
            names is not None
            and name is not None
            and project_wheel(artifact, discovery) is not None
            and _installed(name, discovery) is not None
            and _installed(names[0], discovery) is None
            and not inside_git(f"{work_root(discovery)}/plugins/x", discovery)
        )

    def build(self, artifact: Artifact, ctx: StepContext) -> Step:
        names, base, wheel = _names(artifact), project_name(artifact), project_wheel(artifact, ctx.discovery)
        assert names is not None and base is not None and wheel is not None  # applies() checked them
        version = _installed(base, ctx.discovery)
        dist, module, group = names
        script = f"{base}-plugin"
        dist_dir = f"{work_root(ctx.discovery)}/plugins/dist"
        src = f"{work_root(ctx.discovery)}/plugins/{dist}"
        out = f"{dist_dir}/{module}-0.1.0-py3-none-any.whl"
        pyproject = (
            '[build-system]\nrequires = ["setuptools>=61"]\nbuild-backend = "setuptools.build_meta"\n\n'
            f'[project]\nname = "{dist}"\nversion = "0.1.0"\ndependencies = ["{base}=={version}"]\n\n'
            f'[project.scripts]\n{script} = "{module}:main"\n\n'
            f'[project.entry-points."{group}"]\ndigest = "{module}:digest"\n\n'
            f'[tool.setuptools]\npy-modules = ["{module}"]\n'
        )
        source = MODULE_PY.format(group=group, script=script).strip() + "\n"
        solution = f"""mkdir -p {q(src)} {q(dist_dir)}
cat > {q(src + "/pyproject.toml")} <<'TOML'
{pyproject}TOML
cat > {q(src + "/" + module + ".py")} <<'PY'
{source}PY
build="$(mktemp -d)"
cp -r {q(src)} "$build/src"
python3 -m pip wheel --no-index --no-build-isolation --no-deps -q -w {q(dist_dir)} "$build/src"
rm -rf "$build\""""
        tests = f"""
WHEEL, DIST, MODULE, GROUP, BASE, VERSION = {out!r}, {dist!r}, {module!r}, {group!r}, {base!r}, {version!r}
SCRIPT, SRC, BASE_DIST = {script!r}, {src!r}, {str(PurePosixPath(wheel).parent)!r}
{TESTS_PY}{RUN_TOOL}

def test_{ctx.tag}_wheel_metadata():
    with zipfile.ZipFile(WHEEL) as wheel:
        assert wheel.testzip() is None
        info = MODULE.replace("-", "_") + "-0.1.0.dist-info/"
        meta = wheel.read(info + "METADATA").decode("utf-8")
        points = wheel.read(info + "entry_points.txt").decode("utf-8")
        assert MODULE + ".py" in wheel.namelist()
    assert re.search(r"^Name: " + re.escape(DIST) + "$", meta, re.M) and re.search(r"^Version: 0\\.1\\.0$", meta, re.M)
    requires = [re.sub(r"[\\s()]", "", r) for r in re.findall(r"^Requires-Dist: (.*)$", meta, re.M)]
    assert requires == [BASE + "==" + VERSION]  # older setuptools write `name (==1.0)`
    assert re.search(r"^\\[" + re.escape(GROUP) + r"\\]\\ndigest = " + re.escape(MODULE) + ":digest$", points, re.M)
    assert re.search(r"^" + re.escape(SCRIPT) + " = " + re.escape(MODULE) + ":main$", points, re.M)


def test_{ctx.tag}_wheel_built_from_the_sources(tmp_path):
    build = tmp_path / "src"
    shutil.copytree(SRC, build)
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-index", "--no-build-isolation", "--no-deps",
                           "-q", "-w", str(tmp_path / "out"), str(build)], capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr[-1000:]
    assert members(tmp_path / "out" / pathlib.Path(WHEEL).name) == members(WHEEL)


def test_{ctx.tag}_plugin_command(tmp_path):
    target = install(tmp_path)
    text = "Grüße, plugins!\\nzweite Zeile\\n"
    sample = tmp_path / "sample.txt"
    sample.write_text(text, encoding="utf-8")
    site = tmp_path / "site"
    fake_dist(site, "zeta-upper", "zeta_upper", [("upper", "zeta_upper:upper"), ("broken", "zeta_upper:nope")],
              "def upper(text):\\n    return text.upper().strip()\\n")
    fake_dist(site, "alpha-tools", "alpha_tools", [("count", "alpha_tools:count")],
              "def count(text):\\n    return len(text.split())\\n")
    done = run_with(target, site, "list")
    assert done.returncode == 0, done.stderr[-500:]
    assert done.stdout.decode().splitlines() == [
        "broken zeta_upper:nope zeta-upper", "count alpha_tools:count alpha-tools",
        "digest " + MODULE + ":digest " + DIST, "upper zeta_upper:upper zeta-upper"]
    digest = run_with(target, site, "run", "digest", sample)
    assert (digest.returncode, digest.stdout.decode()) == (0, hashlib.sha256(text.encode()).hexdigest() + "\\n")
    assert run_with(target, site, "run", "upper", sample).stdout.decode() == text.upper().strip() + "\\n"
    assert run_with(target, site, "run", "count", sample).stdout == b"4\\n"
    for args, code in ((["run", "nope", sample], 2), (["run", "broken", sample], 3), (["run", "digest"], 2),
                       (["run", "upper", tmp_path / "missing.txt"], 3)):
        done = run_with(target, site, *args)
        assert done.returncode == code and done.stdout == b"" and done.stderr.strip(), args
    twin = tmp_path / "twin"
    fake_dist(
        twin, "beta-digest", "beta_digest", [("digest", "beta_digest:digest")], "def digest(t):\\n    return 1\\n")
    done = run_with(target, twin, "run", "digest", sample)
    assert done.returncode == 2 and done.stdout == b"" and b"ambiguous" in done.stderr
"""
        instruction = " ".join(
            f"""Next, give the installed package `{base}` (version {version}, built from `{artifact.path}` into
            `{wheel}`) a plugin mechanism in a second distribution. Write a project for the distribution `{dist}`,
            version `0.1.0`, whose only dependency is `{base}=={version}`, with a single module `{module}` that
            provides the function `digest(text)` (the hexadecimal SHA-256 of the text encoded as UTF-8), registered
            as the plugin `digest` in the entry-point group `{group}`, and the console script `{script}` (running the
            module's `main()`). `{script} list` prints one line `NAME VALUE DISTRIBUTION` per entry point of the
            group `{group}` among the installed distributions (VALUE as written in the entry point, DISTRIBUTION the
            `Name` of the distribution's metadata), sorted by NAME, then DISTRIBUTION; `{script} run NAME FILE`
            loads the one plugin named NAME, calls it with the UTF-8 text of FILE and prints the result (with `print`)
            and exits 0. When no plugin or more than one plugin has that name, or the arguments are wrong, it prints
            an error to standard error and exits 2; when reading FILE, loading or calling the plugin fails, it prints
            an error to standard error and exits 3; nothing goes to standard output in both cases. Plugins of
            distributions on `PYTHONPATH` count too. Put the project's sources in `{src}` (`{src}/pyproject.toml`
            and `{src}/{module}.py`, setuptools as the build backend, no build files left there): building them with
            `pip wheel --no-index --no-build-isolation --no-deps` must give a wheel with the same files and contents as
            the one you ship, `{out}`. It must install offline with `pip install --no-index --find-links
            {PurePosixPath(wheel).parent}` (which takes `{base}` from there), the console script then running from
            the install folder.""".split()
        )
        return Step(
            solution=solution,
            tests=tests,
            instruction=instruction,
            produces=[
                Artifact(path=f"{src}/pyproject.toml", kind=Kind.CONFIG, details={"format": "toml"}, sample=pyproject),
                Artifact(path=out, kind=Kind.ARCHIVE, details={"format": "zip"}),
            ],
        )
