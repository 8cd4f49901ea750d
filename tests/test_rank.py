"""Tests of gaba.rank: each ranking method, the combined ranker on a hub, budgets, bad input."""
from __future__ import annotations

import time

import networkx as nx
import numpy as np
import pytest
from _fakes import fake_embed as _fake_embed

from gaba import embed
from gaba import rank
from gaba.link import link_entities
from gaba.rank import METHODS, rank_facts

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


# ----------------------------------------------------------------------------- relation and lexical

def _scores(question, facts, G, method, entities=None):
    """Each fact's score under ``method``: what rank_facts sorts by."""
    facts = list(facts)
    return dict(zip(facts, rank._scores(question, facts, G, method, entities)))


def test_no_word_table_tied_to_a_corpus():
    # ranking reads relation labels and evidence as text; no table maps words to relation names
    assert not any(hasattr(rank, n) for n in ("RELATION_CUES", "relation_score", "relation_cues"))
    assert "relation" in METHODS and "lexical" in METHODS


def test_relation_method_reads_labels_of_any_style():
    facts = [("Ada", "place of birth", "Lund"), ("Ada", "place of death", "Oslo"),
             ("Film X", "director", "Ada"), ("Ada", "plays_for", "Harbor United"),
             ("Kestrel", "CEO_OF", "Mara")]
    scores = _scores("What is the place of birth of the director of Film X?", facts, None, "relation")
    assert scores[facts[0]] > scores[facts[1]] > scores[facts[3]] == scores[facts[4]] == 0.0
    assert scores[facts[2]] > 0
    top = rank_facts("Which team does Ada play for?", facts, None, budget=1, method="relation")
    assert top == [("Ada", "plays_for", "Harbor United")]


def test_relation_ranker(hub):
    top = rank_facts("Who invests in Kestrel Motors?", _facts(hub), hub, budget=5, method="relation")
    assert all(r == "INVESTS_IN" for _, r, _ in top)


def test_lexical_reads_evidence_and_ignores_names(hub):
    # "battery" is only in the evidence sentence; "Kestrel Motors", in every hop-1 fact, does not count
    top = rank_facts("Who supplies battery cells to Kestrel Motors?", _facts(hub), hub, budget=1,
                     method="lexical")
    assert top == [CHAIN[0]]


# ----------------------------------------------------------------------------- embedding

def test_embedding_ranker(hub, fake_embed):
    top = rank_facts("Who supplies battery cells to Kestrel Motors?", _facts(hub), hub, budget=1,
                     method="embedding")
    assert top == [CHAIN[0]]


def test_embedding_uses_evidence_sentences(hub, fake_embed):
    # "battery" is only in the evidence sentence, not in the fact's names or relation
    scores = _scores("battery", [CHAIN[0], ("Supplier00 Industries", "SUPPLIES_TO", "Kestrel Motors")],
                     hub, "embedding")
    assert scores[CHAIN[0]] > scores[("Supplier00 Industries", "SUPPLIES_TO", "Kestrel Motors")]


def test_fact_text_completes_evidence_that_leaves_out_an_end():
    from gaba.relevance import fact_text
    G = nx.MultiDiGraph()
    G.add_edge("Quorvel Mill", "Ossa Brint", key="founded_by", evidence="It was founded by Ossa Brint.")
    G.add_edge("Ossa Brint", "Tarrow", key="born_in", evidence="Ossa Brint was born in Tarrow.")
    # the evidence names one end only: the fact written out goes first, then the evidence
    assert fact_text(G, ("Quorvel Mill", "founded_by", "Ossa Brint")) == \
        "Quorvel Mill founded by Ossa Brint. It was founded by Ossa Brint."
    # the evidence names both ends: it is the text as it stands
    assert fact_text(G, ("Ossa Brint", "born_in", "Tarrow")) == "Ossa Brint was born in Tarrow."
    # no evidence: the fact written out
    G.add_edge("Tarrow", "Vell", key="near")
    assert fact_text(G, ("Tarrow", "near", "Vell")) == "Tarrow near Vell."


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
    from gaba.relevance import ppr_flow as _ppr

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
    from gaba import rag

    scripted.replies.append("Voltaic Dynamics.")
    answer, facts = rag.graph_rag(QUESTION, hub, budget=10, rank="combined")
    assert len(facts) == 10 and set(CHAIN) <= set(facts)
    scripted.replies.append("I don't know.")
    _, naive = rag.graph_rag(QUESTION, hub, budget=10, rank="hop")
    assert CHAIN[1] not in naive


