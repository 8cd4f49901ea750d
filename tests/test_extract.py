"""Tests of gaba.extract: validation, reconciliation, scoring arithmetic, the graph and its
triples cache, and bad input, in both modes: open extraction (the default: predicates from the
text, names constrained to the document's capitalised names) and schema-guided extraction
(``schema=NEWS_SCHEMA``). The model is the scripted fake backend except in the warm-build test,
which reads the committed triples cache and must make no model call at all."""
from __future__ import annotations

import json
import math
import time

import networkx as nx
import pytest

from gaba import config, llm
from gaba.data.news import RELATION_FOLDS, load_documents, load_gold_aliases, load_gold_triples
from gaba.errors import CacheMiss, DocumentError, GabaError, LLMOutputError
from gaba.aliases import evaluate_aliases, reconcile_entities
from gaba.data.triple import Triple
from gaba.extract import extract_corpus, extract_triples
from gaba.kgbuild import build_knowledge_graph, graph_triples
from gaba.kgcache import kg_cache_dir, triples_cache_key
from gaba.kgfile import load_graph, save_graph
from gaba.names import (NAME_CONNECTORS, ORG_WORDS, TITLES, candidate_names, capitalised_names, quoted_titles,
                        mentions, strip_title)
from gaba.tokens import estimate_tokens
from gaba.passages import MAX_DOCUMENT_TOKENS, numbered_sentences, split_sentences
from gaba.request import (RELATIONS, extraction_prompt, extraction_schema, open_extraction_schema,
                          prompt_version)
from gaba.scoring import score_triples, triple_differences
from gaba.validate import (MAX_PREDICATE_WORDS, normalize_predicate, validate_open_triples,
                           validate_triples)
from gaba.prompts import EXTRACTION_RELATIONS, NEWS_SCHEMA

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
    assert NEWS_SCHEMA is EXTRACTION_RELATIONS and RELATIONS == tuple(NEWS_SCHEMA)
    assert extraction_schema() == extraction_schema(NEWS_SCHEMA)
    items = extraction_schema(NEWS_SCHEMA)["properties"]["facts"]["items"]
    assert items["properties"]["relation"]["enum"] == list(RELATIONS)
    assert list(items["properties"])[0] == "evidence"
    for r in ["SUPPLIES_TO", "COMPETES_WITH", "INVESTS_IN", "BOARD_MEMBER_OF", "CEO_OF", "FOUNDED",
              "ACQUIRED", "BANKS", "BUYS_FROM", "RELATED_TO"]:
        assert r in RELATIONS


def test_prompt_is_stable_and_short():
    p = extraction_prompt(DOC["text"], NEWS_SCHEMA)
    assert p == extraction_prompt(DOC["text"] + "\n", NEWS_SCHEMA)
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
    kept, rejected = validate_triples(recs, DOC, NEWS_SCHEMA)
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
                                     "Acme")], DOC, NEWS_SCHEMA)
    assert kept[0].evidence == "Beta Foods buys flour from Acme."


def test_related_to_keeps_the_verb():
    kept, _ = validate_triples([fact("Gamma Bank lends to Beta Foods.", "Gamma Bank", "RELATED_TO",
                                     "Beta Foods", verb="lends to")], DOC2, NEWS_SCHEMA)
    assert kept[0].verb == "lends to" and str(kept[0]) == "Gamma Bank -[RELATED_TO(lends to)]-> Beta Foods"


def test_mentions():
    assert mentions("Tomas Okafor, the chief executive of Kestrel, said so.", "Kestrel Motors")
    assert mentions("Voss will chair the committee.", "Mara Voss")
    assert not mentions("Northwind Systems makes software.", "Kestrel Motors")
    # ORG_WORDS is a generic list now ("Holdings", "Bank", "University"...): an organisation word
    # alone mentions no one; a word outside it ("Motors") is a distinctive word like any other
    assert not mentions("Holdings are loud.", "Kestrel Holdings")
    assert not mentions("The University said so.", "University of Caldermoor")
    assert mentions("Caldermoor said so.", "University of Caldermoor")
    assert {"holdings", "bank", "university", "inc"} <= ORG_WORDS and "motors" not in ORG_WORDS


# --- reconciliation ------------------------------------------------------------------------

def test_reconcile_short_forms_and_ambiguity():
    table = reconcile_entities(["Kestrel", "Kestrel Motors", "Voss", "Mara Voss", "Pacific Crest",
                                "Pacific Crest Logistics", "Pacific", "Pacific Bank", "Kestrel's"])
    assert table["Kestrel"] == table["Kestrel's"] == "Kestrel Motors"
    assert table["Voss"] == "Mara Voss"
    assert table["Pacific Crest"] == "Pacific Crest Logistics"
    assert table["Pacific"] == "Pacific"            # two candidates: left alone
    assert table["Pacific Bank"] == "Pacific Bank"
    assert reconcile_entities(["Holdings", "Kestrel Holdings"])["Holdings"] == "Holdings"


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
    df = score_triples(pred, gold, **RELATION_FOLDS)
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


def test_relation_folds_are_the_callers_and_read_no_fixed_label():
    # without folds, the news schema's labels are plain labels like any other
    gold = [("A", "SUPPLIES_TO", "B"), ("D", "COMPETES_WITH", "A")]
    pred = [("B", "BUYS_FROM", "A"), ("A", "COMPETES_WITH", "D")]
    assert score_triples(pred, gold).loc["overall", "correct"] == 0
    assert score_triples(pred, gold, **RELATION_FOLDS).loc["overall", "correct"] == 2
    # invented labels fold when the caller says how, in both functions
    gold = [("Ann", "glimmers", "Bo"), ("Cy", "rivals", "Ann")]
    pred = [("Bo", "is_glimmered_by", "Ann"), ("Ann", "rivals", "Cy")]
    folds = {"inverse": {"is_glimmered_by": "glimmers"}, "symmetric": ["rivals"]}
    assert score_triples(pred, gold, **folds).loc["overall", "recall"] == 1.0
    assert triple_differences(pred, gold, **folds) == ([], [])
    assert triple_differences(pred, gold)[0] == gold
    # rows follow the gold's order of relations, then the others
    df = score_triples([("X", "zeta", "Y")], [("A", "mu", "B"), ("C", "alpha", "D")])
    assert list(df.index) == ["mu", "alpha", "zeta", "overall"]


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
    G = build_knowledge_graph([DOC, DOC2], schema=NEWS_SCHEMA, cache_dir=cache, progress=False)
    assert isinstance(G, nx.MultiDiGraph)
    assert G.graph["schema"] == list(RELATIONS) and G.graph["prompt_version"] == prompt_version(NEWS_SCHEMA)
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
    H = build_knowledge_graph([DOC, DOC2], schema=NEWS_SCHEMA, cache_dir=cache, progress=False)
    assert llm.stats().calls == 0 and len(scripted.requests) == 2
    assert H.graph["cache"] == {"hits": 2, "misses": 0, "rebuilt": 0}
    assert nx.utils.edges_equal(G.edges(keys=True, data=True), H.edges(keys=True, data=True))


