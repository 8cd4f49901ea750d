"""A reader's own NetworkX graph may be directed or not, simple or multi: every step either works on
it or refuses it with a message that says what to pass instead (never an AttributeError)."""
from __future__ import annotations

import networkx as nx
import pytest

from gaba import paths as P
from gaba.link import link_entities
from gaba.rag import graph_rag_trace

KINDS = [nx.Graph, nx.MultiGraph, nx.DiGraph, nx.MultiDiGraph]


def harbour(kind):
    """An invented harbour: a one-word name ("Harbour") that is also a common word."""
    G = kind()
    G.add_edge("Harbour", "Osk Freight", relation="leased_by")
    G.add_edge("Osk Freight", "Tern", relation="operates")
    G.add_edge("Pell Harbour", "Tern", relation="berths")
    return G


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_linking_a_common_one_word_name_works_on_every_graph_kind(kind):
    # the one-word name needs context from the question; reading the node's relations once
    # raised AttributeError on undirected graphs (no out_edges)
    found = [m.name for m in link_entities("Which firm leased the harbour?", harbour(kind))]
    assert "Harbour" in found or "Pell Harbour" in found


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_graph_rag_answers_on_every_graph_kind(kind, scripted):
    scripted.replies.append("Facts used: Osk Freight operates Tern.\nAnswer: Osk Freight")
    t = graph_rag_trace("Who operates Tern?", harbour(kind))
    assert t["entities"] == ["Tern"]
    assert any(f[1] == "operates" for f in t["facts"])
    assert t["answer"] == "Osk Freight"


@pytest.mark.parametrize("kind", [nx.Graph, nx.MultiGraph, nx.DiGraph], ids=lambda k: k.__name__)
@pytest.mark.parametrize("search", ["paths_between", "shortest_paths", "top_paths", "beam_search"])
def test_path_search_refuses_other_graph_kinds_with_a_remedy(kind, search):
    with pytest.raises(TypeError, match=r"MultiDiGraph.*networkx\.MultiDiGraph\(G\)"):
        getattr(P, search)(harbour(kind), "Harbour", "Tern")


@pytest.mark.parametrize("kind", [nx.Graph, nx.DiGraph], ids=lambda k: k.__name__)
def test_neighbors_refuses_other_graph_kinds_with_a_remedy(kind):
    with pytest.raises(TypeError, match=f"not a {kind.__name__}"):
        P.neighbors(harbour(kind), "Harbour")


def test_the_remedy_works():
    r = P.paths_between(nx.MultiDiGraph(harbour(nx.DiGraph)), "Harbour", "Tern")
    assert [p.nodes for p in r.paths] == [("Harbour", "Osk Freight", "Tern")]
