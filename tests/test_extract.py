"""Tests of gaba.extract: validation, reconciliation, scoring arithmetic, the graph and its
triples cache, and bad input. The model is the scripted fake backend except in the warm-build
test, which reads the committed triples cache and must make no model call at all."""
from __future__ import annotations

import json
import math
import time

import networkx as nx
import pytest

from gaba import config, llm
from gaba.data.news import load_documents, load_gold_aliases, load_gold_triples
from gaba.errors import DocumentError, GabaError, LLMOutputError
from gaba.extract import (
    MAX_DOCUMENT_TOKENS, RELATIONS, Triple, build_knowledge_graph, evaluate_aliases,
    extract_corpus, extract_triples, extraction_prompt, extraction_schema, graph_triples,
    kg_cache_dir, load_graph, mentions, reconcile_entities, save_graph, score_triples,
    triples_cache_key, validate_triples)

DOC = {"id": "t1", "text": "Acme Corp named Ann Lee to its board. Lee once ran a bakery. "
                           "Beta Foods buys flour from Acme."}
DOC2 = {"id": "t2", "text": "Gamma Bank lends to Beta Foods. The loan runs for five years."}


def fact(evidence, subject, relation, obj, **extra):
    return {"evidence": evidence, "subject": subject, "relation": relation, "object": obj, **extra}


def reply(*facts) -> str:
    return json.dumps({"facts": list(facts)})


DOC_REPLY = reply(
    fact("Acme Corp named Ann Lee to its board.", "Acme Corp", "BOARD_MEMBER_OF", "Ann Lee"),
    fact("Beta Foods buys flour from Acme.", "Beta Foods", "BUYS_FROM", "Acme"))
DOC2_REPLY = reply(fact("Gamma Bank lends to Beta Foods.", "Gamma Bank", "BANKS", "Beta Foods"))


# --- prompt and schema ---------------------------------------------------------------------

def test_schema_enum_is_the_vocabulary():
    items = extraction_schema()["properties"]["facts"]["items"]
    assert items["properties"]["relation"]["enum"] == list(RELATIONS)
    assert list(items["properties"])[0] == "evidence"
    for r in ["SUPPLIES_TO", "COMPETES_WITH", "INVESTS_IN", "BOARD_MEMBER_OF", "CEO_OF", "FOUNDED",
              "ACQUIRED", "BANKS", "BUYS_FROM", "RELATED_TO"]:
        assert r in RELATIONS


def test_prompt_is_stable_and_short():
    p = extraction_prompt(DOC["text"])
    assert p == extraction_prompt(DOC["text"] + "\n")
    assert all(r in p for r in RELATIONS) and DOC["text"] in p
    assert len(p.split()) < 250


# --- validation ----------------------------------------------------------------------------

def test_validation_keeps_supported_facts_and_says_why_it_refuses():
    recs = [
        fact("Acme Corp named Ann Lee to its board.", "Acme Corp", "BOARD_MEMBER_OF", "Ann Lee"),
        fact("Lee once ran a bakery.", "Ann Lee", "SUPPLIES_TO", "Acme Corp"),       # object absent
        fact("Acme bought Beta Foods.", "Acme Corp", "ACQUIRED", "Beta Foods"),     # not in doc
        fact("Acme bought Zeta.", "Acme Corp", "ACQUIRED", "Zeta"),                 # Zeta unknown
        fact("Beta Foods buys flour from Acme.", "Beta Foods", "BUYS_FROM", "Acme"),
        fact("Beta Foods buys flour from Acme.", "Beta Foods", "BUYS_FROM", "Acme"),  # duplicate
        fact("Beta Foods buys flour from Acme.", "it", "BUYS_FROM", "Acme"),          # pronoun
        fact("Beta Foods buys flour from Acme.", "Beta Foods", "OWNS", "Acme"),       # not in enum
    ]
    kept, rejected = validate_triples(recs, DOC)
    assert [t.as_tuple() for t in kept] == [("Ann Lee", "BOARD_MEMBER_OF", "Acme Corp"),
                                            ("Beta Foods", "BUYS_FROM", "Acme")]
    assert kept[0].evidence == "Acme Corp named Ann Lee to its board." and kept[0].doc_id == "t1"
    reasons = [r.reason for r in rejected]
    assert reasons[0] == "evidence does not mention 'Acme Corp'"
    assert reasons[1] == "evidence is not a sentence of the document"
    assert reasons[2] == "subject or object is not a name in the text"
    assert reasons[3] == "subject or object is not a name"
    assert "not in the vocabulary" in reasons[4]
    assert len(rejected) == 5


