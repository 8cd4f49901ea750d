"""Tests of gaba.rank: each ranking method, the combined ranker on a hub, budgets, bad input."""
from __future__ import annotations

import time

import networkx as nx
import numpy as np
import pytest
from _fakes import fake_embed as _fake_embed

from gaba import embed
from gaba.rank import METHODS, rank_facts, relation_cues, relation_score, score_facts



@pytest.fixture
def fake_embed(monkeypatch):
    monkeypatch.setattr(embed, "embed_texts", _fake_embed)


def _add(G, s, r, o, evidence=None):
    G.add_edge(s, o, key=r, relation=r, doc_id=f"d{G.number_of_edges()}",
               evidence=evidence or f"{s} {r.lower().replace('_', ' ')} {o}.")


@pytest.fixture
def hub():
    """A hub with 40 direct facts and a planted chain: Kestrel's battery supplier's rival."""
    G = nx.MultiDiGraph()
    _add(G, "Aurora Cell Works", "SUPPLIES_TO", "Kestrel Motors",
         "Aurora Cell Works will supply battery cells to Kestrel Motors under a new contract.")
    _add(G, "Voltaic Dynamics", "COMPETES_WITH", "Aurora Cell Works",
         "Voltaic Dynamics competes with Aurora Cell Works for the same customers.")
    _add(G, "Helio Capital", "INVESTS_IN", "Aurora Cell Works", "Helio Capital led a funding round in Aurora Cell Works.")
    products = ["tyres", "steel", "glass", "chips", "sensors", "software", "paint", "seats"]
    for i in range(40):
        s = f"Supplier{i:02d} Industries"
        _add(G, s, "SUPPLIES_TO", "Kestrel Motors",
             f"{s} will supply {products[i % len(products)]} to Kestrel Motors.")
        _add(G, f"Rival{i:02d} Group", "COMPETES_WITH", s, f"Rival{i:02d} Group competes with {s}.")
        _add(G, f"Fund{i:02d} Partners", "INVESTS_IN", s, f"Fund{i:02d} Partners invests in {s}.")
    for i in range(10):
        _add(G, "Kestrel Motors", "COMPETES_WITH", f"Carmaker{i} Motors",
             f"Kestrel Motors competes with Carmaker{i} Motors for van buyers.")
    return G


CHAIN = [("Aurora Cell Works", "SUPPLIES_TO", "Kestrel Motors"),
         ("Voltaic Dynamics", "COMPETES_WITH", "Aurora Cell Works")]
QUESTION = "Who competes with Kestrel Motors' battery cell supplier?"


def _facts(G):
    from gaba.graph import gather_facts

    return gather_facts(G, ["Kestrel Motors"], hops=2)


# ----------------------------------------------------------------------------- relation

def test_relation_cues():
    assert relation_cues(QUESTION) == {"COMPETES_WITH", "SUPPLIES_TO"}
    assert relation_cues("Who is the CEO of Kestrel?") == {"CEO_OF"}
    assert relation_cues("On which company's board does she sit?") == {"BOARD_MEMBER_OF"}
    assert relation_cues("Which investor backs it?") == {"INVESTS_IN"}
    assert relation_cues("Who bought Orchard Software?") == {"ACQUIRED"}
    assert relation_cues("What is the weather?") == set()


def test_relation_score_generic_labels():
    assert relation_score("What is the place of birth of the director?", "place of birth") == 0.8
    assert relation_score("What is the place of death of the director?", "place of birth") == 0.4
    assert relation_score("Who directed it?", "director") == 0.8
    assert relation_score(QUESTION, "CEO_OF") == 0.0


def test_relation_ranker(hub):
    top = rank_facts("Who invests in Kestrel Motors?", _facts(hub), hub, budget=5, method="relation")
    assert all(r == "INVESTS_IN" for _, r, _ in top)


# ----------------------------------------------------------------------------- embedding

def test_embedding_ranker(hub, fake_embed):
    top = rank_facts("Who supplies battery cells to Kestrel Motors?", _facts(hub), hub, budget=1,
                     method="embedding")
    assert top == [CHAIN[0]]


def test_embedding_uses_evidence_sentences(hub, fake_embed):
    # "battery" is only in the evidence sentence, not in the fact's names or relation
    scores = score_facts("battery", [CHAIN[0], ("Supplier00 Industries", "SUPPLIES_TO", "Kestrel Motors")],
                         hub, method="embedding")
    assert scores[CHAIN[0]] > scores[("Supplier00 Industries", "SUPPLIES_TO", "Kestrel Motors")]


@pytest.mark.live
def test_embedding_ranker_real_model(hub):
    facts = [CHAIN[0]] + [(f"Supplier{i:02d} Industries", "SUPPLIES_TO", "Kestrel Motors") for i in range(6)]
    top = rank_facts("Which company supplies battery cells to Kestrel Motors?", facts, hub, budget=1,
                     method="embedding")
    assert top == [CHAIN[0]]


# ----------------------------------------------------------------------------- ppr and hop

def test_ppr_prefers_facts_near_the_start(hub):
    facts = _facts(hub)
    top = rank_facts(QUESTION, facts, hub, budget=20, method="ppr", entities=["Kestrel Motors"])
    assert all("Kestrel Motors" in (s, o) for s, _, o in top)
    assert rank_facts(QUESTION, facts, hub, budget=20, method="pagerank", entities=["Kestrel Motors"]) == top


