"""Hostile and unusual input to building a graph and saving it (probe A).

Each test failed before its fix: a traceback-class error (AttributeError, KeyError, RecursionError,
ParseError), a silently wrong result, or one bad entry ending a whole build. Names are invented.
"""
from __future__ import annotations

import json
from pathlib import PurePath

import networkx as nx
import pytest

from gaba import cache, coref, descriptions, names
from gaba.__main__ import main
from gaba.aliases import apply_aliases, evaluate_aliases, reconcile_entities
from gaba.cooccurrence import cooccurrence_triples, topic_triples
from gaba.data.news import load_documents
from gaba.data.triple import Triple
from gaba.errors import CacheCorrupt, DocumentError, GabaError
from gaba.extract import extract_corpus, extract_triples
from gaba.kgbuild import build_knowledge_graph, graph_triples
from gaba.kgfile import load_graph, save_graph
from gaba.passages import check_document, split_document, split_sentences
from gaba.validate import validate_triples


def small_graph(kind=nx.MultiDiGraph):
    G = kind()
    G.add_node("Orla Wynd", aliases=["Wynd"], type="person")
    edge = {"relation": "runs", "doc_id": "d1", "evidence": "Orla Wynd runs Pell Quarry.",
            "sources": [["d1", "Orla Wynd runs Pell Quarry."]]}
    if G.is_multigraph():
        G.add_edge("Orla Wynd", "Pell Quarry", key="runs", **edge)
    else:
        G.add_edge("Orla Wynd", "Pell Quarry", **edge)
    return G


# --- gaba.kgfile: graph files --------------------------------------------------------------------

@pytest.mark.parametrize("text, words", [
    ("not xml at all", "syntax error"),
    ("", "no element found"),
    ('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/hostname">]>'
     '<graphml xmlns="http://graphml.graphdrawing.org/xmlns"><graph edgedefault="directed">'
     '<node id="&e;"/></graph></graphml>', "external entity"),
])
def test_a_broken_graphml_file_is_a_gaba_error(tmp_path, text, words):
    """Before: xml.etree.ElementTree.ParseError escaped load_graph (and `ask --graph` printed
    'an unexpected error')."""
    p = tmp_path / "g.graphml"
    p.write_text(text)
    with pytest.raises(GabaError, match=f"g.graphml is not a graph written by save_graph .*{words}"):
        load_graph(p)