def test_near_copy_of_evidence_is_replaced_by_the_documents_sentence():
    kept, _ = validate_triples([fact("Beta Foods buy flour from Acme", "Beta Foods", "BUYS_FROM",
                                     "Acme")], DOC)
    assert kept[0].evidence == "Beta Foods buys flour from Acme."


def test_related_to_keeps_the_verb():
    kept, _ = validate_triples([fact("Gamma Bank lends to Beta Foods.", "Gamma Bank", "RELATED_TO",
                                     "Beta Foods", verb="lends to")], DOC2)
    assert kept[0].verb == "lends to" and str(kept[0]) == "Gamma Bank -[RELATED_TO(lends to)]-> Beta Foods"


def test_mentions():
    assert mentions("Tomas Okafor, the chief executive of Kestrel, said so.", "Kestrel Motors")
    assert mentions("Voss will chair the committee.", "Mara Voss")
    assert not mentions("Northwind Systems makes software.", "Kestrel Motors")
    assert not mentions("Motors are loud.", "Kestrel Motors")


# --- reconciliation ------------------------------------------------------------------------

def test_reconcile_short_forms_and_ambiguity():
    table = reconcile_entities(["Kestrel", "Kestrel Motors", "Voss", "Mara Voss", "Pacific Crest",
                                "Pacific Crest Logistics", "Pacific", "Pacific Bank", "Kestrel's"])
    assert table["Kestrel"] == table["Kestrel's"] == "Kestrel Motors"
    assert table["Voss"] == "Mara Voss"
    assert table["Pacific Crest"] == "Pacific Crest Logistics"
    assert table["Pacific"] == "Pacific"            # two candidates: left alone
    assert table["Pacific Bank"] == "Pacific Bank"
    assert reconcile_entities(["Motors", "Kestrel Motors"])["Motors"] == "Motors"


def test_reconcile_uses_long_forms_from_the_documents():
    docs = [{"id": "a", "text": "Kestrel Motors builds vans. Before Orchard, Kim founded a firm."},
            {"id": "b", "text": "Jonas Kim founded Orchard Software."}]
    table = reconcile_entities(["Kestrel", "Kim", "Orchard"], docs)
    assert table == {"Kestrel": "Kestrel Motors", "Kim": "Jonas Kim", "Orchard": "Orchard Software",
                     "Jonas Kim": "Jonas Kim", "Kestrel Motors": "Kestrel Motors",
                     "Orchard Software": "Orchard Software"}


def test_gold_aliases_resolve_from_gold_names_and_the_corpus():
    gold = load_gold_triples()
    names = sorted({t["subject"] for t in gold} | {t["object"] for t in gold})
    table = reconcile_entities(names, load_documents())
    df, summary = evaluate_aliases(table, load_gold_aliases())
    assert summary["recall"] == 1.0 and summary["wrong_merges"] == 0, df[~df.correct]


def test_evaluate_aliases_counts_wrong_merges():
    df, s = evaluate_aliases({"Kestrel": "Kestrel Motors", "Kim": "Kim Bank", "Voss": "Voss"},
                             {"Kestrel": "Kestrel Motors", "Kim": "Jonas Kim", "Voss": "Mara Voss"})
    assert list(df["correct"]) == [True, False, False]
    assert (s["resolved"], s["merges"], s["wrong_merges"]) == (1, 2, 1)
    assert s["precision"] == 0.5 and s["recall"] == pytest.approx(1 / 3)