def test_cache_key_depends_on_text_prompt_and_model(scripted, monkeypatch):
    import gaba.request as ex
    k = triples_cache_key("a", NEWS_SCHEMA)
    assert k != triples_cache_key("b", NEWS_SCHEMA)
    assert k != triples_cache_key("a")                     # open and schema modes never share entries
    open_key = triples_cache_key("Acme buys from Beta.")
    monkeypatch.setattr(ex, "EXTRACTION_PROMPT", ex.EXTRACTION_PROMPT + " ")
    assert triples_cache_key("a", NEWS_SCHEMA) != k
    assert triples_cache_key("Acme buys from Beta.") == open_key   # the schema prompt is not the open one
    monkeypatch.setattr(ex, "OPEN_EXTRACTION_PROMPT", ex.OPEN_EXTRACTION_PROMPT + " ")
    assert triples_cache_key("Acme buys from Beta.") != open_key
    changed_prompt = triples_cache_key("Acme buys from Beta.")
    llm.use_backend(scripted, name="another model")
    assert triples_cache_key("Acme buys from Beta.") != changed_prompt


def test_corrupt_cache_entry_is_rebuilt(scripted, tmp_path):
    scripted.replies.extend([DOC2_REPLY])
    cache = tmp_path / "kg"
    build_knowledge_graph([DOC2], schema=NEWS_SCHEMA, cache_dir=cache, progress=False)
    (path,) = cache.glob("*.json")
    path.write_text('{"key": "trunc')
    llm.use_backend(None)
    scripted2 = type(scripted)(DOC2_REPLY)
    llm.use_backend(scripted2)
    llm.reset_stats()
    G = build_knowledge_graph([DOC2], schema=NEWS_SCHEMA, cache_dir=cache, progress=False)
    assert G.graph["cache"]["rebuilt"] == 1 and G.number_of_edges() == 1
    # served by the response cache: the scripted backend was not asked again
    assert llm.stats().hits == 1 and scripted2.requests == []
    assert json.loads(path.read_text())["facts"][0]["subject"] == "Gamma Bank"
    path.write_text(json.dumps({"key": "someone else's", "facts": []}))
    assert build_knowledge_graph([DOC2], schema=NEWS_SCHEMA, cache_dir=cache,
                                 progress=False).graph["cache"]["rebuilt"] == 1


def test_rebuild_ignores_the_cache(scripted, tmp_path):
    scripted.replies.extend([DOC2_REPLY])
    build_knowledge_graph([DOC2], schema=NEWS_SCHEMA, cache_dir=tmp_path, progress=False)
    G = build_knowledge_graph([DOC2], schema=NEWS_SCHEMA, cache_dir=tmp_path, rebuild=True, progress=False)
    assert G.graph["cache"]["misses"] == 1


def test_malformed_model_output_names_the_document_and_others_survive(scripted, tmp_path):
    # doc t1: three bad answers (first try + 2 retries), then three for its first half (one
    # sentence, so it is not halved again); doc t2: fine
    scripted.replies.extend(["not json", '{"facts": [{"subject": "x"}]}', "{", "no", "no", "no", DOC2_REPLY])
    with pytest.warns(UserWarning, match="1 of 2 documents.*t1.*whole or cut into halves"):
        G = build_knowledge_graph([DOC, DOC2], schema=NEWS_SCHEMA, cache_dir=tmp_path, progress=False)
    assert "document 't1'" in G.graph["failed"]["t1"]
    assert list(G.edges(keys=True)) == [("Gamma Bank", "Beta Foods", "BANKS")]
    assert len(list(tmp_path.glob("*.json"))) == 1, "nothing may be cached for the failed document"
    assert not list(tmp_path.glob(".tmp-*"))
    scripted.replies.extend(["nope", "nope", "nope"])
    with pytest.raises(LLMOutputError, match="document 'x1'"):
        extract_triples({"id": "x1", "text": "Acme buys from Beta."}, schema=NEWS_SCHEMA)
    scripted.replies.extend(["nope", "nope", "nope"])               # open mode says the same
    with pytest.raises(LLMOutputError, match="document 'x2'"):
        extract_triples({"id": "x2", "text": "Acme buys from Beta."})


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


def test_a_long_document_of_sentences_is_read_passage_by_passage(scripted, tmp_path):
    # about 9,000 estimated tokens, over MAX_DOCUMENT_TOKENS as one text, but every passage is short
    long_doc = {"id": "report", "text": " ".join(f"Ann Lee met Bo Tarn on day {i}." for i in range(1200))}
    assert estimate_tokens(long_doc["text"]) > MAX_DOCUMENT_TOKENS
    scripted.replies.extend(['{"facts": []}'] * 400)
    ex = extract_corpus([long_doc], cache_dir=tmp_path, progress=False, concurrency=1)
    assert not ex.failed and ex.cache["misses"] == len(scripted.requests) > 100   # one call per passage


def test_save_and_load_round_trip(scripted, tmp_path):
    scripted.replies.extend([DOC_REPLY, DOC2_REPLY])
    G = build_knowledge_graph([DOC, DOC2], schema=NEWS_SCHEMA, cache_dir=tmp_path / "kg", progress=False)
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

@pytest.mark.parametrize("schema", [None, NEWS_SCHEMA], ids=["open", "news-schema"])
def test_warm_build_of_the_news_corpus_makes_no_model_call(monkeypatch, schema):
    for var in ["GABA_KG_CACHE", "GABA_LOCAL_MODEL", "GABA_CACHE_DIR", "OPENAI_API_KEY",
                "OPENROUTER_API_KEY", "OPENAI_BASE_URL"]:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("GABA_BACKEND", "local")
    monkeypatch.setenv("GABA_OFFLINE", "1")      # a document missing from the cache raises CacheMiss
    monkeypatch.setenv("GABA_IGNORE_DOTENV", "1")
    config.reload()
    llm.reset_stats()
    mode = "open" if schema is None else "NEWS_SCHEMA"
    try:
        try:
            build_knowledge_graph(schema=schema, progress=False)      # warm the imports
        except CacheMiss as exc:      # the committed cache must cover the news corpus in both modes
            pytest.fail(f"the {mode} extraction of the news corpus is no longer in assets/kg-cache "
                        f"(a prompt or cache key changed? build it once without GABA_OFFLINE): {exc}")
        t0 = time.process_time()
        G = build_knowledge_graph(schema=schema, progress=False)
        cpu = time.process_time() - t0
        calls = llm.stats().calls
    finally:
        monkeypatch.undo()
        config.reload()
    assert calls == 0, "a warm build must not even look up the response cache"
    # CPU time, not wall time: the machine running the tests may be heavily loaded. Reading 14
    # small JSON files and validating their records takes well under a second of CPU.
    assert cpu < 3.0
    assert G.graph["cache"] == {"hits": 14, "misses": 0, "rebuilt": 0} and G.graph["failed"] == {}
    assert G.graph["schema"] == ("open" if schema is None else list(RELATIONS))
    assert G.number_of_edges() >= 10
    assert "Kestrel" in G.nodes["Kestrel Motors"]["aliases"]
    if schema is None:
        assert all(G.nodes[n].get("type") for n in G)                 # open mode types every node
        assert all(k == normalize_predicate(k) and k == G.edges[u, v, k]["relation"]
                   for u, v, k in G.edges(keys=True))                # snake_case predicates from the text
    else:
        assert {k for _, _, k in G.edges(keys=True)} <= set(RELATIONS)


