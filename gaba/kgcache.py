"""The per-document triples cache: each document's extraction, keyed by text, request and model."""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from . import cache, llm
from .config import ASSETS
from .fileio import atomic_write_json
from .request import extraction_request, prompt_version


#: Default folder of the per-document triples cache (``GABA_KG_CACHE`` overrides it).
KG_CACHE_DIR = ASSETS / "kg-cache"
#: Bumped when the triples-cache entry format changes.
CACHE_FORMAT = 1


def kg_cache_dir(cache_dir: str | Path | None = None) -> Path:
    """The triples cache folder: ``cache_dir``, else ``GABA_KG_CACHE``, else ``assets/kg-cache``."""
    return Path(cache_dir or os.environ.get("GABA_KG_CACHE") or KG_CACHE_DIR)


def triples_cache_key(text: str, schema: Any = None) -> str:
    """sha256 of the document text, the extraction request (schema: its prompt version) and the model."""
    what = ({"request": extraction_request(text)} if schema is None
            else {"prompt": prompt_version(schema)})
    blob = json.dumps({"text": text, **what, "model": llm._identity()}, sort_keys=True,
                      ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def read_entry(path: Path, key: str) -> dict | None | bool:
    """The entry at ``path``; None if absent; False if present but corrupt."""
    if not path.is_file():
        return None
    try:
        entry = json.loads(path.read_text(encoding="utf-8"))
        ok = (isinstance(entry, dict) and entry.get("key") == key
              and isinstance(entry.get("seconds", 0.0), (int, float))
              and isinstance(entry.get("usage") or {}, dict)
              and isinstance(entry.get("facts"), list)
              and all(isinstance(f, dict) and (all(isinstance(f.get(k), str) for k in ("subject", "object"))
                                               or list(f) == ["row"])     # a malformed row, as recorded
                      for f in entry["facts"]))
        return entry if ok else False
    except (OSError, ValueError, RecursionError):     # ValueError: not JSON, or not UTF-8
        return False


def write_entry(path: Path, entry: dict) -> None:
    """Write a cache entry to ``path`` atomically."""
    atomic_write_json(path, entry)


def recorded_seconds(resp) -> float:
    """Model seconds of a response: its wall time, or the time recorded in the LLM cache."""
    if not resp.cached:
        return round(resp.seconds, 3)
    entry = cache.read_entry(resp.key)
    return float(entry["response"].get("seconds", 0.0)) if entry else 0.0
