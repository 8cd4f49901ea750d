"""Fast, concurrent, resumable indexing against a fake OpenAI-compatible endpoint.

The endpoint is tests/fake_openai.py (127.0.0.1, fixed latency, injectable 429s); no language
model is called, and every cache is a temporary folder (``tmp_cache`` in conftest.py).
"""
from __future__ import annotations

import _thread
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from fake_openai import FakeOpenAI, use_fake
from gaba import backend, config, llm
from gaba.cache import verify_cache
from gaba.errors import ConfigError
from gaba.extract import extract_corpus
from gaba.kgbuild import build_knowledge_graph
from gaba.request import extraction_prompt

ROOT = Path(__file__).resolve().parent.parent


def corpus(n: int) -> list[dict]:
    """``n`` one-fact documents with distinct names."""
    return [{"id": f"d{i:03d}", "text": f"Orrin{i} Works supplies Pellucid{i} Labs."} for i in range(n)]


def entries(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.json") if not p.name.startswith("."))


@pytest.fixture
def fake(tmp_cache, monkeypatch):
    import jsonschema  # noqa: F401 - slow first imports stay out of the timings
    import openai  # noqa: F401

    """A started fake endpoint (0.3 s latency) with gaba pointed at it; ``fake.kg`` is a
    temporary triples cache."""
    with FakeOpenAI(latency=0.3) as server:
        use_fake(monkeypatch, server.url)
        server.kg = tmp_cache / "kg"
        yield server
    backend._clients.clear()


def test_concurrency_setting(fake, monkeypatch):
    assert llm.concurrency() == llm.HOSTED_CONCURRENCY == 8        # hosted default
    assert llm.concurrency(3) == 3
    monkeypatch.setenv("GABA_CONCURRENCY", "5")
    config.reload()
    assert llm.concurrency() == 5 and llm.concurrency(2) == 2      # the argument wins
    monkeypatch.setenv("GABA_CONCURRENCY", "zero")
    with pytest.raises(ConfigError, match="GABA_CONCURRENCY='zero'"):
        config.reload()
    monkeypatch.delenv("GABA_CONCURRENCY")
    monkeypatch.setenv("GABA_BACKEND", "local")
    config.reload()
    assert llm.concurrency() == 1                                   # the local model: one at a time
    with pytest.raises(ValueError, match="concurrency"):
        llm.concurrency(0)


def test_200_documents_in_8_seconds_with_16_in_flight(fake):
    docs = corpus(200)
    t0 = time.perf_counter()
    ex = extract_corpus(docs, cache_dir=fake.kg, progress=False, concurrency=16)
    seconds = time.perf_counter() - t0
    load = os.getloadavg()[0]
    print(f"200 documents, 16 in flight, 0.3 s latency: {seconds:.2f} s, "
          f"max in flight {fake.max_in_flight}, load average {load:.1f}; {ex.summary()}")
    # 60 s one at a time; >= 3.9 s with 16 in flight. A machine busier than its cores gets a
    # looser bound (still far below sequential) instead of a flaky failure.
    assert seconds <= (8.0 if load < (os.cpu_count() or 1) else 30.0)
    assert 8 <= fake.max_in_flight <= 16 and fake.answered == 200
    assert ex.failed == {} and ex.cache == {"hits": 0, "misses": 200, "rebuilt": 0}
    # assembled in document order, whatever order the answers came in
    assert [t.doc_id for t in ex.triples] == [d["id"] for d in docs]
    assert [(t.subject, t.object) for t in ex.triples[:2]] == [("Orrin0 Works", "Pellucid0 Labs"),
                                                               ("Orrin1 Works", "Pellucid1 Labs")]
    assert len(entries(fake.kg)) == 200 and len(entries(config.get_settings().cache_dir)) == 200


def test_injected_429s_every_document_once_no_duplicate_cache_entries(fake):
    fake.rate_limit, fake.retry_after = 0.10, 0.2
    docs = corpus(200) + [{"id": "copy", "text": corpus(1)[0]["text"]}]   # one text twice
    t0 = time.perf_counter()
    ex = extract_corpus(docs, cache_dir=fake.kg, progress=False, concurrency=16)
    print(f"201 documents with {fake.refused} injected 429s of {fake.requests} requests: "
          f"{time.perf_counter() - t0:.2f} s, max in flight {fake.max_in_flight}")
    assert fake.refused >= 5                      # the 429s happened and were retried
    assert ex.failed == {} and len(ex.triples) == 201
    assert fake.answered == 200 and len(fake.prompts) == 200
    assert set(fake.prompts.values()) == {1}      # every document extracted exactly once
    assert fake.max_in_flight <= 16
    cache = config.get_settings().cache_dir
    assert len(entries(cache)) == 200 and not list(cache.rglob(".tmp-*"))
    assert verify_cache(cache).ok
    assert len(entries(fake.kg)) == 200


def test_max_in_flight_never_exceeds_the_setting(fake, monkeypatch):
    monkeypatch.setenv("GABA_CONCURRENCY", "5")
    config.reload()
    fake.latency = 0.1
    ex = extract_corpus(corpus(40), cache_dir=fake.kg, progress=False)
    assert ex.concurrency == 5 and ex.failed == {}
    assert 2 <= fake.max_in_flight <= 5 and fake.answered == 40     # never above the setting


def test_identical_calls_in_flight_are_coalesced(fake):
    out, errors = [], []

    def ask():
        try:
            out.append(llm.call_llm("Capital of France?"))
        except Exception as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(out) == 8
    assert fake.answered == 1                     # one model call for eight identical requests
    assert sum(not r.cached for r in out) == 1 and len({r.text for r in out}) == 1
    assert len(entries(config.get_settings().cache_dir)) == 1


def test_a_failing_call_names_its_document_and_the_others_are_kept(fake, monkeypatch):
    monkeypatch.setenv("GABA_TIMEOUT", "2")       # the retries of the 500s stop within 2 s
    config.reload()
    docs = corpus(12)
    bad = extraction_prompt(docs[7]["text"])
    fake.status_for = lambda request: 500 if request["messages"][-1]["content"] == bad else None
    with pytest.warns(UserWarning, match="1 of 12 documents.*d007"):
        G = build_knowledge_graph(docs, cache_dir=fake.kg, progress=False, concurrency=4)
    assert list(G.graph["failed"]) == ["d007"]
    message = G.graph["failed"]["d007"]
    assert message.startswith("document 'd007': ") and "HTTP 500" in message and "\n" not in message
    assert len(entries(fake.kg)) == 11            # the other documents' work is recorded
    assert G.number_of_edges() >= 11


def test_interrupted_build_resumes_with_only_the_unfinished_documents(fake):
    docs = corpus(30)
    fake.latency = 0.1
    fake.on_answer = lambda n: _thread.interrupt_main() if n == 10 else None   # Ctrl-C
    # a test run started in the background (`make test &`, some CI runners) inherits SIGINT ignored,
    # and then interrupt_main does nothing: give this test Python's own Ctrl-C handler
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            build_knowledge_graph(docs, cache_dir=fake.kg, progress=False, concurrency=4)
    finally:
        signal.signal(signal.SIGINT, previous)
    done = len(entries(fake.kg))
    first = set(fake.prompts)
    assert 10 <= done < 30 and fake.answered == done   # calls in flight finished and were recorded
    fake.on_answer = None
    fake.prompts.clear()
    G = build_knowledge_graph(docs, cache_dir=fake.kg, progress=False, concurrency=4)
    assert len(fake.prompts) == 30 - done and not first & set(fake.prompts)
    assert G.graph["cache"] == {"hits": done, "misses": 30 - done, "rebuilt": 0}
    assert G.number_of_edges() == 30 and G.graph["failed"] == {}


def test_cli_sigint_then_rerun_extracts_only_the_rest(fake, tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    docs = corpus(24)
    for d in docs:
        (folder / f"{d['id']}.txt").write_text(d["text"] + "\n", encoding="utf-8")
    out = tmp_path / "g.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GABA_", "OPENAI_", "OPENROUTER_"))}
    env.update(GABA_IGNORE_DOTENV="1", GABA_BACKEND="openai", OPENAI_BASE_URL=fake.url,
               OPENAI_API_KEY="fake", GABA_MODEL="fake-model", GABA_CONCURRENCY="4",
               GABA_CACHE_DIR=str(tmp_path / "llm-cache"), GABA_KG_CACHE=str(fake.kg),
               GABA_EMBED_CACHE=str(tmp_path / "embed-cache"), PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "gaba", "build-graph", str(folder), "--out", str(out)]
    fake.latency = 0.2
    # the child gets the default SIGINT disposition even when this run inherited it ignored
    proc = subprocess.Popen(cmd, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    fake.on_answer = lambda n: proc.send_signal(signal.SIGINT) if n == 8 else None
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 130, stderr
    assert "error: interrupted" in stderr and "Traceback" not in stderr
    assert not out.exists()                       # the graph file is written only at the end
    done = len(entries(fake.kg))
    assert 8 <= done < 24 and fake.answered == done
    fake.on_answer = None
    fake.prompts.clear()
    rerun = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert rerun.returncode == 0, rerun.stderr
    assert len(fake.prompts) == 24 - done          # only the unfinished documents called the model
    assert f"{24 - done} extracted" in rerun.stdout and f"{done} from the cache" in rerun.stdout
    graph = json.loads(out.read_text(encoding="utf-8"))
    assert len(graph["edges"]) == 24 and not list(tmp_path.glob(".tmp-*"))


def test_run_eval_concurrency_keeps_the_order_and_the_bound():
    import pandas as pd

    from gaba.evaluate import Case, run_eval

    lock, state = threading.Lock(), {"now": 0, "max": 0}

    def system(question, seed):
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(0.04 if seed % 2 else 0.01)          # answers finish out of order
        with lock:
            state["now"] -= 1
        return f"{question} q{seed % 2}"

    cases = [Case(f"Q{i}?", [f"q{i % 2}"], "single-fact") for i in range(6)]
    kwargs = dict(trials=3, progress=False, abstained=lambda a: False)
    one = run_eval(cases, {"a": system, "b": system}, **kwargs)
    assert state["max"] == 1
    many = run_eval(cases, {"a": system, "b": system}, concurrency=4, **kwargs)
    assert 2 <= state["max"] <= 4
    pd.testing.assert_frame_equal(one.drop(columns="seconds"), many.drop(columns="seconds"))

    def broken(question, seed):
        raise RuntimeError("no model")

    with pytest.raises(RuntimeError, match="system 'x' failed on case"):
        run_eval(cases, {"x": broken}, concurrency=4, **kwargs)
    with pytest.raises(ValueError, match="concurrency"):
        run_eval(cases, {"a": system}, concurrency=0, **kwargs)


def test_local_slots_and_prefix_reuse_are_settings(tmp_cache, monkeypatch):
    """The embedded server's parameters, read without starting it (its Server class is replaced)."""
    import xllamacpp

    from gaba import localmodel

    made = []
    monkeypatch.setattr(xllamacpp, "Server", lambda params: made.append(params) or object())
    monkeypatch.setattr(localmodel, "model_path", lambda: tmp_cache / "model.gguf")
    monkeypatch.setenv("GABA_IGNORE_DOTENV", "1")
    monkeypatch.setenv("GABA_BACKEND", "local")
    for var in ("GABA_LOCAL_URL", "GABA_LOCAL_MODEL", "GABA_CONCURRENCY", "GABA_LOCAL_PARALLEL",
                "GABA_LOCAL_CACHE_PROMPT", "OPENAI_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    config.reload()
    localmodel.start_server(port=1)
    assert (made[-1].n_parallel, made[-1].cache_prompt) == (1, False)     # the default: unchanged
    assert llm.concurrency() == 1
    monkeypatch.setenv("GABA_LOCAL_PARALLEL", "4")
    monkeypatch.setenv("GABA_LOCAL_CACHE_PROMPT", "1")
    config.reload()
    localmodel.start_server(port=1)
    p = made[-1]
    assert (p.n_parallel, p.cache_prompt, p.kv_unified, p.cont_batching) == (4, True, True, True)
    assert llm.concurrency() == 4                  # the local default follows the slots
    monkeypatch.setenv("GABA_LOCAL_URL", "http://127.0.0.1:9/v1")
    config.reload()
    assert llm.concurrency() == 1                  # a shared server's slots are unknown
    monkeypatch.setenv("GABA_LOCAL_PARALLEL", "0")
    with pytest.raises(ConfigError, match="GABA_LOCAL_PARALLEL='0'"):
        config.reload()
    monkeypatch.delenv("GABA_LOCAL_PARALLEL")      # tmp_cache re-reads the settings when it ends


def test_benchmark_fake_part(tmp_path):
    """benchmarks/indexing_throughput.py --parts fake: four rows, nothing asked twice."""
    import csv

    env = {k: v for k, v in os.environ.items() if not k.startswith(("GABA_", "OPENAI_", "OPENROUTER_"))}
    script = ROOT / "benchmarks" / "indexing_throughput.py"
    run = subprocess.run([sys.executable, str(script), "--parts", "fake", "--fake-docs", "32",
                          "--fake-latency", "0.05", "--out", str(tmp_path)],
                         env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    with open(tmp_path / "indexing_throughput.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["in_flight"] for r in rows] == ["1", "4", "16", "16"]
    assert all(r["extracted_once"] == "True" and r["failed"] == "0" for r in rows)
    assert all(int(r["max_in_flight"]) <= int(r["in_flight"]) for r in rows)
    # calls really overlapped (the speed itself is the benchmark's to report, not a timed test's)
    assert int(rows[0]["max_in_flight"]) == 1 and int(rows[2]["max_in_flight"]) > 1
    bad = subprocess.run([sys.executable, str(script), "--parts", "cloud"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--parts" in bad.stderr