def test_shortened_evidence_maps_to_its_sentence_but_invented_does_not():
    doc = {"id": "p", "text": "Pacific Crest Logistics, the freight group that founded Kestrel Motors "
                              "in 2019, reported record revenue. Both contracts were renewed."}
    recs = [fact("Pacific Crest Logistics founded Kestrel Motors in 2019.", "Pacific Crest Logistics",
                 "FOUNDED", "Kestrel Motors"),
            fact("Pacific Crest Logistics acquired Kestrel Motors in 2019.", "Pacific Crest Logistics",
                 "ACQUIRED", "Kestrel Motors")]
    kept, rejected = validate_triples(recs, doc, NEWS_SCHEMA)
    assert [t.relation for t in kept] == ["FOUNDED"]
    assert kept[0].evidence.startswith("Pacific Crest Logistics, the freight group")
    assert rejected[0].reason == "evidence is not a sentence of the document"


def test_common_nouns_capitalised_by_the_model_are_not_names():
    doc = {"id": "c", "text": "Northwind makes software for hotels and retailers. The utility agreed."}
    recs = [fact("Northwind makes software for hotels and retailers.", "Northwind", "SUPPLIES_TO",
                 "Hotels and retailers"),
            fact("The utility agreed.", "Utility", "RELATED_TO", "Northwind", verb="agreed")]
    kept, rejected = validate_triples(recs, doc, NEWS_SCHEMA)
    assert kept == [] and [r.reason for r in rejected] == ["subject or object is not a name in the text"] * 2


def test_reworded_evidence_is_matched_by_word_stems():
    doc = {"id": "n", "text": "Northwind Systems has completed its acquisition of Orchard Software, a "
                              "maker of tools. The deal was announced in January."}
    kept, _ = validate_triples([fact("Northwind Systems acquired Orchard Software.", "Northwind Systems",
                                     "ACQUIRED", "Orchard Software")], doc, NEWS_SCHEMA)
    assert kept and kept[0].evidence.startswith("Northwind Systems has completed")


# --- open extraction (the default) ---------------------------------------------------------

OPEN_DOC = {"id": "o1", "text": "Dr. Lena Marsh joined Pellucid Labs in 2019. She later left Pellucid "
                                "Labs for Orrin Works. Orrin Works supplies Pellucid Labs."}
OPEN_DOC2 = {"id": "o2", "text": "Orrin Works is based in Caldermoor. The University of Caldermoor "
                                 "trains its engineers."}


def ofact(sentence, subject, predicate, obj, subject_type="org", object_type="org"):
    return {"sentence": sentence, "subject": subject, "predicate": predicate, "object": obj,
            "subject_type": subject_type, "object_type": object_type}


OPEN_REPLY = reply(
    ofact(1, "Lena Marsh", "joined", "Pellucid Labs", "person"),
    ofact(2, "Lena Marsh", "later left", "Pellucid Labs", "person"),   # "later" is dropped
    ofact(3, "Orrin Works", "supplies", "Pellucid Labs"),
    ofact(1, "Lena Marsh", "founded", "Pellucid Labs", "person"))          # refused: not in sentence 1
OPEN_REPLY2 = reply(ofact(1, "Orrin Works", "is based in", "Caldermoor", "org", "place"),
                    ofact(2, "University of Caldermoor", "trains", "Orrin Works", "org", "org"))


def test_normalize_predicate():
    assert normalize_predicate("has joined the board of") == "joined_board_of"
    assert normalize_predicate("Was born in") == "born_in"
    assert normalize_predicate("is currently the CEO of") == "ceo_of"
    assert normalize_predicate("supplies") == "supplies"
    assert normalize_predicate("is_quenched_by") == "quenched_by"           # labels normalise too
    assert normalize_predicate("Zanthed-Into") == "zanthed_into"
    assert normalize_predicate("glimmers") == normalize_predicate(normalize_predicate("glimmers"))
    for empty in ("is", "the", "", "  ", "is a", "was of the"):
        assert normalize_predicate(empty) == "", empty


def test_strip_title():
    assert strip_title("Dr. Lena Marsh") == "Lena Marsh"
    assert strip_title("Professor Ivo Tarn") == "Ivo Tarn"
    assert strip_title("Sir Ivo") == "Ivo"
    assert strip_title("Dr. Prof. Ann Lee") == "Ann Lee"                  # several titles
    assert strip_title("Marsh") == "Marsh"
    assert strip_title("Dr.") == "Dr."                                    # nothing left: kept
    assert strip_title("King") == "King"
    assert strip_title("Dr. smith") == "Dr. smith"                        # no capitalised name follows
    assert {"dr", "prof", "sir", "mrs"} <= TITLES


def test_capitalised_names_keep_connectors_and_list_the_parts_after_the_whole():
    assert "of" in NAME_CONNECTORS and "van" in NAME_CONNECTORS and "and" not in NAME_CONNECTORS
    names = capitalised_names("Lena Marsh studied at the University of Caldermoor with Ludwig van "
                              "Beethoven. The Bank of the North paid.")
    assert names == ["Lena Marsh", "University of Caldermoor", "University", "Caldermoor",
                     "Ludwig van Beethoven", "Ludwig", "Beethoven", "Bank of the North", "Bank", "North"]
    # "and" joins two names, never one
    assert capitalised_names("Aurora and Voltaic met.") == ["Aurora", "Voltaic"]
    # a title is not part of the name
    assert capitalised_names("Dr. Ann Lee joined.") == ["Ann Lee"]


def test_candidate_names_drop_titles_calendar_words_and_pronouns():
    assert candidate_names("Dr. Ann Lee founded Acme in March 2019. She lives in Oslo.") == [
        "Ann Lee", "Acme", "Oslo"]
    assert candidate_names("On Monday, Prof. Ivo Tarn met him. He said It was fine in May.") == ["Ivo Tarn"]
    assert candidate_names(OPEN_DOC["text"]) == ["Lena Marsh", "Pellucid Labs", "Orrin Works"]
    assert candidate_names("Acme met Beta. Acme left.") == ["Acme", "Beta"]   # each name once
    assert candidate_names("no capitals here.") == []