# --- scoring -------------------------------------------------------------------------------

def test_score_arithmetic():
    gold = [("A", "SUPPLIES_TO", "B"), ("C", "CEO_OF", "A"), ("D", "COMPETES_WITH", "A"),
            ("E", "FOUNDED", "A")]
    pred = [("b", "BUYS_FROM", "a"),            # same fact, inverse relation, other case
            ("A", "COMPETES_WITH", "D"),        # symmetric
            ("C", "BOARD_MEMBER_OF", "A"),      # wrong relation
            ("X", "RELATED_TO", "Y")]           # not in gold
    df = score_triples(pred, gold)
    o = df.loc["overall"]
    assert (o["gold"], o["extracted"], o["correct"]) == (4, 4, 2)
    assert o["precision"] == 0.5 and o["recall"] == 0.5 and o["f1"] == 0.5
    assert df.loc["SUPPLIES_TO", "recall"] == 1.0
    assert df.loc["CEO_OF", "recall"] == 0.0 and math.isnan(df.loc["CEO_OF", "precision"])
    assert df.loc["BOARD_MEMBER_OF", "precision"] == 0.0 and math.isnan(df.loc["BOARD_MEMBER_OF", "recall"])
    assert list(df.index)[-1] == "overall"
    f1 = 2 * 0.75 * 0.6 / (0.75 + 0.6)
    d2 = score_triples([("A", "R1", "B")] * 1 + [("A", "R1", "C"), ("A", "R1", "D"), ("Q", "R1", "Z")],
                       [("A", "R1", "B"), ("A", "R1", "C"), ("A", "R1", "D"), ("A", "R1", "E"),
                        ("A", "R1", "F")])
    assert d2.loc["overall", "f1"] == pytest.approx(f1)


def test_gold_scores_perfectly_against_itself_and_accepts_triples_and_graphs():
    gold = load_gold_triples()
    assert score_triples(gold).loc["overall", "f1"] == 1.0
    triples = [Triple(t["subject"], t["relation"], t["object"], t["doc_id"], t["evidence"]) for t in gold]
    G = nx.MultiDiGraph()
    for t in triples:
        G.add_edge(t.subject, t.object, key=t.relation, relation=t.relation)
    assert score_triples(triples).loc["overall", "recall"] == 1.0
    assert score_triples(G).loc["overall", "precision"] == 1.0


# --- the graph and its cache ---------------------------------------------------------------

def test_build_graph_attributes_and_warm_rebuild(scripted, tmp_path):
    scripted.replies.extend([DOC_REPLY, DOC2_REPLY])
    cache = tmp_path / "kg"
    G = build_knowledge_graph([DOC, DOC2], cache_dir=cache, progress=False)
    assert isinstance(G, nx.MultiDiGraph)
    assert sorted(G.edges(keys=True)) == [("Ann Lee", "Acme Corp", "BOARD_MEMBER_OF"),
                                          ("Beta Foods", "Acme Corp", "BUYS_FROM"),
                                          ("Gamma Bank", "Beta Foods", "BANKS")]
    e = G.edges["Beta Foods", "Acme Corp", "BUYS_FROM"]
    assert (e["relation"], e["doc_id"], e["evidence"]) == ("BUYS_FROM", "t1", "Beta Foods buys flour from Acme.")
    assert G.nodes["Acme Corp"]["aliases"] == ["Acme"]
    assert G.nodes["Ann Lee"]["aliases"] == ["Lee"]
    assert G.graph["cache"] == {"hits": 0, "misses": 2, "rebuilt": 0} and G.graph["failed"] == {}
    assert len(list(cache.glob("*.json"))) == 2
    assert [t.as_tuple()[1] for t in graph_triples(G)] == ["BOARD_MEMBER_OF", "BUYS_FROM", "BANKS"]
    # warm: no model call at all, not even a response-cache lookup
    llm.reset_stats()
    H = build_knowledge_graph([DOC, DOC2], cache_dir=cache, progress=False)
    assert llm.stats().calls == 0 and len(scripted.requests) == 2
    assert H.graph["cache"] == {"hits": 2, "misses": 0, "rebuilt": 0}
    assert nx.utils.edges_equal(G.edges(keys=True, data=True), H.edges(keys=True, data=True))


