"""The model behind :func:`gaba.llm.call_llm`: one chat completion from an OpenAI-compatible server.

Taught in the Preface. The server is the local model's, a shared one (``GABA_LOCAL_URL``) or a
hosted endpoint; a fault that remains after retries is one :class:`~gaba.errors.BackendUnavailable`.
"""
from __future__ import annotations

import itertools
import random
import sys
import threading
import time
from typing import Any

from . import localmodel
from .config import dotenv_notice, get_settings
from .errors import BackendUnavailable

#: Total seconds of a hosted call, retries included (``GABA_TIMEOUT`` overrides).
HOSTED_TIMEOUT = 120.0
#: The same for the local model on a CPU (a long answer can take minutes).
LOCAL_TIMEOUT = 600.0
#: Seconds to wait for a connection, within the total.
CONNECT_TIMEOUT = 10.0
#: Retries of transient hosted failures, within the total.
HOSTED_RETRIES = 5

_lock = threading.Lock()
_clients: dict = {}          # (base URL, key) -> openai.OpenAI
_announced: set = set()      # .env notices already printed


def time_limit() -> float:
    """Total seconds one model call may take, retries included (``GABA_TIMEOUT``, else a default)."""
    s = get_settings()
    if s.timeout is not None:
        return s.timeout
    return LOCAL_TIMEOUT if s.backend == "local" else HOSTED_TIMEOUT


def client():
    """The ``openai.OpenAI`` client of the configured backend (starts the local model once)."""
    import openai
    s = get_settings()
    if s.backend == "local":
        base_url, key, retries = localmodel.server_url(), "local", 0
    else:   # the client's own retries serve embeddings; complete() does its own
        base_url, key, retries = s.base_url, s.api_key or "none", HOSTED_RETRIES
    with _lock:
        if (base_url, key) not in _clients:
            _clients[base_url, key] = openai.OpenAI(base_url=base_url, api_key=key,
                                                    timeout=time_limit(), max_retries=retries)
        return _clients[base_url, key]


def complete(request: dict) -> dict:
    """Ask the configured model for ``request``; return ``{"text", "model", "usage"}`` (BackendUnavailable)."""
    import openai
    if (notice := dotenv_notice()) and notice not in _announced:   # once per process and .env file
        _announced.add(notice)
        print(notice, file=sys.stderr, flush=True)
    s = get_settings()
    kwargs: dict[str, Any] = {"model": s.model, "messages": request["messages"], "temperature": request["temperature"],
                              "max_tokens": request["max_tokens"], "seed": request["seed"]}
    if request.get("schema") is not None:
        kwargs["response_format"] = {"type": "json_schema", "json_schema": {
            "name": request.get("schema_name") or "answer", "schema": request["schema"]}}
    if s.backend == "local":
        kwargs["extra_body"] = {"cache_prompt": s.local_cache_prompt}
    c = client().with_options(max_retries=0)
    where = str(c.base_url).rstrip("/")
    retries = 0 if s.backend == "local" else HOSTED_RETRIES
    limit, t0 = time_limit(), time.perf_counter()
    for attempt in itertools.count(1):
        left = max(limit - (time.perf_counter() - t0), 0.001)     # each attempt: the time left
        try:
            r = c.chat.completions.create(
                **kwargs, timeout=openai.Timeout(left, connect=min(left, CONNECT_TIMEOUT)))
            text, usage = _completion(r)
            break
        except (BackendUnavailable, MemoryError):
            raise
        except Exception as exc:   # every fault of the endpoint becomes one BackendUnavailable
            # jitter: threads refused at the same moment do not all come back at the same moment
            delay = min(0.5 * 2 ** (attempt - 1), 8.0) * random.uniform(1.0, 1.25)
            retry_after = getattr(getattr(exc, "response", None), "headers", {}) or {}
            try:
                delay = max(delay, min(float(retry_after.get("retry-after", 0)), 30.0))
            except (TypeError, ValueError):
                pass
            if attempt <= retries and _retryable(exc) and limit - (time.perf_counter() - t0) - delay > 1.0:
                time.sleep(delay)
                continue
            raise _fault(exc, where, limit, attempt, t0) from exc
    usage = {"prompt_tokens": getattr(usage, "prompt_tokens", 0) or 0,
             "completion_tokens": getattr(usage, "completion_tokens", 0) or 0}
    model = s.model if s.backend == "local" else (getattr(r, "model", None) or s.model)
    return {"text": text, "model": str(model), "usage": usage}


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


def _causes(exc: BaseException) -> list:
    """``exc`` and the exceptions it was raised from."""
    out: list = []
    while exc is not None and all(exc is not e for e in out):
        out.append(exc)
        exc = exc.__cause__ or exc.__context__
    return out


def _any_cause(causes: list, *names: str) -> bool:
    """True when a class of one of ``causes`` has one of ``names`` (compared by name)."""
    return any(cls.__name__ in names for c in causes for cls in type(c).__mro__)


def _retryable(exc: Exception) -> bool:
    """Worth another attempt: rate limits, server errors, dropped connections."""
    import openai
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    if isinstance(exc, openai.APITimeoutError):
        return False                 # the attempt already used the time that was left
    return isinstance(exc, openai.APIConnectionError) and _any_cause(
        _causes(exc), "RemoteProtocolError", "ReadError")


def _fault(exc: Exception, where: str, limit: float, attempts: int, t0: float) -> BackendUnavailable:
    """One clear :class:`BackendUnavailable` for any failure of a hosted or local call."""
    import openai
    took = time.perf_counter() - t0
    tries = f" (after {attempts} attempts in {took:.1f} s)" if attempts > 1 else ""
    causes = _causes(exc)
    if isinstance(exc, openai.AuthenticationError):
        return BackendUnavailable(f"the model endpoint {where} refused the API key (HTTP "
                                  f"{exc.status_code}): check the key in .env.")
    if isinstance(exc, openai.NotFoundError):
        return BackendUnavailable(f"the model endpoint {where} answered HTTP 404: it does not know "
                                  f"the model {get_settings().model!r} (set GABA_MODEL in .env), or "
                                  "the URL is not an OpenAI-compatible /v1 base URL.")
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
    why = next((str(c) for c in causes[1:] if str(c)), type(exc).__name__)
    if _any_cause(causes, "RemoteProtocolError", "ReadError", "WriteError"):
        return BackendUnavailable(f"Lost the connection to the model endpoint {where}{tries}: the server "
                                  f"closed it before answering ({why.rstrip('.')}).")
    if isinstance(exc, openai.APIConnectionError):
        return BackendUnavailable(f"cannot reach the model endpoint {where}: is the server running and "
                                  f"the URL right (OPENAI_BASE_URL / GABA_LOCAL_URL)? ({why.rstrip('.')})")
    why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    why = " ".join(why.split())[:200]
    return BackendUnavailable(f"the model endpoint {where} sent a reply that is not a chat completion "
                              f"({why}); is it an OpenAI-compatible /v1 base URL?")