def test_brand_names_with_a_lowercase_or_numeric_head_are_whole_names():
    # invented brands: before, "qTern" became "Tern" and "9-Pell" became "Pell"
    assert candidate_names("Ann Lee sold qTern to Dovecote. 9-Pell buys from eKestrel.") == [
        "Ann Lee", "qTern", "Dovecote", "9-Pell", "eKestrel"]
    # "&" joins the parts of one name, "and" joins two names
    assert candidate_names("Wren & Tally sued Dovecote and Pell.") == ["Wren & Tally", "Wren", "Tally", "Dovecote", "Pell"]
    # a capital inside a word names nothing ("pH", "kW"); a hyphenated prefix keeps its name
    assert candidate_names("The pH and kW of Acme rose in the post-Tern era.") == ["Acme", "Tern"]


def test_a_quoted_title_with_lowercase_words_is_one_name():
    # invented titles; "and", "of the", "to the" would otherwise split them into several names
    text = ('Mara Quill wrote "Salt and Cinder" for Dovecote Press. Her film "The Rise of the Tern" '
            'and the song "Go to the Weir" followed, then "Lantern".')
    names = candidate_names(text)
    assert names[:4] == ["Mara Quill", "Salt and Cinder", "Salt", "Cinder"]
    assert "Rise of the Tern" in names and "Go to the Weir" in names
    assert names.count("Lantern") == 1                         # a one-word quote is a plain name
    # not titles: a quoted sentence (lowercase words that are not function words), a lone word
    assert quoted_titles('He said "Acme is doing well today" and left.') == []
    assert quoted_titles('"Acme" and "Beta" met.') == []
    # text without such a quote keeps its names and their order
    assert candidate_names("Acme met Beta and Gamma.") == ["Acme", "Beta", "Gamma"]


def test_open_schema_and_prompt_constrain_names_to_the_document():
    names = candidate_names(OPEN_DOC["text"])
    item = open_extraction_schema(names)["properties"]["facts"]["items"]
    assert item["properties"]["subject"] == {"type": "string", "enum": names}
    assert item["properties"]["object"] == {"type": "string", "enum": names}
    assert item["properties"]["sentence"]["type"] == "integer"
    assert set(item["required"]) == {"sentence", "subject", "predicate", "object", "subject_type",
                                     "object_type"}
    p = extraction_prompt(OPEN_DOC["text"])
    assert "Lena Marsh; Pellucid Labs; Orrin Works" in p
    assert numbered_sentences(OPEN_DOC["text"]) in p and "[3] Orrin Works supplies Pellucid Labs." in p
    assert not any(r in p for r in ("SUPPLIES_TO", "BOARD_MEMBER_OF"))   # no relation vocabulary
    assert p == extraction_prompt(OPEN_DOC["text"] + "\n")
    assert len(p.split()) < 250


def test_split_sentences_keeps_abbreviations_and_initials():
    assert split_sentences("Dr. Lena Marsh met J. R. Tarn. They talked.") == [
        "Dr. Lena Marsh met J. R. Tarn.", "They talked."]


def test_validate_open_triples_keeps_supported_facts_and_stores_the_documents_sentence():
    kept, rejected = validate_open_triples(
        [ofact(1, "Lena Marsh", "has joined", "Pellucid Labs", "person", "org")], OPEN_DOC)
    assert rejected == [] and len(kept) == 1
    t = kept[0]
    assert t.as_tuple() == ("Lena Marsh", "joined", "Pellucid Labs")
    assert t.evidence == "Dr. Lena Marsh joined Pellucid Labs in 2019." and t.doc_id == "o1"
    assert (t.subject_type, t.object_type) == ("person", "org")
    # validate_triples without a schema is the open validator
    assert validate_triples([ofact(1, "Lena Marsh", "joined", "Pellucid Labs", "person")], OPEN_DOC)[0] == kept
    # a titled person name loses its title; an unknown type becomes "other"; duplicates count once
    kept, rejected = validate_open_triples(
        [ofact(1, "Dr. Lena Marsh", "joined", "Pellucid Labs", "person", "alien"),
         ofact(1, "Lena Marsh", "joined", "Pellucid Labs", "person")], OPEN_DOC)
    assert [t.as_tuple() for t in kept] == [("Lena Marsh", "joined", "Pellucid Labs")]
    assert kept[0].object_type == "other" and rejected == []


def test_validate_open_triples_refuses_and_says_why():
    long_predicate = "joined the small company that was later renamed as"
    assert len(normalize_predicate(long_predicate).split("_")) > MAX_PREDICATE_WORDS
    recs = [
        ofact(2, "She", "left", "Pellucid Labs", "person"),                 # pronoun
        ofact(3, "the company", "supplies", "Pellucid Labs"),               # not a name
        ofact(3, "Orrin Works", "supplies", "Orrin Works"),                 # subject == object
        ofact(1, "Lena Marsh", "founded", "Pellucid Labs", "person"),       # predicate not in the sentence
        ofact(1, "Lena Marsh", long_predicate, "Pellucid Labs", "person"),  # a clause, not a relation
        ofact(1, "Lena Marsh", "is", "Pellucid Labs", "person"),            # names no relation
        ofact(1, "Lena Marsh", "joined", "Zeta Corp", "person"),            # not in the text
        "not a record",
    ]
    kept, rejected = validate_open_triples(recs, OPEN_DOC)
    assert kept == []
    assert [r.reason for r in rejected] == [
        "subject or object is not a name",
        "subject or object is not a name",
        "subject and object are the same",
        "predicate 'founded' does not occur in the sentence",
        f"predicate {long_predicate!r} is longer than {MAX_PREDICATE_WORDS} words",
        "predicate 'is' names no relation",
        "subject or object is not a name in the text",
        "not a record",
    ]
    assert rejected[0].doc_id == "o1" and rejected[0].record["subject"] == "She"
    assert rejected[-1].record == {"record": "not a record"}


def test_a_by_record_naming_another_place_of_the_sentence_is_refused():
    # "founded_by" read with the town or the forest of the sentence instead of its agent, who is
    # introduced by a description ("the cooper"); the agent's own record is kept
    doc = {"id": "t", "text": "Quellbrin Staves was founded in 1958 by the cooper Aurel Vossk in the town of "
                              "Drennow, on the edge of the Harsk forest."}
    recs = [ofact(1, "Quellbrin Staves", "founded by", end, "org", ty)
            for end, ty in (("Drennow", "place"), ("Harsk", "place"), ("Aurel Vossk", "person"))]
    kept, rejected = validate_open_triples(recs, doc)
    assert [t.as_tuple() for t in kept] == [("Quellbrin Staves", "founded_by", "Aurel Vossk")]
    assert [r.reason for r in rejected] == [
        f"the sentence says 'founded' by 'Aurel Vossk', neither 'Quellbrin Staves' nor {end!r}"
        for end in ("Drennow", "Harsk")]
    # the model's own reading, "was founded", kept the passive way round: the same verdicts
    active = [ofact(1, "Quellbrin Staves", "was founded", end, "org", ty)
              for end, ty in (("Drennow", "place"), ("Harsk", "place"), ("Aurel Vossk", "person"))]
    kept_active, rejected_active = validate_open_triples(active, doc)
    assert kept_active == kept and [r.reason for r in rejected_active] == [r.reason for r in rejected]
    # two agents joined by "and", and an agent with its short form in brackets, are kept
    doc = {"id": "u", "text": "Quellbrin Staves was run by Aurel Vossk and Mirel Tand (MT) until 1990."}
    kept, _ = validate_open_triples([ofact(1, "Quellbrin Staves", "run by", "Mirel Tand", "org", "person"),
                                     ofact(1, "Quellbrin Staves", "run by", "MT", "org", "person")], doc)
    assert len(kept) == 2


