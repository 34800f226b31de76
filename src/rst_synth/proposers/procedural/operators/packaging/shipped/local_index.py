"""What `package-local-index` ships: the wheels of older releases and of another team's library the step plants
(`release_wheel`), the reference index (`main`: a PEP 503 "simple" repository with a page per project, each
wheel placed under the packages folder as a symbolic link, as pip2pi's dir2pi does, so the share serves the
file as built), and the tests that parse the pages, follow every link to its file and its hash, and install
each release from the index with pip. The constants are the step's parameters: `shipping.render` sets them."""

from __future__ import annotations

import email.parser
import hashlib
import html
import html.parser
import io
import os
import pathlib
import re
import subprocess
import sys
import urllib.parse
import zipfile
from email.message import Message

from rst_synth.proposers.procedural.operators.packaging.shipped.wheel_repair import digest_of

SOURCES = [
    "/app/dist/textstats-0.3.0-py3-none-any.whl",
    "/app/incoming/r3s1/textstats-0.2.1-py3-none-any.whl",
    "/app/incoming/r3s1/Text_Utils-1.0-py3-none-any.whl",
]
INDEX = "/srv/pypi/simple"
PACKAGES = "/srv/pypi/packages"
REQUESTS = [("textstats", "/app/dist/textstats-0.3.0-py3-none-any.whl")]
"""(requirement, the wheel pip must install for it) pairs of the install test."""


def normalise(name: str) -> str:
    """A project name as PEP 503 compares it."""
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel_metadata(path: str) -> Message:
    """The METADATA of a wheel's top-level `*.dist-info` folder."""
    with zipfile.ZipFile(path) as wheel:
        name = next(n for n in wheel.namelist() if re.fullmatch(r"[^/]+\.dist-info/METADATA", n))
        return email.parser.BytesParser().parsebytes(wheel.read(name))


def write_page(path: str, anchors: list[str]) -> None:
    # One anchor a line: a dropped or changed line of a page is a link gone or wrong.
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as page:
        page.write("<!DOCTYPE html>\n<html><body>\n" + "".join(a + "\n" for a in anchors) + "</body></html>\n")


