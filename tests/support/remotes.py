"""Remotes that misbehave, on 127.0.0.1: one that asks for credentials nobody has (HTTP 401),
and one that takes a connection and never says a word (git://); and an ssh of the person's own
that reaches `fakehost:` on this machine, telling what it was called with."""

from __future__ import annotations

import contextlib
import http.server
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from support.queue import git
from support.repos import Repo


class AskForCredentials(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(401)
        self.send_header("WWW-Authenticate", 'Basic realm="landwatch test"')
        self.end_headers()

    do_POST = do_GET

    def log_message(self, *args: object) -> None:
        pass


@contextlib.contextmanager
def asking_for_credentials() -> Iterator[str]:
    """The URL of a repository whose server answers every request with 401."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), AskForCredentials)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/repo.git"
    finally:
        server.shutdown()
        server.server_close()


class Silent:
    """A git:// server that takes every connection and never answers: git speaks the git
    protocol itself, without a helper process, and waits for it."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"git://127.0.0.1:{self.listener.getsockname()[1]}/repo.git"
        self.connections: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        self.listener.settimeout(0.05)
        while not self._stop.is_set():
            with contextlib.suppress(TimeoutError, OSError):
                self.connections.append(self.listener.accept()[0])

    def hung_up(self, within: float = 10.0) -> bool:
        """Whether someone connected, and every client has closed its end (within `within` s):
        a killed git's socket is closed by the kernel."""
        deadline = time.monotonic() + within
        if not self.connections:
            return False
        for connection in self.connections:
            while True:
                connection.settimeout(max(0.01, deadline - time.monotonic()))
                try:
                    if connection.recv(4096) == b"":
                        break  # the end of the stream: the client is gone
                except TimeoutError:
                    return False
        return True

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        for connection in self.connections:
            connection.close()
        self.listener.close()


@contextlib.contextmanager
def never_answering() -> Iterator[Silent]:
    server = Silent()
    try:
        yield server
    finally:
        server.close()


def partial_clone(root: Path, log: Path) -> Repo:
    """A partial clone (`--filter=blob:none`) of a repository on this machine, whose every fetch
    (a lazy one of a missing object among them) its remote writes a line of to `log`."""
    origin = Repo(root / "origin")
    origin.git("config", "uploadpack.allowFilter", "true")
    wrapper = root / "upload-pack"
    wrapper.write_text(f'#!/bin/sh\necho fetched >> "{log}"\nexec git-upload-pack "$@"\n')
    wrapper.chmod(0o755)
    url = f"file://{origin.path}"
    git("clone", "-q", "--filter=blob:none", "-u", str(wrapper), url, "clone", cwd=root)
    clone = Repo.existing(root / "clone")
    clone.git("config", "remote.origin.uploadpack", str(wrapper))
    log.write_text("")
    return clone


@dataclass(frozen=True)
class FakeSsh:
    """A program of the person's to reach `fakehost:/path` with (core.sshCommand, GIT_SSH...):
    each call a line of `log` (its arguments; whether it could ask: SSH_ASKPASS_REQUIRE, a
    terminal), then the remote command run here, as git asks sshd to. It says `-G` fails, as
    a program that is not OpenSSH, which git then calls with no option of OpenSSH's."""

    program: Path
    log: Path

    def calls(self) -> list[str]:
        """What it was called with, a call a line: `ARGS | askpass=... tty=yes|no`."""
        return self.log.read_text().splitlines() if self.log.exists() else []

    def connections(self) -> list[str]:
        """The calls that reached the remote (not git's `-G` probe): their arguments alone."""
        return [call.partition(" |")[0] for call in self.calls() if " -G " not in f" {call} "]


def fake_ssh(directory: Path, name: str = "ssh") -> FakeSsh:
    """A FakeSsh named `name` in `directory` (git knows a program named ssh for OpenSSH)."""
    directory.mkdir(parents=True, exist_ok=True)
    program, log = directory / name, directory / f"{name}.log"
    program.write_text(
        "#!/bin/sh\n"
        # `true`, not `:`: a special builtin's failed redirection ends the script.
        "if true 2>/dev/null < /dev/tty; then tty=yes; else tty=no; fi\n"
        f'echo "$* | askpass=${{SSH_ASKPASS_REQUIRE-}} tty=$tty" >> "{log}"\n'
        "for last do :; done\n"
        'case " $* " in *" -G "*) exit 1 ;; esac\n'
        'exec sh -c "$last"\n'
    )
    program.chmod(0o755)
    return FakeSsh(program, log)
