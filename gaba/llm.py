"""One door to every language model call: :func:`call_llm`, with a recorded-response cache.

Taught in the Preface. Every model call in the book goes through :func:`call_llm`:

1. the request (backend, model identity, messages, JSON schema, parameters, seed) is turned
   into canonical JSON and hashed with sha256;
2. if ``assets/llm-cache/<aa>/<hash>.json`` exists, its recorded response is returned
   (``Response.cached`` is True) - this is how the book rebuilds in minutes with no key. The
   entry is checked first (:func:`check_entry`: its shape, and its stored request re-hashed to
   its key); a damaged or edited entry raises :class:`~gaba.errors.CacheCorrupt` naming the file,
   and ``python -m gaba cache verify`` checks them all;
3. otherwise the configured model is called (the embedded local model by default, or an
   OpenAI-compatible endpoint), the answer is written to the cache atomically, and returned.
   With ``GABA_OFFLINE=1`` a miss raises :class:`~gaba.errors.CacheMiss` instead. Any fault of
   the endpoint raises :class:`~gaba.errors.BackendUnavailable`; transient ones (HTTP 429/5xx, a
   dropped connection) are retried first, all within ``GABA_TIMEOUT`` seconds in total.

With a ``schema``, the answer must be JSON that validates against it (``jsonschema``); a
violation is retried with the validation error appended to the prompt, then raises
:class:`~gaba.errors.LLMOutputError`. Only real model output is ever written to the cache.

Examples
--------
>>> from gaba.llm import call_llm                                    # doctest: +SKIP
>>> call_llm("Name the capital of France in one word.").text          # doctest: +SKIP
'Paris'
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import hashlib
import importlib
import json
import random
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import localmodel
from .config import LOCAL_MODEL_SHA256, ROOT, dotenv_notice, get_settings
from .errors import BackendUnavailable, CacheCorrupt, CacheMiss, LLMOutputError
from .fileio import atomic_write_text

#: Answers are capped so a looping small model cannot run forever.
DEFAULT_MAX_TOKENS = 512
#: Validation retries for schema calls (so up to 1 + SCHEMA_RETRIES model calls).
SCHEMA_RETRIES = 2
#: Bumped when the cache entry format changes.
CACHE_FORMAT = 1
#: Total seconds a call to a hosted endpoint may take, retries included (``GABA_TIMEOUT`` overrides).
HOSTED_TIMEOUT = 120.0
#: The same for the local model on a CPU (a long answer can take minutes).
LOCAL_TIMEOUT = 600.0
#: Seconds to wait for a connection, within the total.
CONNECT_TIMEOUT = 10.0
#: Retries of transient hosted failures (HTTP 429/5xx, dropped connections), within the total.
HOSTED_RETRIES = 5
#: OpenAI's API, used when no base URL is set.
OPENAI_URL = "https://api.openai.com/v1"
#: Model calls in flight for a hosted (OpenAI-compatible) endpoint unless ``GABA_CONCURRENCY`` says.
HOSTED_CONCURRENCY = 8


@dataclasses.dataclass
class Response:
    """What :func:`call_llm` returns."""

    text: str                       # the model's reply
    data: Any = None                # parsed and validated JSON when a schema was given
    model: str = ""                 # the model that produced it
    usage: dict = dataclasses.field(default_factory=dict)  # prompt_tokens, completion_tokens
    cached: bool = False            # True when served from the response cache
    seconds: float = 0.0            # wall time of this call (cache hit: the lookup)
    key: str = ""                   # the cache key (sha256)


@dataclasses.dataclass
class Stats:
    """Counters of the calls made in this process; see :func:`stats`."""

    calls: int = 0
    hits: int = 0
    misses: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0      # time spent waiting for the model on misses

    def __str__(self) -> str:
        return (f"{self.calls} calls: {self.hits} from cache, {self.misses} to the model "
                f"({self.model_seconds:.1f} s); tokens: {self.prompt_tokens} prompt + "
                f"{self.completion_tokens} completion")


_stats = Stats()
#: Guards the counters and the table of calls in flight (calls may come from several threads).
_lock = threading.Lock()
#: cache key -> Future of the call answering it, while one is in flight (identical calls wait on it).
_inflight: dict = {}
#: A function ``(request: dict) -> dict(text, model, usage)`` replacing the real backend.
#: Only unit tests of the plumbing set it (see :func:`use_backend`).
_backend_override: Callable[[dict], dict] | None = None
_clients: dict = {}


def stats() -> Stats:
    """Counters of this process's calls (a copy)."""
    with _lock:
        return dataclasses.replace(_stats)


