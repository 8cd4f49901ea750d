"""Tests of gaba.data.news: the corpus states its facts, no document states a two-hop chain, and
load_documents accepts readers' corpora and rejects bad input with a clear error."""
from __future__ import annotations

import itertools
import json
import re

import networkx as nx
import pytest

from gaba.data.news import NEWS_PATH, load_documents, load_gold_aliases, load_gold_triples
from gaba.errors import DocumentError

DOCS = {d["id"]: d for d in load_documents()}
GOLD = load_gold_triples()
ALIASES = load_gold_aliases()


def _names(entity: str) -> list[str]:
    return [entity] + [a for a, c in ALIASES.items() if c == entity]


def _mentions(text: str, entity: str) -> bool:
    return any(re.search(rf"\b{re.escape(n)}\b", text) for n in _names(entity))


def test_corpus_shape():
    assert len(DOCS) == 14
    assert list(DOCS) == [f"n{i:02d}" for i in range(1, 15)]
    for d in DOCS.values():
        assert d["title"] and d["date"].startswith("2024-")
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", d["text"].strip()) if s]
        assert 2 <= len(sentences) <= 4, d["id"]


def test_seed_facts_are_stated():
    facts = {(t["subject"], t["relation"], t["object"]) for t in GOLD}
    expected = {
        ("Aurora Cell Works", "SUPPLIES_TO", "Kestrel Motors"),
        ("Aurora Cell Works", "SUPPLIES_TO", "Juniper Grid"),
        ("Voltaic Dynamics", "COMPETES_WITH", "Aurora Cell Works"),
        ("Helio Capital", "INVESTS_IN", "Aurora Cell Works"),
        ("Mara Voss", "BOARD_MEMBER_OF", "Kestrel Motors"),
        ("Mara Voss", "BOARD_MEMBER_OF", "Northwind Systems"),
        ("Pacific Crest Logistics", "FOUNDED", "Kestrel Motors"),
        ("Pacific Crest Logistics", "ACQUIRED", "Tallyroute"),
        ("Jonas Kim", "FOUNDED", "Tallyroute"),
        ("Pacific Crest Logistics", "SUPPLIES_TO", "Cascadia Foods"),
        ("Pacific Crest Logistics", "SUPPLIES_TO", "Saltbox Retail Group"),
        ("Tomas Okafor", "CEO_OF", "Kestrel Motors"),
        ("Anil Raman", "CEO_OF", "Meridian Semiconductors"),
        ("Meridian Semiconductors", "SUPPLIES_TO", "Northwind Systems"),
        ("Meridian Semiconductors", "SUPPLIES_TO", "Bluepeak Robotics"),
        ("Northwind Systems", "ACQUIRED", "Orchard Software"),
        ("Jonas Kim", "FOUNDED", "Orchard Software"),
        ("Jonas Kim", "BOARD_MEMBER_OF", "Granite Bank"),
        ("Granite Bank", "BANKS", "Tidewater Hotels"),
        ("Tidewater Hotels", "BUYS_FROM", "Northwind Systems"),
    }
    assert facts == expected
    assert len(GOLD) == len(facts), "a gold triple is repeated"


def test_gold_evidence_is_verbatim_and_names_both_ends():
    for t in GOLD:
        assert t["evidence"] in DOCS[t["doc_id"]]["text"], t
        assert _mentions(t["evidence"], t["subject"]), t
        assert _mentions(t["evidence"], t["object"]), t


def test_aliases_are_short_forms_used_in_the_text():
    text = " ".join(d["text"] for d in DOCS.values())
    entities = {t["subject"] for t in GOLD} | {t["object"] for t in GOLD}
    for alias, canonical in ALIASES.items():
        assert canonical in entities and alias != canonical
        assert re.search(rf"\b{re.escape(alias)}\b", text), alias
    for short in ["Kestrel", "Aurora", "Northwind"]:
        assert short in ALIASES


def test_no_document_states_a_directed_chain():
    by_doc = {}
    for t in GOLD:
        by_doc.setdefault(t["doc_id"], []).append(t)
    for doc_id, triples in by_doc.items():
        for a, b in itertools.permutations(triples, 2):
            assert a["object"] != b["subject"], f"{doc_id} chains {a} and {b}"


