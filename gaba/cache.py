"""The recorded-response cache of :func:`gaba.llm.call_llm`: one JSON file per request.

Taught in the Preface. An answer lives at ``assets/llm-cache/<aa>/<key>.json``;
``python -m gaba cache verify`` checks every entry.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from pathlib import Path

from .config import ROOT, get_settings, shown
from .errors import CacheCorrupt
from .fileio import atomic_write_json

#: Bumped when the entry format changes.
CACHE_FORMAT = 1


def cache_key(request: dict) -> str:
    """sha256 of the canonical JSON of a request (sorted keys, no whitespace, UTF-8)."""
    blob = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def cache_path(key: str) -> Path:
    """Where the response for ``key`` is (or would be) recorded."""
    return get_settings().cache_dir / key[:2] / f"{key}.json"


def check_entry(path: str | Path, key: str | None = None) -> dict:
    """Read one entry and check it; return it, or raise :class:`~gaba.errors.CacheCorrupt`.

    Its ``request`` must hash to ``key`` (default: the file name): an edited request is caught, an
    edited response is not.
    """
    path = Path(path)
    where = shown(path)
    fix = (f" Delete {where} to record the call again (or restore it: git checkout -- {where}); "
           "`python -m gaba cache verify` checks the whole cache.")

    def bad(why: str) -> CacheCorrupt:
        return CacheCorrupt(f"corrupt cache entry {where}: {why}.{fix}")

    expected = key or path.stem
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise bad(f"cannot be read ({exc.strerror or exc})") from exc
    try:
        entry = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:    # not UTF-8, not JSON, a 5,000-digit number
        what = "empty" if not raw.strip() else "not valid JSON (truncated or edited?)"
        raise bad(what) from None if isinstance(exc, RecursionError) else exc
    if not isinstance(entry, dict):
        raise bad(f"holds a JSON {type(entry).__name__}, not an entry object")
    missing = [f for f in ("format", "key", "request", "response") if f not in entry]
    if missing:
        raise bad(f"has no {', '.join(missing)} field")
    if entry["format"] != CACHE_FORMAT:
        raise bad(f"has format {entry['format']!r}; this version of gaba reads format {CACHE_FORMAT}")
    if entry["key"] != expected:
        raise bad(f"its key field {str(entry['key'])[:16]!r}... is not the key it is stored under "
                  f"({expected[:16]}...)")
    if path.parent.name != expected[:2]:
        raise bad(f"it is in the folder {path.parent.name!r}, not {expected[:2]!r}")
    request, response = entry["request"], entry["response"]
    if not isinstance(request, dict) or not isinstance(response, dict):
        raise bad("its request and response must be JSON objects")
    if not isinstance(response.get("text"), str):
        raise bad("its response has no text string")
    if not isinstance(response.get("model", ""), str) or not isinstance(response.get("usage", {}), dict):
        raise bad("its response model must be a string and usage an object")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool)
               for v in (response.get("seconds", 0.0), *response.get("usage", {}).values())):
        raise bad("its response seconds and token counts must be numbers")
    if cache_key(request) != expected:
        raise bad("its stored request does not hash to its key (the request was edited, or the "
                  "file was copied from another entry)")
    return entry


def read_entry(key: str) -> dict | None:
    """The checked entry for ``key``; None when none is recorded; CacheCorrupt when it is bad."""
    path = cache_path(key)
    if not path.is_file():
        if path.exists() or path.is_symlink():      # a folder, a device, a broken link
            raise CacheCorrupt(f"corrupt cache entry {shown(path)}: not a regular file.")
        return None
    return check_entry(path, key)


def write_entry(key: str, request: dict, response: dict, purpose: str) -> None:
    """Record ``response`` to ``request`` under ``key`` (atomically)."""
    entry = {"format": CACHE_FORMAT, "key": key, "purpose": purpose,
             "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
             "request": request, "response": response}
    atomic_write_json(cache_path(key), entry)


@dataclasses.dataclass
class CacheReport:
    """What :func:`verify_cache` found: entries ``checked`` and ``bad`` (path, reason) pairs."""

    folder: Path
    checked: int = 0
    bad: list = dataclasses.field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.bad

    def __str__(self) -> str:
        where = shown(self.folder)
        if self.ok:
            return f"{self.checked} cache entries in {where}: all valid"
        return f"{len(self.bad)} of {self.checked} cache entries in {where} are corrupt"


def verify_cache(folder: str | Path | None = None) -> CacheReport:
    """Check every entry under ``folder`` (default: the configured cache) with :func:`check_entry`."""
    folder = Path(folder) if folder is not None else get_settings().cache_dir
    report = CacheReport(folder)
    if not folder.is_dir():
        raise CacheCorrupt(f"{shown(folder)} is not a folder of recorded responses.")
    for path in sorted(folder.rglob("*.json")):
        if path.name.startswith("."):
            continue
        report.checked += 1
        try:
            check_entry(path)
        except CacheCorrupt as exc:
            reason = str(exc).split(": ", 1)[-1].split(". Delete ", 1)[0]
            report.bad.append((path, reason))
    return report
