"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe: JSON
messages separated by NUL bytes on file descriptors 3 and 4), so no websocket client or driver
package is needed: open a page, collect what went wrong, count its images, take a screenshot."""

from __future__ import annotations

import base64
import fcntl
import json
import os
import queue
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
)


def chromium_binary() -> str:
    """Debian's chromium (scripts/setup-tests.sh installs it); outside CI a missing one skips, on CI it fails."""
    found = shutil.which("chromium")
    if found is None:
        message = "chromium is missing: scripts/setup-tests.sh installs it (Debian package chromium)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    return found


@dataclass
class PageLoad:
    url: str
    problems: list[str] = field(default_factory=list)
    """Console errors, uncaught exceptions, failed requests, error log entries."""
    images: list[dict[str, Any]] = field(default_factory=list)
    """Every <img>: src, complete, naturalWidth."""
    screenshot: Path | None = None


class Chromium:
    def __init__(self, profile: Path, log: Path, width: int = 1280, height: int = 900) -> None:
        self.width, self.height = width, height
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The child's ends above 10, so putting them on 3 and 4 cannot close one by its number.
        to_browser_r, from_browser_w = (_above_ten(fd) for fd in (to_browser_r, from_browser_w))
        binary = chromium_binary()
        # bash puts the pipe ends on descriptors 3 and 4, where Chromium expects them.
        launch = f'exec "$@" 3<&{to_browser_r} 4>&{from_browser_w} {to_browser_r}<&- {from_browser_w}>&-'
        self._log = log.open("wb")
        self._proc = subprocess.Popen(
            ["bash", "-c", launch, "chromium", binary, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            pass_fds=(to_browser_r, from_browser_w),
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._next_id = 0
        self._messages: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self._events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        buffer = b""
        while chunk := os.read(self._from_browser, 1 << 16):
            buffer += chunk
            *messages, buffer = buffer.split(b"\0")
            for message in messages:
                self._messages.put(json.loads(message))
        self._messages.put(None)  # the browser closed its end

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        return self._wait(lambda m: m.get("id") == self._next_id, f"reply to {method}")

    def _wait(self, wanted: Any, what: str, timeout: float = 60.0) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self._messages.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise TimeoutError(f"chromium: no {what} within {timeout:.0f} s") from None
            if message is None:
                raise RuntimeError(f"chromium exited before the {what}")
            if "method" in message:
                self._events.append(message)
            if wanted(message):
                if "error" in message:
                    raise RuntimeError(f"chromium: {what}: {message['error']}")
                return message.get("result", message.get("params"))

    def load(self, url: str, screenshot: Path, max_height: int = 2600) -> PageLoad:
        """Open `url` in a fresh tab, wait for its load event, then read what failed and its images."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable", session=session)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": self.width, "height": self.height, "deviceScaleFactor": 1, "mobile": False},
            session=session,
        )
        self._events.clear()
        self.call("Page.navigate", {"url": url}, session=session)
        self._wait(lambda m: m.get("method") == "Page.loadEventFired" and m.get("sessionId") == session, "load event")
        found = self.call(
            "Runtime.evaluate",
            {
                "expression": "JSON.stringify(Array.from(document.images).map("
                "i => ({src: i.currentSrc || i.src, complete: i.complete, naturalWidth: i.naturalWidth})))",
                "returnByValue": True,
            },
            session=session,
        )
        page = PageLoad(url=url, images=json.loads(found["result"]["value"]))
        page.problems = [p for event in self._events if event.get("sessionId") == session if (p := _problem(event))]
        size = self.call("Page.getLayoutMetrics", session=session)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": self.width, "height": min(max_height, int(size["height"])), "scale": 1}
        shot = self.call(
            "Page.captureScreenshot",
            {"format": "png", "captureBeyondViewport": True, "clip": clip},
            session=session,
        )
        screenshot.write_bytes(base64.b64decode(shot["data"]))
        page.screenshot = screenshot
        self.call("Target.closeTarget", {"targetId": target})
        return page

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self._proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._reader.join(timeout=10)
        os.close(self._to_browser)
        os.close(self._from_browser)
        self._log.close()


def _above_ten(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return moved


def _problem(event: dict[str, Any]) -> str | None:
    method, params = event.get("method"), event.get("params", {})
    if method == "Runtime.exceptionThrown":
        return f"exception: {params['exceptionDetails'].get('text')}"
    if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        return f"console.{params['type']}: {[a.get('value', a.get('description')) for a in params.get('args', [])]}"
    if method == "Log.entryAdded" and params["entry"].get("level") == "error":
        return f"log: {params['entry'].get('text')} {params['entry'].get('url', '')}"
    if method == "Network.loadingFailed" and not params.get("canceled"):
        return f"request failed: {params.get('errorText')} ({params.get('type')})"
    return None