def test_no_document_mentions_both_ends_of_a_two_hop_path():
    G = nx.Graph()
    for t in GOLD:
        G.add_edge(t["subject"], t["object"], doc=t["doc_id"])
    checked = 0
    for mid in G:
        for a, c in itertools.combinations(sorted(G[mid]), 2):
            if G.has_edge(a, c) or G[a][mid]["doc"] == G[mid][c]["doc"]:
                continue   # a star told by one story, not a chain spread over two
            checked += 1
            for d in DOCS.values():
                assert not (_mentions(d["text"], a) and _mentions(d["text"], c)), \
                    f"{d['id']} mentions both {a} and {c} (linked through {mid})"
    assert checked >= 25
    # the book's headline example
    assert not any(_mentions(d["text"], "Kestrel Motors") and _mentions(d["text"], "Voltaic Dynamics")
                   for d in DOCS.values())


def test_tidewater_to_bluepeak_paths():
    G = nx.Graph((t["subject"], t["object"]) for t in GOLD)
    assert nx.shortest_path_length(G, "Tidewater Hotels", "Bluepeak Robotics") == 3
    G.remove_edge("Tidewater Hotels", "Northwind Systems")
    assert nx.shortest_path(G, "Tidewater Hotels", "Bluepeak Robotics") == [
        "Tidewater Hotels", "Granite Bank", "Jonas Kim", "Orchard Software", "Northwind Systems",
        "Meridian Semiconductors", "Bluepeak Robotics"]


# --- load_documents on readers' corpora ---------------------------------------------------

def test_strings_get_ids():
    docs = load_documents(["one text", "another"])
    assert [d["id"] for d in docs] == ["d01", "d02"]
    assert docs[0] == {"id": "d01", "title": "", "date": None, "text": "one text"}


def test_dicts_keep_their_ids():
    docs = load_documents([{"id": "x", "text": "hello"}, {"text": "world"}])
    assert [d["id"] for d in docs] == ["x", "d02"]


def test_json_file_and_folder(tmp_path):
    f = tmp_path / "docs.json"
    f.write_text(json.dumps([{"id": "a", "text": "Alpha."}, "Beta."]))
    assert [d["text"] for d in load_documents(f)] == ["Alpha.", "Beta."]
    assert load_documents(str(f))[0]["id"] == "a"
    folder = tmp_path / "corpus"
    (folder / "sub").mkdir(parents=True)
    (folder / "b.txt").write_text("Bee.")
    (folder / "sub" / "a.md").write_text("# A\nAy.")
    (folder / "ignored.csv").write_text("x,y")
    with pytest.warns(UserWarning, match=r"skipped 1 other file\(s\) \(1 \.csv\)"):
        docs = load_documents(folder)
    assert [d["id"] for d in docs] == ["b", "sub/a"]
    assert docs[1]["title"] == "a"


def test_default_is_the_news_corpus():
    assert load_documents() == load_documents(NEWS_PATH)


@pytest.mark.parametrize("source, message", [
    ([], "no documents"),
    (["fine", "   "], "'d02' is empty"),
    ([{"id": "n1", "text": ""}], "'n1' is empty"),
    ([42], "position 0 is a int, not text"),
    ([{"id": "n1", "text": 3.5}], "not a string"),
    ([{"id": "n1"}], "no 'text' field"),
    ([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}], "share the id 'a'"),
    (["bin\x00ary"], "binary"),
    (b"bytes", "cannot read documents"),
    (12, "cannot read documents"),
    ("/no/such/place.json", "no such file or folder"),
])
def test_bad_input_is_a_clear_error(source, message):
    with pytest.raises(DocumentError, match=re.escape(message)):
        load_documents(source)


def test_a_bad_file_in_a_folder_is_skipped_with_a_warning_not_the_folder(tmp_path):
    (tmp_path / "good.txt").write_text("Ann Lee founded Acme.")
    (tmp_path / "blank.md").write_text("  \n")
    (tmp_path / "latin1.txt").write_bytes("Caf\xe9".encode("latin-1"))
    (tmp_path / "nul.txt").write_text("bin\x00ary")
    with pytest.warns(UserWarning, match=r"skipped 3 file\(s\).*blank\.md.*empty.*latin1\.txt.*not UTF-8.*"
                                          r"nul\.txt.*binary"):
        docs = load_documents(tmp_path)
    assert [d["id"] for d in docs] == ["good"]


def test_bad_files(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(DocumentError, match="holds no"):
        load_documents(tmp_path / "empty")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(DocumentError, match="not valid JSON"):
        load_documents(bad)
    obj = tmp_path / "obj.json"
    obj.write_text('{"text": "x"}')
    with pytest.raises(DocumentError, match="holds a JSON dict"):
        load_documents(obj)
    binary = tmp_path / "bin"
    binary.mkdir()
    (binary / "x.txt").write_bytes(b"\xff\xfe\x00\x81")
    with pytest.raises(DocumentError, match="not UTF-8"):
        load_documents(binary)
