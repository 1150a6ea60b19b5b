"""Desktop notifications of reviews, off by default: with `git config landwatch.notify errors`
(or `findings`), a review at that level is told once through what the desktop offers.

`notify-send` on a Linux desktop, `osascript` on macOS; nothing where there is no desktop (an
SSH session, a container, no session bus). Never blocking, never failing a review; at most one
per review and RATE_LIMIT in a minute, whatever the number of landings.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from landwatch import layout
from landwatch.files import read_file, write_atomic
from landwatch.programs import which
from landwatch.review.findings import Severity
from landwatch.review.report import Report
from landwatch.text import repository_name, safe

LEVELS = {"off": None, "errors": Severity.ERROR, "findings": Severity.WARNING}
RATE_LIMIT = 3  # notifications in a minute, at most
WINDOW = 60.0
TIMEOUT = 5.0


def level(value: str) -> Severity | None:
    """The severity a `landwatch.notify` value (as layout.NOTIFY reads it) asks to be told of;
    None: nothing."""
    return LEVELS[value]


def command(title: str, body: str) -> list[str] | None:
    """How this desktop shows a notification, or None where there is none to show it on."""
    if sys.platform == "darwin":
        osascript = which("osascript")
        if osascript is None:
            return None
        # A JSON string is an AppleScript string when nothing is escaped as \u: quotes and
        # backslashes are the only escapes the two share.
        quoted = [json.dumps(text, ensure_ascii=False) for text in (body, title)]
        script = f"display notification {quoted[0]} with title {quoted[1]}"
        return [osascript, "-e", script]
    sender = which("notify-send")
    runtime = os.environ.get("XDG_RUNTIME_DIR", "")
    bus = os.environ.get("DBUS_SESSION_BUS_ADDRESS") or (
        runtime and os.path.exists(os.path.join(runtime, "bus"))
    )
    if sender is None or not bus:
        return None  # no desktop session: an SSH login, a container
    return [sender, "--app-name=landwatch", title, body]


def _recent(now: float) -> list[float]:
    try:
        data = json.loads(read_file(layout.NOTIFIED.path(), trusted=None))
        return [float(t) for t in data if now - float(t) < WINDOW]
    except (OSError, ValueError, TypeError):
        return []


def tell(git_dir: Path, report: Report, wanted: Severity | None, now: float | None = None) -> bool:
    """Notify of `report` when it reaches `wanted`; True when a notification was sent."""
    if wanted is None or report.worst() < wanted:
        return False
    moment = time.time() if now is None else now
    recent = _recent(moment)
    if len(recent) >= RATE_LIMIT:
        return False
    title = f"landwatch: {safe(repository_name(git_dir))}"
    body = f"{report.commit[:7]} — {report.summary()} · landwatch show {report.commit[:7]}"
    argv = command(title, body)
    if argv is None:
        return False
    try:
        # Not waited for beyond TIMEOUT: a stuck notification daemon delays nothing.
        subprocess.run(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    with contextlib.suppress(OSError):
        write_atomic(
            layout.NOTIFIED.path(), json.dumps([*recent, moment]), trusted=None, durable=False
        )
    return True