def test_open_sentence_number_out_of_range_falls_back_to_the_sentence_naming_both():
    doc = {"id": "f", "text": "Orrin Works is based in Caldermoor. Lena Marsh later joined Orrin Works."}
    for n in (7, 0, -1, None, "2", True):
        kept, rejected = validate_open_triples([ofact(n, "Lena Marsh", "joined", "Orrin Works", "person")], doc)
        assert rejected == [] and kept[0].evidence == "Lena Marsh later joined Orrin Works.", n
    # a wrong but valid number falls back the same way
    kept, _ = validate_open_triples([ofact(1, "Lena Marsh", "joined", "Orrin Works", "person")], doc)
    assert kept[0].evidence == "Lena Marsh later joined Orrin Works."
    # no sentence names both: refused
    _, rejected = validate_open_triples([ofact(9, "Caldermoor", "joined", "Lena Marsh", "place", "person")], doc)
    assert rejected[0].reason == "no sentence of the document mentions both 'Caldermoor' and 'Lena Marsh'"


def test_the_sentence_before_resolves_she_but_not_two_sentences_back():
    kept, rejected = validate_open_triples(
        [ofact(2, "Lena Marsh", "later left", "Pellucid Labs", "person")], OPEN_DOC)
    assert rejected == [] and kept[0].as_tuple() == ("Lena Marsh", "left", "Pellucid Labs")
    assert kept[0].evidence == "She later left Pellucid Labs for Orrin Works."
    doc = {"id": "b", "text": "Dr. Lena Marsh studied in Oslo. The winters were long. She later joined "
                              "Orrin Works."}
    kept, rejected = validate_open_triples([ofact(3, "Lena Marsh", "joined", "Orrin Works", "person")], doc)
    assert kept == [] and "no sentence of the document mentions both" in rejected[0].reason


def test_open_build_graph_types_titled_aliases_and_predicate_keys(scripted, tmp_path):
    scripted.replies.extend([OPEN_REPLY, OPEN_REPLY2])
    cache = tmp_path / "kg"
    G = build_knowledge_graph([OPEN_DOC, OPEN_DOC2], cache_dir=cache, progress=False)
    assert sorted(G.edges(keys=True)) == [
        ("Lena Marsh", "Pellucid Labs", "joined"), ("Lena Marsh", "Pellucid Labs", "left"),
        ("Orrin Works", "Caldermoor", "based_in"), ("Orrin Works", "Pellucid Labs", "supplies"),
        ("University of Caldermoor", "Orrin Works", "trains")]
    e = G.edges["Orrin Works", "Pellucid Labs", "supplies"]
    assert (e["relation"], e["doc_id"], e["evidence"]) == ("supplies", "o1", "Orrin Works supplies Pellucid Labs.")
    assert G.nodes["Lena Marsh"]["type"] == "person" and G.nodes["Caldermoor"]["type"] == "place"
    assert G.nodes["Pellucid Labs"]["type"] == "org"
    assert "Dr. Lena Marsh" in G.nodes["Lena Marsh"]["aliases"]          # the titled form is an alias
    assert "Dr. Lena Marsh" not in G                                        # never a node of its own
    # "Caldermoor" is a place, not a short form of "University of Caldermoor"
    assert "Caldermoor" not in G.nodes["University of Caldermoor"]["aliases"]
    assert G.graph["schema"] == "open" and G.graph["prompt_version"] == prompt_version()
    assert G.graph["cache"] == {"hits": 0, "misses": 2, "rebuilt": 0} and G.graph["failed"] == {}
    # the request: open prompt, names constrained to the document's candidate names
    req = scripted.requests[0]
    item = req["schema"]["properties"]["facts"]["items"]["properties"]
    assert item["subject"]["enum"] == candidate_names(OPEN_DOC["text"])
    assert "[1] Dr. Lena Marsh joined Pellucid Labs in 2019." in req["messages"][-1]["content"]
    # warm: no model call; the graph is the same
    llm.reset_stats()
    H = build_knowledge_graph([OPEN_DOC, OPEN_DOC2], cache_dir=cache, progress=False)
    assert llm.stats().calls == 0 and len(scripted.requests) == 2
    assert H.graph["cache"] == {"hits": 2, "misses": 0, "rebuilt": 0}
    assert dict(H.nodes(data=True)) == dict(G.nodes(data=True))
    assert sorted(H.edges(keys=True, data=True)) == sorted(G.edges(keys=True, data=True))
    # and it survives a save/load round trip, types and aliases included
    K = load_graph(save_graph(G, tmp_path / "open.json"))
    assert dict(K.nodes(data=True)) == dict(G.nodes(data=True))


def test_open_extract_triples_and_rejections(scripted):
    scripted.replies.append(OPEN_REPLY)
    refused = []
    kept = extract_triples(OPEN_DOC, rejected=refused)
    assert [t.relation for t in kept] == ["joined", "left", "supplies"]
    assert [r.reason for r in refused] == ["predicate 'founded' does not occur in the sentence"]
    assert len(scripted.requests) == 1


def test_open_cache_key_changes_with_the_candidate_names(scripted, monkeypatch):
    import gaba.names as ex

    march = "Lena Marsh joined Pellucid Labs in March."
    plain = "Lena Marsh joined Pellucid Labs in 2019."
    k_march, k_plain = triples_cache_key(march), triples_cache_key(plain)
    k_schema = triples_cache_key(march, NEWS_SCHEMA)
    assert "March" not in candidate_names(march)
    monkeypatch.setattr(ex, "CALENDAR", ex.CALENDAR - {"march"})   # names are now found differently
    assert "March" in candidate_names(march)
    assert triples_cache_key(march) != k_march          # a miss for the document whose names changed
    assert triples_cache_key(plain) == k_plain          # and only for it
    assert triples_cache_key(march, NEWS_SCHEMA) == k_schema   # schema mode does not list names


