"""Atomic file writes with the permissions ``open()`` would give (0666 minus the umask).

A file is written beside its name and renamed over it, so a reader sees the old or the whole new one.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

__all__ = ["atomic_write_json", "atomic_write_text", "atomic_writer", "default_mode", "sha256_file"]


def default_mode() -> int:
    """The mode a new file gets from ``open()``: ``0o666 & ~umask`` (read without changing the umask)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike, *, binary: bool = False,
                  encoding: str = "utf-8") -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``, renamed to ``path`` on a clean exit (folders created)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".tmp")
    try:
        with (os.fdopen(fd, "wb") if binary else
              os.fdopen(fd, "w", encoding=encoding, newline="")) as f:
            yield f
        os.chmod(tmp, default_mode())        # mkstemp made it 0600
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def atomic_write_text(path: str | os.PathLike, text: str, *, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` with :func:`atomic_writer` (newlines as given); return the path."""
    with atomic_writer(path, encoding=encoding) as f:
        f.write(text)
    return Path(path)


def atomic_write_json(path: str | os.PathLike, data: Any) -> Path:
    """Write ``data`` as key-sorted JSON (indent 1, UTF-8, a final newline) with :func:`atomic_write_text`."""
    return atomic_write_text(path, json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n")


def sha256_file(path: str | Path) -> str:
    """SHA-256 of a file, read in blocks (``~`` is expanded)."""
    with open(Path(path).expanduser(), "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()