# ----------------------------------------------------------------------------- invented words

@pytest.fixture
def invented():
    """A hub in a made-up trade: relation verbs nobody wrote a rule for, explained only in the
    evidence sentences. ``glorbs`` = polishes the ingots of, ``is_quenched_by`` = has its
    furnaces cooled by, ``zanthed_into`` = merged into, ``frobnicates`` = leases kilns to."""
    G = nx.MultiDiGraph()
    hub = "Quorvex Halden"
    _add(G, "Brask Ollimer", "glorbs", hub,
         "Brask Ollimer glorbs Quorvex Halden: it polishes the copper ingots that Quorvex Halden casts.")
    _add(G, "Brask Ollimer", "is_quenched_by", "Tesh Varnow",
         "Brask Ollimer is quenched by Tesh Varnow, which cools its furnaces every night.")
    metals = ["tin", "zinc", "nickel", "cobalt", "silver", "lead", "bismuth"]
    for i in range(30):
        polisher, cooler, buyer = f"Vellam Pramm {i}", f"Drensk Oculo {i}", f"Zibber Orrel {i}"
        _add(G, polisher, "glorbs", hub, f"{polisher} glorbs Quorvex Halden: it polishes the "
                                         f"{metals[i % len(metals)]} ingots that Quorvex Halden casts.")
        _add(G, polisher, "is_quenched_by", cooler, f"{polisher} is quenched by {cooler}, which cools "
                                                    "its furnaces every night.")
        _add(G, buyer, "zanthed_into", polisher, f"{buyer} was zanthed into {polisher}, that is, merged into it.")
    for i in range(12):
        _add(G, hub, "frobnicates", f"Mellick Stoa {i}", f"Quorvex Halden frobnicates Mellick Stoa {i}, "
                                                         "leasing it kilns.")
    G.add_edge("Iris", hub, key="glorbs", relation="glorbs", evidence="Iris glorbs Quorvex Halden.")
    for n in G.nodes:
        G.nodes[n]["aliases"] = []
    return G


INVENTED_Q = "Which firm cools the furnaces of the company that polishes Quorvex Halden's copper ingots?"
INVENTED_CHAIN = [("Brask Ollimer", "glorbs", "Quorvex Halden"), ("Brask Ollimer", "is_quenched_by", "Tesh Varnow")]


def test_invented_verbs_link_and_rank(invented, fake_embed):
    from gaba.graph import gather_facts

    linked = link_entities(INVENTED_Q, invented)
    assert linked.names == ["Quorvex Halden"]
    typo = INVENTED_Q.replace("Halden's", "Haldenn's")
    assert link_entities(typo, invented).names == ["Quorvex Halden"]
    facts = gather_facts(invented, linked.names, hops=2)
    assert len(facts) > 100
    for question in (INVENTED_Q, typo):
        top = rank_facts(question, facts, invented, budget=10)          # combined, entities linked
        assert set(INVENTED_CHAIN) <= set(top), top
    assert not set(INVENTED_CHAIN) <= set(rank_facts(INVENTED_Q, facts, invented, budget=10, method="hop"))
    # one hop, a paraphrase of an invented verb: "merged into" explains "zanthed_into"
    one_hop = "Into which company was Zibber Orrel 4 merged?"
    start = link_entities(one_hop, invented).names
    assert start == ["Zibber Orrel 4"]
    merged = ("Zibber Orrel 4", "zanthed_into", "Vellam Pramm 4")
    for method in ("combined", "embedding"):       # among the hub's facts: names and structure count
        assert rank_facts(one_hop, facts, invented, budget=1, method=method) == [merged], method
    around = gather_facts(invented, start, hops=2)   # among its own: the words alone find it
    for method in ("combined", "lexical", "embedding"):
        assert rank_facts(one_hop, around, invented, budget=1, method=method) == [merged], method


