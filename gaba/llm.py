"""One door to every language model call: :func:`call_llm`, answered from recorded responses.

Taught in the Preface. A miss in :mod:`gaba.cache` asks the model via :mod:`gaba.backend` and
records the answer (with ``GABA_OFFLINE=1`` it raises :class:`~gaba.errors.CacheMiss`).
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import json
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from . import backend, cache
from .checks import check_positive_int
from .config import LOCAL_MODEL_SHA256, get_settings
from .errors import CacheMiss, LLMOutputError

#: Answers are capped so a looping small model cannot run forever.
DEFAULT_MAX_TOKENS = 512
#: Validation retries for schema calls (so up to 1 + SCHEMA_RETRIES model calls).
SCHEMA_RETRIES = 2
#: A JSON reply cut off at its token cap is asked for again with twice the cap, up to this many.
MAX_TOKENS_CEILING = 1600
#: Model calls in flight for a hosted endpoint unless ``GABA_CONCURRENCY`` says.
HOSTED_CONCURRENCY = 8


@dataclasses.dataclass
class Response:
    """What :func:`call_llm` returns."""

    text: str                       #: The model's reply.
    data: Any = None                #: The parsed and validated JSON, when a schema was given.
    model: str = ""                 #: The model that produced it.
    usage: dict = dataclasses.field(default_factory=dict)  #: ``prompt_tokens``, ``completion_tokens``.
    cached: bool = False            #: True when served from the response cache.
    seconds: float = 0.0            #: Wall time of this call (for a cache hit, the lookup).
    key: str = ""                   #: The cache key (sha256).


@dataclasses.dataclass
class Stats:
    """Counters of the calls made in this process; see :func:`stats`."""

    calls: int = 0
    hits: int = 0
    misses: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    model_seconds: float = 0.0      #: Time spent waiting for the model on misses.

    def __str__(self) -> str:
        return (f"{self.calls} calls: {self.hits} from cache, {self.misses} to the model "
                f"({self.model_seconds:.1f} s); tokens: {self.prompt_tokens} prompt + "
                f"{self.completion_tokens} completion")


_stats = Stats()
#: Guards the counters and the table of calls in flight.
_lock = threading.Lock()
#: cache key -> Future of the call in flight answering it (identical calls wait on it).
_inflight: dict = {}
#: Shapes (:func:`_shape`) of the schemas already checked against their meta-schema.
_checked_shapes: set = set()
#: The function replacing the real backend (see :func:`use_backend`).
_backend_override: Callable[[dict], dict] | None = None
_override_name = "scripted"


def stats() -> Stats:
    """Counters of this process's calls (a copy)."""
    with _lock:
        return dataclasses.replace(_stats)


def reset_stats() -> None:
    """Set all counters of :func:`stats` to zero."""
    global _stats
    _stats = Stats()


def _count(**increments: float) -> None:
    with _lock:
        for name, value in increments.items():
            setattr(_stats, name, getattr(_stats, name) + value)


def concurrency(requested: int | None = None) -> int:
    """How many model calls to keep in flight: ``requested``, else ``GABA_CONCURRENCY``, else a default."""
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


def check_temperature(temperature) -> None:
    """Raise ValueError unless ``temperature`` is a number from 0 to 2 (the range of OpenAI-style APIs)."""
    if isinstance(temperature, bool) or not isinstance(temperature, (int, float)) or not 0 <= temperature <= 2:
        raise ValueError(f"temperature must be a number from 0 to 2, not {temperature!r}.")


def use_backend(fn: Callable[[dict], dict] | None, *, name: str = "scripted") -> None:
    """Replace the model by ``fn(request) -> {"text", "model", "usage"}`` (None restores it; tests only)."""
    global _backend_override, _override_name
    _backend_override = fn
    _override_name = name


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


def _call_model(request: dict) -> dict:
    """The model's answer to ``request``: from :func:`use_backend`'s function, else :mod:`gaba.backend`."""
    return (_backend_override or backend.complete)(request)


def _validate(text: str, schema: dict) -> tuple[Any, str | None]:
    """``(data, None)``, or ``(None, what is wrong)`` when ``text`` is not JSON matching ``schema``."""
    import jsonschema
    from jsonschema.validators import validator_for
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"the reply is not valid JSON ({exc.msg} at character {exc.pos})"
    cls = validator_for(schema)
    shape = json.dumps(_shape(schema), sort_keys=True)
    if shape not in _checked_shapes:      # the meta-schema check, once per shape
        cls.check_schema(schema)          # SchemaError: a bug of the caller's schema
        with _lock:
            _checked_shapes.add(shape)
    exc = jsonschema.exceptions.best_match(cls(schema).iter_errors(data))
    if exc is not None:                   # what jsonschema.validate would raise
        where = "/".join(str(p) for p in exc.absolute_path) or "the top level"
        m = exc.message                   # it may quote the reply: keep its two ends ("'...' is too long")
        what = m if len(m) <= 200 else f"{m[:100]} ... {m[-100:]}"
        return None, f"the JSON does not match the schema at {where}: {what}"
    return data, None


def _shape(schema: Any) -> Any:
    """``schema`` with each enum list replaced by whether it is valid (the meta-schema check's cache key)."""
    if isinstance(schema, dict):
        return {k: (["enum", bool(v), len({json.dumps(x, sort_keys=True) for x in v}) == len(v)]
                    if k == "enum" and isinstance(v, list) else _shape(v))
                for k, v in schema.items()}
    if isinstance(schema, list):
        return [_shape(v) for v in schema]
    return schema