def concurrency(requested: int | None = None) -> int:
    """How many model calls to keep in flight: ``requested``, else ``GABA_CONCURRENCY``, else
    for the local model its slots (``GABA_LOCAL_PARALLEL``, default 1: it answers one request at
    a time) and :data:`HOSTED_CONCURRENCY` for an OpenAI-compatible endpoint.

    Examples
    --------
    >>> concurrency(4)
    4
    """
    if requested is not None:
        if isinstance(requested, bool) or int(requested) != requested or requested < 1:
            raise ValueError(f"concurrency must be a whole number >= 1, got {requested!r}")
        return int(requested)
    s = get_settings()
    if s.concurrency is not None:
        return s.concurrency
    if _backend_override is not None:
        return 1
    if s.backend == "local":       # the embedded server's slots; a shared server's are unknown
        return 1 if s.local_url else s.local_parallel
    return HOSTED_CONCURRENCY


def reset_stats() -> None:
    """Set all counters of :func:`stats` to zero."""
    global _stats
    _stats = Stats()


def use_backend(fn: Callable[[dict], dict] | None, *, name: str = "scripted") -> None:
    """Replace the model backend by ``fn`` (None restores the configured one).

    For unit tests of the plumbing only: ``fn(request)`` receives the request dict and
    returns ``{"text": ..., "model": ..., "usage": {...}}``. Calls made through it are keyed
    under the backend ``name``, so they never mix with real recorded responses.
    """
    global _backend_override, _override_name
    _backend_override = fn
    _override_name = name


_override_name = "scripted"


def _identity() -> dict:
    """Backend and model identity that enter the cache key."""
    s = get_settings()
    if _backend_override is not None:
        return {"backend": _override_name, "model": "scripted"}
    if s.backend == "local":
        if s.local_model_path:
            p = Path(s.local_model_path)
            return {"backend": "local", "model": p.name, "size": p.stat().st_size}
        return {"backend": "local", "model": s.model, "sha256": LOCAL_MODEL_SHA256}
    return {"backend": "openai", "provider": s.provider, "model": s.model}


def cache_key(request: dict) -> str:
    """sha256 of the canonical JSON of a request (sorted keys, no whitespace, UTF-8)."""
    blob = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def cache_path(key: str) -> Path:
    """Where the response for ``key`` is (or would be) recorded."""
    return get_settings().cache_dir / key[:2] / f"{key}.json"


def _shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it (shorter messages)."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def check_entry(path: str | Path, key: str | None = None) -> dict:
    """Read one cache entry and check it; return it, or raise :class:`~gaba.errors.CacheCorrupt`.

    The entry must be a JSON object of the current format whose ``response`` has a string
    ``text``, whose ``key`` is the file's name, and whose stored ``request`` hashes (with
    :func:`cache_key`) to that key, so an edited request or key is caught. (An edited
    ``response`` cannot be told from a real one: the hash covers the request only; ``git diff``
    on ``assets/llm-cache/`` shows such edits.)

    Parameters
    ----------
    path : str or Path
        The entry's file.
    key : str, optional
        The key it is read for (default: the one its file name says).
    """
    path = Path(path)
    where = _shown(path)
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
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        what = "empty" if not raw.strip() else "not valid JSON (truncated or edited?)"
        raise bad(what) from exc
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
    if cache_key(request) != expected:
        raise bad("its stored request does not hash to its key (the request was edited, or the "
                  "file was copied from another entry)")
    return entry