def main() -> None:
    pages: dict[str, list[str]] = {}
    for source in SOURCES:
        fields = wheel_metadata(source)
        project = normalise(fields["Name"])
        file = os.path.basename(source)
        served = os.path.join(PACKAGES, project, file)
        os.makedirs(os.path.dirname(served), exist_ok=True)
        if os.path.lexists(served):
            os.remove(served)
        os.symlink(source, served)
        with open(source, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        href = html.escape(f"../../packages/{project}/{urllib.parse.quote(file)}#sha256={digest}")
        requires = fields.get("Requires-Python")
        extra = "" if requires is None else f' data-requires-python="{html.escape(requires)}"'
        anchor = f'<a href="{href}"{extra}>{html.escape(file)}</a>'
        pages.setdefault(project, []).append(anchor)
    write_page(os.path.join(INDEX, "index.html"), [f'<a href="{p}/">{p}</a>' for p in sorted(pages)])
    for project, anchors in pages.items():
        write_page(os.path.join(INDEX, project, "index.html"), anchors)


def release_wheel(
    filename_name: str, name: str, version: str, modules: dict[str, str], requires: str | None
) -> tuple[str, bytes]:
    """A planted wheel (file name, bytes) of distribution `name` at `version`: `modules` (file -> source), its
    METADATA (with `Requires-Python` when given), WHEEL and RECORD, with fixed timestamps."""
    info = f"{filename_name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    metadata += "" if requires is None else f"Requires-Python: {requires}\n"
    files = {n: s.encode("utf-8") for n, s in modules.items()}
    files[f"{info}/METADATA"] = metadata.encode()
    files[f"{info}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: release-ci\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = "".join(f"{n},{digest_of(d)},{len(d)}\n" for n, d in files.items()) + f"{info}/RECORD,,\n"
    files[f"{info}/RECORD"] = record.encode()
    packed = io.BytesIO()
    with zipfile.ZipFile(packed, "w", zipfile.ZIP_DEFLATED) as wheel:
        for member, data in files.items():
            wheel.writestr(zipfile.ZipInfo(member, (2020, 1, 1, 0, 0, 0)), data)
    return f"{filename_name}-{version}-py3-none-any.whl", packed.getvalue()


class Anchors(html.parser.HTMLParser):
    """The `<a>` elements of a page: attributes (character references resolved), start tag as written, text."""

    found: list[tuple[dict[str, str | None], str, list[str]]]

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found = []
        self.inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self.found.append((dict(attrs), self.get_starttag_text() or "", []))
            self.inside = True

    def handle_data(self, data: str) -> None:
        if self.inside:
            self.found[-1][2].append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a":
            self.inside = False


def anchors_of(page: pathlib.Path) -> list[tuple[dict[str, str | None], str, str]]:
    parser = Anchors()
    parser.feed(page.read_text(encoding="utf-8"))
    parser.close()
    return [(attrs, raw, "".join(text).strip()) for attrs, raw, text in parser.found]


def projects() -> dict[str, list[str]]:
    """Normalised project name -> the paths of its wheels among the sources."""
    found: dict[str, list[str]] = {}
    for source in SOURCES:
        found.setdefault(normalise(wheel_metadata(source)["Name"]), []).append(source)
    return found


def test_project_list() -> None:
    anchors = anchors_of(pathlib.Path(INDEX) / "index.html")
    got = sorted((attrs.get("href"), text) for attrs, _, text in anchors)
    assert got == sorted((f"{name}/", name) for name in projects())


def test_project_pages() -> None:
    for name, sources in projects().items():
        page = pathlib.Path(INDEX) / name / "index.html"
        anchors = anchors_of(page)
        assert sorted(text for _, _, text in anchors) == sorted(os.path.basename(s) for s in sources), name
        for source in sources:
            file = os.path.basename(source)
            attrs, raw, _ = next(a for a in anchors if a[2] == file)
            assert "<" not in raw[1:-1] and ">" not in raw[1:-1], raw  # `<` and `>` written as references
            href = urllib.parse.urlsplit(attrs.get("href") or "")
            assert not href.scheme and not href.netloc and not href.path.startswith("/"), attrs
            target = os.path.normpath(os.path.join(page.parent, urllib.parse.unquote(href.path)))
            assert target == os.path.join(PACKAGES, name, file), (file, target)
            data = pathlib.Path(source).read_bytes()
            assert pathlib.Path(target).read_bytes() == data, file
            assert href.fragment == "sha256=" + hashlib.sha256(data).hexdigest(), file
            assert attrs.get("data-requires-python") == wheel_metadata(source).get("Requires-Python"), file


def test_pip_installs_each_release(tmp_path: pathlib.Path) -> None:
    index = pathlib.Path(INDEX).as_uri()
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-cache-dir", "--no-compile", "-q"]
    command += ["--disable-pip-version-check", "--index-url", index]
    for n, (requirement, source) in enumerate(REQUESTS):
        target = tmp_path / f"site{n}"
        env = dict(os.environ, PIP_CONFIG_FILE=os.devnull)
        done = subprocess.run(
            [*command, "--target", str(target), requirement], capture_output=True, env=env, timeout=300
        )
        assert done.returncode == 0, (requirement, done.stderr[-1000:])
        infos = [p for p in target.iterdir() if p.name.endswith(".dist-info")]
        assert len(infos) == 1, (requirement, infos)
        installed = email.parser.BytesParser().parsebytes((infos[0] / "METADATA").read_bytes())
        assert installed["Version"] == wheel_metadata(source)["Version"], requirement
        with zipfile.ZipFile(source) as wheel:
            for item in wheel.infolist():
                if not item.is_dir() and ".dist-info/" not in item.filename:
                    assert (target / item.filename).read_bytes() == wheel.read(item), (requirement, item.filename)
