"""Task directories from strangers: links are never followed, size is bounded, names are kept
as they are, and saving never writes outside the task."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rst_synth.task import Task, TaskFormatError


def one_line(error: pytest.ExceptionInfo[TaskFormatError]) -> str:
    message = str(error.value)
    assert "\n" not in message
    return message


def test_a_link_out_of_the_task_is_rejected_before_anything_is_read(task_factory, tmp_path: Path) -> None:
    root = task_factory()
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret\n")
    (root / "environment" / "notes.txt").symlink_to(secret)
    with pytest.raises(TaskFormatError) as error:
        Task.load(root)
    message = one_line(error)
    assert message.startswith(f"{root / 'environment' / 'notes.txt'}: is a symbolic link")
    assert "outside the task directory" in message and "host secret" not in message


@pytest.mark.parametrize(
    ("name", "target"),
    [
        ("environment/alias.txt", "data.txt"),  # a file inside the task
        ("environment/subdir", "."),  # a directory inside the task
        ("environment/dangling", "nowhere.txt"),  # nothing at all
        ("task.toml.link", "task.toml"),
    ],
)
def test_links_inside_the_task_are_rejected_too(task_factory, name: str, target: str) -> None:
    root = task_factory()
    (root / "environment" / "data.txt").write_text("data\n")
    (root / name).symlink_to(target)
    with pytest.raises(TaskFormatError, match="is a symbolic link .* links are never followed") as error:
        Task.load(root)
    assert "(inside the task)" in one_line(error)


def test_a_linked_task_toml_is_never_read(task_factory, tmp_path: Path) -> None:
    root = task_factory()
    real = tmp_path / "elsewhere.toml"
    real.write_text((root / "task.toml").read_text())
    (root / "task.toml").unlink()
    (root / "task.toml").symlink_to(real)
    with pytest.raises(TaskFormatError, match=r"task\.toml: is a symbolic link"):
        Task.load(root)


def test_size_is_checked_from_metadata_before_reading(task_factory, monkeypatch: pytest.MonkeyPatch) -> None:
    root = task_factory()
    with (root / "environment" / "blob.bin").open("wb") as handle:
        handle.truncate(2 * 2**30)  # sparse: 2 GB long, nothing on disk, never read
    with pytest.raises(
        TaskFormatError, match=r"holds more than 256 MB of files \(environment/blob\.bin alone is 2048 MB\)"
    ):
        Task.load(root)
    (root / "environment" / "blob.bin").unlink()
    (root / "environment" / "two-mb.bin").write_bytes(b"\0" * 2 * 2**20)
    monkeypatch.setenv("RST_MAX_TASK_MB", "1")
    with pytest.raises(TaskFormatError, match="more than 1 MB"):
        Task.load(root)
    monkeypatch.setenv("RST_MAX_TASK_MB", "3")
    assert "environment/two-mb.bin" in Task.load(root).files


def test_odd_file_names_survive_load_and_save(task_factory, tmp_path: Path) -> None:
    root = task_factory()
    names = ["my data.txt", "new\nline.txt", "ünïcødé ✓.txt", "tab\there.txt"]
    for i, name in enumerate(names):
        (root / "environment" / name).write_text(f"body{i}\n")
    task = Task.load(root)
    again = Task.load(task.save(tmp_path / "copy"))
    for i, name in enumerate(names):
        assert again.files[f"environment/{name}"] == f"body{i}\n".encode()
    assert again.environment_hash() == task.environment_hash()


def test_a_file_name_that_is_not_utf8_is_rejected(task_factory) -> None:
    root = task_factory()
    raw = os.fsencode(root / "environment") + b"/bad-\xff.txt"
    with open(raw, "wb") as handle:
        handle.write(b"x")
    with pytest.raises(TaskFormatError, match="a file name that is not UTF-8"):
        Task.load(root)


def test_fifos_and_sockets_are_skipped_without_being_opened(task_factory) -> None:
    root = task_factory()
    os.mkfifo(root / "environment" / "pipe")  # opening it would block forever
    assert "environment/pipe" not in Task.load(root).files


@pytest.mark.parametrize("bad", ["../escape.txt", "/etc/passwd", "environment/../../x", "a//b", "./x"])
def test_save_never_writes_outside_the_task(task_factory, tmp_path: Path, bad: str) -> None:
    task = Task.load(task_factory())
    task.files[bad] = b"planted\n"
    target = tmp_path / "out" / "task"
    with pytest.raises(TaskFormatError, match="would be written outside the task directory"):
        task.save(target)
    assert not target.exists() and not (tmp_path / "out" / "escape.txt").exists()
    assert not list((tmp_path / "out").glob(".*tmp-*"))


def test_a_saved_task_holds_no_links(task_factory, tmp_path: Path) -> None:
    out = Task.load(task_factory()).save(tmp_path / "copy")
    assert not [p for p in out.rglob("*") if p.is_symlink()]
