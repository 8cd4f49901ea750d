"""Tests of gaba.llm and gaba.config: cache keys, atomic writes, corruption, offline mode, schema retries."""
from __future__ import annotations

import json
import os
import time

import pytest

from gaba import backend, cache, config, llm
from gaba.errors import BackendUnavailable, CacheCorrupt, CacheMiss, ConfigError, LLMOutputError

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"],
          "additionalProperties": False}


def test_cache_key_is_canonical():
    a = cache.cache_key({"b": 1, "a": [1, 2], "c": "é"})
    b = cache.cache_key({"c": "é", "a": [1, 2], "b": 1})
    assert a == b and len(a) == 64
    assert cache.cache_key({"a": [2, 1]}) != cache.cache_key({"a": [1, 2]})


def test_second_identical_call_is_a_hit(scripted):
    scripted.replies.append("Paris")
    first = llm.call_llm("Capital of France?")
    second = llm.call_llm("Capital of France?")
    assert (first.text, first.cached) == ("Paris", False)
    assert (second.text, second.cached) == ("Paris", True)
    assert len(scripted.requests) == 1
    assert second.seconds < 0.05
    s = llm.stats()
    assert (s.calls, s.hits, s.misses) == (2, 1, 1)


def test_seed_and_params_are_part_of_the_key(scripted):
    scripted.replies.extend(["a", "b", "c"])
    r0 = llm.call_llm("q", seed=0)
    r1 = llm.call_llm("q", seed=1)
    r2 = llm.call_llm("q", seed=1, temperature=0.7)
    assert len({r0.key, r1.key, r2.key}) == 3
    assert len(scripted.requests) == 3


def test_entry_records_request_and_response(scripted):
    scripted.replies.append("hello")
    r = llm.call_llm("hi", system="be brief", purpose="unit")
    entry = json.loads(cache.cache_path(r.key).read_text())
    assert entry["key"] == r.key and entry["purpose"] == "unit"
    assert entry["request"]["messages"][0] == {"role": "system", "content": "be brief"}
    assert entry["response"]["text"] == "hello"
    assert not list(cache.cache_path(r.key).parent.glob(".tmp-*")), "temporary file left behind"


def test_corrupt_entry_is_an_error_naming_the_file(scripted):
    scripted.replies.extend(["one", "two"])
    r = llm.call_llm("q")
    cache.cache_path(r.key).write_text('{"key": "trunc')
    with pytest.raises(CacheCorrupt, match=f"corrupt cache entry .*{r.key}.json: not valid JSON"):
        llm.call_llm("q")
    assert len(scripted.requests) == 1          # never silently re-recorded
    cache.cache_path(r.key).unlink()              # deleting it records the call again
    again = llm.call_llm("q")
    assert (again.text, again.cached) == ("two", False)


def test_offline_miss_is_a_clear_error(scripted, monkeypatch):
    monkeypatch.setenv("GABA_OFFLINE", "1")
    config.reload()
    with pytest.raises(CacheMiss, match="GABA_OFFLINE=1.*my purpose"):
        llm.call_llm("never recorded", purpose="my purpose")
    assert scripted.requests == []


def test_schema_valid_first_time(scripted):
    scripted.replies.append('{"name": "Mara Voss"}')
    r = llm.call_llm("who?", schema=SCHEMA)
    assert r.data == {"name": "Mara Voss"}


def test_schema_retry_with_validation_error(scripted):
    scripted.replies.extend(['{"nom": "x"}', '{"name": "Mara Voss"}'])
    r = llm.call_llm("who?", schema=SCHEMA, purpose="find a name")
    assert r.data == {"name": "Mara Voss"}
    retry_prompt = scripted.requests[1]["messages"][-1]["content"]
    assert "rejected" in retry_prompt and "name" in retry_prompt


def test_a_huge_rejected_reply_is_not_quoted_back_whole(scripted):
    # jsonschema's message quotes the offending value; a 50,000-character one would double the
    # retry prompt and fill the error
    huge = json.dumps({"name": "Mara Voss " * 5000})
    scripted.replies.extend([huge] * (1 + llm.SCHEMA_RETRIES))
    with pytest.raises(LLMOutputError) as err:
        llm.call_llm("who?", schema={**SCHEMA, "properties": {"name": {"type": "string", "maxLength": 20}}},
                     purpose="find a name")
    retry_prompt = scripted.requests[1]["messages"][-1]["content"]
    assert "is too long" in retry_prompt and len(retry_prompt) < 500 and len(str(err.value)) < 800