def test_cache_key_depends_on_text_prompt_and_model(scripted, monkeypatch):
    import gaba.extract as ex
    k = triples_cache_key("a")
    assert k != triples_cache_key("b")
    monkeypatch.setattr(ex, "EXTRACTION_PROMPT", ex.EXTRACTION_PROMPT + " ")
    assert triples_cache_key("a") != k


def test_corrupt_cache_entry_is_rebuilt(scripted, tmp_path):
    scripted.replies.extend([DOC2_REPLY])
    cache = tmp_path / "kg"
    build_knowledge_graph([DOC2], cache_dir=cache, progress=False)
    (path,) = cache.glob("*.json")
    path.write_text('{"key": "trunc')
    llm.use_backend(None)
    scripted2 = type(scripted)(DOC2_REPLY)
    llm.use_backend(scripted2)
    llm.reset_stats()
    G = build_knowledge_graph([DOC2], cache_dir=cache, progress=False)
    assert G.graph["cache"]["rebuilt"] == 1 and G.number_of_edges() == 1
    # served by the response cache: the scripted backend was not asked again
    assert llm.stats().hits == 1 and scripted2.requests == []
    assert json.loads(path.read_text())["facts"][0]["subject"] == "Gamma Bank"
    path.write_text(json.dumps({"key": "someone else's", "facts": []}))
    assert build_knowledge_graph([DOC2], cache_dir=cache, progress=False).graph["cache"]["rebuilt"] == 1


def test_rebuild_ignores_the_cache(scripted, tmp_path):
    scripted.replies.extend([DOC2_REPLY])
    build_knowledge_graph([DOC2], cache_dir=tmp_path, progress=False)
    G = build_knowledge_graph([DOC2], cache_dir=tmp_path, rebuild=True, progress=False)
    assert G.graph["cache"]["misses"] == 1


def test_malformed_model_output_names_the_document_and_others_survive(scripted, tmp_path):
    # doc t1: three bad answers (first try + 2 retries); doc t2: fine
    scripted.replies.extend(["not json", '{"facts": [{"subject": "x"}]}', "{", DOC2_REPLY])
    with pytest.warns(UserWarning, match="1 of 2 documents.*t1"):
        G = build_knowledge_graph([DOC, DOC2], cache_dir=tmp_path, progress=False)
    assert "document 't1'" in G.graph["failed"]["t1"]
    assert list(G.edges(keys=True)) == [("Gamma Bank", "Beta Foods", "BANKS")]
    assert len(list(tmp_path.glob("*.json"))) == 1, "nothing may be cached for the failed document"
    assert not list(tmp_path.glob(".tmp-*"))
    scripted.replies.extend(["nope", "nope", "nope"])
    with pytest.raises(LLMOutputError, match="document 'x1'"):
        extract_triples({"id": "x1", "text": "Acme buys from Beta."})


@pytest.mark.parametrize("docs, message", [
    ([DOC, {"id": "e", "text": "  "}], "'e' is empty"),
    ([DOC, {"id": "n", "text": 12}], "not a string"),
    ([DOC, {"id": "big", "text": "word " * (MAX_DOCUMENT_TOKENS * 2)}], "'big' is about"),
])
def test_bad_documents_fail_before_any_model_call(scripted, tmp_path, docs, message):
    with pytest.raises(DocumentError, match=message):
        build_knowledge_graph(docs, cache_dir=tmp_path, progress=False)
    assert scripted.requests == []
    with pytest.raises(DocumentError):
        extract_triples(docs[1])
    with pytest.raises(DocumentError, match="not a list"):
        extract_triples(["not", "a", "document"])


