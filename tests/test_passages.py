"""Long documents are extracted passage by passage (gaba.passages.split_document)."""
from __future__ import annotations

import pytest

from gaba.passages import PASSAGE_WORDS, split_document, split_sentences


def _doc(n_sentences: int, words_each: int = 12) -> dict:
    body = " ".join(["Orla Fenn met Tamsin Greaves in Lowmarsh"] + ["again"] * (words_each - 7))
    return {"id": "x1", "title": "t", "text": " ".join(f"{body} {i}." for i in range(n_sentences))}


def test_a_short_document_is_returned_unchanged():
    doc = _doc(3)
    assert len(doc["text"].split()) <= PASSAGE_WORDS
    assert split_document(doc) == [doc]


def test_a_long_document_becomes_passages_of_whole_sentences_that_keep_every_word():
    doc = _doc(9)
    parts = split_document(doc)
    assert len(parts) > 1
    assert [p["id"] for p in parts] == [f"x1#{i}" for i in range(1, len(parts) + 1)]
    assert all(p["source"] == "x1" and p["title"] == "t" for p in parts)
    assert all(len(p["text"].split()) <= PASSAGE_WORDS for p in parts)
    assert " ".join(p["text"] for p in parts) == doc["text"]
    assert sum(len(split_sentences(p["text"])) for p in parts) == len(split_sentences(doc["text"]))


def test_one_long_sentence_stays_whole_and_bad_limits_are_refused():
    doc = _doc(1, words_each=80)
    assert split_document(doc) == [doc]
    with pytest.raises(ValueError, match="max_words"):
        split_document(_doc(9), max_words=0)


def test_a_build_extracts_each_passage_and_keeps_the_others_when_one_fails(tmp_path, monkeypatch):
    """A scripted model fails on one passage: the other passages' facts are kept, named by passage."""
    from gaba import extract as gx
    from gaba.errors import LLMOutputError
    from gaba.llm import Response

    sentences = [f"Orla Fenn wrote to Tamsin Greaves about the harbour repairs number {i} this week."
                 for i in range(8)]
    doc = {"id": "long", "text": " ".join(sentences)}
    passages = split_document(doc)
    assert len(passages) >= 3
    calls = []

    def fake(d, schema=None):
        calls.append(d["id"])
        if d["id"].startswith("long#2"):           # the passage and every half of it
            raise LLMOutputError("scripted failure")
        return Response("", data={"facts": [{"sentence": 1, "subject": "Orla Fenn", "predicate": "wrote to",
                   "object": "Tamsin Greaves", "subject_type": "person", "object_type": "person"}]},
                        model="scripted", key="k")

    monkeypatch.setattr(gx, "_call_extractor", fake)
    ex = gx.extract_corpus([doc], cache_dir=tmp_path, progress=False)
    # the failing passage was tried whole, then halved until a single sentence failed too
    assert [c for c in calls if "/" not in c] == [p["id"] for p in passages]
    assert "long#2/1" in calls
    assert list(ex.failed) == ["long#2"]
    assert {t.doc_id for t in ex.triples} == {p["id"] for p in passages} - {"long#2"}


def test_a_passage_whose_reply_is_unusable_is_extracted_again_in_halves(tmp_path, monkeypatch):
    """A reply that fails the schema (a small model that runs past the answer cap) does not lose the
    passage: its two halves are extracted, and the second half's sentence numbers are shifted."""
    from gaba import extract as gx
    from gaba.errors import LLMOutputError
    from gaba.llm import Response

    text = ("Orla Fenn trained Brisk Wren. Tamsin Greaves sails Brisk Wren. "
            "Odile Marr owns Cold Harbour. Tamsin Greaves rents Cold Harbour.")
    calls = []

    def fake(d, schema=None):
        calls.append(d["text"])
        if d["text"] == text:
            raise LLMOutputError("the reply is not valid JSON (Unterminated string)")
        words = split_sentences(d["text"])[1].rstrip(".").split()   # the second sentence of each half
        return Response("", data={"facts": [{"sentence": 2, "subject": " ".join(words[:2]),
                                             "predicate": words[2], "object": " ".join(words[3:]),
                                             "subject_type": "person", "object_type": "other"}]},
                        model="scripted", key=f"k{len(calls)}", usage={"completion_tokens": 10})

    monkeypatch.setattr(gx, "_call_extractor", fake)
    ex = gx.extract_corpus([{"id": "h", "text": text}], cache_dir=tmp_path, progress=False)
    assert calls[0] == text and len(calls) == 3 and not ex.failed
    assert [(t.subject, t.relation, t.object, t.evidence) for t in ex.triples] == [
        ("Tamsin Greaves", "sails", "Brisk Wren", "Tamsin Greaves sails Brisk Wren."),
        ("Tamsin Greaves", "rents", "Cold Harbour", "Tamsin Greaves rents Cold Harbour.")]
    assert [r["sentence"] for r in ex.raw["h"]] == [2, 4]
    assert ex.usage["h"]["completion_tokens"] == 20
    # the single-document call halves the same way
    calls.clear()
    assert len(gx.extract_triples({"id": "h", "text": text})) == 2 and len(calls) == 3