def _read_cache(key: str) -> dict | None:
    """The checked entry for ``key``; None when none is recorded; CacheCorrupt when it is bad."""
    path = cache_path(key)
    if not path.is_file():
        if path.is_symlink() or (path.exists() and not path.is_file()):
            raise CacheCorrupt(f"corrupt cache entry {_shown(path)}: not a regular file.")
        return None
    return check_entry(path, key)


@dataclasses.dataclass
class CacheReport:
    """What :func:`verify_cache` found."""

    folder: Path
    checked: int = 0
    bad: list = dataclasses.field(default_factory=list)   # (path, reason) pairs

    @property
    def ok(self) -> bool:
        return not self.bad

    def __str__(self) -> str:
        where = _shown(self.folder)
        if self.ok:
            return f"{self.checked} cache entries in {where}: all valid"
        return f"{len(self.bad)} of {self.checked} cache entries in {where} are corrupt"


def verify_cache(folder: str | Path | None = None) -> CacheReport:
    """Check every entry of the response cache with :func:`check_entry`.

    Temporary files of a write in progress (``.tmp-*``) are skipped.

    Examples
    --------
    >>> str(verify_cache()).endswith("all valid")                       # doctest: +SKIP
    True
    """
    folder = Path(folder) if folder is not None else get_settings().cache_dir
    report = CacheReport(folder)
    if not folder.is_dir():
        raise CacheCorrupt(f"{_shown(folder)} is not a folder of recorded responses.")
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


def _write_cache(key: str, request: dict, response: dict, purpose: str) -> None:
    path = cache_path(key)
    path.parent.mkdir(parents=True, exist_ok=True)
    entry = {"format": CACHE_FORMAT, "key": key, "purpose": purpose,
             "recorded_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
             "request": request, "response": response}
    # atomic (readers see the old state or the whole new entry), mode 0666 minus the umask
    atomic_write_text(path, json.dumps(entry, ensure_ascii=False, indent=1, sort_keys=True) + "\n")


def time_limit() -> float:
    """Total seconds one model call may take, retries included: ``GABA_TIMEOUT``, else
    :data:`HOSTED_TIMEOUT` for a hosted endpoint and :data:`LOCAL_TIMEOUT` for the local model."""
    s = get_settings()
    if s.timeout is not None:
        return s.timeout
    return LOCAL_TIMEOUT if s.backend == "local" else HOSTED_TIMEOUT


def endpoint() -> str:
    """Where hosted model calls go (the base URL); for the local backend, its shared server URL or
    ``"the embedded local model"`` (it starts on the first call)."""
    s = get_settings()
    if s.backend == "local":
        return s.local_url or "the embedded local model"
    return s.base_url or OPENAI_URL


def _client():
    """An ``openai.OpenAI`` client for the configured backend (one per base URL)."""
    import openai

    s = get_settings()
    if s.backend == "local":
        base_url, key = localmodel.server_url(), "local"
        timeout, retries = time_limit(), 0
    else:
        base_url, key = s.base_url, s.api_key or "none"
        timeout, retries = time_limit(), 5   # the client retries 429/5xx/timeouts with backoff
    ident = (base_url, key)
    with _lock:
        if ident not in _clients:
            _clients[ident] = openai.OpenAI(base_url=base_url, api_key=key, timeout=timeout,
                                            max_retries=retries)
        return _clients[ident]


