"""Fault probe: files gaba writes for later runs were mode 0600 (tempfile.mkstemp's), so a graph or
cache shared with a group, or committed and checked out by another user, was unreadable to them.

Every write now goes through gaba.fileio (atomic, 0666 minus the umask, like open()).
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from gaba import embed, fileio, localmodel
from gaba.errors import BackendUnavailable
from gaba.kgbuild import build_knowledge_graph
from gaba.kgfile import load_graph, save_graph
from gaba.prompts import NEWS_SCHEMA


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def umask022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def group_and_other_can_read(path: Path) -> bool:
    return bool(mode(path) & stat.S_IRGRP) and bool(mode(path) & stat.S_IROTH)


def small_graph() -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    G.add_node("Aurora Cell Works", aliases=["Aurora"])
    G.add_edge("Aurora Cell Works", "Kestrel Motors", key="SUPPLIES", relation="SUPPLIES",
               doc_id="d1", evidence="Aurora supplies Kestrel.")
    return G


@pytest.mark.parametrize("name", ["g.json", "g.graphml"])
def test_saved_graph_is_readable_by_group_and_other(tmp_path, umask022, name):
    p = save_graph(small_graph(), tmp_path / name)
    assert mode(p) == 0o644 and group_and_other_can_read(p)
    assert sorted(load_graph(p).edges(keys=True)) == [("Aurora Cell Works", "Kestrel Motors", "SUPPLIES")]
    assert [f.name for f in tmp_path.iterdir()] == [name]          # no temporary file left


def test_saved_graph_follows_a_private_umask(tmp_path):
    old = os.umask(0o077)
    try:
        p = save_graph(small_graph(), tmp_path / "g.json")
    finally:
        os.umask(old)
    assert mode(p) == 0o600


def test_triples_cache_entries_are_readable(scripted, tmp_path, umask022):
    scripted.replies.append(json.dumps({"facts": [
        {"evidence": "Gamma Bank lends to Beta Foods.", "subject": "Gamma Bank", "relation": "BANKS",
         "object": "Beta Foods"}]}))
    cache = tmp_path / "kg"
    build_knowledge_graph([{"id": "t2", "text": "Gamma Bank lends to Beta Foods."}], schema=NEWS_SCHEMA,
                          cache_dir=cache, progress=False)
    entries = list(cache.glob("*.json"))
    assert len(entries) == 1 and all(group_and_other_can_read(p) for p in entries)
    assert [p.name for p in cache.iterdir() if p.name.startswith(".")] == []
    # the response cache entry written for the same call
    llm_entries = list((tmp_path / "llm-cache").rglob("*.json"))
    assert llm_entries and all(group_and_other_can_read(p) for p in llm_entries)


def test_embedding_shards_are_readable(tmp_path, umask022):
    folder = tmp_path / "embed"
    embed._save(folder, ["a", "b"], np.eye(2, dtype=np.float32))
    shards = list(folder.glob("*.npz"))
    assert len(shards) == 1 and mode(shards[0]) == 0o644
    assert list(folder.iterdir()) == shards
    with np.load(shards[0]) as z:
        assert list(z["keys"]) == ["a", "b"]


def test_assembled_model_is_checked_then_public(tmp_path, monkeypatch, umask022):
    parts = [tmp_path / "p1", tmp_path / "p2"]
    parts[0].write_bytes(b"GGUF" * 10)
    parts[1].write_bytes(b"tail")
    whole = b"GGUF" * 10 + b"tail"
    monkeypatch.setattr(localmodel, "_part_paths", lambda: parts)
    monkeypatch.setattr(localmodel, "LOCAL_MODEL_SIZE", len(whole))
    monkeypatch.setattr(localmodel, "LOCAL_MODEL_SHA256", hashlib.sha256(whole).hexdigest())
    monkeypatch.setenv("GABA_MODEL_DIR", str(tmp_path / "models"))
    monkeypatch.delenv("GABA_LOCAL_MODEL", raising=False)
    from gaba import config
    config.reload()
    try:
        target = localmodel.model_path()
        assert target.read_bytes() == whole and mode(target) == 0o644
        assert sorted(p.name for p in target.parent.iterdir()) == [target.name, target.with_suffix(".verified").name]
        # a damaged part: an error naming the fix, and no model (not even half of one) is left
        target.unlink()
        parts[1].write_bytes(b"tale")
        with pytest.raises(BackendUnavailable, match="reinstall"):
            localmodel.model_path()
        assert [p.name for p in target.parent.iterdir()] == [target.with_suffix(".verified").name]
    finally:
        monkeypatch.undo()
        config.reload()


def test_failed_write_keeps_the_old_file(tmp_path):
    p = fileio.atomic_write_text(tmp_path / "a.json", "old\n")
    with pytest.raises(RuntimeError):
        with fileio.atomic_writer(p) as f:
            f.write("half")
            raise RuntimeError("disk full")
    assert p.read_text() == "old\n" and [x.name for x in tmp_path.iterdir()] == ["a.json"]


def test_bytes_and_text_are_written_as_given(tmp_path, umask022):
    with fileio.atomic_writer(tmp_path / "b", binary=True) as f:
        f.write(b"\x00\r\n")
    assert (tmp_path / "b").read_bytes() == b"\x00\r\n"
    assert fileio.atomic_write_text(tmp_path / "t", "Zoë\r\n").read_bytes() == "Zoë\r\n".encode()
    assert fileio.default_mode() == 0o644
