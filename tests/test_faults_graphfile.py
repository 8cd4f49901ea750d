"""Fault probes of reading a graph file (gaba.kgfile.load_graph, ``python -m gaba ask --graph``).

Issue 18, probe 7: an edge whose ``evidence`` was a number loaded fine and crashed later, and a node
without ``id`` silently became node ``0``. A graph file is now checked when it is read, and a bad
one is a GabaError naming the file and the edge or node (one ``error:`` line on the CLI).
"""
from __future__ import annotations

import json

import networkx as nx
import pytest

from gaba.__main__ import main
from gaba.errors import GabaError
from gaba.kgfile import load_graph, save_graph


def node_link(nodes, edges) -> dict:
    return {"directed": True, "multigraph": True, "graph": {}, "nodes": nodes, "edges": edges}


GOOD_EDGE = {"source": "Aurora", "target": "Kestrel", "key": "SUPPLIES", "relation": "SUPPLIES",
             "evidence": "Aurora supplies Kestrel.", "doc_id": "d1"}


def write(tmp_path, data, name="g.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data))
    return p


@pytest.mark.parametrize("data, words", [
    (node_link([{"id": "Aurora"}, {"id": "Kestrel"}], [{**GOOD_EDGE, "evidence": 42}]),
     r"'evidence' must be text, not int"),
    (node_link([{"id": "Aurora"}, {"id": "Kestrel"}], [{**GOOD_EDGE, "relation": None}]),
     r"'relation' must be text"),
    (node_link([{"name": "Aurora"}, {"id": "Kestrel"}], []), r"node #0 has no name"),
    (node_link([{"id": ""}], []), r"node #0 has no name"),
    (node_link([{"id": 7}], []), r"node #0 has no name"),
    (node_link([{"id": "Aurora"}], [{"source": "Aurora"}]), r"edge #0 needs 'source' and 'target'"),
    (node_link([{"id": "Aurora", "aliases": "Aur"}], []), r"'aliases' must be a list of text"),
    ({"nodes": "Aurora"}, r"expected an object with 'nodes' and 'edges'"),
    ([], r"expected an object"),
])
def test_bad_graph_files_are_refused_by_name(tmp_path, data, words):
    p = write(tmp_path, data)
    with pytest.raises(GabaError, match=words) as info:
        load_graph(p)
    assert "g.json is not a graph written by save_graph" in str(info.value)


def test_a_saved_graph_still_loads(tmp_path):
    G = nx.MultiDiGraph()
    G.add_node("Aurora", aliases=["Aurora Cell Works"], type="organization")
    G.add_edge("Aurora", "Kestrel", key="SUPPLIES", relation="SUPPLIES", evidence="Aurora supplies Kestrel.",
               doc_id="d1")
    for name in ("g.json", "g.graphml"):
        H = load_graph(save_graph(G, tmp_path / name))
        assert sorted(H.edges(keys=True)) == [("Aurora", "Kestrel", "SUPPLIES")]
        assert H.nodes["Aurora"]["aliases"] == ["Aurora Cell Works"]


def test_graphml_with_a_numeric_evidence_is_refused(tmp_path):
    G = nx.MultiDiGraph()
    G.add_edge("Aurora", "Kestrel", key="SUPPLIES", relation="SUPPLIES", evidence=3.5)
    p = tmp_path / "g.graphml"
    nx.write_graphml(G, p)
    with pytest.raises(GabaError, match="'evidence' must be text, not float"):
        load_graph(p)


def test_cli_ask_with_a_bad_graph_is_one_line(tmp_path, capsys):
    p = write(tmp_path, node_link([{"id": "Aurora"}, {"id": "Kestrel"}], [{**GOOD_EDGE, "evidence": 42}]))
    assert main(["ask", "Who supplies Kestrel?", "--graph", str(p)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err
    assert "g.json" in err and "'evidence' must be text" in err and "unexpected" not in err


@pytest.mark.parametrize("kind", [nx.MultiDiGraph, nx.MultiGraph, nx.DiGraph, nx.Graph])
def test_edge_rows_walks_every_graph_kind_in_order(kind):
    from gaba.kgfile import edge_rows
    from gaba.traversal import relation_types
    G = kind()
    G.add_edge("a", "b", relation="R")
    G.add_edge("b", "c", relation="S", evidence=3)
    key = 0 if G.is_multigraph() else None
    assert list(edge_rows(G)) == [("a", "b", key, {"relation": "R"}), ("b", "c", key, {"relation": "S", "evidence": 3})]
    assert relation_types(G) == ["R", "S"]
    with pytest.raises(ValueError, match=rf"edge 'b' -> 'c' \({0 if key == 0 else 'S'}\): 'evidence' must be text"):
        save_graph(G, "unused.json")
