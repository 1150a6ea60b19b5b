"""`landwatch service install|uninstall|start|stop|status`: the reviewer under the user's
service manager: a systemd user unit, a launchd agent, or a detached process where neither works.

The unit and the agent give the reviewer the person's XDG directories as `service install`
found them (a service manager starts it without the shell's environment): it keeps its state and
reads their approvals where every command does. Doctor names a service given others (`apart`).

LANDWATCH_TEST_SCHEDULER=systemd:CMD, launchd:CMD or detach picks one and replaces its command,
as git's GIT_TEST_MAINT_SCHEDULER does for `git maintenance start`.
"""

from __future__ import annotations

import getpass
import os
import plistlib
import signal
import subprocess
import sys
from pathlib import Path
from typing import TextIO

from landwatch import layout, user_dirs
from landwatch.commands.unit_words import environment_lines, exec_start
from landwatch.daemon.lock import holder, wait_until_released
from landwatch.errors import UserError
from landwatch.text import duration

UNIT = "landwatch-reviewer.service"
LABEL = "dev.landwatch.reviewer"
# How long a stop waits for the reviewer to end: a running job's grace to finish (10 s unless
# the reviewer was given another) and the unit's TimeoutStopSec (30 s), with room to spare.
STOP_WAIT = 60.0


class ServiceError(UserError):
    """The service manager refused; the message says which command and what it said."""