def test_cli_ask_with_a_broken_graphml_is_one_expected_line(tmp_path, capsys):
    p = tmp_path / "g.graphml"
    p.write_text("not xml")
    assert main(["ask", "Who runs Pell Quarry?", "--graph", str(p)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1
    assert "unexpected" not in err and "ParseError" not in err and "g.graphml" in err


def test_a_deeply_nested_graph_file_is_a_gaba_error(tmp_path):
    """Before: RecursionError."""
    p = tmp_path / "g.json"
    p.write_text('{"nodes": [{"id": "A", "x": ' + "[" * 100_000 + "]" * 100_000 + '}], "edges": []}')
    with pytest.raises(GabaError, match="not a graph written by save_graph"):
        load_graph(p)


@pytest.mark.parametrize("kind", [nx.DiGraph, nx.Graph, nx.MultiGraph])
@pytest.mark.parametrize("name", ["g.json", "g.graphml"])
def test_a_saved_graph_of_any_kind_loads_back(tmp_path, kind, name):
    """Before: a DiGraph or Graph saved as JSON could not be loaded ("OutEdgeView.__call__() got an
    unexpected keyword argument 'keys'"), while the same graph as GraphML could."""
    H = load_graph(save_graph(small_graph(kind), tmp_path / name))
    assert isinstance(H, nx.MultiDiGraph)
    assert ("Orla Wynd", "Pell Quarry") in H.edges()
    assert H.nodes["Orla Wynd"]["aliases"] == ["Wynd"]


def test_a_graph_file_with_the_older_links_key_loads(tmp_path):
    """Before: the check accepted "links" and the reader then failed with the message "('edges')"."""
    p = tmp_path / "g.json"
    p.write_text(json.dumps({"directed": True, "multigraph": True, "graph": {},
                             "nodes": [{"id": "Orla Wynd"}, {"id": "Pell Quarry"}],
                             "links": [{"source": "Orla Wynd", "target": "Pell Quarry", "key": "runs",
                                        "relation": "runs"}]}))
    assert list(load_graph(p).edges(keys=True)) == [("Orla Wynd", "Pell Quarry", "runs")]


def test_a_graph_file_with_a_byte_order_mark_loads(tmp_path):
    p = save_graph(small_graph(), tmp_path / "g.json")
    p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())         # as some editors save it
    assert load_graph(p).number_of_edges() == 1


def node_link(nodes, edges, **extra) -> dict:
    return {"directed": True, "multigraph": True, "graph": {}, "nodes": nodes, "edges": edges, **extra}


@pytest.mark.parametrize("data, words", [
    # silently merged before: the first entry's attributes or evidence were lost
    (node_link([{"id": "Orla Wynd", "type": "person"}, {"id": "Orla Wynd", "type": "place"}], []),
     "node 'Orla Wynd' is listed twice"),
    (node_link([{"id": "Orla Wynd"}, {"id": "Pell Quarry"}],
               [{"source": "Orla Wynd", "target": "Pell Quarry", "key": "runs", "evidence": "one"},
                {"source": "Orla Wynd", "target": "Pell Quarry", "key": "runs", "evidence": "two"}]),
     r"edge 'Orla Wynd' -> 'Pell Quarry' \(runs\) is listed twice"),
    # loaded before, and G.graph.get(...) then raised AttributeError
    (node_link([], [], graph=[1]), "'graph' must be an object"),
    # loaded before: sources and type of the wrong shape reach the pages and prompts
    (node_link([{"id": "Orla Wynd"}, {"id": "Pell Quarry"}],
               [{"source": "Orla Wynd", "target": "Pell Quarry", "key": "runs", "sources": "d1"}]),
     "'sources' must be a list of"),
    (node_link([{"id": "Orla Wynd", "type": 5}], []), "'type' must be text"),
    (node_link([{"id": "Orla Wynd"}, {"id": "Pell Quarry"}],
               [{"source": "Orla Wynd", "target": "Pell Quarry", "key": ["runs"]}]),
     "a key must be text or a whole number"),
])
def test_hand_edited_graph_files_are_refused_by_name(tmp_path, data, words):
    p = tmp_path / "g.json"
    p.write_text(json.dumps(data))
    with pytest.raises(GabaError, match=words):
        load_graph(p)


@pytest.mark.parametrize("G", [None, {"nodes": []}, [("Orla Wynd", "Pell Quarry")]])
def test_save_graph_of_something_else_is_a_type_error(tmp_path, G):
    """Before: AttributeError: 'dict' object has no attribute 'is_multigraph'."""
    with pytest.raises(TypeError, match="save_graph writes a networkx graph"):
        save_graph(G, tmp_path / "g.json")


def test_save_graph_to_a_folder_is_a_value_error(tmp_path):
    """Before: IsADirectoryError from the rename of the temporary file."""
    with pytest.raises(ValueError, match="it is a folder"):
        save_graph(small_graph(), tmp_path)


@pytest.mark.parametrize("name", ["g.json", "g.graphml"])
@pytest.mark.parametrize("edit, words", [
    (lambda G: G.add_edge(1, 2, key="x", relation="x"), "node 1 is not a non-empty name"),
    (lambda G: G.add_edge("Orla Wynd", "Odrin Vale", key="x", relation=None), "'relation' must be text"),
    (lambda G: G.nodes["Orla Wynd"].update(aliases={"Wynd", "O. Wynd"}), "'aliases' must be a list"),
])
def test_save_graph_refuses_what_load_graph_would_refuse(tmp_path, name, edit, words):
    """Before: the file was written (int names silently became text in GraphML) and load_graph then
    refused it, or save_graph raised NetworkXError for a set."""
    G = small_graph()
    edit(G)
    with pytest.raises(ValueError, match=f"cannot save the graph to .*{words}"):
        save_graph(G, tmp_path / name)
    assert not (tmp_path / name).exists()


@pytest.mark.parametrize("name", ["g.json", "g.graphml"])
def test_save_graph_with_an_unwritable_value_is_a_type_error(tmp_path, name):
    """Before: NetworkXError (GraphML) for a set or a function among the graph's attributes."""
    G = small_graph()
    G.graph["seen"] = {"d1", "d2"}
    with pytest.raises(TypeError, match="write a set as a sorted list"):
        save_graph(G, tmp_path / name)


def test_graphml_keeps_text_that_begins_with_json(tmp_path):
    """Before: an evidence sentence "json:[1,2]" was read back from GraphML as the list [1, 2] (and
    refused), and "json:{" made the file unreadable."""
    G = small_graph()
    G.edges["Orla Wynd", "Pell Quarry", "runs"]["evidence"] = "json:[1,2]"
    G.nodes["Orla Wynd"]["note"] = "json:{half"
    H = load_graph(save_graph(G, tmp_path / "g.graphml"))
    assert H.edges["Orla Wynd", "Pell Quarry", "runs"]["evidence"] == "json:[1,2]"
    assert H.nodes["Orla Wynd"]["note"] == "json:{half"


# --- gaba.data.news.load_documents ---------------------------------------------------------------

@pytest.mark.parametrize("source", ["", "   "])
def test_an_empty_path_is_refused_not_read_as_the_working_folder(source):
    """Before: Path("") is ".", so every .txt/.md file of the working folder was read as documents
    (`build-graph ''` in the repository started extracting its 299 passages)."""
    with pytest.raises(DocumentError, match="the path of the documents is empty"):
        load_documents(source)


def test_cli_build_graph_with_an_empty_path_makes_no_call(scripted, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.md").write_text("Orla Wynd runs Pell Quarry.")
    assert main(["build-graph", "", "--out", str(tmp_path / "g.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: the path of the documents is empty") and err.count("\n") == 1
    assert scripted.requests == []


@pytest.mark.parametrize("docs, field", [
    (["Orla Wynd runs Pell \ud800 Quarry."], "text"),
    ([{"id": "d\udc80", "text": "Orla Wynd runs Pell Quarry."}], "id"),
    ([{"id": "d1", "title": "Q\udfff", "text": "Orla Wynd runs Pell Quarry."}], "title"),
])
def test_a_lone_surrogate_is_a_document_error(docs, field):
    """Before: accepted, then UnicodeEncodeError ("surrogates not allowed", no document named) from
    the cache key, or from the CLI."""
    with pytest.raises(DocumentError, match=f"lone surrogate .* in its {field}"):
        load_documents(docs)


def test_a_json_file_with_an_escaped_surrogate_fails_before_any_call(scripted, tmp_path, capsys):
    p = tmp_path / "docs.json"
    p.write_text('[{"id": "d1", "text": "Orla Wynd runs Pell \\ud800 Quarry."}]')
    assert main(["build-graph", str(p), "--out", str(tmp_path / "g.json")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: document 'd1' has a lone surrogate") and "codec" not in err
    assert scripted.requests == []


def test_a_path_like_source_is_read_as_a_path(tmp_path):
    """Before: a PurePath (an os.PathLike) was refused as 'cannot read documents from a PurePosixPath'."""
    (tmp_path / "a.txt").write_text("Orla Wynd runs Pell Quarry.")
    assert [d["id"] for d in load_documents(PurePath(tmp_path))] == ["a"]


def test_a_json_file_of_documents_with_a_byte_order_mark_loads(tmp_path):
    p = tmp_path / "docs.json"
    p.write_bytes(b"\xef\xbb\xbf" + json.dumps(["Orla Wynd runs Pell Quarry."]).encode())
    assert load_documents(p)[0]["text"] == "Orla Wynd runs Pell Quarry."


@pytest.mark.parametrize("name", ["note.txt", "note.md"])
def test_a_text_file_with_a_byte_order_mark_loads_without_it(tmp_path, name):
    # the mark is not text: kept, it began the document (and its cache key and evidence)
    (tmp_path / name).write_bytes(b"\xef\xbb\xbf" + "Orla Wynd runs Pell Quarry.".encode())
    assert load_documents(tmp_path)[0]["text"] == "Orla Wynd runs Pell Quarry."
    assert load_documents(tmp_path / name)[0]["text"] == "Orla Wynd runs Pell Quarry."


def test_a_deeply_nested_json_file_of_documents_is_a_document_error(tmp_path):
    p = tmp_path / "docs.json"
    p.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(DocumentError, match="nests JSON too deeply"):
        load_documents(p)


def test_a_title_that_is_not_text_is_a_document_error():
    with pytest.raises(DocumentError, match="has a title of type int"):
        load_documents([{"id": "d1", "title": 7, "text": "Orla Wynd runs Pell Quarry."}])


# --- gaba.cache and gaba.kgcache: hand-edited or corrupt entries ---------------------------------

TWO_DOCS = [{"id": "d1", "text": "Orla Wynd runs Pell Quarry in Odrin Vale."},
            {"id": "d2", "text": "Tibo Renn founded Hask Ferries in Marrow Lane."}]


def open_reply(subject, predicate, obj) -> str:
    return json.dumps({"facts": [{"sentence": 1, "subject": subject, "predicate": predicate, "object": obj,
                                  "subject_type": "person", "object_type": "org"}]})


REPLIES = [open_reply("Orla Wynd", "runs", "Pell Quarry"), open_reply("Tibo Renn", "founded", "Hask Ferries")]


def recorded(scripted, tmp_cache):
    """Extract TWO_DOCS once (recording both caches); return the triples-cache and LLM-cache files."""
    scripted.replies.extend(REPLIES)
    ex = extract_corpus(TWO_DOCS, progress=False, concurrency=1)
    assert len(ex.triples) == 2 and not ex.failed
    return sorted((tmp_cache / "kg-cache").glob("*.json")), sorted((tmp_cache / "llm-cache").rglob("*.json"))


DEEP = '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"


@pytest.mark.parametrize("edit", [
    lambda e: json.dumps({**e, "seconds": "fast"}),       # ValueError: could not convert string to float
    lambda e: json.dumps({**e, "seconds": None}),         # TypeError: float() argument must be ...
    lambda e: json.dumps({**e, "usage": [1]}),            # TypeError: cannot convert dictionary update ...
    lambda e: DEEP,                                       # RecursionError
])
def test_a_corrupt_triples_cache_entry_is_extracted_again(scripted, tmp_cache, edit):
    """Before: one hand-edited entry ended the whole extraction with a bare Python error."""
    kg, _ = recorded(scripted, tmp_cache)
    kg[0].write_text(edit(json.loads(kg[0].read_text())))
    ex = extract_corpus(TWO_DOCS, progress=False, concurrency=1)      # the LLM cache answers again
    assert len(ex.triples) == 2 and not ex.failed and ex.cache["rebuilt"] == 1


@pytest.mark.parametrize("edit, why", [
    (lambda e: {**e, "response": {**e["response"], "seconds": "slow"}}, "seconds and token counts must be numbers"),
    (lambda e: {**e, "response": {**e["response"], "usage": {"completion_tokens": "many"}}},
     "seconds and token counts must be numbers"),
])
def test_a_recorded_response_with_a_bad_number_is_corrupt(scripted, tmp_cache, edit, why):
    """Before: ValueError "could not convert string to float: 'slow'" ended the whole extraction."""
    kg, llm_files = recorded(scripted, tmp_cache)
    for p in kg:
        p.unlink()
    entry = json.loads(llm_files[0].read_text())
    llm_files[0].write_text(json.dumps(edit(entry)))
    with pytest.raises(CacheCorrupt, match=why):
        cache.check_entry(llm_files[0])
    ex = extract_corpus(TWO_DOCS, progress=False, concurrency=1)
    assert len(ex.failed) == 1 and why in next(iter(ex.failed.values())) and len(ex.triples) == 1


def test_a_deeply_nested_recorded_response_is_corrupt(scripted, tmp_cache):
    """Before: RecursionError from `python -m gaba cache verify` and from any call that read it."""
    _, llm_files = recorded(scripted, tmp_cache)
    llm_files[0].write_text(DEEP)
    with pytest.raises(CacheCorrupt, match="not valid JSON"):
        cache.check_entry(llm_files[0])
    report = cache.verify_cache(tmp_cache / "llm-cache")
    assert report.checked == 2 and [p for p, _ in report.bad] == [llm_files[0]]


# --- documents, records, names and alias tables of the wrong shape -------------------------------

DOC = {"id": "d1", "text": "Orla Wynd runs Pell Quarry in Odrin Vale."}


@pytest.mark.parametrize("call", [
    lambda d: split_document(d),
    lambda d: check_document(d),
    lambda d: validate_triples([], d),
    lambda d: validate_triples([], d, {"RUNS": "runs"}),
    lambda d: cooccurrence_triples(d),
    lambda d: topic_triples(d),
])
@pytest.mark.parametrize("doc", [{"id": "d1"}, {"text": "Orla Wynd runs Pell Quarry."},
                                 {"id": "d1", "text": None}, "Orla Wynd runs Pell Quarry.", None])
def test_a_document_of_the_wrong_shape_is_a_type_error(call, doc):
    """Before: KeyError 'text' / 'id', AttributeError ('NoneType' object has no attribute 'split'), or
    TypeError 'string indices must be integers'."""
    with pytest.raises(TypeError, match="takes a document: a dict with 'id' and a 'text' string"):
        call(doc)


@pytest.mark.parametrize("text", [None, 7, b"Orla Wynd. Pell Quarry."])
def test_split_sentences_of_something_else_is_a_type_error(text):
    """Before: AttributeError: 'NoneType' object has no attribute 'strip'."""
    with pytest.raises(TypeError, match="the text given to split_sentences must be a string"):
        split_sentences(text)


def test_validate_triples_of_a_single_record_is_a_type_error():
    """Before: a dict of one record was read key by key: five 'not a record' rejections, no error."""
    rec = {"sentence": 1, "subject": "Orla Wynd", "predicate": "runs", "object": "Pell Quarry",
           "subject_type": "person", "object_type": "org"}
    with pytest.raises(TypeError, match="a list of the model's records"):
        validate_triples(rec, DOC)
    assert [t.as_tuple() for t in validate_triples([rec], DOC)[0]] == [("Orla Wynd", "runs", "Pell Quarry")]


@pytest.mark.parametrize("rule", [cooccurrence_triples, topic_triples])
@pytest.mark.parametrize("names, words", [("Orla Wynd", "not the string"), ([7, None], "names must be strings")])
def test_cooccurrence_names_of_the_wrong_type(rule, names, words):
    """Before: a string was read letter by letter and silently linked nothing; ints raised
    "object of type 'int' has no len()"."""
    with pytest.raises(TypeError, match=words):
        rule(DOC, names)


def test_extract_triples_with_a_rejected_that_is_not_a_list_fails_before_the_call(scripted):
    """Before: AttributeError: 'int' object has no attribute 'extend', after the model call."""
    with pytest.raises(TypeError, match="rejected must be a list"):
        extract_triples(DOC, rejected=0)
    assert scripted.requests == []


def test_an_empty_schema_is_a_value_error(scripted):
    """Before: schema={} sent a request whose relation enum was empty and every fact was refused."""
    with pytest.raises(ValueError, match="schema has no relations"):
        extract_triples(DOC, schema={})
    assert scripted.requests == []


def test_reconcile_entities_of_one_string_is_a_type_error():
    """Before: the string was read letter by letter: {'O': 'O', 'r': 'r', ...}."""
    with pytest.raises(TypeError, match="not the string 'Orla Wynd'"):
        reconcile_entities("Orla Wynd")
    with pytest.raises(TypeError, match="types must map a name"):   # before: AttributeError 'items'
        reconcile_entities(["Orla Wynd"], types=["person"])


T1 = Triple("Orla Wynd", "runs", "Pell Quarry", "d1", "Orla Wynd runs Pell Quarry.")


@pytest.mark.parametrize("triples, table, words", [
    ([T1], None, "table must map a name"),
    ([("Orla Wynd", "runs", "Pell Quarry")], {}, "apply_aliases takes Triple objects"),
    ([T1], {"Orla Wynd": None}, "a canonical name must be a string"),
])
def test_apply_aliases_with_a_bad_table_or_triple_is_a_type_error(triples, table, words):
    """Before: AttributeError ('NoneType' object has no attribute 'get' / 'lower', 'tuple' object has
    no attribute 'subject')."""
    with pytest.raises(TypeError, match=words):
        apply_aliases(triples, table)


def test_evaluate_aliases_of_an_empty_gold_and_of_a_bad_table():
    """Before: KeyError 'correct' for an empty gold table; AttributeError for a None canonical name."""
    df, summary = evaluate_aliases({"Wynd": "Orla Wynd"}, {})
    assert len(df) == 0 and summary["gold"] == 0
    with pytest.raises(TypeError, match="table must map names to names"):
        evaluate_aliases({"Wynd": None}, {"Wynd": "Orla Wynd"})


def test_build_knowledge_graph_with_a_cooccurrence_that_is_not_a_bool(scripted):
    """Before: cooccurrence="no" is truthy and silently turned the rule on."""
    with pytest.raises(TypeError, match="cooccurrence must be True, False or None"):
        build_knowledge_graph([DOC["text"]], cooccurrence="no", progress=False)
    assert scripted.requests == []


def test_a_document_id_that_is_also_a_passage_id_is_refused_before_any_call(scripted):
    """Before: document "q#1" and passage 1 of the long document "q" shared an id, so one of the two
    lost its records, timing and failure in the Extraction and the graph's provenance was ambiguous."""
    long_text = " ".join(f"Orla Wynd met Tibo Renn at Pell Quarry on day {i}." for i in range(1, 13))
    docs = [{"id": "q", "text": long_text}, {"id": "q#1", "text": "Odrin Vale hired Brisk Yard."}]
    with pytest.raises(DocumentError, match="the id 'q#1' names a document and a passage"):
        extract_corpus(docs, progress=False)
    assert scripted.requests == []


@pytest.mark.parametrize("char", ["\x0c", "\x1f", "\x0b", "\ufffe"])
def test_graphml_keeps_text_with_characters_xml_cannot_hold(tmp_path, char):
    """Before: an evidence sentence with a form feed (a PDF page break) was written raw into the
    GraphML file, which load_graph then refused as not well-formed: the saved graph was lost."""
    G = small_graph()
    G.edges["Orla Wynd", "Pell Quarry", "runs"]["evidence"] = f"Orla Wynd runs{char} Pell Quarry."
    G.edges["Orla Wynd", "Pell Quarry", "runs"]["sources"] = [["d1", f"Orla Wynd runs{char} Pell Quarry."]]
    H = load_graph(save_graph(G, tmp_path / "g.graphml"))
    assert sorted(H.edges(keys=True, data=True)) == sorted(G.edges(keys=True, data=True))
    G.add_edge(f"Odrin{char}Vale", "Pell Quarry", key="owns", relation="owns")
    with pytest.raises(ValueError, match="holds a character GraphML cannot store; save it as .json"):
        save_graph(G, tmp_path / "h.graphml")
    assert load_graph(save_graph(G, tmp_path / "h.json")).has_edge(f"Odrin{char}Vale", "Pell Quarry")


def test_a_triples_cache_that_is_a_file_is_refused_before_any_call(scripted, tmp_path):
    """Before: the model was asked, then FileExistsError (an OSError) ended the whole extraction when
    its answer was written."""
    (tmp_path / "kg").write_text("not a folder")
    with pytest.raises(ValueError, match="is a file, not a folder"):
        extract_corpus([DOC], cache_dir=tmp_path / "kg", progress=False)
    assert scripted.requests == []


@pytest.mark.parametrize("fn", [names.lower_words, names.is_name, names.strip_title, names.looks_like_org,
                                names.looks_like_person, lambda x: names.mentions(x, "Orla Wynd")])
@pytest.mark.parametrize("value", [None, 7, ["Orla Wynd"]])
def test_name_helpers_of_something_else_are_type_errors(fn, value):
    """Before: AttributeError ('NoneType' object has no attribute 'lower' / 'split')."""
    with pytest.raises(TypeError, match=r"given to \w+ must be a string, not \w+ \("):
        fn(value)


def test_a_huge_malformed_reply_gives_a_short_failure_and_the_other_documents_are_kept(scripted):
    """Before: the schema error quoted the whole reply, so the document's failure (and the build's
    warning line) ran to hundreds of kilobytes; the other document must still be extracted."""
    fact = {"sentence": 1, "subject": "Orla Wynd", "predicate": "runs", "object": "Pell Quarry",
            "subject_type": "person", "object_type": "org"}
    huge = json.dumps({"facts": [fact] * 5000})             # far over the schema's maxItems
    scripted.replies.extend([huge] * 3 + REPLIES[1:])
    ex = extract_corpus([TWO_DOCS[0], TWO_DOCS[1]], progress=False, concurrency=1)
    assert list(ex.failed) == ["d1"] and len(ex.failed["d1"]) <= 600
    # short either way: call_llm keeps the two ends of the schema message, extract cuts at 600
    assert ex.failed["d1"].startswith("document 'd1': ") and "is too long" in ex.failed["d1"]
    assert [t.as_tuple() for t in ex.triples] == [("Tibo Renn", "founded", "Hask Ferries")]


def test_reconcile_entities_of_many_names_is_not_quadratic():
    """Before: every name scanned every longer name: 15,000 names took about 25 s on two cores
    (40,000 several minutes), after extraction had finished. Same tables (checked on the book's corpora)."""
    import random
    import time

    rng = random.Random(0)
    syllables = ["ka", "lo", "mir", "ten", "vas", "qu", "dor", "ein", "sal", "rok", "pim", "zu", "bel"]
    names = [" ".join("".join(rng.choice(syllables) for _ in range(3)).capitalize()
                      for _ in range(rng.randint(1, 3))) for _ in range(15_000)]
    t0 = time.perf_counter()
    table = reconcile_entities(names)
    assert time.perf_counter() - t0 < 8
    assert reconcile_entities(["Pell", "Pell Quarry", "Wynd", "Orla Wynd", "Odrin Vale"]) == {
        "Odrin Vale": "Odrin Vale", "Orla Wynd": "Orla Wynd", "Pell": "Pell Quarry",
        "Pell Quarry": "Pell Quarry", "Wynd": "Orla Wynd"}
    assert len(table) >= len(set(names))


def test_a_file_whose_name_is_not_utf8_is_read_not_skipped(tmp_path):
    """Before: a Latin-1 file name ("caf\\xe9.txt", from an old archive) gave an id with a lone
    surrogate; at first the build then ended with UnicodeEncodeError, and with the surrogate check the
    whole document was skipped for its name. Its bytes that are not UTF-8 now read as U+FFFD."""
    import os

    folder = os.fsencode(tmp_path)
    with open(os.path.join(folder, b"quarr\xe9.txt"), "wb") as f:
        f.write(b"Orla Wynd runs Pell Quarry.")
    (tmp_path / "vale.txt").write_text("Tibo Renn founded Hask Ferries.")
    docs = load_documents(tmp_path)
    assert [d["id"] for d in docs] == ["quarr\ufffd", "vale"]
    assert docs[0]["text"] == "Orla Wynd runs Pell Quarry."
    one = load_documents(os.fsdecode(os.path.join(folder, b"quarr\xe9.txt")))
    assert one[0]["id"] == "quarr\ufffd"


@pytest.mark.parametrize("kind", [nx.DiGraph, nx.Graph, nx.MultiGraph, nx.MultiDiGraph])
def test_graph_triples_of_any_graph_kind(kind):
    """Before: TypeError "OutEdgeView.__call__() got an unexpected keyword argument 'keys'" for a
    DiGraph or Graph, and an int relation for a MultiGraph edge without one."""
    assert [t.as_tuple() for t in graph_triples(small_graph(kind))] == [("Orla Wynd", "runs", "Pell Quarry")]
    G = kind()
    G.add_edge("Orla Wynd", "Odrin Vale")
    assert all(isinstance(t.relation, str) for t in graph_triples(G))
    with pytest.raises(TypeError, match="graph_triples takes a networkx graph"):
        graph_triples({"Orla Wynd": "Odrin Vale"})


def test_a_recorded_malformed_row_does_not_make_the_entry_corrupt(scripted, monkeypatch):
    """Before (GABA_EXTRACT_FORMAT=rows): an answer with one row of the wrong length was recorded as
    {"row": [...]}, and every later build judged that entry corrupt and extracted it again ("rebuilt"),
    so the document never counted as cached."""
    from gaba import config

    monkeypatch.setenv("GABA_EXTRACT_FORMAT", "rows")
    config.reload()
    try:
        scripted.replies.append(json.dumps({"facts": [[1, "Orla Wynd", "runs", "Pell Quarry", "person", "org"],
                                                      [1, "Odrin Vale"]]}))
        first = extract_corpus([DOC], progress=False)
        again = extract_corpus([DOC], progress=False)
    finally:            # the settings are cached: re-read them without "rows" for the tests after this
        monkeypatch.delenv("GABA_EXTRACT_FORMAT")
        config.reload()
    assert [t.as_tuple() for t in again.triples] == [t.as_tuple() for t in first.triples] == [
        ("Orla Wynd", "runs", "Pell Quarry")]
    assert again.cache == {"hits": 1, "misses": 0, "rebuilt": 0}


def test_a_json_file_of_documents_with_a_huge_number_is_a_document_error(tmp_path):
    """Before: ValueError "Exceeds the limit (4300 digits) for integer string conversion ... use
    sys.set_int_max_str_digits()", which names no file and the wrong remedy."""
    p = tmp_path / "docs.json"
    p.write_text('[{"id": "d1", "text": "Orla Wynd runs Pell Quarry.", "date": ' + "9" * 5000 + "}]")
    with pytest.raises(DocumentError, match="docs.json holds a number JSON cannot be read"):
        load_documents(p)


def test_a_recorded_response_with_a_huge_number_is_corrupt(scripted, tmp_cache):
    """Before: ValueError "Exceeds the limit (4300 digits) ..." from `cache verify` and from any call
    that read the entry."""
    _, llm_files = recorded(scripted, tmp_cache)
    llm_files[0].write_text('{"format": ' + "1" * 5000 + "}")
    with pytest.raises(CacheCorrupt, match="not valid JSON"):
        cache.check_entry(llm_files[0])
    assert [p for p, _ in cache.verify_cache(tmp_cache / "llm-cache").bad] == [llm_files[0]]


def test_spellings_that_differ_only_in_unicode_form_or_invisible_characters_are_one_node(scripted, tmp_path):
    """Before: a name pasted with a zero-width space or a soft hyphen was not one of the document's
    names (the open extractor could not use it), and a reply naming it so was a second node."""
    composed = "Zoë Brandt"
    spellings = [composed, "Zoe\u0308 Brandt", "Zo\u00eb\u200b Brandt", "Zo\u00eb Bran\u00addt"]
    docs, replies = [], []
    for i, name in enumerate(spellings):
        town = ["Alder", "Birch", "Cedar", "Damson"][i] + " Works"
        docs.append({"id": f"d{i}", "text": f"{name} runs {town}."})
        replies.append(json.dumps({"facts": [{"sentence": 1, "subject": composed, "predicate": "runs",
                                              "object": town, "subject_type": "person",
                                              "object_type": "org"}]}))
    scripted.replies.extend(replies)
    G = build_knowledge_graph(docs, cache_dir=tmp_path / "kg", progress=False)
    people = [n for n in G if "Brandt" in n]
    assert people == [composed] and G.out_degree(composed) == 4
    assert names.normalize_name("Zoe\u0308\u2060 Brandt\ufeff") == composed
    # joiners that change how letters join are kept: they are part of the word
    assert names.normalize_name("അപരിചിതന്\u200d") == "അപരിചിതന്\u200d"


MARKDOWN_NOTE = """# About the Alder Trust

The Alder Trust is a small charity. It was founded by Hana Okello, a former
water engineer, and it is based in Bramley.

## What we do

- We restore gravels on the River Sable
- We run volunteer days
1. Most of our money comes from the **Cole Foundation**, set up by [Arthur Cole](https://example.org).
"""


def test_a_markdown_file_is_read_as_sentences_that_do_not_run_across_headings(tmp_path):
    """Before: the heading ran into the first sentence ("Alder Trust The Alder Trust" was a name),
    and a wrapped line put a line break inside a numbered sentence of the extraction prompt."""
    from gaba.passages import numbered_sentences
    (tmp_path / "note.md").write_text(MARKDOWN_NOTE)
    text = load_documents(tmp_path)[0]["text"]
    assert split_sentences(text) == [
        "About the Alder Trust.", "The Alder Trust is a small charity.",
        "It was founded by Hana Okello, a former water engineer, and it is based in Bramley.",
        "What we do.", "We restore gravels on the River Sable.", "We run volunteer days.",
        "Most of our money comes from the Cole Foundation, set up by Arthur Cole."]
    assert names.candidate_names(text) == ["About", "Alder Trust", "Hana Okello", "Bramley",
                                           "River Sable", "Cole Foundation", "Arthur Cole"]
    lines = numbered_sentences(text).splitlines()
    assert [line.split("]")[0] for line in lines] == [f"[{i}" for i in range(1, 8)]


@pytest.mark.parametrize("text", ["Kestrel builds vans.\n", "Kestrel builds **vans** - see [here](x).",
                                  "  Kestrel builds vans.  "])
def test_text_on_one_line_is_left_as_it_is(text):
    assert load_documents([text])[0]["text"] == text


def test_a_markdown_note_builds_a_graph_without_heading_names_quantifiers_or_backward_agents(scripted, tmp_path):
    """Faults met on a reader's Markdown notes, each failing before its fix: "the trust" in the
    second passage of a long note was not its name (the name was in the first passage); "Most"
    opening a sentence was offered to the model as a name (it made "Cole Foundation funded Most");
    a "<verb>_by" record that put the agent first ("Greystone Works built_by Mill Weir") was kept
    the wrong way round."""
    note = ("# About the Fernwell Trust\n\nThe Fernwell Trust is a small river charity in the north of "
            "the county. It was founded in 2011 by Hana Okello, a former water engineer who worked "
            "for years on the lower river.\n\n## Money\n\nMost of our money comes from the Cole "
            "Foundation, which has funded the trust since 2014.\n")
    weir = "Work at Mill Weir ended in March. The pass was built by Greystone Works over eleven weeks."
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "about.md").write_text(note)
    (tmp_path / "docs" / "weir.txt").write_text(weir)

    def facts(*rows):
        return json.dumps({"facts": [dict(zip(("sentence", "subject", "predicate", "object"), r),
                                          subject_type="org", object_type="org") for r in rows]})
    scripted.replies.extend([
        facts((3, "Fernwell Trust", "founded_by", "Hana Okello")),
        facts((2, "Cole Foundation", "funded", "Fernwell Trust")),
        facts((2, "Greystone Works", "built_by", "Mill Weir"))])
    G = build_knowledge_graph(tmp_path / "docs", cache_dir=tmp_path / "kg", progress=False,
                              cooccurrence=False)
    second = scripted.requests[1]["messages"][-1]["content"]
    assert "has funded the Fernwell Trust since 2014" in second and "Most" not in second.split("[1]")[0]
    assert sorted(G.edges(keys=True)) == [("Cole Foundation", "Fernwell Trust", "funded"),
                                          ("Fernwell Trust", "Hana Okello", "founded_by"),
                                          ("Mill Weir", "Greystone Works", "built_by")]


def test_an_e_mail_and_a_fact_sheet_keep_their_header_lines_apart(tmp_path):
    """Before: "To: Board of the Harlow Choir" and "Subject: ..." were read as one sentence, so
    "Harlow Choir Subject" was a name; so were "Agnes Pell Home" and a signature's "Marta Quill Chair";
    and a table's rows were part of the sentence before them (its evidence)."""
    (tmp_path / "mail.txt").write_text(
        "From: Marta Quill\nTo: Board of the Harlow Choir\nSubject: New conductor\n\nDear all,\n\n"
        "Dominic Fairweather will conduct the Harlow Choir from September. He trained at the\n"
        "Rusholme Conservatory.\n\nBest wishes,\nMarta Quill\nChair, Harlow Choir\n")
    (tmp_path / "sheet.md").write_text("Harlow Choir\nFounded: 1962\nFounder: Agnes Pell\nHome: Harlow\n\n"
                                       "| Season | Concerts |\n|---|---|\n| 2024 | 6 |\n")
    mail, sheet = (d["text"] for d in load_documents(tmp_path))
    assert split_sentences(mail) == [
        "From: Marta Quill.", "To: Board of the Harlow Choir.", "Subject: New conductor.", "Dear all.",
        "Dominic Fairweather will conduct the Harlow Choir from September.",
        "He trained at the Rusholme Conservatory.", "Best wishes, Marta Quill.", "Chair, Harlow Choir."]
    assert split_sentences(sheet) == ["Harlow Choir.", "Harlow Choir \u2014 Founded: 1962.",
                                      "Harlow Choir \u2014 Founder: Agnes Pell.", "Harlow Choir \u2014 Home: Harlow.",
                                      "| Season | Concerts |.", "| 2024 | 6 |."]     # a row is not the Home line's
    found = names.candidate_names(mail) + names.candidate_names(sheet)
    assert {"Marta Quill", "Harlow Choir", "Agnes Pell", "Rusholme Conservatory"} <= set(found)
    assert not [n for n in found if n.endswith((" Subject", " Home", " Chair"))]


@pytest.mark.parametrize("sheet", ["Tarn Rowing Club\nFounder: Ida Voss\nHome: Kellby\n",
                                   "# Tarn Rowing Club\n\nFounder: Ida Voss\n\nHome: Kellby\n",
                                   "## Tarn Rowing Club ##\nFounder: Ida Voss\nHome: Kellby",
                                   "# Tarn Rowing Club\n\n- Founder: Ida Voss\n- Home: Kellby\n"])
def test_a_fact_sheet_s_fields_name_the_sheet_s_title(sheet):
    """Before: "Founder: Ida Voss" was a sentence of its own, so no sentence named the club and its
    founder together and the extractor could link them nowhere."""
    assert split_sentences(load_documents([sheet])[0]["text"])[1:] == [
        "Tarn Rowing Club \u2014 Founder: Ida Voss.", "Tarn Rowing Club \u2014 Home: Kellby."]


@pytest.mark.parametrize("text", ["From: Ida Voss\nSubject: Regatta\n\nThe regatta is on Sunday.\n",
                                  "The regatta moved to Kellby this year, and the club\nhas a new boathouse.\n"
                                  "Note: it opens in May.\n\nContact: Ida Voss\n"])
def test_fields_without_a_title_above_them_are_left_alone(text):
    # an e-mail's header opens the text; a long first paragraph is no title
    assert "\u2014" not in load_documents([text])[0]["text"]


def test_a_place_named_after_a_saint_keeps_its_saint():
    """Before: "St" and "Saint" were personal titles, so "St Bride's Hall" became "Bride's Hall"."""
    text = "The choir sings at St Bride's Hall. Ward 12 of St. Aldric's Hospital reopened. Coach Ada Lind won."
    assert names.candidate_names(text) == ["St Bride's Hall", "Ward 12", "St. Aldric's Hospital", "Ada Lind"]


def test_files_of_other_kinds_are_named_not_skipped_silently(tmp_path):
    """Before: a folder's PDFs and web pages were left out without a word, and a PDF given as the
    path was reported as "not valid JSON"."""
    (tmp_path / "a.txt").write_text("Acme hired Ann Lee.")
    (tmp_path / "b.pdf").write_bytes(b"%PDF-1.4 \x00\x01")
    (tmp_path / "c.html").write_text("<p>Acme</p>")
    (tmp_path / ".DS_Store").write_bytes(b"\x00")          # hidden files are not the reader's documents
    with pytest.warns(UserWarning, match=r"skipped 2 other file\(s\) \(1 \.html, 1 \.pdf\)"):
        assert [d["id"] for d in load_documents(tmp_path)] == ["a"]
    with pytest.raises(DocumentError, match=r"neither a \.txt nor a \.md file nor a JSON list"):
        load_documents(tmp_path / "b.pdf")
    only = tmp_path / "only"
    only.mkdir()
    (only / "b.pdf").write_bytes(b"%PDF")
    with pytest.raises(DocumentError, match=r"holds no \.txt or \.md files; it holds 1 \.pdf"):
        load_documents(only)


def test_cli_build_graph_of_a_pdf_is_one_line(tmp_path, capsys):
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.4 \x00")
    assert main(["build-graph", str(tmp_path / "report.pdf")]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "convert it to plain text" in err[0]


def test_a_partner_s_name_is_the_person_not_the_firm():
    """Before: "Marlowe" (in "Marlowe left ... to found her own firm, Marlowe & Pryce") became the
    firm, so the firm left Edda Marlowe's employer. A name that opens a partnership's name is the
    partner when a person of that name exists; alone, it is still the firm's short form."""
    names = ["Edda Marlowe", "Marlowe", "Marlowe & Pryce", "Daniel Pryce"]
    assert reconcile_entities(names)["Marlowe"] == "Edda Marlowe"
    assert reconcile_entities(["Marlowe", "Marlowe & Pryce"])["Marlowe"] == "Marlowe & Pryce"


def test_a_bare_verb_record_that_misses_the_passive_s_agent_is_refused():
    """Before: "Keel & Varga, a firm based in Corran, was founded in 1972 by Hollis Keel" kept
    "Keel & Varga founded Corran" beside the right "Keel & Varga founded_by Hollis Keel"."""
    doc = {"id": "d1", "text": "Keel & Varga, a firm based in Corran, was founded in 1972 by Hollis Keel."}
    rec = {"sentence": 1, "subject_type": "org", "object_type": "place"}
    kept, refused = validate_triples([{**rec, "subject": "Keel & Varga", "predicate": "founded", "object": "Corran"},
                                      {**rec, "subject": "Keel & Varga", "predicate": "founded",
                                       "object": "Hollis Keel", "object_type": "person"}], doc)
    assert [(t.subject, t.relation, t.object) for t in kept] == [("Keel & Varga", "founded_by", "Hollis Keel")]
    assert "by 'Hollis Keel'" in refused[0].reason


def test_a_wrapped_line_of_prose_that_opens_like_a_field_stays_in_its_sentence():
    text = load_documents(["The mayor said: we will\nbuild the bridge first.\n\nNote: it rained.\nDate: 3 May"])[0]["text"]
    assert split_sentences(text) == ["The mayor said: we will build the bridge first.", "Note: it rained.",
                                     "Date: 3 May."]


def test_a_fenced_code_block_is_not_read_as_prose():
    """Before: the lines of a Markdown code block were sentences, and "Foo(Bar)" offered names."""
    note = "Acme makes vans.\n\n```python\nx = Foo(Bar)\n# not a heading\n```\n\nAnn Lee runs Acme.\n"
    text = load_documents([note])[0]["text"]
    assert split_sentences(text) == ["Acme makes vans.", "Ann Lee runs Acme."]
    assert names.candidate_names(text) == ["Acme", "Ann Lee"]


def test_a_later_passage_that_opens_with_he_says_who(scripted, tmp_path):
    """Before: a long biography's second passage, "He was born in Leeds ...", reached the extractor
    without the name, so the birthplace (a Wikipedia bridge answer) had no subject."""
    first = ("Tomas Varley (born 1950) is an English engineer known for the Harl Viaduct, a long rail "
             "bridge over the River Tane, and for the design of several smaller road bridges in Yorkshire "
             "and Lancashire. His firm, Varley Partners, worked on forty bridges across the north of England.")
    doc = {"id": "bio", "text": first + " He was born in Leeds and studied at Orrel College in Preston."}
    scripted.replies.extend([json.dumps({"facts": []})] * 2)
    extract_corpus([doc], cache_dir=tmp_path / "kg", progress=False)
    second = scripted.requests[1]["messages"][-1]["content"]
    assert "Tomas Varley was born in Leeds" in second


@pytest.mark.parametrize("text, opening", [
    ("He was born in Leeds.", "Harl Viaduct opened in 1890."),              # the text opens with no person
    ("He was born in Leeds.", "Tomas Varley designed the Harl Viaduct."),   # not the way a biography opens
    ("Ann Lee met him. He was born in Leeds.", "Tomas Varley (born 1950) is an engineer."),  # a later sentence
    ("Ann Lee said he was born in Leeds.", "Tomas Varley (born 1950) is an engineer."),  # a person comes first
])
def test_an_opening_pronoun_is_left_alone_without_a_biography_s_subject(text, opening):
    assert coref.resolve_opening_pronoun(text, opening) == text


def test_the_firm_is_the_name_the_text_called_a_firm():
    """Before: "... her own firm, Marlowe & Pryce. The firm was bought by Venning Group" left "the
    firm" unread (no name ends in "Firm"), so the purchase had no subject the extractor could use."""
    text = ("Marlowe left Holloway Cranes in 1974 to found her own firm, Marlowe & Pryce. The firm was bought "
            "by Venning Group in 1990. Holloway Cranes was a crane maker based in Corby. The maker closed.")
    assert descriptions.resolve_descriptions(text) == text.replace("The firm", "The Marlowe & Pryce").replace(
        "The maker", "The Holloway Cranes")
    # "the painter Bo Chan" names someone else; "Varga" alone is not "Keel & Varga, a firm"
    assert descriptions.resolve_descriptions("Ann Lee is a painter. The painter Bo Chan came.").endswith(
        "The painter Bo Chan came.")
    assert descriptions.description_heads("Keel & Varga, a firm based in Corran.")["firm"] == {"Keel & Varga"}


def test_a_two_word_description_is_the_name_ending_in_both_words():
    """Before: "the air ambulance" was read as "the air" (no name ends in "Air") and left unread, so
    "The air ambulance is run by the Kestry Medical Trust" gave the ambulance no fact."""
    text = "A helicopter from Kestry Air Ambulance lifted him. The air ambulance is run by the Kestry Medical Trust."
    assert descriptions.resolve_descriptions(text).endswith("The Kestry Air Ambulance is run by the Kestry Medical Trust.")
    assert descriptions.resolve_descriptions("The air ambulance met Kestry Air Ambulance.").startswith("The air ambulance")
    earlier = descriptions.description_heads("Kestry Air Ambulance flew.")
    assert descriptions.resolve_descriptions("The air ambulance landed.", earlier) == "The Kestry Air Ambulance landed."


def test_a_sentence_that_opens_with_it_gets_the_name_before(scripted, tmp_path):
    """Before: "It was set up in 1931 by Ann Lee" reached the extractor as written, and the small
    model found no fact in it: "it" names nothing."""
    text = ("Orrel Weavers Guild is a craft society in Pesk. It was set up in 1931 by Ann Lee. "
            "It meets in Tarn Hall. Its treasurer is Bo Chan.")
    assert coref.resolve_it(text) == ("Orrel Weavers Guild is a craft society in Pesk. Orrel Weavers Guild "
                                      "was set up in 1931 by Ann Lee. Orrel Weavers Guild meets in Tarn Hall. "
                                      "Its treasurer is Bo Chan.")
    # a name after a participle describes the subject's description, so "it" is still the subject
    assert coref.resolve_it("Tarn Mill is a works serving Pesk Vale. It was sold.") == \
        "Tarn Mill is a works serving Pesk Vale. Tarn Mill was sold."
    scripted.replies.append(json.dumps({"facts": []}))
    extract_corpus([{"id": "g", "text": text}], cache_dir=tmp_path / "kg", progress=False)
    assert "Orrel Weavers Guild was set up" in scripted.requests[0]["messages"][-1]["content"]


def test_an_it_that_opens_a_later_passage_gets_the_name_too(scripted, tmp_path):
    """A long document is read 50 words at a time: the "It" that opens the second passage is
    resolved on the whole text, before the split, so the sentence before it still counts."""
    text = ("Orrel Weavers Guild is a craft society in Pesk with two hundred members in six villages of the Harl "
            "valley, and the weavers sell blankets, scarves and rugs at markets in Pesk, Tarn and Lisvik for the "
            "benefit of schools in the villages of the valley and for repairs to churches on the hills. It was set "
            "up in 1931 by Ann Lee.")
    assert [p["text"][:2] for p in split_document({"id": "g", "text": text})] == ["Or", "It"]
    scripted.replies.extend([json.dumps({"facts": []})] * 2)
    extract_corpus([{"id": "g", "text": text}], cache_dir=tmp_path / "kg", progress=False)
    assert scripted.requests[1]["messages"][-1]["content"].count("Orrel Weavers Guild was set up in 1931") == 1


@pytest.mark.parametrize("text", [
    "Ann Lee bought Tarn Mill in 1990. It makes looms.",            # "it" may be the mill
    "Ann Lee founded a weaving firm in 1990. It makes looms.",      # ... or the firm
    "Tarn Mill was sold by Orrel Weavers Guild. It is in Pesk.",    # ... or the seller
    "Tarn Mill is busy. It is likely that Bo Chan will stay.",      # an "it" that means no one
    "Tarn Mill station reopened. It is new.",                       # the subject is more than the name
    "Weavers in Pesk are busy. It rained.",                         # a capital that only opens a sentence
    "Dr. Ann Lee, who chairs Tarn Mill, said it would grow. It was set up in 1990.",   # a person
    "Ann Lee said she would stay. It was set up in 1990.",          # a person
    "Pesk is a county. The River Tane forms its border. It has 40 villages.",   # "its": the topic
    "Sam Lee, Bo Chan and Ann Lee star. It was filmed in Pesk.",    # a list of names
    "Back to the Future was a film. It won a prize.",               # a title cut at "to"
])
def test_it_is_left_alone_when_the_sentence_before_offers_another_thing(text):
    assert coref.resolve_it(text) == text


def test_the_noun_is_no_pronoun_and_no_place_in_a_series():
    """Found on real Wikipedia paragraphs: "It was a super hit movie. The movie ..." made "It" the
    movie's name, and "the second" was read as a name ending in "Second"."""
    text = "Tarn Road is a film by Ann Lee. It was a super hit movie. The movie sold well."
    assert descriptions.resolve_descriptions(text) == text
    text = "Pesk Second and Tarn First met. The second won."
    assert descriptions.resolve_descriptions(text) == text


def test_a_sentence_that_opens_with_his_or_her_gets_the_person_s_name(scripted, tmp_path):
    """Before: "His biggest customer is Pell Orchards." reached the extractor as written, and the
    small model found no fact in it: "his" names no one."""
    text = ("Hen breeder Tam Oskey says sales of his Red 9 hens have doubled. The hardy breed was bred with help "
            "from the Lisvik Poultry Station. His biggest customer is Pell Orchards, which takes 600 hens.")
    assert coref.resolve_possessive(text) == text.replace("His biggest", "Tam Oskey's biggest")
    # an organisation as the subject, a person marked by a role and ", who": the person
    text = "The Orrel Guild is led by chief executive Ann Lee, who came from Tarn Water. Her first deal was Pesk Mill."
    assert coref.resolve_possessive(text).endswith("Ann Lee's first deal was Pesk Mill.")
    # a one-word name that ends a person's name written earlier
    text = "The Orrel Guild re-elected Mara Quist. Quist said orders rose. Her aim is a shop in Pesk."
    assert coref.resolve_possessive(text).endswith("Quist's aim is a shop in Pesk.")
    scripted.replies.append(json.dumps({"facts": []}))
    extract_corpus([{"id": "q", "text": text}], cache_dir=tmp_path / "kg", progress=False)
    assert "Quist's aim is a shop" in scripted.requests[0]["messages"][-1]["content"]


@pytest.mark.parametrize("text", [
    "Ann Lee and Bo Chan joined Tarn Mill in May. His task is sales in Pesk.",   # which of two?
    "Ann Lee runs Tarn Mill. Her colleague Bo Chan is from Pesk.",       # about the colleague
    "Ann Lee runs Tarn Mill. Her deputy, Bo Chan, will lead a trip.",   # ... in apposition
    "Ann Lee runs Tarn Mill. Her dynasty ruled for a century.",          # no other name: no fact to gain
    "Weavers met at Tarn Mill. His loom is old, says Pesk Guild.",       # no person named before
])
def test_his_or_her_is_left_alone_when_the_person_is_unclear_or_nothing_is_gained(text):
    assert coref.resolve_possessive(text) == text


def test_an_organisation_named_without_its_middle_words_is_the_longer_name():
    """Before: "Veldhollow Trust" (the chair's news item) and "Veldhollow Conservation Trust" (the
    grant's) were two nodes, so the trust's chair was no fact about the trust that gave the grant."""
    table = reconcile_entities(["Tarn Trust", "Tarn Rowing Trust", "Ann Lee", "Pesk Bank", "Pesk Farm Bank",
                                "Pesk City Bank", "Orrel Park", "Orrel Safari Park", "Ivo Tarn", "Ivo Bo Tarn"])
    assert table["Tarn Trust"] == "Tarn Rowing Trust"
    assert table["Pesk Bank"] == "Pesk Bank"              # two longer banks: which?
    assert table["Orrel Park"] == "Orrel Park"            # "Park" is no organisation word
    assert table["Ivo Tarn"] == "Ivo Tarn"                # nor is a person's surname
    # a prefix match still comes first: "Tarn Rowing" is the trust, not a middle-less name
    assert reconcile_entities(["Tarn Rowing", "Tarn Rowing Trust"])["Tarn Rowing"] == "Tarn Rowing Trust"


def test_his_or_her_in_a_long_document_is_not_quadratic():
    """Before: every mention of a name searched the text from its start, and every name the whole
    text's names: a document of 800 sentences with a "His" in every fourth took about 58 s."""
    import time

    text = ("Ann Lee runs Osk Mill in Pesk. Lee said sales rose. Tarn Bank lent money. "
            "His main client is Bo Chan. ") * 800
    t0 = time.perf_counter()
    out = coref.resolve_possessive(text)
    assert time.perf_counter() - t0 < 10
    assert out.count("Lee's main client is Bo Chan.") == 800


def test_the_pair_is_the_two_people_the_sentence_before_joins(scripted, tmp_path):
    """Before: "The pair ... were backed by Pesk Gear" reached the extractor as written, and the
    small model gave no fact joining the backer to either climber: "the pair" names no one."""
    text = ("Mountain guide Ann Lee and her rope partner Bo Chan climbed the Tarn Spur on Orrel Peak. "
            "The pair, who spent two days on the face, were backed by Pesk Gear.")
    assert coref.resolve_pair(text) == text.replace("The pair", "Ann Lee and Bo Chan")
    scripted.replies.append(json.dumps({"facts": []}))
    extract_corpus([{"id": "p", "text": text}], cache_dir=tmp_path / "kg", progress=False)
    assert "Ann Lee and Bo Chan, who spent" in scripted.requests[0]["messages"][-1]["content"]


@pytest.mark.parametrize("text", [
    "Ann Lee met Bo Chan at Tarn Mill. The pair were backed by Pesk Gear.",          # met, not joined by "and"
    "Ann Lee and Bo Chan met Cy Dunn and Eva Moss. The pair were backed by Pesk Gear.",  # which pair?
    "Ann Lee and Bo Chan were married in Pesk. The couple met in 2019.",             # nothing else named
    "Ann Lee and Bo Chan run Tarn Mill. The pair of looms came from Pesk Gear.",     # a pair of things
])
def test_the_pair_is_left_alone_when_the_two_are_unclear_or_nothing_is_gained(text):
    assert coref.resolve_pair(text) == text


def test_its_role_and_a_name_get_the_owner_the_sentence_before_opens_with(scripted, tmp_path):
    """Before: "Its leader, Bo Chan, said ..." gave no fact joining the team to its leader: "its"
    names nothing, and "Its" is otherwise left as written."""
    text = "The Tarn Rescue team is based in Pesk. Its leader, Bo Chan, said calls rose at Orrel Peak."
    assert coref.resolve_its_role(text) == text.replace("Its leader", "Tarn Rescue's leader")
    text = "Pesk Loom Works Company makes looms. Its chief engineer is Ann Lee."
    assert coref.resolve_its_role(text) == text.replace("Its chief", "Pesk Loom Works Company's chief")
    scripted.replies.append(json.dumps({"facts": []}))
    extract_corpus([{"id": "r", "text": text}], cache_dir=tmp_path / "kg", progress=False)
    assert "Pesk Loom Works Company's chief engineer is Ann Lee" in scripted.requests[0]["messages"][-1]["content"]


@pytest.mark.parametrize("text", [
    "Tarn Mill makes looms. Its profits rose at Pesk.",                    # no role with a name
    "Ann Lee runs a mill. Its leader, Bo Chan, said so.",                 # the sentence before opens with a person
    "Pesk Gear grew. Its leader, Bo Chan, said so.",                      # ... or what may be one
    "In May the mill opened. Its leader, Bo Chan, said so.",              # ... or with no name
])
def test_its_is_left_alone_without_a_role_a_name_and_an_owner(text):
    assert coref.resolve_its_role(text) == text


def test_the_noun_after_a_name_is_what_a_later_the_noun_means():
    """Before: "The team's volunteers wear ropes made by Pesk Gear" stayed unread after "The Tarn
    Rescue team ...": no name ends in "Team", so the gear maker had no fact with the team."""
    text = "The Tarn Rescue team is based in Pesk. The team's volunteers wear ropes made by Pesk Gear."
    assert descriptions.resolve_descriptions(text).endswith("The Tarn Rescue team's volunteers wear ropes made by Pesk Gear.")
    # a verb after the name is no noun a later "the" can pick up
    assert "opened" not in descriptions.description_heads("The Tarn Depot opened in May.")