def _one_call(request: dict, purpose: str, use_cache: bool) -> Response:
    """One request: from the cache, or from the model (recorded when ``use_cache``)."""
    key = cache.cache_key(request)
    t0 = time.perf_counter()
    if not use_cache:
        return _model_call(key, request, purpose, t0, record=False)
    if (entry := cache.read_entry(key)) is not None:
        return _hit(entry, key, t0)
    if get_settings().offline:
        raise CacheMiss(
            f"GABA_OFFLINE=1 and no recorded response for this call ({purpose}; key {key[:12]}). "
            f"Record it by running the same code once without GABA_OFFLINE (it calls the model and "
            f"writes {cache.cache_path(key).relative_to(get_settings().cache_dir.parent)}).")
    # identical calls in flight at once: one asks the model, the others wait for its answer
    with _lock:
        pending = _inflight.get(key)
        if pending is None:
            mine = _inflight[key] = concurrent.futures.Future()
    if pending is not None:
        resp = pending.result()               # the other call's error is this call's error too
        _count(calls=1, hits=1)
        return dataclasses.replace(resp, cached=True, seconds=time.perf_counter() - t0)
    try:
        if (entry := cache.read_entry(key)) is not None:     # recorded while this thread looked
            out = _hit(entry, key, t0)
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


def _response(resp: dict, key: str, seconds: float, *, cached: bool) -> Response:
    return Response(text=resp["text"], model=resp.get("model", ""), usage=resp.get("usage", {}),
                    cached=cached, seconds=seconds, key=key)


def _hit(entry: dict, key: str, t0: float) -> Response:
    """The recorded answer of a cache ``entry``, counted as a hit."""
    _count(calls=1, hits=1)
    return _response(entry["response"], key, time.perf_counter() - t0, cached=True)


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
        cache.write_entry(key, request, resp, purpose)
    return _response(resp, key, elapsed, cached=False)


def call_llm(prompt: str, *, system: str | None = None, schema: dict | None = None,
             temperature: float = 0.0, seed: int = 0, max_tokens: int | None = None,
             purpose: str = "call_llm", schema_name: str | None = None,
             use_cache: bool = True) -> Response:
    """Ask the configured model ``prompt``, answered from the cache when the call was recorded.

    With a JSON ``schema``, an invalid reply is retried (:data:`SCHEMA_RETRIES`); one cut off at
    ``max_tokens`` is asked for again with twice the cap (up to :data:`MAX_TOKENS_CEILING`).
    ``Response.data`` holds the parsed JSON. ``purpose`` names the call in errors, not in the key.
    Raises CacheMiss, CacheCorrupt, LLMOutputError or BackendUnavailable.

    >>> use_backend(lambda request: {"text": "Paris", "model": "scripted", "usage": {}})
    >>> call_llm("Name the capital of France in one word.", use_cache=False).text
    'Paris'
    >>> use_backend(None)
    """
    if not isinstance(prompt, str) or not prompt.strip():
        raise ValueError("call_llm needs a non-empty prompt string.")
    check_positive_int("max_tokens", max_tokens, allow_none=True,
                       hint=f"how many tokens the reply may hold (None: {DEFAULT_MAX_TOKENS}).")
    check_temperature(temperature)
    max_tokens = max_tokens or DEFAULT_MAX_TOKENS
    messages = ([{"role": "system", "content": system}] if system else []) + \
        [{"role": "user", "content": prompt}]
    t0 = time.perf_counter()
    request = {**_identity(), "messages": messages, "schema": schema, "temperature": temperature,
               "seed": seed, "max_tokens": max_tokens}
    if schema_name:
        request["schema_name"] = schema_name
    resp = _one_call(request, purpose, use_cache)
    if schema is None:
        return resp
    for attempt in range(SCHEMA_RETRIES + 1):
        data, problem = _validate(resp.text, schema)
        if problem is None:
            resp.data = data
            resp.seconds = time.perf_counter() - t0
            return resp
        cut_off = int(resp.usage.get("completion_tokens") or 0) >= max_tokens
        if cut_off and max_tokens < MAX_TOKENS_CEILING:
            # the same request with twice the room: a longer reply, not another attempt at this one
            return call_llm(prompt, system=system, schema=schema, temperature=temperature, seed=seed,
                            max_tokens=min(2 * max_tokens, MAX_TOKENS_CEILING), purpose=purpose,
                            schema_name=schema_name, use_cache=use_cache)
        if cut_off:
            # cut off at the token cap: asked again, the model writes as long a reply, so stop here
            raise LLMOutputError(
                f"{purpose}: the model's reply ran past the {max_tokens}-token cap, so it is not "
                f"complete JSON ({problem}). Reply began: {resp.text[:120]!r}")
        if attempt == SCHEMA_RETRIES:
            break
        retry = messages + [
            {"role": "assistant", "content": resp.text},
            {"role": "user", "content": f"That reply was rejected: {problem}. Reply again with only "
                                        "JSON that matches the schema."}]
        resp = _one_call({**request, "messages": retry}, f"{purpose} (retry {attempt + 1})", use_cache)
    raise LLMOutputError(
        f"{purpose}: the model's reply did not match the schema after {SCHEMA_RETRIES + 1} attempts; "
        f"last problem: {problem}. Reply began: {resp.text[:120]!r}")


def describe_call(resp: Response) -> str:
    """One line about a call: cache or model, milliseconds, tokens and tokens per second."""
    pt, ct = resp.usage.get("prompt_tokens", 0), resp.usage.get("completion_tokens", 0)
    src = "cache" if resp.cached else "model"
    rate = f", {ct / resp.seconds:.1f} tokens/s overall" if not resp.cached and resp.seconds else ""
    return f"{src}: {resp.seconds * 1000:.0f} ms, {pt} prompt + {ct} completion tokens{rate}"
