"""A reader's own NetworkX graph may be directed or not, simple or multi: every step either works on
it or refuses it with a message that says what to pass instead (never an AttributeError)."""
from __future__ import annotations

import networkx as nx
import pandas as pd
import pytest

from gaba import paths as P
from gaba.kgbuild import graph_triples
from gaba.link import link_entities
from gaba.rag import graph_rag_trace
from gaba.scoring import score_triples
from gaba.traversal import relation_types

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


@pytest.fixture(scope="module")
def store():
    from gaba.store import FalkorStore
    with FalkorStore.start(graph="graph_kinds") as st:
        yield st


@pytest.mark.parametrize("kind", KINDS, ids=lambda k: k.__name__)
def test_edges_without_a_relation_are_named_by_their_key_in_every_caller(kind, store):
    """An edge with no 'relation' is named by its key as text (gaba.kgfile.edge_relation); a simple
    graph's edge has no key: graph_triples gives "", relation_types "None", scoring None, and the
    store refuses it."""
    G = kind()
    G.add_edge("Osk Freight", "Tern", **({"key": "OPERATES"} if G.is_multigraph() else {}))
    G.add_edge("Harbour", "Osk Freight")                   # a multigraph numbers it: key 0
    gold = [("Osk Freight", "OPERATES", "Tern")]
    scores = score_triples(G, gold)
    if G.is_multigraph():
        assert [t.relation for t in graph_triples(G)] == ["0", "OPERATES"]
        assert relation_types(G) == ["0", "OPERATES"]
        assert list(scores.index) == ["OPERATES", "0", "overall"]
        assert scores.loc["OPERATES", "correct"] == 1
        with pytest.raises(ValueError, match="relation type '0' must look like FATHER_OF"):
            store.load_networkx(G)
        G.remove_edge("Harbour", "Osk Freight")
        store.load_networkx(G)
        assert store.relation_types() == ["OPERATES"]
    else:
        assert [t.relation for t in graph_triples(G)] == ["", ""]
        assert relation_types(G) == ["None"]
        assert scores.index[0] == "OPERATES" and pd.isna(scores.index[1])     # None: no relation, no key
        assert scores.loc["overall", "correct"] == 0
        with pytest.raises(ValueError, match="has no 'relation' attribute"):
            store.load_networkx(G)