def test_a_document_with_fewer_than_two_names_makes_no_model_call(scripted, tmp_path):
    one = {"id": "one", "text": "Acme makes bread. It sells well in March."}
    none = {"id": "none", "text": "the bakery makes bread."}
    assert extract_triples(one) == [] and extract_triples(none) == []
    assert scripted.requests == []
    scripted.replies.append(OPEN_REPLY)
    G = build_knowledge_graph([one, OPEN_DOC, none], cache_dir=tmp_path, progress=False)
    assert len(scripted.requests) == 1 and G.graph["failed"] == {}
    assert G.number_of_edges() == 3
    assert len(list(tmp_path.glob("*.json"))) == 1          # nothing to cache for the others


def test_a_schema_must_be_relation_names():
    with pytest.raises(ValueError, match="UPPER_SNAKE_CASE"):
        extraction_prompt("Acme buys from Beta.", ["buys from"])
    with pytest.raises(ValueError, match="schema must be None"):
        extraction_prompt("Acme buys from Beta.", 42)
    p = extraction_prompt("Acme buys from Beta.", ["SELLS_TO", "OWNS"])
    assert "- SELLS_TO: sells to" in p and "SUPPLIES_TO" not in p
    kept, rejected = validate_triples([fact("Acme buys from Beta.", "Beta", "SELLS_TO", "Acme")],
                                      {"id": "s", "text": "Acme buys from Beta."}, ["SELLS_TO"])
    assert [t.relation for t in kept] == ["SELLS_TO"] and rejected == []


# --- person-subject relations come from the schema's own meanings ----------------------------

@pytest.mark.parametrize("schema, swapped", [
    ({"STEERS": "subject is a person who steers object"}, True),
    ({"STEERS": "subject steers object"}, False),
    (["STEERS"], False),                                   # names only: no meaning to read
])
def test_a_person_relation_written_backwards_is_turned_around_only_when_the_schema_says_so(schema, swapped):
    from gaba.validate import validate_triples

    doc = {"id": "d1", "text": "Zell Holdings is steered by Ann Quorry. The firm grows."}
    rec = {"subject": "Zell Holdings", "relation": "STEERS", "object": "Ann Quorry",
           "evidence": "Zell Holdings is steered by Ann Quorry."}
    kept, refused = validate_triples([rec], doc, schema)
    assert not refused and len(kept) == 1
    assert (kept[0].subject, kept[0].object) == (("Ann Quorry", "Zell Holdings") if swapped
                                                 else ("Zell Holdings", "Ann Quorry"))


def test_the_news_schema_still_turns_a_backwards_chief_executive_around():
    from gaba.prompts import NEWS_SCHEMA
    from gaba.validate import validate_triples

    doc = {"id": "d1", "text": "Zell Holdings named Ann Quorry chief executive."}
    rec = {"subject": "Zell Holdings", "relation": "CEO_OF", "object": "Ann Quorry",
           "evidence": "Zell Holdings named Ann Quorry chief executive."}
    kept, _ = validate_triples([rec], doc, NEWS_SCHEMA)
    assert (kept[0].subject, kept[0].object) == ("Ann Quorry", "Zell Holdings")


def test_a_passive_sentence_read_the_active_way_keeps_the_texts_meaning():
    """'S was <verb> by O' given as (S, <verb>, O) says the opposite of the text; validation keeps
    the fact as (S, <verb>_by, O). Invented names and verbs; a record that reads it right is untouched."""
    doc = {"id": "p1", "text": "Marrow Lantern Press was quietly absorbed in 2031 by Fenwick Quill. "
                               "Fenwick Quill later reprinted Tamsin Orle."}
    recs = [{"sentence": 1, "subject": "Marrow Lantern Press", "predicate": "absorbed", "object": "Fenwick Quill"},
            {"sentence": 1, "subject": "Fenwick Quill", "predicate": "absorbed", "object": "Marrow Lantern Press"},
            {"sentence": 1, "subject": "Marrow Lantern Press", "predicate": "was absorbed by",
             "object": "Fenwick Quill"},
            {"sentence": 2, "subject": "Fenwick Quill", "predicate": "reprinted", "object": "Tamsin Orle"}]
    kept, refused = validate_open_triples(recs, doc)
    assert not refused
    assert [t.as_tuple() for t in kept] == [
        ("Marrow Lantern Press", "absorbed_by", "Fenwick Quill"),
        ("Fenwick Quill", "absorbed", "Marrow Lantern Press"),
        ("Fenwick Quill", "reprinted", "Tamsin Orle")]




def test_an_active_sentence_read_backwards_is_turned_around():
    """'O, ..., <verb> ... S' given as (S, <verb>, O) is swapped; a passive's agent, an inversion
    after a comma ('..., said Ann Lee'), a possessive ("X's chief executive, Y") and a record that reads
    it right are left alone. Invented text."""
    doc = {"id": "p1", "text": ("Orrel Mills, a rival of Pask Looms, supplied the 40 looms at Tarn Works in 2019. "
                                "Vell Harbour was governed from Osk. "
                                "Tarn Works will grow, said Ilse Varn. "
                                "Tarn Works, a weaving shed run by the engineer Bram Holt, opened in 1950. "
                                "Pask Looms's chief executive, Ilse Varn, left.")}
    recs = [{"sentence": 1, "subject": "Tarn Works", "predicate": "supplied", "object": "Orrel Mills"},
            {"sentence": 2, "subject": "Osk", "predicate": "governed from", "object": "Vell Harbour"},
            {"sentence": 3, "subject": "Ilse Varn", "predicate": "said", "object": "Tarn Works"},
            {"sentence": 4, "subject": "Bram Holt", "predicate": "engineer", "object": "Tarn Works"},
            {"sentence": 1, "subject": "Orrel Mills", "predicate": "rival of", "object": "Pask Looms"},
            {"sentence": 5, "subject": "Ilse Varn", "predicate": "chief executive of", "object": "Pask Looms"}]
    kept, refused = validate_open_triples(recs, doc)
    assert not refused
    assert [t.as_tuple() for t in kept] == [("Orrel Mills", "supplied", "Tarn Works"),
                                            ("Vell Harbour", "governed_from", "Osk"),
                                            ("Ilse Varn", "said", "Tarn Works"),
                                            ("Bram Holt", "engineer", "Tarn Works"),
                                            ("Orrel Mills", "rival_of", "Pask Looms"),
                                            ("Ilse Varn", "chief_executive_of", "Pask Looms")]


def test_a_date_or_a_number_alone_is_no_predicate():
    from gaba.validate import normalize_predicate

    assert [normalize_predicate(p) for p in ("in 2031", "on 12 March", "August 5 1802", "1995")] == [""] * 4
    assert normalize_predicate("opened in 2031") == "opened_in_2031"        # a verb is kept with its date
    doc = {"id": "p1", "text": "Vell Harbour fell to Osk in 2031."}
    kept, refused = validate_open_triples([{"sentence": 1, "subject": "Vell Harbour", "predicate": "in 2031",
                                            "object": "Osk"}], doc)
    assert kept == [] and "names no relation" in refused[0].reason


