"""Tests of gaba.data.greenhouse: the corpus of chapter "Multi-hop from scratch"."""
from __future__ import annotations

import json

import pytest

from gaba.data import greenhouse
from gaba.data.greenhouse import greenhouse_question, load_greenhouse, load_greenhouse_triples
from gaba.errors import DocumentError


def test_documents_shape():
    docs = load_greenhouse()
    assert [d["id"] for d in docs] == ["gh1", "gh2", "gh3", "gh4", "gh5"]
    assert all(set(d) == {"id", "title", "text"} and d["text"].strip() for d in docs)


def test_lazy_name_in_gaba_data():
    import gaba.data

    assert gaba.data.load_greenhouse()[0]["id"] == "gh1"


def test_returns_a_fresh_list():
    docs = load_greenhouse()
    docs[0]["text"] = "changed"
    docs.pop()
    assert len(load_greenhouse()) == 5 and load_greenhouse()[0]["text"] != "changed"


def test_reference_triples_are_stated_by_their_note():
    texts = {d["id"]: d["text"].lower() for d in load_greenhouse()}
    rows = load_greenhouse_triples(with_doc_ids=True)
    assert len(rows) == 10
    for s, _r, o, doc_id in rows:
        assert s.lower() in texts[doc_id] and o.lower() in texts[doc_id], (s, o, doc_id)
    assert load_greenhouse_triples() == [r[:3] for r in rows]


def test_question_needs_three_notes_and_no_note_names_mia_and_dev():
    question, answer = greenhouse_question()
    assert answer == "Mia" and "Dev" in question
    docs = load_greenhouse()
    assert not any("Mia" in d["text"] and "Dev" in d["text"] for d in docs)
    # the greenhouse, Dev's flag and Mia's recalibration are each stated in a note of its own
    chain = {("humidity sensor", "located in", "greenhouse"), ("Dev", "flagged as drifting", "humidity sensor"),
             ("Mia", "recalibrated", "humidity sensor")}
    notes = {doc for s, r, o, doc in load_greenhouse_triples(with_doc_ids=True) if (s, r, o) in chain}
    assert len(notes) == 3
    assert not any("greenhouse" in d["text"] and ("Dev" in d["text"] or "Mia" in d["text"]) for d in docs)


def _with_file(monkeypatch, tmp_path, content: str):
    path = tmp_path / "greenhouse.json"
    path.write_text(content, encoding="utf-8")
    monkeypatch.setattr(greenhouse, "GREENHOUSE_PATH", path)
    greenhouse._read.cache_clear()


@pytest.fixture
def restore():
    yield
    greenhouse._read.cache_clear()


def test_missing_file_says_how_to_restore(monkeypatch, tmp_path, restore):
    monkeypatch.setattr(greenhouse, "GREENHOUSE_PATH", tmp_path / "nope.json")
    greenhouse._read.cache_clear()
    with pytest.raises(DocumentError, match="git checkout"):
        load_greenhouse()


def test_bad_json_and_bad_documents(monkeypatch, tmp_path, restore):
    _with_file(monkeypatch, tmp_path, "{not json")
    with pytest.raises(DocumentError, match="not valid JSON"):
        load_greenhouse()
    _with_file(monkeypatch, tmp_path, json.dumps({"documents": [{"id": "x", "text": "  "}]}))
    with pytest.raises(DocumentError, match="non-empty"):
        load_greenhouse()
    _with_file(monkeypatch, tmp_path, json.dumps({"documents": []}))
    with pytest.raises(DocumentError, match="no 'documents'"):
        load_greenhouse()
