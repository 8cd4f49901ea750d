"""Fault probes of the response cache (gaba.cache): damaged, edited or misplaced entries are never
served, they raise CacheCorrupt naming the file, and ``python -m gaba cache verify`` finds them.

Every model call here goes to the scripted backend of tests/conftest.py.
"""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gaba import cache, config, llm
from gaba.__main__ import main
from gaba.errors import CacheCorrupt, CacheMiss, GabaError

ROOT = Path(__file__).resolve().parent.parent


def _record(scripted, prompt="q", reply="Paris"):
    scripted.replies.append(reply)
    r = llm.call_llm(prompt)
    return r, cache.cache_path(r.key)


def _edit(path: Path, fn) -> None:
    entry = json.loads(path.read_text(encoding="utf-8"))
    fn(entry)
    path.write_text(json.dumps(entry), encoding="utf-8")


def test_committed_cache_is_valid():
    report = cache.verify_cache(ROOT / "assets" / "llm-cache")
    assert report.checked > 0
    assert report.ok, report.bad[:5]


def test_edited_request_is_not_served(scripted):
    r, path = _record(scripted)
    _edit(path, lambda e: e["request"]["messages"][0].update(content="something else"))
    with pytest.raises(CacheCorrupt, match="does not hash to its key"):
        llm.call_llm("q")
    assert len(scripted.requests) == 1


def test_entry_copied_under_another_key(scripted):
    a, pa = _record(scripted, "first")
    b, pb = _record(scripted, "second", "Rome")
    # copy entry b over a's file and fix its key field to look right: its request still differs
    entry = json.loads(pb.read_text())
    entry["key"] = a.key
    pa.write_text(json.dumps(entry))
    with pytest.raises(CacheCorrupt, match=a.key[:8]):
        llm.call_llm("first")


@pytest.mark.parametrize("content, why", [
    ("[]", "holds a JSON list"),
    ("null", "holds a JSON NoneType"),
    ("42", "holds a JSON int"),
    ('"text"', "holds a JSON str"),
    ("", "empty"),
    ('{"key": "trunc', "not valid JSON"),
    (b"\xff\xfe{}", "not valid JSON"),
])
def test_malformed_entries_raise_corrupt(scripted, content, why):
    r, path = _record(scripted)
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(CacheCorrupt) as info:
        llm.call_llm("q")
    msg = str(info.value)
    assert why in msg and path.name in msg and "\n" not in msg
    assert isinstance(info.value, GabaError)


@pytest.mark.parametrize("edit, why", [
    (lambda e: e.pop("response"), "no response"),
    (lambda e: e.pop("format"), "no format"),
    (lambda e: e.update(format=99), "format 99"),
    (lambda e: e.update(response=[]), "must be JSON objects"),
    (lambda e: e["response"].update(text=None), "no text string"),
    (lambda e: e["response"].update(usage="lots"), "usage"),
    (lambda e: e.update(key="0" * 64), "not the key it is stored under"),
    (lambda e: e.update(request=None), "must be JSON objects"),
])
def test_wrong_shape_raises_corrupt(scripted, edit, why):
    r, path = _record(scripted)
    _edit(path, edit)
    with pytest.raises(CacheCorrupt, match=why):
        llm.call_llm("q")


def test_truncated_entry_offline_says_corrupt_not_missing(scripted, monkeypatch):
    r, path = _record(scripted)
    path.write_text(path.read_text()[:40])
    monkeypatch.setenv("GABA_OFFLINE", "1")
    config.reload()
    with pytest.raises(CacheCorrupt, match="corrupt cache entry"):
        llm.call_llm("q")
    path.unlink()
    with pytest.raises(CacheMiss):
        llm.call_llm("q")


def test_entry_that_is_a_folder(scripted):
    r, path = _record(scripted)
    path.unlink()
    path.mkdir()
    with pytest.raises(CacheCorrupt, match="not a regular file"):
        llm.call_llm("q")


def test_new_cache_files_respect_the_umask(scripted):
    old = os.umask(0o022)
    try:
        r, path = _record(scripted)
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    old = os.umask(0o077)
    try:
        r, path = _record(scripted, "private")
    finally:
        os.umask(old)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_verify_cache_lists_bad_files(scripted):
    _record(scripted, "good")
    _, bad1 = _record(scripted, "bad one")
    _, bad2 = _record(scripted, "bad two")
    bad1.write_text("[]")
    _edit(bad2, lambda e: e["request"].update(seed=7))
    (bad1.parent / ".tmp-inprogress.json").write_text("{")        # a write in progress: skipped
    report = cache.verify_cache()
    assert report.checked == 3 and not report.ok
    assert sorted(p for p, _ in report.bad) == sorted([bad1, bad2])
    assert "2 of 3 cache entries" in str(report)


def test_cli_cache_verify(scripted, capsys):
    _, good = _record(scripted, "good")
    assert main(["cache", "verify"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1 and "1 cache entries" in out[0] and "all valid" in out[0]
    _, bad = _record(scripted, "bad")
    bad.write_text("null")
    assert main(["cache", "verify"]) == 1
    out = capsys.readouterr().out.strip().splitlines()
    assert "1 of 2 cache entries" in out[0] and "are corrupt" in out[0]
    assert any(bad.name in line and "JSON NoneType" in line for line in out[1:])


def test_cli_cache_verify_subprocess(scripted, tmp_path):
    _, bad = _record(scripted, "bad")
    bad.write_text('{"format": 1')
    env = {**os.environ, "GABA_CACHE_DIR": str(config.get_settings().cache_dir),
           "GABA_IGNORE_DOTENV": "1"}
    p = subprocess.run([sys.executable, "-m", "gaba", "cache", "verify"], capture_output=True,
                       text=True, env=env, cwd=ROOT, timeout=60)
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert "1 of 1 cache entries" in p.stdout and bad.name in p.stdout