def _causes(exc: BaseException):
    """``exc`` and the exceptions it was raised from."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def _is(exc: BaseException, *names: str) -> bool:
    """True when ``exc`` is an instance of a class with one of these names. The openai client
    ships its own copy of httpx (``httpx`` or ``httpx2`` depending on its version), so transport
    errors are recognised by class name."""
    return any(cls.__name__ in names for cls in type(exc).__mro__)


def _any_cause(causes, *names: str) -> bool:
    return any(_is(c, *names) for c in causes)


def _timeout(client, total: float, connect: float):
    """A timeout for one attempt: ``total`` seconds, of which at most ``connect`` to connect,
    as an object of the httpx package ``client`` uses (a plain number if that cannot be told)."""
    try:
        name = type(client._client).__module__.split(".")[0]
        mod = sys.modules.get(name) or importlib.import_module(name)
        return mod.Timeout(total, connect=connect)
    except Exception:
        return total


def _fault(exc: Exception, where: str, limit: float, attempts: int, t0: float) -> BackendUnavailable:
    """One clear :class:`BackendUnavailable` for any failure of a hosted or local call."""
    import openai

    s = get_settings()
    took = time.perf_counter() - t0
    tries = f" (after {attempts} attempts in {took:.1f} s)" if attempts > 1 else ""
    causes = list(_causes(exc))
    if isinstance(exc, openai.AuthenticationError):
        return BackendUnavailable(f"the model endpoint {where} refused the API key (HTTP "
                                  f"{exc.status_code}): check the key in .env.")
    if isinstance(exc, openai.NotFoundError):
        return BackendUnavailable(f"the model endpoint {where} answered HTTP 404: it does not know "
                                  f"the model {s.model!r} (set GABA_MODEL in .env), or the URL is not "
                                  "an OpenAI-compatible /v1 base URL.")
    if isinstance(exc, openai.APIStatusError):
        detail = " ".join(str(exc.message).split())[:200]
        return BackendUnavailable(f"the model endpoint {where} answered HTTP {exc.status_code}{tries}: "
                                  f"{detail}")
    if _any_cause(causes, "ConnectTimeout"):
        return BackendUnavailable(f"cannot reach the model endpoint {where}: no connection within "
                                  f"{min(limit, CONNECT_TIMEOUT):g} s{tries}. Is the server running and "
                                  "the URL right (OPENAI_BASE_URL / GABA_LOCAL_URL)?")
    if isinstance(exc, openai.APITimeoutError) or _any_cause(causes, "TimeoutException"):
        return BackendUnavailable(f"no answer from the model endpoint {where} within the time limit of "
                                  f"{limit:g} s{tries}: it accepted the connection but did not reply "
                                  "(GABA_TIMEOUT sets the limit, for a slow server).")
    if _any_cause(causes, "RemoteProtocolError", "ReadError", "WriteError"):
        why = next((str(c) for c in causes[1:] if str(c)), type(exc).__name__)
        return BackendUnavailable(f"Lost the connection to the model endpoint {where}{tries}: the server "
                                  f"closed it before answering ({why.rstrip('.')}).")
    if isinstance(exc, openai.APIConnectionError):
        why = next((str(c) for c in causes[1:] if str(c)), type(exc).__name__)
        return BackendUnavailable(f"cannot reach the model endpoint {where}: is the server running and "
                                  f"the URL right (OPENAI_BASE_URL / GABA_LOCAL_URL)? ({why.rstrip('.')})")
    why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    why = " ".join(why.split())[:200]
    return BackendUnavailable(f"the model endpoint {where} sent a reply that is not a chat completion "
                              f"({why}); is it an OpenAI-compatible /v1 base URL?")


def _retryable(exc: Exception) -> bool:
    """Worth another attempt: rate limits, server errors, dropped connections - never a refused
    connection, a bad key or a malformed reply."""
    import openai

    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    if isinstance(exc, openai.APITimeoutError):
        return False                 # the attempt already used the time that was left
    return isinstance(exc, openai.APIConnectionError) and _any_cause(
        list(_causes(exc)), "RemoteProtocolError", "ReadError")


def _completion(r) -> tuple[str, Any]:
    """``(text, usage)`` of a chat completion; ValueError when ``r`` is not one."""
    choices = getattr(r, "choices", None)
    if not isinstance(choices, list) or not choices:
        got = type(r).__name__ if not hasattr(r, "choices") else "no choices"
        raise ValueError(f"no 'choices' in the reply ({got})")
    message = getattr(choices[0], "message", None)
    text = getattr(message, "content", None) if message is not None else None
    if text is not None and not isinstance(text, str):
        raise ValueError(f"the reply's content is a {type(text).__name__}, not text")
    return text or "", getattr(r, "usage", None)


_announced: set = set()


def _announce_dotenv() -> None:
    """Print :func:`gaba.config.dotenv_notice` on stderr once per process and .env file."""
    notice = dotenv_notice()
    if notice and notice not in _announced:
        _announced.add(notice)
        print(notice, file=sys.stderr, flush=True)


def _call_model(request: dict) -> dict:
    if _backend_override is not None:
        return _backend_override(request)
    _announce_dotenv()
    s = get_settings()
    kwargs: dict[str, Any] = {
        "model": s.model, "messages": request["messages"],
        "temperature": request["temperature"], "max_tokens": request["max_tokens"],
        "seed": request["seed"],
    }
    if request.get("schema") is not None:
        kwargs["response_format"] = {"type": "json_schema", "json_schema": {
            "name": request.get("schema_name") or "answer", "schema": request["schema"]}}
    if s.backend == "local":       # reuse of the prompt prefix: GABA_LOCAL_CACHE_PROMPT (default off)
        kwargs["extra_body"] = {"cache_prompt": s.local_cache_prompt}
    limit = time_limit()
    retries = 0 if s.backend == "local" else HOSTED_RETRIES
    client = _client()          # for the local backend this starts the model server once
    where = str(client.base_url).rstrip("/") if s.backend == "local" else endpoint()
    client = client.with_options(max_retries=0)
    t0 = time.perf_counter()
    attempts = 0
    while True:
        attempts += 1
        try:
            left = max(limit - (time.perf_counter() - t0), 0.001)
            # Each attempt gets the time that is left; the loop retries transient failures itself.
            r = client.chat.completions.create(
                **kwargs, timeout=_timeout(client, left, min(left, CONNECT_TIMEOUT)))
            text, usage = _completion(r)
            break
        except BackendUnavailable:
            raise
        except MemoryError:
            raise
        except Exception as exc:   # every fault of the endpoint becomes one BackendUnavailable
            left = limit - (time.perf_counter() - t0)
            # jitter: threads refused at the same moment do not all come back at the same moment
            delay = min(0.5 * 2 ** (attempts - 1), 8.0) * random.uniform(1.0, 1.25)
            retry_after = getattr(getattr(exc, "response", None), "headers", {}) or {}
            try:
                delay = max(delay, min(float(retry_after.get("retry-after", 0)), 30.0))
            except (TypeError, ValueError):
                pass
            if attempts <= retries and _retryable(exc) and left - delay > 1.0:
                time.sleep(delay)
                continue
            raise _fault(exc, where, limit, attempts, t0) from exc
    usage = {"prompt_tokens": getattr(usage, "prompt_tokens", 0) or 0,
             "completion_tokens": getattr(usage, "completion_tokens", 0) or 0}
    model = s.model if s.backend == "local" else (getattr(r, "model", None) or s.model)
    return {"text": text, "model": str(model), "usage": usage}


def _validate(text: str, schema: dict) -> tuple[Any, str | None]:
    """Parse and validate; return (data, None) or (None, a short description of what is wrong)."""
    import jsonschema

    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"the reply is not valid JSON ({exc.msg} at character {exc.pos})"
    exc = jsonschema.exceptions.best_match(_validator(schema).iter_errors(data))
    if exc is not None:                   # what jsonschema.validate would raise
        where = "/".join(str(p) for p in exc.absolute_path) or "the top level"
        return None, f"the JSON does not match the schema at {where}: {exc.message}"
    return data, None


_checked_shapes: set = set()


def _shape(schema: Any) -> Any:
    """``schema`` with each list of enum values replaced by whether it is a valid one (non-empty,
    no repeats): schemas of one shape are checked against the meta-schema once, not per call
    (the check costs milliseconds, and each document's extraction schema lists its own names)."""
    if isinstance(schema, dict):
        return {k: (["enum", bool(v), len({json.dumps(x, sort_keys=True) for x in v}) == len(v)]
                    if k == "enum" and isinstance(v, list) else _shape(v))
                for k, v in schema.items()}
    if isinstance(schema, list):
        return [_shape(v) for v in schema]
    return schema


def _validator(schema: dict):
    """A jsonschema validator of ``schema``, checked against its meta-schema (once per shape)."""
    from jsonschema.validators import validator_for

    cls = validator_for(schema)
    shape = json.dumps(_shape(schema), sort_keys=True)
    if shape not in _checked_shapes:
        cls.check_schema(schema)          # SchemaError: a bug of the caller's schema
        with _lock:
            _checked_shapes.add(shape)
    return cls(schema)


def _one_call(messages: list[dict], *, schema: dict | None, schema_name: str | None,
              temperature: float, seed: int, max_tokens: int, purpose: str,
              use_cache: bool) -> Response:
    request = {**_identity(), "messages": messages, "schema": schema, "temperature": temperature,
               "seed": seed, "max_tokens": max_tokens}
    if schema_name:
        request["schema_name"] = schema_name
    key = cache_key(request)
    t0 = time.perf_counter()
    entry = _read_cache(key) if use_cache else None
    if entry is not None:
        _count(calls=1, hits=1)
        resp = entry["response"]
        return Response(text=resp["text"], model=resp.get("model", ""), usage=resp.get("usage", {}),
                        cached=True, seconds=time.perf_counter() - t0, key=key)
    if get_settings().offline and use_cache:
        raise CacheMiss(
            f"GABA_OFFLINE=1 and no recorded response for this call ({purpose}; key {key[:12]}). "
            f"Record it by running the same code once without GABA_OFFLINE (it calls the model and "
            f"writes {cache_path(key).relative_to(get_settings().cache_dir.parent)}).")
    if not use_cache:
        return _model_call(key, request, purpose, t0, record=False)
    # Identical calls in flight at once (threads) are coalesced: one asks the model, the others
    # wait for its answer, so the model is asked once and one cache entry is written.
    with _lock:
        pending = _inflight.get(key)
        if pending is None:
            mine = _inflight[key] = concurrent.futures.Future()
    if pending is not None:
        resp = pending.result()               # the other call's error is this call's error too
        _count(calls=1, hits=1)
        return dataclasses.replace(resp, cached=True, seconds=time.perf_counter() - t0)
    try:
        if (entry := _read_cache(key)) is not None:     # recorded while this thread looked
            resp = entry["response"]
            out = Response(text=resp["text"], model=resp.get("model", ""),
                           usage=resp.get("usage", {}), cached=True,
                           seconds=time.perf_counter() - t0, key=key)
            _count(calls=1, hits=1)
        else:
            out = _model_call(key, request, purpose, t0, record=True)
    except BaseException as exc:
        mine.set_exception(exc)
        raise
    else:
        mine.set_result(out)
        return out
    finally:
        with _lock:
            _inflight.pop(key, None)


def _count(**increments: float) -> None:
    """Add to the counters of :func:`stats` (thread-safe)."""
    with _lock:
        for name, value in increments.items():
            setattr(_stats, name, getattr(_stats, name) + value)


def _model_call(key: str, request: dict, purpose: str, t0: float, *, record: bool) -> Response:
    """Ask the model (a cache miss), count it, and record the answer when ``record``."""
    _count(calls=1, misses=1)
    resp = _call_model(request)
    elapsed = time.perf_counter() - t0
    usage = resp.get("usage", {})
    _count(model_seconds=elapsed, prompt_tokens=int(usage.get("prompt_tokens", 0)),
           completion_tokens=int(usage.get("completion_tokens", 0)))
    resp = {**resp, "seconds": round(elapsed, 3)}
    if record:
        _write_cache(key, request, resp, purpose)
    return Response(text=resp["text"], model=resp.get("model", ""), usage=resp.get("usage", {}),
                    cached=False, seconds=elapsed, key=key)


def call_llm(prompt: str, *, system: str | None = None, schema: dict | None = None,
             temperature: float = 0.0, seed: int = 0, max_tokens: int | None = None,
             purpose: str = "call_llm", schema_name: str | None = None,
             use_cache: bool = True) -> Response:
    """Ask the configured model; serve recorded answers from the cache.

    Parameters
    ----------
    prompt : str
        The user message.
    system : str, optional
        A system message placed before the prompt.
    schema : dict, optional
        A JSON schema the answer must satisfy. The backend is asked for JSON constrained to the
        schema; the reply is parsed and validated, and ``Response.data`` holds the result.
    temperature, seed : float, int
        Sampling settings; both are part of the cache key, so repeated trials with different
        seeds are recorded separately.
    max_tokens : int, optional
        Cap on the answer's length (default :data:`DEFAULT_MAX_TOKENS`).
    purpose : str
        A short name of what the call is for (``"extract triples from doc n03"``); it appears in
        errors and in the cache entry, never in the key.
    use_cache : bool
        False skips the cache entirely (the live tests use it to exercise the real model).

    Returns
    -------
    Response

    Raises
    ------
    CacheMiss
        ``GABA_OFFLINE=1`` and the call was never recorded.
    CacheCorrupt
        The recorded entry for this call is damaged or was edited (the message names the file).
    LLMOutputError
        With a schema: the reply was still invalid after :data:`SCHEMA_RETRIES` retries.
    BackendUnavailable
        The endpoint is unreachable, refused the key, does not know the model, answered with an
        HTTP error or with something that is not a chat completion, dropped the connection, or
        did not answer within the total time limit (``GABA_TIMEOUT``); the message names the
        endpoint and the cause.
    """
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError("call_llm needs a non-empty prompt string.")
    max_tokens = int(max_tokens or DEFAULT_MAX_TOKENS)
    messages = ([{"role": "system", "content": system}] if system else []) + \
        [{"role": "user", "content": prompt}]
    t0 = time.perf_counter()
    resp = _one_call(messages, schema=schema, schema_name=schema_name, temperature=temperature,
                     seed=seed, max_tokens=max_tokens, purpose=purpose, use_cache=use_cache)
    if schema is None:
        return resp
    problems = []
    for attempt in range(SCHEMA_RETRIES + 1):
        data, problem = _validate(resp.text, schema)
        if problem is None:
            resp.data = data
            resp.seconds = time.perf_counter() - t0
            return resp
        problems.append(problem)
        if attempt == SCHEMA_RETRIES:
            break
        retry = messages + [
            {"role": "assistant", "content": resp.text},
            {"role": "user", "content": f"That reply was rejected: {problem}. Reply again with only "
                                        "JSON that matches the schema."}]
        resp = _one_call(retry, schema=schema, schema_name=schema_name, temperature=temperature,
                         seed=seed, max_tokens=max_tokens, purpose=f"{purpose} (retry {attempt + 1})",
                         use_cache=use_cache)
    raise LLMOutputError(
        f"{purpose}: the model's reply did not match the schema after {SCHEMA_RETRIES + 1} attempts; "
        f"last problem: {problems[-1]}. Reply began: {resp.text[:120]!r}")


def describe_call(resp: Response) -> str:
    """A one-line account of a call: cached or not, seconds, tokens and tokens per second."""
    pt, ct = resp.usage.get("prompt_tokens", 0), resp.usage.get("completion_tokens", 0)
    src = "cache" if resp.cached else "model"
    rate = f", {ct / resp.seconds:.1f} tokens/s overall" if not resp.cached and resp.seconds else ""
    return f"{src}: {resp.seconds * 1000:.0f} ms, {pt} prompt + {ct} completion tokens{rate}"