def test_invented_verb_gives_a_one_word_name_context(invented):
    # "Iris" is also an ordinary word: it is linked only when the question names its relation
    assert link_entities("Whom does Iris glorb?", invented, method="exact").names == ["Iris"]
    assert link_entities("Is an iris a flower?", invented, method="exact").names == []


@pytest.mark.live
def test_invented_verbs_with_real_embeddings(invented):
    from gaba.graph import gather_facts

    facts = gather_facts(invented, ["Quorvex Halden"], hops=2)
    question = "Who chills the kilns of the outfit that buffs Quorvex Halden's copper bars?"   # synonyms only
    assert set(INVENTED_CHAIN) <= set(rank_facts(question, facts, invented, budget=10))


# ----------------------------------------------------------------------------- the experiment

def test_scaling_experiment_on_another_generator_with_every_method(fake_embed):
    from gaba.data.tradewire import make_trade_corpus
    from gaba.scaling import scaling_experiment, summarize_scaling

    df = scaling_experiment((14, 40), methods=("embedding", "lexical", "hop"), generator=make_trade_corpus,
                            n_questions=5, embed=_fake_embed, progress=False)
    summary = summarize_scaling(df).set_index(["size", "system"])
    assert set(summary.index.get_level_values("system")) == {
        "flat top-k", "2-hop, all facts", "2-hop, first N by hop", "2-hop, ranked N",
        "2-hop, ranked N (embedding)", "2-hop, ranked N (lexical)", "2-hop, ranked N (hop)"}
    assert summary.loc[(40, "2-hop, all facts"), "rate"] == 1.0 and summary.loc[(40, "flat top-k"), "n"] == 5
    graph_only = scaling_experiment((14,), methods=("ppr",), n_questions=3, flat=False, progress=False,
                                    embed=_fake_embed)
    assert "flat top-k" not in set(graph_only["system"]) and len(graph_only) == 3 * 4
    with pytest.raises(ValueError, match="method"):
        scaling_experiment((14,), methods=("cues",), embed=_fake_embed)


def test_pairs_ranking_gives_each_pair_of_entities_one_fact_first(invented, fake_embed):
    from gaba.graph import gather_facts

    G = invented.copy()
    # parallel edges, invented verbs: three more facts between the chain's first two entities
    for verb in ("smells_like", "was_drummed_by", "shares_a_kiln_with"):
        _add(G, "Brask Ollimer", verb, "Quorvex Halden",
             f"Brask Ollimer {verb.replace('_', ' ')} Quorvex Halden, which polishes copper ingots.")
    facts = gather_facts(G, ["Quorvex Halden"], hops=2)
    combined = rank_facts(INVENTED_Q, facts, G, budget=len(facts), method="combined")
    pairs = rank_facts(INVENTED_Q, facts, G, budget=len(facts), method="pairs")
    assert sorted(pairs) == sorted(combined)                   # the same facts, another order
    pair = lambda f: frozenset((f[0], f[2]))                   # noqa: E731
    n_pairs = len({pair(f) for f in facts})
    assert len({pair(f) for f in pairs[:n_pairs]}) == n_pairs  # every pair once before any twice
    firsts = list({pair(f): f for f in reversed(combined)}.values())[::-1]
    assert sorted(pairs[:n_pairs], key=combined.index) == sorted(firsts, key=combined.index)
    # under a budget of 4 the parallel edges take two places in the combined ranking, none in pairs
    for method, n in [("combined", 2), ("pairs", 4)]:
        top = rank_facts(INVENTED_Q, facts, G, budget=4, method=method)
        assert set(INVENTED_CHAIN) <= set(top) and len({pair(f) for f in top}) == n, (method, top)
