"""Fault probes of the hosted backend (gaba.backend): whatever an OpenAI-compatible endpoint does
wrong becomes one BackendUnavailable naming the endpoint and the cause, within GABA_TIMEOUT.

A tiny HTTP server on 127.0.0.1 plays the endpoint; no language model is called, and the
response cache is a temporary folder (tests/conftest.py ``tmp_cache``).
"""
from __future__ import annotations

import http.server
import json
import os
import socket
import threading
import time

import pytest

from gaba import backend, config, llm
from gaba.errors import BackendUnavailable, ConfigError, GabaError

COMPLETION = {"id": "c1", "object": "chat.completion", "created": 0, "model": "fake-model",
              "choices": [{"index": 0, "finish_reason": "stop",
                           "message": {"role": "assistant", "content": "Paris"}}],
              "usage": {"prompt_tokens": 5, "completion_tokens": 1, "total_tokens": 6}}


class FakeEndpoint(http.server.BaseHTTPRequestHandler):
    """Answers POST /v1/chat/completions according to the server's ``script`` (one per request,
    the last repeated)."""

    def do_POST(self):
        server = self.server
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        with server.lock:
            server.hits += 1
            step = server.script[min(server.hits - 1, len(server.script) - 1)]
        status, ctype, body = 200, "application/json", b""
        if step == "ok":
            body = json.dumps(COMPLETION).encode()
        elif step == "html":
            ctype, body = "text/html", b"<html><body>Welcome to nginx!</body></html>"
        elif step == "bad-json":
            body = b"<html>not json"
        elif step == "no-choices":
            body = json.dumps({"id": "c1", "object": "chat.completion"}).encode()
        elif step == "empty-choices":
            body = json.dumps({**COMPLETION, "choices": []}).encode()
        elif step == "list":
            body = b"[]"
        elif step in ("500", "401", "404", "429"):
            status = int(step)
            body = json.dumps({"error": {"message": f"fake {step}", "type": "x"}}).encode()
        elif step == "hang":
            server.release.wait(30)          # accept, read the request, never answer
            return
        elif step == "drop":
            self.close_connection = True     # close without a response
            return
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def endpoint(tmp_cache, monkeypatch):
    """Start the fake endpoint and point gaba at it (GABA_TIMEOUT=3); yield a function setting
    its script."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), FakeEndpoint)
    server.daemon_threads = True
    server.block_on_close = False
    server.lock = threading.Lock()
    server.release = threading.Event()
    server.hits = 0
    server.script = ["ok"]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}/v1"
    _use(monkeypatch, url)

    def script(*steps):
        server.script, server.hits = list(steps), 0
        return server

    script.url = url
    yield script
    server.release.set()
    server.shutdown()
    server.server_close()
    backend._clients.clear()


def _use(monkeypatch, url, timeout="3"):
    monkeypatch.setenv("GABA_IGNORE_DOTENV", "1")
    monkeypatch.setenv("GABA_BACKEND", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    monkeypatch.delenv("OPENROUTER_API_KEY", raising=False)
    monkeypatch.setenv("GABA_TIMEOUT", timeout)
    config.reload()
    backend._clients.clear()


def _fails(match: str, *, within: float = 5.0) -> BackendUnavailable:
    t0 = time.perf_counter()
    with pytest.raises(BackendUnavailable, match=match) as info:
        llm.call_llm("Capital of France?")
    assert time.perf_counter() - t0 < within
    msg = str(info.value)
    assert "\n" not in msg and isinstance(info.value, GabaError)
    return info.value


def test_fake_endpoint_works(endpoint):
    endpoint("ok")
    r = llm.call_llm("Capital of France?")
    assert (r.text, r.model, r.cached) == ("Paris", "fake-model", False)


@pytest.mark.parametrize("step", ["html", "bad-json", "list"])
def test_http_200_that_is_not_json(endpoint, step):
    server = endpoint(step)
    exc = _fails("not a chat completion")
    assert endpoint.url in str(exc) and server.hits == 1          # not retried


@pytest.mark.parametrize("step", ["no-choices", "empty-choices"])
def test_json_without_choices(endpoint, step):
    endpoint(step)
    exc = _fails("no 'choices'")
    assert endpoint.url in str(exc)


def test_http_500_is_retried_then_reported(endpoint):
    server = endpoint("500")
    exc = _fails(r"answered HTTP 500 \(after \d+ attempts")
    assert endpoint.url in str(exc) and "fake 500" in str(exc)
    assert server.hits >= 2


def test_http_500_then_success(endpoint):
    server = endpoint("500", "ok")
    assert llm.call_llm("Capital of France?").text == "Paris"
    assert server.hits == 2


def test_rate_limit_then_success(endpoint):
    server = endpoint("429", "ok")
    assert llm.call_llm("Capital of France?").text == "Paris" and server.hits == 2


def test_bad_key_and_unknown_model(endpoint):
    server = endpoint("401")
    _fails("refused the API key")
    assert server.hits == 1
    endpoint("404")
    _fails("answered HTTP 404.*GABA_MODEL")


def test_server_that_never_answers_hits_the_total_limit(endpoint, monkeypatch):
    _use(monkeypatch, endpoint.url, timeout="1.5")
    endpoint("hang")
    t0 = time.perf_counter()
    exc = _fails("no answer from the model endpoint .* within the time limit of 1.5 s")
    assert time.perf_counter() - t0 < 4
    assert "Lost the connection" not in str(exc) and "GABA_TIMEOUT" in str(exc)


def test_dropped_connection_says_lost(endpoint):
    server = endpoint("drop")
    exc = _fails("Lost the connection to the model endpoint")
    assert endpoint.url in str(exc) and server.hits >= 1


def test_listener_that_never_accepts(tmp_cache, monkeypatch):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)                       # the kernel completes the handshake; nobody reads
    try:
        _use(monkeypatch, f"http://127.0.0.1:{sock.getsockname()[1]}/v1", timeout="1")
        _fails("no answer from the model endpoint", within=4)
    finally:
        sock.close()


def test_nothing_listening_is_not_a_lost_connection(tmp_cache, monkeypatch):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]        # free, then closed: connections are refused
    _use(monkeypatch, f"http://127.0.0.1:{port}/v1")
    exc = _fails("cannot reach the model endpoint", within=4)
    assert "Lost the connection" not in str(exc) and str(port) in str(exc)


def test_nothing_is_cached_after_a_fault(endpoint):
    endpoint("no-choices")
    _fails("no 'choices'")
    assert not any(config.get_settings().cache_dir.rglob("*.json"))


@pytest.mark.parametrize("value", ["0", "-1", "soon", "nan", "inf"])
def test_bad_timeout_setting(monkeypatch, value):
    monkeypatch.setenv("GABA_TIMEOUT", value)
    try:
        with pytest.raises(ConfigError, match="GABA_TIMEOUT"):
            config.reload()
    finally:
        monkeypatch.delenv("GABA_TIMEOUT")
        config.reload()


def test_default_time_limits(monkeypatch):
    monkeypatch.delenv("GABA_TIMEOUT", raising=False)
    _use(monkeypatch, "http://127.0.0.1:9/v1", timeout="")
    try:
        assert backend.time_limit() == backend.HOSTED_TIMEOUT == 120
    finally:
        for v in ("GABA_BACKEND", "OPENAI_BASE_URL", "OPENAI_API_KEY", "GABA_TIMEOUT"):
            monkeypatch.delenv(v, raising=False)
        config.reload()


# --- a .env in the working folder is announced ------------------------------------------------------

ENV_KEYS = ("GABA_BACKEND", "OPENAI_BASE_URL", "OPENAI_API_KEY", "GABA_MODEL", "GABA_TIMEOUT")


def test_dotenv_in_working_folder_is_announced_once(endpoint, tmp_path, monkeypatch, capsys):
    folder = tmp_path / "somewhere"
    folder.mkdir()
    (folder / ".env").write_text(f"GABA_BACKEND=openai\nOPENAI_BASE_URL={endpoint.url}\n"
                                 "OPENAI_API_KEY=sk-from-dotenv\nGABA_TIMEOUT=3\n")
    for k in ENV_KEYS + ("GABA_IGNORE_DOTENV",):
        monkeypatch.delenv(k, raising=False)
    monkeypatch.chdir(folder)
    backend._announced.clear()
    try:
        s = config.reload()
        assert (s.backend, s.base_url) == ("openai", endpoint.url)
        assert s.dotenv_path == (folder / ".env").resolve()
        assert "GABA_BACKEND" in s.dotenv_vars and "OPENAI_BASE_URL" in s.dotenv_vars
        assert f"settings from {folder / '.env'}" in config.describe()
        assert "sk-from-dotenv" not in config.describe()
        endpoint("ok")
        llm.call_llm("first question")
        llm.call_llm("second question")
        err = capsys.readouterr().err
        notices = [ln for ln in err.splitlines() if ".env" in ln]
        assert len(notices) == 1, err
        assert endpoint.url in notices[0] and "GABA_BACKEND" in notices[0]
        assert "sk-from-dotenv" not in err
        # a reload in the same process still knows which values came from the file
        assert config.reload().dotenv_vars == s.dotenv_vars
    finally:
        for k in ENV_KEYS:
            os.environ.pop(k, None)
            config._from_dotenv.pop(k, None)
        config.reload()


def test_no_notice_without_dotenv(endpoint, capsys):
    backend._announced.clear()
    endpoint("ok")
    llm.call_llm("a question")
    assert ".env" not in capsys.readouterr().err
    assert config.dotenv_notice() is None
