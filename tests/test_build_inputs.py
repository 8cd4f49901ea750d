"""Hostile and unusual input to building a graph and saving it (probe A).

Each test failed before its fix: a traceback-class error (AttributeError, KeyError, RecursionError,
ParseError), a silently wrong result, or one bad entry ending a whole build. Names are invented.
"""
from __future__ import annotations

import json

import networkx as nx
import pytest

from gaba.__main__ import main
from gaba.errors import GabaError
from gaba.kgfile import load_graph, save_graph


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