def test_save_and_load_round_trip(scripted, tmp_path):
    scripted.replies.extend([DOC_REPLY, DOC2_REPLY])
    G = build_knowledge_graph([DOC, DOC2], cache_dir=tmp_path / "kg", progress=False)
    for name in ["g.json", "g.graphml"]:
        H = load_graph(save_graph(G, tmp_path / name))
        assert isinstance(H, nx.MultiDiGraph)
        assert dict(H.nodes(data=True)) == dict(G.nodes(data=True))
        assert sorted(H.edges(keys=True, data=True)) == sorted(G.edges(keys=True, data=True))
    with pytest.raises(GabaError, match="no graph file"):
        load_graph(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(GabaError, match="not a graph"):
        load_graph(tmp_path / "bad.json")


def test_default_cache_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("GABA_KG_CACHE", str(tmp_path))
    assert kg_cache_dir() == tmp_path
    assert kg_cache_dir("x").name == "x"


# --- the committed cache: the book's graph builds warm ------------------------------------

def test_warm_build_of_the_news_corpus_makes_no_model_call(monkeypatch):
    for var in ["GABA_KG_CACHE", "GABA_LOCAL_MODEL", "GABA_CACHE_DIR", "OPENAI_API_KEY",
                "OPENROUTER_API_KEY", "OPENAI_BASE_URL"]:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GABA_BACKEND", "local")
    monkeypatch.setenv("GABA_OFFLINE", "1")
    monkeypatch.setenv("GABA_IGNORE_DOTENV", "1")
    config.reload()
    llm.reset_stats()
    try:
        build_knowledge_graph(progress=False)      # warm the imports
        t0 = time.perf_counter()
        G = build_knowledge_graph(progress=False)
        elapsed = time.perf_counter() - t0
    finally:
        config.reload()
    assert llm.stats().calls == 0
    assert elapsed < 1.0
    assert G.graph["cache"] == {"hits": 14, "misses": 0, "rebuilt": 0}
    assert G.number_of_edges() >= 10
    assert "Kestrel" in G.nodes["Kestrel Motors"]["aliases"]


def test_shortened_evidence_maps_to_its_sentence_but_invented_does_not():
    doc = {"id": "p", "text": "Pacific Crest Logistics, the freight group that founded Kestrel Motors "
                              "in 2019, reported record revenue. Both contracts were renewed."}
    recs = [fact("Pacific Crest Logistics founded Kestrel Motors in 2019.", "Pacific Crest Logistics",
                 "FOUNDED", "Kestrel Motors"),
            fact("Pacific Crest Logistics acquired Kestrel Motors in 2019.", "Pacific Crest Logistics",
                 "ACQUIRED", "Kestrel Motors")]
    kept, rejected = validate_triples(recs, doc)
    assert [t.relation for t in kept] == ["FOUNDED"]
    assert kept[0].evidence.startswith("Pacific Crest Logistics, the freight group")
    assert rejected[0].reason == "evidence is not a sentence of the document"


def test_common_nouns_capitalised_by_the_model_are_not_names():
    doc = {"id": "c", "text": "Northwind makes software for hotels and retailers. The utility agreed."}
    recs = [fact("Northwind makes software for hotels and retailers.", "Northwind", "SUPPLIES_TO",
                 "Hotels and retailers"),
            fact("The utility agreed.", "Utility", "RELATED_TO", "Northwind", verb="agreed")]
    kept, rejected = validate_triples(recs, doc)
    assert kept == [] and [r.reason for r in rejected] == ["subject or object is not a name in the text"] * 2


def test_reworded_evidence_is_matched_by_word_stems():
    doc = {"id": "n", "text": "Northwind Systems has completed its acquisition of Orchard Software, a "
                              "maker of tools. The deal was announced in January."}
    kept, _ = validate_triples([fact("Northwind Systems acquired Orchard Software.", "Northwind Systems",
                                     "ACQUIRED", "Orchard Software")], doc)
    assert kept and kept[0].evidence.startswith("Northwind Systems has completed")