def test_ppr_is_personalized():
    G = nx.MultiDiGraph()
    for s, o in [("A", "B"), ("B", "C"), ("C", "D"), ("D", "E")]:
        _add(G, s, "PARTNERS_WITH", o)
    facts = [(s, k, o) for s, o, k in G.edges(keys=True)]
    assert rank_facts("q?", facts, G, budget=1, method="ppr", entities=["A"]) == [("A", "PARTNERS_WITH", "B")]
    assert rank_facts("q?", facts, G, budget=1, method="ppr", entities=["E"]) == [("D", "PARTNERS_WITH", "E")]


def test_ppr_matches_networkx_pagerank(hub):
    from gaba.rank import _ppr

    facts = sorted(_facts(hub))
    weights = [1.0 + (i % 3) for i in range(len(facts))]
    H = nx.Graph()
    for (s, _, o), w in zip(facts, weights):
        if H.has_edge(s, o):
            H[s][o]["weight"] += w
        else:
            H.add_edge(s, o, weight=w)
    pr = nx.pagerank(H, alpha=0.85, personalization={"Kestrel Motors": 1}, weight="weight", tol=1e-12, max_iter=2000)
    strength = dict(H.degree(weight="weight"))
    expected = [pr[s] * w / strength[s] + pr[o] * w / strength[o] for (s, _, o), w in zip(facts, weights)]
    assert np.allclose(_ppr(facts, ["Kestrel Motors"], weights, tol=1e-13, max_iter=2000), expected, atol=1e-9)


def test_hop_order_is_the_naive_cap(hub):
    top = rank_facts(QUESTION, _facts(hub), hub, budget=30, method="hop")
    assert all("Kestrel Motors" in (s, o) for s, _, o in top)   # the hub's own facts fill the budget
    assert CHAIN[1] not in top
    assert top == sorted(top)


def test_start_entities_are_linked_from_the_question(hub):
    by_default = rank_facts(QUESTION, _facts(hub), hub, budget=10, method="hop")
    assert by_default == rank_facts(QUESTION, _facts(hub), hub, budget=10, method="hop",
                                    entities="Kestrel Motors")


# ----------------------------------------------------------------------------- combined

def test_combined_keeps_the_chain_where_hop_order_does_not(hub, fake_embed):
    facts = _facts(hub)
    assert len(facts) > 100
    top = rank_facts(QUESTION, facts, hub, budget=10, method="combined")
    assert set(CHAIN) <= set(top)
    assert not set(CHAIN) <= set(rank_facts(QUESTION, facts, hub, budget=10, method="hop"))


def test_deterministic_and_budget_larger_than_facts(hub, fake_embed):
    facts = sorted(_facts(hub))
    a = rank_facts(QUESTION, facts, hub, budget=1000)
    b = rank_facts(QUESTION, list(reversed(facts)), hub, budget=1000)
    assert a == b and sorted(a) == facts
    assert rank_facts(QUESTION, facts + facts[:5], hub, budget=1000) == a   # duplicates count once


def test_every_method_returns_a_subset(hub, fake_embed):
    facts = _facts(hub)
    for method in METHODS:
        top = rank_facts(QUESTION, facts, hub, budget=7, method=method)
        assert len(top) == 7 and set(top) <= facts and len(set(top)) == 7


def test_ranking_is_fast_with_cached_embeddings(hub, fake_embed):
    facts = _facts(hub)
    rank_facts(QUESTION, facts, hub, budget=30)          # warm the link index
    t0 = time.perf_counter()
    for _ in range(5):
        rank_facts(QUESTION, facts, hub, budget=30)
    per_query = (time.perf_counter() - t0) / 5
    assert per_query < 0.5, f"{1000 * per_query:.0f} ms per query"


def test_works_without_graph_evidence(fake_embed):
    G = nx.MultiDiGraph()
    G.add_edge("A", "B", key="SUPPLIES_TO")                  # no relation/evidence attributes
    assert rank_facts("Who supplies B?", [("A", "SUPPLIES_TO", "B")], G) == [("A", "SUPPLIES_TO", "B")]


# ----------------------------------------------------------------------------- bad input

@pytest.mark.parametrize("budget", [0, -3, None, 2.5, True, "30"])
def test_bad_budget(hub, budget):
    with pytest.raises(ValueError, match="budget"):
        rank_facts(QUESTION, _facts(hub), hub, budget=budget)


def test_bad_method_question_and_facts(hub):
    with pytest.raises(ValueError, match="method"):
        rank_facts(QUESTION, _facts(hub), hub, method="bm25")
    with pytest.raises(ValueError, match="question"):
        rank_facts("  ", _facts(hub), hub)
    with pytest.raises(TypeError, match="tuple"):
        rank_facts(QUESTION, [("A", "B")], hub)
    with pytest.raises(TypeError, match="string"):
        rank_facts(QUESTION, "A SUPPLIES_TO B", hub)
    assert rank_facts(QUESTION, [], hub) == []


def test_graph_rag_budget_uses_rank_facts(hub, fake_embed, scripted):
    from gaba import graph

    scripted.replies.append("Voltaic Dynamics.")
    answer, facts = graph.graph_rag(QUESTION, hub, budget=10, rank="combined")
    assert len(facts) == 10 and set(CHAIN) <= set(facts)
    scripted.replies.append("I don't know.")
    _, naive = graph.graph_rag(QUESTION, hub, budget=10, rank="hop")
    assert CHAIN[1] not in naive