def _run(command: list[str], *, check: bool = True) -> subprocess.CompletedProcess[str]:
    try:
        result = subprocess.run(
            command, capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise ServiceError(f"{' '.join(command)}: {error}") from None
    if check and result.returncode != 0:
        said = (result.stderr or result.stdout).strip().splitlines()
        raise ServiceError(f"{' '.join(command)} failed: {said[-1] if said else result.returncode}")
    return result


class Detached:
    name = "detached"

    def install(self, out: TextIO) -> None:
        self.start(out)
        print(
            "landwatch: no service manager here (no systemd user session, not macOS): the "
            "reviewer runs detached and will not come back after a reboot or logout; run "
            "`landwatch service start` again then",
            file=out,
        )

    def uninstall(self, out: TextIO) -> None:
        self.stop(out, wait=0.0)  # `uninstall --all` waits, saying so, for as long as it says
        Systemd.forget_unit(out)

    def start(self, out: TextIO) -> None:
        if holder() is not None:
            print("landwatch: the reviewer is already running", file=out)
            return
        result = _run([str(layout.ENTRY_POINT.path()), "reviewer", "--detach"], check=False)
        print((result.stdout + result.stderr).strip(), file=out)
        if result.returncode != 0:
            raise ServiceError("the reviewer did not start")

    def stop(self, out: TextIO, *, wait: float = STOP_WAIT) -> None:
        running = holder()
        if running is None or running.pid is None:
            print("landwatch: no reviewer is running", file=out)
            return
        os.kill(running.pid, signal.SIGTERM)
        print(f"landwatch: asked the reviewer (pid {running.pid}) to stop", file=out)
        # Ended before this returns: install.sh's `stop` then `install` found the old reviewer
        # still finishing its review, started none, and none ran once it ended (an audit).
        if wait and not wait_until_released(wait, pid=running.pid):
            print(
                f"landwatch: the reviewer (pid {running.pid}) has not ended after {duration(wait)}",
                file=out,
            )

    def describe(self) -> str:
        return "a detached process (no service manager)"


def _stop_detached(out: TextIO) -> None:
    """A detached reviewer stopped before the manager starts its own, which would find the lock
    held, fail, and be started again and again (an audit)."""
    running = holder()
    if running is not None and running.mode == "detached":
        Detached().stop(out)


class Systemd:
    name = "systemd"

    def __init__(self, systemctl: str = "systemctl", loginctl: str = "loginctl") -> None:
        self.systemctl = systemctl
        self.loginctl = loginctl

    @staticmethod
    def unit_places() -> list[Path]:
        """Where the user manager may read the unit, in the order tried: ~/.config/systemd/user,
        where it reads unless its own environment names another XDG_CONFIG_HOME (systemd.unit(5):
        the shell's is not its own), then under the shell's $XDG_CONFIG_HOME, where it reads
        only when it was started with that one too (set at login, for every process)."""
        shell = os.environ.get("XDG_CONFIG_HOME", "")
        configs = [Path.home() / ".config", *([Path(shell)] if shell.startswith("/") else [])]
        return [config / "systemd" / "user" / UNIT for config in dict.fromkeys(configs)]

    @classmethod
    def unit_path(cls) -> Path:
        """The unit landwatch wrote: the first of unit_places holding one, else the first."""
        places = cls.unit_places()
        return next((place for place in places if place.is_file()), places[0])

    def reads(self, place: Path) -> bool | None:
        """Whether the user manager read the unit from `place` when it last loaded it (None: it
        cannot be asked)."""
        asked = [self.systemctl, "--user", "show", "--property=FragmentPath", "--value", UNIT]
        try:
            said = _run(asked, check=False)
        except ServiceError:
            return None
        if said.returncode != 0:
            return None
        try:
            return os.path.samefile(said.stdout.strip(), place)
        except OSError:
            return False

    @staticmethod
    def unit_text(entry: Path, environment: dict[str, str]) -> str:
        """The unit: the entry point's reviewer, given `environment` (the XDG directories)."""
        return (
            "[Unit]\n"
            "Description=landwatch reviewer: reviews the commits that land in your repositories\n"
            "\n"
            "[Service]\n"
            "Type=simple\n"
            "# Your XDG directories as `landwatch service install` found them: where every\n"
            "# landwatch command keeps its state and reads your approvals.\n"
            + "".join(environment_lines(environment))
            + f"ExecStart={exec_start(entry)}\n"
            "Restart=on-failure\n"
            "RestartSec=5\n"
            "# SIGTERM lets a running job finish within the reviewer's grace period.\n"
            "TimeoutStopSec=30\n"
            "\n"
            "[Install]\n"
            "WantedBy=default.target\n"
        )

    def available(self) -> bool:
        return _run([self.systemctl, "--user", "show-environment"], check=False).returncode == 0

    def install(self, out: TextIO) -> None:
        places = self.unit_places()
        path = self._written(self.unit_text(layout.ENTRY_POINT.path(), user_dirs.xdg_homes()))
        for other in places:
            if other != path:  # an older release's, where the manager does not read it
                other.unlink(missing_ok=True)
        _stop_detached(out)
        _run([self.systemctl, "--user", "enable", UNIT])
        # Started, or started again if it ran: one running keeps the environment it began with.
        _run([self.systemctl, "--user", "restart", UNIT])
        print(
            f"landwatch: reviewer installed as the systemd user service {UNIT} ({path})", file=out
        )
        if path != places[-1]:
            print(
                f"landwatch: not under your XDG_CONFIG_HOME ({places[-1].parents[2]}): your "
                "systemd user manager does not have it, and reads its units from "
                f"{path.parent}",
                file=out,
            )
        linger = _run(
            [self.loginctl, "show-user", getpass.getuser(), "--property=Linger"], check=False
        )
        if "Linger=no" in linger.stdout:
            print(
                "landwatch: your user services stop when you log out; to keep the reviewer "
                f"running: loginctl enable-linger {getpass.getuser()}",
                file=out,
            )

    def _written(self, text: str) -> Path:
        """The unit written at the first of unit_places the user manager reads it from
        (ServiceError where it reads none), and loaded there."""
        places = self.unit_places()
        for place in places:
            place.parent.mkdir(parents=True, exist_ok=True)
            place.write_text(text)
            _run([self.systemctl, "--user", "daemon-reload"])
            if self.reads(place) is not False:
                return place
            place.unlink()
        _run([self.systemctl, "--user", "daemon-reload"], check=False)
        where = " or ".join(str(place.parent) for place in places)
        raise ServiceError(
            f"your systemd user manager does not read units from {where}: `systemctl --user "
            "show --property=UnitPath` says where it does"
        )

    def uninstall(self, out: TextIO) -> None:
        _run([self.systemctl, "--user", "disable", "--now", UNIT], check=False)
        for place in self.unit_places():
            place.unlink(missing_ok=True)
        _run([self.systemctl, "--user", "daemon-reload"], check=False)
        print(f"landwatch: removed the systemd user service {UNIT}", file=out)

    @classmethod
    def forget_unit(cls, out: TextIO) -> None:
        """The unit files and their `enable` links removed where no user manager answers here
        (`su -`, ssh without a session): an audit found the unit left enabled, running an
        entry point uninstall had removed, at the next login."""
        for place in cls.unit_places():
            wanted = place.parent / "default.target.wants" / UNIT
            if wanted.is_symlink():
                wanted.unlink()
            if place.is_file():
                place.unlink()
                print(
                    f"landwatch: removed the systemd unit {place} (no user manager answers"
                    " here: it forgets it at its next start)",
                    file=out,
                )

    def start(self, out: TextIO) -> None:
        _run([self.systemctl, "--user", "start", UNIT])
        print(f"landwatch: started {UNIT}", file=out)

    def stop(self, out: TextIO) -> None:
        _run([self.systemctl, "--user", "stop", UNIT])
        print(f"landwatch: stopped {UNIT}", file=out)

    def describe(self) -> str:
        state = _run([self.systemctl, "--user", "is-active", UNIT], check=False).stdout.strip()
        return f"the systemd user service {UNIT} ({state or 'unknown'})"

    def unread(self) -> Path | None:
        """The unit landwatch wrote, where the user manager does not read it (an older release
        wrote it under the shell's XDG_CONFIG_HOME): the reviewer never starts. None where it
        reads it, there is none, or it cannot be asked."""
        path = self.unit_path()
        return path if path.is_file() and self.reads(path) is False else None

    def apart(self) -> list[str]:
        """The XDG variables the unit installed gives otherwise than this environment has them
        (none where no unit is installed)."""
        try:
            found = self.unit_path().read_text(errors="replace").splitlines(keepends=True)
        except OSError:
            return []
        now = environment_lines(user_dirs.xdg_homes())

        def line(lines: list[str], name: str) -> str | None:
            return next((each for each in lines if each.startswith(f'Environment="{name}=')), None)

        return [name for name in user_dirs.XDG_HOMES if line(found, name) != line(now, name)]


class Launchd:
    name = "launchd"

    def __init__(self, launchctl: str = "launchctl") -> None:
        self.launchctl = launchctl

    @staticmethod
    def plist_path() -> Path:
        return Path.home() / "Library" / "LaunchAgents" / f"{LABEL}.plist"

    @staticmethod
    def plist(entry: Path, environment: dict[str, str]) -> dict[str, object]:
        """The agent: the entry point's reviewer, given `environment` (the XDG directories)."""
        return {
            "Label": LABEL,
            "ProgramArguments": [str(entry), "reviewer"],
            "EnvironmentVariables": environment,
            "RunAtLoad": True,
            # Started again when it fails, not when it ends well (`service stop`'s SIGTERM):
            # kept alive whatever, it could not be stopped (an audit). A failure that comes back
            # at once is tried once a minute, as launchd has no limit of tries.
            "KeepAlive": {"SuccessfulExit": False},
            "ThrottleInterval": 60,
            "StandardErrorPath": str(layout.state_dir() / "reviewer.stderr.log"),
        }

    def _domain(self) -> str:
        return f"gui/{os.getuid()}"

    def install(self, out: TextIO) -> None:
        path = self.plist_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as file:
            plistlib.dump(self.plist(layout.ENTRY_POINT.path(), user_dirs.xdg_homes()), file)
        _run([self.launchctl, "bootout", f"{self._domain()}/{LABEL}"], check=False)
        _stop_detached(out)
        _run([self.launchctl, "bootstrap", self._domain(), str(path)])
        print(f"landwatch: reviewer installed as the launchd agent {LABEL} ({path})", file=out)

    def uninstall(self, out: TextIO) -> None:
        _run([self.launchctl, "bootout", f"{self._domain()}/{LABEL}"], check=False)
        self.plist_path().unlink(missing_ok=True)
        print(f"landwatch: removed the launchd agent {LABEL}", file=out)

    def start(self, out: TextIO) -> None:
        _run([self.launchctl, "kickstart", f"{self._domain()}/{LABEL}"])
        print(f"landwatch: started {LABEL}", file=out)

    def stop(self, out: TextIO) -> None:
        _run([self.launchctl, "kill", "SIGTERM", f"{self._domain()}/{LABEL}"])
        print(f"landwatch: stopped {LABEL} (launchd starts it again at next login)", file=out)

    def describe(self) -> str:
        return f"the launchd agent {LABEL}"

    def apart(self) -> list[str]:
        """The XDG variables the agent installed gives otherwise than this environment has them
        (none where no agent is installed)."""
        try:
            with self.plist_path().open("rb") as file:
                given = plistlib.load(file).get("EnvironmentVariables") or {}
        except (OSError, ValueError, AttributeError):  # plistlib's errors are ValueErrors
            return []
        now = user_dirs.xdg_homes()
        return [name for name in user_dirs.XDG_HOMES if given.get(name) != now.get(name)]


Scheduler = Detached | Systemd | Launchd


# `service status` when the reviewer is not running, as `systemctl status` says "inactive".
NOT_RUNNING = 3


def scheduler() -> Scheduler:
    forced = os.environ.get("LANDWATCH_TEST_SCHEDULER")
    if forced:
        name, _, command = forced.partition(":")
        if name == "systemd":
            return Systemd(command or "systemctl", command or "loginctl")
        if name == "launchd":
            return Launchd(command or "launchctl")
        return Detached()
    if sys.platform == "darwin":
        return Launchd()
    systemd = Systemd()
    if sys.platform.startswith("linux") and systemd.available():
        return systemd
    return Detached()


def apart() -> tuple[Path, list[str]] | None:
    """The service file landwatch installed whose XDG directories differ from this command
    line's, and which variables differ (doctor); None where none does."""
    for chosen, path in ((Systemd(), Systemd.unit_path()), (Launchd(), Launchd.plist_path())):
        if names := chosen.apart():
            return path, names
    return None


def unread() -> Path | None:
    """The systemd unit landwatch wrote where the user manager does not read it (doctor): asked
    of the manager only where there is one."""
    if not Systemd.unit_path().is_file():
        return None
    chosen = scheduler()
    return chosen.unread() if isinstance(chosen, Systemd) else None


def service(action: str, *, out: TextIO | None = None) -> int:
    out = sys.stdout if out is None else out  # the stdout of the call, not of the import
    chosen = scheduler()
    if action == "status":
        running = holder()
        state = "not running" if running is None else f"running ({running.describe()})"
        print(f"landwatch: the reviewer is {state}; service: {chosen.describe()}", file=out)
        return 0 if running is not None else NOT_RUNNING
    getattr(chosen, action)(out)
    return 0
