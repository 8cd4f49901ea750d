"""A fake OpenAI-compatible endpoint for tests of concurrency, rate limits and resumption.

A threaded ``http.server`` on 127.0.0.1 (a free port) answering ``POST /v1/chat/completions``
after a fixed latency. It counts requests, the most in flight at once, the injected 429s, and
the successful answers per prompt; a fraction of requests can be refused with HTTP 429 and a
``Retry-After`` header. No language model is involved: the reply is made by ``reply(request)``,
by default :func:`extraction_reply`, which links the first two names the request's JSON schema
allows (what an open extraction call asks for).

Examples
--------
>>> with FakeOpenAI(latency=0.0) as fake:                       # doctest: +SKIP
...     fake.url                                                 # doctest: +SKIP
'http://127.0.0.1:40123/v1'
"""
from __future__ import annotations

import http.server
import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable


def extraction_reply(request: dict) -> str:
    """An open-extraction answer: the first name allowed by the schema linked to the second by
    "supplies", cited from sentence 1 (``{"facts": []}`` when the schema names fewer than two)."""
    try:
        props = request["response_format"]["json_schema"]["schema"]["properties"]
        names = props["facts"]["items"]["properties"]["subject"].get("enum") or []
    except (KeyError, TypeError):
        return "ok"
    if len(names) < 2:
        return json.dumps({"facts": []})
    return json.dumps({"facts": [{"sentence": 1, "subject": names[0], "predicate": "supplies",
                                  "object": names[1], "subject_type": "org",
                                  "object_type": "org"}]})


class FakeOpenAI:
    """The fake endpoint; use as a context manager (it stops on exit).

    Parameters
    ----------
    latency : float
        Seconds each answer takes (slept in the request's own thread, so requests overlap).
    rate_limit : float
        Fraction of requests refused with HTTP 429 (seeded, so a run is repeatable).
    retry_after : float
        The ``Retry-After`` header of a 429, in seconds.
    reply : callable, optional
        ``request dict -> reply text`` (default :func:`extraction_reply`).
    on_answer : callable, optional
        Called with the number of successful answers so far after each one (a test can
        interrupt the client from it).
    """

    def __init__(self, *, latency: float = 0.3, rate_limit: float = 0.0, retry_after: float = 0.2,
                 reply: Callable[[dict], str] | None = None,
                 on_answer: Callable[[int], None] | None = None, seed: int = 0):
        self.latency, self.rate_limit, self.retry_after = latency, rate_limit, retry_after
        self.reply = reply or extraction_reply
        self.on_answer = on_answer
        #: ``request dict -> HTTP status or None``: answer that request with this error status.
        self.status_for: Callable[[dict], int | None] | None = None
        self._random = random.Random(seed)
        self.lock = threading.Lock()
        self.requests = 0            # every request received
        self.answered = 0            # 200 answers
        self.refused = 0             # injected 429s
        self.in_flight = 0
        self.max_in_flight = 0
        self.prompts: Counter = Counter()   # last user message -> 200 answers for it
        self.server: http.server.ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        """The base URL to give ``OPENAI_BASE_URL``."""
        assert self.server is not None, "start the fake endpoint first"
        return f"http://127.0.0.1:{self.server.server_port}/v1"

    def start(self) -> FakeOpenAI:
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"          # keep-alive, like a real endpoint

            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with fake.lock:
                    fake.requests += 1
                    fake.in_flight += 1
                    fake.max_in_flight = max(fake.max_in_flight, fake.in_flight)
                    refuse = fake.rate_limit > 0 and fake._random.random() < fake.rate_limit
                try:
                    time.sleep(fake.latency)
                    request = json.loads(body or b"{}")
                    status = fake.status_for(request) if fake.status_for else None
                    if status:
                        self._send(status, {"error": {"message": f"fake {status}", "type": "x"}})
                        return
                    if refuse:
                        with fake.lock:
                            fake.refused += 1
                        self._send(429, {"error": {"message": "rate limited (fake)",
                                                   "type": "rate_limit"}},
                                   {"Retry-After": f"{fake.retry_after:g}"})
                        return
                    text = fake.reply(request)
                    prompt = next((m["content"] for m in reversed(request.get("messages", []))
                                   if m.get("role") == "user"), "")
                    usage = {"prompt_tokens": len(str(request.get("messages")).split()),
                             "completion_tokens": len(text.split())}
                    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
                    self._send(200, {"id": "fake", "object": "chat.completion", "created": 0,
                                     "model": "fake-model", "usage": usage,
                                     "choices": [{"index": 0, "finish_reason": "stop",
                                                  "message": {"role": "assistant",
                                                              "content": text}}]})
                    with fake.lock:
                        fake.answered += 1
                        fake.prompts[prompt] += 1
                        answered = fake.answered
                finally:
                    with fake.lock:
                        fake.in_flight -= 1
                if fake.on_answer is not None:
                    fake.on_answer(answered)

            def _send(self, status: int, payload: dict, headers: dict | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in (headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.server.request_queue_size = 128
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def use_fake(monkeypatch, url: str, *, concurrency: int | None = None, timeout: float = 30) -> None:
    """Point gaba at ``url`` as its OpenAI-compatible endpoint (no .env, no key of the machine)."""
    from gaba import backend, config

    monkeypatch.setenv("GABA_IGNORE_DOTENV", "1")
    monkeypatch.setenv("GABA_BACKEND", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", "fake")
    monkeypatch.setenv("GABA_MODEL", "fake-model")
    monkeypatch.setenv("GABA_TIMEOUT", str(timeout))
    for var in ("OPENROUTER_API_KEY", "GABA_LOCAL_URL", "GABA_LOCAL_MODEL", "GABA_OFFLINE"):
        monkeypatch.delenv(var, raising=False)
    if concurrency is None:
        monkeypatch.delenv("GABA_CONCURRENCY", raising=False)
    else:
        monkeypatch.setenv("GABA_CONCURRENCY", str(concurrency))
    config.reload()
    backend._clients.clear()