def test_a_passive_participle_after_a_comma_is_read_as_passive():
    """'S, <verb> in 2016 by O, ...' (a participle after a comma, no 'was') given as (S, <verb>, O)
    is kept as (S, <verb>_by, O); without the comma before it the verb is left as the model read it.
    Invented names."""
    doc = {"id": "p1", "text": "Tessary Sound, refounded in 2016 by the editor Brann Ulvik, records in Harrowgate. "
                               "Corla Vance refounded Tessary Sound by hand."}
    recs = [{"sentence": 1, "subject": "Tessary Sound", "predicate": "refounded", "object": "Brann Ulvik"},
            {"sentence": 2, "subject": "Corla Vance", "predicate": "refounded", "object": "Tessary Sound"}]
    kept, refused = validate_open_triples(recs, doc)
    assert not refused
    assert [t.as_tuple() for t in kept] == [("Tessary Sound", "refounded_by", "Brann Ulvik"),
                                            ("Corla Vance", "refounded", "Tessary Sound")]


def test_a_passive_after_a_description_that_names_no_one_is_read_as_passive():
    """"The label, refounded ... by O, has its studio ...": the description before the verb names no
    one, so it stands for the record's subject (the sentence may be about the name the first sentence
    opens with, as it writes "its"); with the subject named after "by" the model's reading stays."""
    doc = {"id": "p1", "text": "Tessary Sound hired Ivo Marr. The label, refounded in 2016 by Brann Ulvik, has its "
                               "studio in Osk. The label was refounded by Brann Ulvik, said Ivo Marr."}
    recs = [{"sentence": 2, "subject": "Tessary Sound", "predicate": "refounded", "object": "Brann Ulvik"},
            {"sentence": 3, "subject": "Ivo Marr", "predicate": "refounded", "object": "Brann Ulvik"}]
    kept, _ = validate_open_triples(recs, doc)
    got = [t.as_tuple() for t in kept]
    assert ("Tessary Sound", "refounded_by", "Brann Ulvik") in got
    assert ("Ivo Marr", "refounded_by", "Brann Ulvik") not in got


def test_a_passive_founding_by_a_namesake_is_still_read_as_passive():
    """A firm named after its founder ('Orle & Pask ... was founded by Tamsin Orle'): the founder's
    surname inside the firm's name is no mention of the founder before the verb. Invented names."""
    doc = {"id": "p1", "text": "Orle & Pask, a firm based in Vantry, was founded in 1961 by Tamsin Orle."}
    recs = [{"sentence": 1, "subject": "Orle & Pask", "predicate": "founded", "object": "Tamsin Orle"},
            {"sentence": 1, "subject": "Tamsin Orle", "predicate": "founded", "object": "Orle & Pask"}]
    kept, refused = validate_open_triples(recs, doc)
    assert not refused
    assert [t.as_tuple() for t in kept] == [("Orle & Pask", "founded_by", "Tamsin Orle"),
                                            ("Tamsin Orle", "founded", "Orle & Pask")]
def test_a_predicate_loses_a_possessive_a_relative_pronoun_and_the_objects_name():
    doc = {"id": "p1", "text": ("Velka Tarn's third novel, Ember Quay, sold well. Tarn joined Orrin Works in 2019. "
                                "Orrin Works, which was sold to Brask Holdings, builds ferries.")}
    recs = [ofact(1, "Velka Tarn", "'s third novel", "Ember Quay", "person", "work"),
            ofact(2, "Velka Tarn", "joined Orrin Works", "Orrin Works", "person"),
            ofact(3, "Orrin Works", "which was sold to", "Brask Holdings")]
    kept, rejected = validate_open_triples(recs, doc)
    assert rejected == []
    assert [t.as_tuple() for t in kept] == [("Velka Tarn", "third_novel", "Ember Quay"),
                                            ("Velka Tarn", "joined", "Orrin Works"),
                                            ("Orrin Works", "sold_to", "Brask Holdings")]


def test_the_objects_own_name_goes_with_its_possessive():
    # "became Quarry's maintainer" read as "became_quarry_s_maintainer" with the object Quarry
    doc = {"id": "p7", "text": "Ilse Varn became Pellam's chief engineer in 2020."}
    kept, rejected = validate_open_triples([ofact(1, "Ilse Varn", "became Pellam's chief engineer", "Pellam",
                                                  "person")], doc)
    assert rejected == [] and [t.as_tuple() for t in kept] == [("Ilse Varn", "became_chief_engineer", "Pellam")]


def test_a_predicate_that_is_a_clause_or_holds_another_name_is_refused():
    doc = {"id": "p2", "text": ("Dr. Ilse Varn studied at Corrow University before she joined Pellam Labs. "
                                "Ilse Varn chaired Pellam Labs, which Osk Dunmore funded.")}
    recs = [ofact(1, "Corrow University", "before she joined", "Pellam Labs"),
            ofact(1, "Ilse Varn", "joined Pellam Labs", "University", "person"),
            ofact(2, "Ilse Varn", "chaired Pellam Labs which", "Osk Dunmore", "person", "person")]
    kept, rejected = validate_open_triples(recs, doc)
    assert kept == []
    assert [r.reason for r in rejected] == [
        "predicate 'before_she_joined' is a clause with its own subject ('she')",
        "predicate 'joined_pellam_labs' holds the name 'Pellam Labs'",
        "predicate 'chaired_pellam_labs_which' holds the name 'Pellam Labs'",
    ]
    # an organisation word alone is part of a longer name, not a name; it is not offered either
    kept, rejected = validate_open_triples([ofact(1, "Ilse Varn", "studied at", "University", "person")], doc)
    assert kept == [] and rejected[0].reason == "subject or object is not a name"
    assert "University" not in candidate_names("University staff met. Corrow University hired Osk Dunmore.")


def test_a_predicate_holding_a_one_word_name_or_only_a_time_is_refused():
    # "served at the court of King Odo" says the relation is with Odo, not with the chronicle; a
    # time phrase ("last season") names no relation, as a date alone does not
    doc = {"id": "p4", "text": ("Brother Tam Ulric wrote the Annals of Pesk at the court of King Odo. "
                                "Tam Ulric preached at Pesk Abbey last season.")}
    recs = [ofact(1, "Tam Ulric", "served at the court of King Odo", "Annals of Pesk", "person", "work"),
            ofact(2, "Tam Ulric", "last season", "Pesk Abbey", "person", "org"),
            ofact(1, "Tam Ulric", "wrote", "Annals of Pesk", "person", "work"),
            ofact(2, "Tam Ulric", "preached at", "Pesk Abbey", "person", "org")]
    kept, rejected = validate_open_triples(recs, doc)
    assert [r.reason for r in rejected] == [
        "predicate 'served_at_court_of_king_odo' holds the name 'Odo'",
        "predicate 'last season' names no relation"]
    # a word of the object's own name is no other name: "preached at Pesk" keeps "Pesk Abbey"
    assert [t.as_tuple() for t in kept] == [("Tam Ulric", "wrote", "Annals of Pesk"),
                                            ("Tam Ulric", "preached_at", "Pesk Abbey")]