def test_schema_gives_up_with_named_purpose(scripted):
    scripted.replies.extend(["not json", "still not", "{]"])
    with pytest.raises(LLMOutputError, match="extract doc n07.*not valid JSON"):
        llm.call_llm("who?", schema=SCHEMA, purpose="extract doc n07")
    assert len(scripted.requests) == 1 + llm.SCHEMA_RETRIES


def test_a_reply_cut_off_at_the_token_cap_is_asked_for_with_more_room(scripted, monkeypatch):
    # the scripted backend reports 2 completion tokens: with max_tokens=2 the reply hit the cap
    monkeypatch.setattr(llm, "MAX_TOKENS_CEILING", 4)
    scripted.replies.extend(['{"name": "Mara', '{"name": "Mara Voss"}'])
    r = llm.call_llm("who?", schema=SCHEMA, purpose="extract doc n07", max_tokens=2)
    assert r.data == {"name": "Mara Voss"}
    assert [q["max_tokens"] for q in scripted.requests] == [2, 4]          # the same request, twice the room
    assert scripted.requests[1]["messages"] == scripted.requests[0]["messages"]
    # at the ceiling, a cut-off reply is not asked for again
    monkeypatch.setattr(llm, "MAX_TOKENS_CEILING", 2)
    scripted.requests.clear()
    scripted.replies.extend(['{"name": "Mara', '{"nom": 1}', '{"name": "Mara Voss"}'])
    with pytest.raises(LLMOutputError, match="extract doc n08: the model's reply ran past the 2-token cap"):
        llm.call_llm("who now?", schema=SCHEMA, purpose="extract doc n08", max_tokens=2)
    assert len(scripted.requests) == 1              # no retry with the same room either
    # below the cap, an invalid reply is still asked again
    r = llm.call_llm("who else?", schema=SCHEMA, max_tokens=3)
    assert r.data == {"name": "Mara Voss"} and len(scripted.requests) == 3


def test_backend_error_propagates_and_nothing_is_cached(scripted):
    scripted.replies.append(BackendUnavailable("cannot reach the model endpoint"))
    with pytest.raises(BackendUnavailable):
        llm.call_llm("q")
    assert not any(config.get_settings().cache_dir.rglob("*.json"))


def test_empty_prompt_rejected(scripted):
    with pytest.raises(ValueError):
        llm.call_llm("   ")


def test_unreachable_endpoint_is_one_line(tmp_cache, monkeypatch):
    monkeypatch.setenv("GABA_BACKEND", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")  # discard port: nothing listens
    monkeypatch.setenv("OPENAI_API_KEY", "x")
    config.reload()
    backend._clients.clear()
    with pytest.raises(BackendUnavailable, match="cannot reach the model endpoint"):
        llm._call_model({"messages": [{"role": "user", "content": "hi"}], "temperature": 0,
                         "max_tokens": 5, "seed": 0})


def test_config_selects_openrouter(monkeypatch):
    monkeypatch.setenv("GABA_IGNORE_DOTENV", "1")
    monkeypatch.delenv("GABA_BACKEND", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-test")
    s = config.reload()
    assert (s.backend, s.provider, s.model) == ("openai", "openrouter", "openai/gpt-4o-mini")
    assert "sk-or-test" not in config.describe()
    monkeypatch.delenv("OPENROUTER_API_KEY")
    config.reload()


def test_config_rejects_unknown_backend(monkeypatch):
    monkeypatch.setenv("GABA_BACKEND", "carrier-pigeon")
    with pytest.raises(ConfigError, match="not a backend"):
        config.reload()
    monkeypatch.delenv("GABA_BACKEND")
    config.reload()


def test_default_is_local_and_described(monkeypatch):
    for v in ("GABA_BACKEND", "OPENROUTER_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv("GABA_IGNORE_DOTENV", "1")
    s = config.reload()
    assert s.backend == "local"
    assert "backend: local" in config.describe()
    config.reload()


@pytest.mark.live
def test_live_local_model_plain_and_schema():
    """The real embedded model answers and fills a schema (cache bypassed)."""
    t0 = time.perf_counter()
    r = llm.call_llm("Reply with the single word: yes", max_tokens=5, use_cache=False)
    assert r.text.strip() and not r.cached
    s = llm.call_llm("Mara Voss sits on the board of Kestrel Motors. Give the person's name.",
                     schema=SCHEMA, max_tokens=40, use_cache=False)
    assert "Mara" in s.data["name"]
    assert time.perf_counter() - t0 < 300