def test_a_capitalised_word_opening_a_sentence_or_a_field_is_no_name_in_a_predicate():
    # "Founded" and "Written" are capitalised only where a sentence or a field begins: the relation
    # words themselves, not another entity
    doc = {"id": "p6", "text": "Founded by Ann Lee, Tarn Mill makes looms.\n\nTarn Mill \u2014 Written in: Kestrel."}
    recs = [ofact(1, "Tarn Mill", "founded by", "Ann Lee"), ofact(2, "Tarn Mill", "written in", "Kestrel")]
    kept, rejected = validate_open_triples(recs, doc)
    assert rejected == []
    assert [t.as_tuple() for t in kept] == [("Tarn Mill", "founded_by", "Ann Lee"),
                                            ("Tarn Mill", "written_in", "Kestrel")]


def test_a_relative_clause_s_own_subject_is_the_doer():
    # "Tarn Mill, the works that Orrel Textiles grew out of" says Orrel Textiles grew out of Tarn Mill
    doc = {"id": "p5", "text": "Tarn Mill, the loom works that Orrel Textiles grew out of, closed in 1990."}
    kept, rejected = validate_open_triples([ofact(1, "Tarn Mill", "grew out of", "Orrel Textiles")], doc)
    assert rejected == [] and [t.as_tuple() for t in kept] == [("Orrel Textiles", "grew_out_of", "Tarn Mill")]
    kept, _ = validate_open_triples([ofact(1, "Orrel Textiles", "grew out of", "Tarn Mill")], doc)
    assert [t.as_tuple() for t in kept] == [("Orrel Textiles", "grew_out_of", "Tarn Mill")]   # read right: kept


def test_a_description_that_holds_the_objects_name_keeps_the_rest():
    # the model copies a description: the object's own name inside the predicate goes, the rest
    # stays the relation, so the subject keeps its typed edge (and the aliases a person gets)
    doc = {"id": "p3", "text": "Aino Pelt is a Norvik Lutheran pastor and the author of four hymn books."}
    kept, rejected = validate_open_triples(
        [ofact(1, "Aino Pelt", "is a Norvik Lutheran pastor", "Norvik Lutheran", "person", "org")], doc)
    assert rejected == []
    assert [t.as_tuple() for t in kept] == [("Aino Pelt", "pastor", "Norvik Lutheran")]


def test_a_record_that_borrows_its_object_from_the_sentence_before_must_fit_the_sentence():
    # "Odo reigned for 23 years" says for how long, not for whom: the object "Tarn Mill" came from
    # the sentence before. A pronoun or a passive "by" after the preposition still fits.
    doc = {"id": "p7", "text": ("King Odo granted a charter to Tarn Mill. Odo reigned for 23 years. "
                                "The mill in Pesk was built with it.")}
    recs = [ofact(2, "Odo", "reigned for", "Tarn Mill", "person", "org"),
            ofact(3, "Pesk", "built with", "Tarn Mill", "place", "org"),
            ofact(1, "Odo", "granted charter to", "Tarn Mill", "person", "org")]
    kept, rejected = validate_open_triples(recs, doc)
    assert [r.reason for r in rejected] == ["the sentence says 'reigned for' '23 years.', not 'Tarn Mill'"]
    assert [t.as_tuple() for t in kept] == [("Pesk", "built_with", "Tarn Mill"),
                                            ("Odo", "granted_charter_to", "Tarn Mill")]


def test_the_name_after_a_closing_preposition_is_the_object():
    # "Tarn Hall was the tallest building in Pesk": Pesk comes after "in", so it is the object
    doc = {"id": "p8", "text": "Tarn Hall was the tallest building in Pesk for a century."}
    kept, _ = validate_open_triples([ofact(1, "Pesk", "tallest building in", "Tarn Hall", "place", "place")], doc)
    assert [t.as_tuple() for t in kept] == [("Tarn Hall", "tallest_building_in", "Pesk")]


def test_a_later_it_may_mean_the_document_s_topic():
    # "Trelby Works built it": the first sentence opens with the depot, and no sentence between names it
    doc = {"id": "q1", "text": "Quorvane Depot opened in May on the old dock. Most of its roof is glass. "
                               "Trelby Works built it in ten months."}
    kept, rejected = validate_open_triples([ofact(3, "Trelby Works", "built", "Quorvane Depot")], doc)
    assert [t.as_tuple() for t in kept] == [("Trelby Works", "built", "Quorvane Depot")], rejected
    assert kept[0].evidence == "Trelby Works built it in ten months."
    # a sentence without "it" or "its" does not stand for the topic
    doc2 = {"id": "q2", "text": "Quorvane Depot opened in May on the old dock. Most of the roof is glass. "
                                "Trelby Works built a shed in ten months."}
    assert validate_open_triples([ofact(3, "Trelby Works", "built", "Quorvane Depot")], doc2)[0] == []
    # "it" never means a person the document opens with
    doc3 = {"id": "q3", "text": "Ann Velk opened a shop in May. Her brother sells glass. Trelby Works built it."}
    rec = ofact(3, "Trelby Works", "built", "Ann Velk", object_type="person")
    assert validate_open_triples([rec], doc3)[0] == []


def test_an_irregular_verb_form_in_the_predicate_is_found_in_the_sentence():
    # the model wrote "gave" for "was given by", "wrote" for "written"
    doc = {"id": "q4", "text": "Most of the money was given by Zara Pell to Quorvane Depot. "
                               "Glass Harbour was written by Bo Trell."}
    kept, rejected = validate_open_triples([ofact(1, "Zara Pell", "gave", "Quorvane Depot", "person"),
                                            ofact(2, "Bo Trell", "wrote", "Glass Harbour", "person", "work")], doc)
    assert {(t.subject, t.object) for t in kept} == {("Zara Pell", "Quorvane Depot"), ("Bo Trell", "Glass Harbour")}, rejected
    # "found" may be a form of "find" or the verb "found": both are read
    doc3 = {"id": "q6", "text": "Zara Pell founded Quorvane Depot in 1990. Bo Trell found Glass Harbour in a cave."}
    kept, _ = validate_open_triples([ofact(1, "Zara Pell", "found", "Quorvane Depot", "person"),
                                     ofact(2, "Bo Trell", "find", "Glass Harbour", "person", "work")], doc3)
    assert {(t.subject, t.object) for t in kept} == {("Zara Pell", "Quorvane Depot"), ("Bo Trell", "Glass Harbour")}
    # an unrelated word with the same first letters as no form of the verb is still refused
    doc2 = {"id": "q5", "text": "Zara Pell is a gardener at Quorvane Depot."}
    assert validate_open_triples([ofact(1, "Zara Pell", "gave", "Quorvane Depot", "person")], doc2)[0] == []
