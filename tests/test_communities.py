"""Tests of gaba.communities (deterministic communities, bad graphs, summaries, global_rag) and gaba.routing."""
from __future__ import annotations

import json

import networkx as nx
import pytest

from gaba import communities as cm
from gaba.communities import (Community, CommunitySummary, NoCommunities, community_facts,
                              detect_communities, global_rag, partition_signature, summarize_communities)
from gaba.errors import GabaError
from gaba.routing import Answer, ask, route, route_question, rule_route


def _edge(G, s, r, o, ev=""):
    G.add_edge(s, o, key=r, relation=r, doc_id="d", evidence=ev or f"{s} {r.lower()} {o}.")


@pytest.fixture
def two_clusters():
    """Two triangles joined by one bridge edge, plus aliases: Louvain splits them in two."""
    G = nx.MultiDiGraph()
    for s, r, o in [("Ann", "CEO_OF", "Acme"), ("Acme", "SUPPLIES_TO", "Bolt"),
                    ("Ann", "BOARD_MEMBER_OF", "Bolt"),
                    ("Xia", "CEO_OF", "Xeno"), ("Xeno", "SUPPLIES_TO", "Yarn"),
                    ("Xia", "BOARD_MEMBER_OF", "Yarn"), ("Bolt", "COMPETES_WITH", "Yarn")]:
        _edge(G, s, r, o)
    G.nodes["Acme"]["aliases"] = ["Acme Corp"]
    return G


def test_communities_are_deterministic_and_ordered(two_clusters):
    a = detect_communities(two_clusters, seed=0)
    b = detect_communities(two_clusters, seed=0)
    assert partition_signature(a) == partition_signature(b)
    assert [c.nodes for c in a] == [("Acme", "Ann", "Bolt"), ("Xeno", "Xia", "Yarn")]
    assert [c.id for c in a] == ["c0", "c1"] and all(c.level == 0 for c in a)
    # insertion order of the graph does not change the result
    H = nx.MultiDiGraph()
    H.add_edges_from(reversed(list(two_clusters.edges(keys=True, data=True))))
    assert partition_signature(detect_communities(H, seed=0)) == partition_signature(a)


def test_hierarchy_is_nested():
    G = nx.MultiDiGraph(nx.karate_club_graph())
    G = nx.relabel_nodes(G, {n: f"n{n:02d}" for n in G})
    comms = detect_communities(G, seed=0, levels=None)
    top = [c for c in comms if c.level == 0]
    assert sorted(n for c in top for n in c.nodes) == sorted(G.nodes)
    by_id = {c.id: c for c in comms}
    finer = [c for c in comms if c.level > 0]
    assert finer, "the karate club graph has more than one Louvain level"
    for c in finer:
        assert set(c.nodes) <= set(by_id[c.parent].nodes) and c.id.startswith(c.parent + ".")
    # each level partitions all nodes
    for level in {c.level for c in comms}:
        assert sorted(n for c in comms if c.level == level for n in c.nodes) == sorted(G.nodes)
    assert all(c.level == 0 for c in detect_communities(G, seed=0))


def test_graph_without_edges_is_a_clear_error():
    G = nx.MultiDiGraph()
    G.add_nodes_from(["a", "b", "c"])
    with pytest.raises(NoCommunities, match="no edges"):
        detect_communities(G)
    G.add_edge("a", "a", key="SELF", relation="SELF")  # a self-loop is not structure either
    with pytest.raises(NoCommunities):
        detect_communities(G)
    with pytest.raises(NoCommunities, match="empty"):
        detect_communities(nx.MultiDiGraph())
    assert issubclass(NoCommunities, GabaError) and issubclass(NoCommunities, ValueError)


def test_single_community_warns_and_still_works(scripted):
    G = nx.MultiDiGraph()
    for leaf in ["b", "c", "d", "e"]:
        _edge(G, "hub", "SUPPLIES_TO", leaf)
    with pytest.warns(UserWarning, match="single community"):
        comms = detect_communities(G, levels=None)
    assert len(comms) == 1 and comms[0].nodes == ("b", "c", "d", "e", "hub")
    scripted.replies.extend([json.dumps({"title": "Hub", "summary": "hub supplies four."}), "one hub"])
    summaries = summarize_communities(G, comms)
    # global_rag with top larger than the number of summaries uses what there is
    scripted.replies.insert(0, json.dumps({"score": 7}))
    answer, used = global_rag("What themes run across this corpus?", G, summaries, top=3, scorer="llm")
    assert answer == "one hub" and [s.id for s in used] == ["c0"]


def test_bad_options(two_clusters):
    with pytest.raises(ValueError, match="resolution"):
        detect_communities(two_clusters, resolution=0)
    with pytest.raises(ValueError, match="levels"):
        detect_communities(two_clusters, levels=0)
    with pytest.raises(TypeError, match="seed"):
        detect_communities(two_clusters, seed="zero")
    with pytest.raises(TypeError, match="networkx"):
        detect_communities({"a": ["b"]})


def test_isolated_nodes_are_singletons_and_not_summarized(two_clusters, scripted):
    two_clusters.add_node("Lonely")
    comms = detect_communities(two_clusters)
    assert comms[-1].nodes == ("Lonely",)
    assert community_facts(two_clusters, comms[-1]) == []
    scripted.replies.extend([json.dumps({"title": f"T{i}", "summary": f"S{i}."}) for i in range(2)])
    summaries = summarize_communities(two_clusters, comms)
    assert [s.id for s in summaries] == ["c0", "c1"] and len(scripted.requests) == 2


def test_community_facts_are_internal_and_sorted(two_clusters):
    c0 = detect_communities(two_clusters)[0]
    facts = community_facts(two_clusters, c0)
    assert [f[:3] for f in facts] == [("Acme", "SUPPLIES_TO", "Bolt"), ("Ann", "BOARD_MEMBER_OF", "Bolt"),
                                      ("Ann", "CEO_OF", "Acme")]      # the bridge to Yarn is left out


def test_summary_prompt_is_byte_identical_and_cached(two_clusters, scripted):
    comms = detect_communities(two_clusters)
    scripted.replies.extend([json.dumps({"title": "Acme group", "summary": "Ann runs Acme."}),
                             json.dumps({"title": "Xeno group", "summary": "Xia runs Xeno."})])
    first = summarize_communities(two_clusters, comms)
    second = summarize_communities(two_clusters, comms)       # served from the cache
    assert len(scripted.requests) == 2
    assert [s.title for s in first] == [s.title for s in second] == ["Acme group", "Xeno group"]
    prompt = scripted.requests[0]["messages"][-1]["content"]
    assert "- Acme supplies to Bolt\n- Ann board member of Bolt\n- Ann ceo of Acme" in prompt
    assert isinstance(first[0], CommunitySummary) and first[0].text() == "Acme group: Ann runs Acme."


def test_summaries_of_another_graph_are_refused(two_clusters, scripted):
    comms = detect_communities(two_clusters)
    other = nx.MultiDiGraph()
    _edge(other, "P", "CEO_OF", "Q")
    with pytest.raises(ValueError, match="not nodes of the graph"):
        summarize_communities(other, comms)
    s = CommunitySummary(comms[0], "t", "s", ())
    with pytest.raises(ValueError, match="not in this graph"):
        global_rag("What themes?", other, [s])
    with pytest.raises(NoCommunities):
        global_rag("What themes?", other, [])


def test_global_rag_answers_from_the_best_summaries(two_clusters, scripted):
    comms = detect_communities(two_clusters)
    summaries = [CommunitySummary(comms[0], "Acme group", "Ann runs Acme.", ()),
                 CommunitySummary(comms[1], "Xeno group", "Xia runs Xeno.", ())]
    scripted.replies.extend([json.dumps({"score": 2}), json.dumps({"score": 9}), "Xeno things."])
    answer, used = global_rag("Who runs Xeno?", two_clusters, summaries, top=1, scorer="llm")
    assert answer == "Xeno things." and [s.id for s in used] == ["c1"]
    reduce_prompt = scripted.requests[-1]["messages"][-1]["content"]
    assert "[1] Xeno group: Xia runs Xeno." in reduce_prompt and "Acme group" not in reduce_prompt
    with pytest.raises(ValueError, match="scorer"):
        global_rag("q?", two_clusters, summaries, scorer="magic")
    with pytest.raises(ValueError, match="top"):
        global_rag("q?", two_clusters, summaries, top=0)


@pytest.mark.parametrize("question, expected", [
    ("What themes run across this corpus?", "global"),
    ("Which industries does this news cover?", "global"),
    ("Summarize the news in this collection.", "global"),
    ("How much did the company pay for the factory?", "flat"),
    ("When did the deal close?", "flat"),
    ("What did the article say about the new cell?", "flat"),
    ("Which person connects Acme and Xeno?", "local"),
])
def test_router_rules(question, expected, two_clusters):
    assert route(question, use_model=False) == expected
    d = route(question, two_clusters if expected == "local" else None, use_model=False, explain=True)
    assert (d.route, d.by) == (expected, "rules")


@pytest.mark.parametrize("question", ["Who competes with Acme's supplier?", "Who glorps the Acme?",
                                      "Is Ann tied to Xia?"])
def test_a_question_about_a_named_entity_goes_local_whatever_its_verb(question, two_clusters):
    # no relation word list: the rule reads the graph's names, so an invented verb routes alike
    assert rule_route(question)[0] is None                                       # no graph: unsure
    r, why = rule_route(question, two_clusters)
    assert r == "local" and "of the graph" in why


def test_rules_are_unsure_on_mixed_or_missing_cues(two_clusters):
    assert rule_route("Which themes link Acme and Bolt?")[0] is None             # global + local cues
    assert rule_route("How much did Acme invest in Bolt?")[0] == "flat"          # "invest" is no cue
    r, why = rule_route("Who competes with Zeta Corp?", two_clusters)            # no graph entity
    assert r is None and "no entity" in why


def test_route_question_two_routes_without_the_model(two_clusters, scripted):
    assert route_question("Who competes with Kestrel Motors' battery supplier?") == "graph"
    assert route_question("Which board member connects Acme and Xeno?", two_clusters) == "graph"
    assert route_question("What does the article say about Kestrel Motors' vans?") == "flat"
    assert route_question("According to the report, when did Northwind buy Orchard?") == "flat"
    assert route_question("Who runs the bakery on Main Street?", two_clusters) == "flat"
    assert route_question("Is Ann tied to Xia?", two_clusters) == "graph"       # no cue: the graph
    assert not scripted.requests                                                 # never the model


def test_unsure_question_goes_to_the_model(scripted):
    scripted.replies.append(json.dumps({"route": "global"}))
    d = route("Give me a bird's-eye view of the news here.", explain=True)
    assert (d.route, d.by) == ("global", "model") and len(scripted.requests) == 1
    schema = scripted.requests[0]["schema"]
    assert schema["properties"]["route"]["enum"] == ["local", "global", "flat"]


def test_unclassifiable_question_falls_back_to_flat(scripted, two_clusters):
    # the model never produces valid JSON: after the retries, the router falls back to flat
    scripted.replies.extend(["no idea", "still no idea", "sorry"])
    d = route("Is Ann tied to Xia somehow?", explain=True)
    assert (d.route, d.by) == ("flat", "fallback") and "not valid" in d.reason
    # too short to classify: no model call at all
    n = len(scripted.requests)
    d = route("Why?", explain=True)
    assert (d.route, d.by) == ("flat", "fallback") and len(scripted.requests) == n
    # the model says local, but the question names no entity of the graph
    scripted.replies.append(json.dumps({"route": "local"}))
    d = route("Is the old startup tied to the bank somehow?", two_clusters, explain=True)
    assert (d.route, d.by) == ("flat", "fallback") and "no entity" in d.reason
    # rules only, unsure: flat with a note
    d = route("Is Ann tied to Xia somehow?", use_model=False, explain=True)
    assert (d.route, d.by) == ("flat", "fallback") and "model is not used" in d.reason
    with pytest.raises(ValueError):
        route("   ")


def test_ask_dispatches_to_the_chosen_retriever(two_clusters, scripted):
    calls = []

    def fake_local(q, G, hops=2):
        calls.append(("local", hops))
        return "local answer", [("Acme", "SUPPLIES_TO", "Bolt")]

    def fake_flat(q, k=2):
        calls.append(("flat", k))
        return "flat answer", ["passage one", "passage two"]

    a = ask("Who competes with Acme's supplier?", two_clusters, local=fake_local, flat=fake_flat)
    assert isinstance(a, Answer) and (a.route, a.answer, a.decided_by) == ("local", "local answer", "rules")
    assert a.evidence == [("Acme", "SUPPLIES_TO", "Bolt")]
    a = ask("How many engineers work there?", two_clusters, local=fake_local, flat=fake_flat, k=3)
    assert (a.route, a.evidence) == ("flat", ["passage one", "passage two"]) and calls[-1] == ("flat", 3)
    a = ask("Anything at all, please?", two_clusters, route_to="local", local=fake_local, hops=1)
    assert (a.route, a.decided_by) == ("local", "caller") and calls[-1] == ("local", 1)
    # global with summaries: the map-reduce runs over them
    summaries = [CommunitySummary(c, f"T{c.id}", "S.", ()) for c in detect_communities(two_clusters)]
    scripted.replies.extend([json.dumps({"score": 5}), json.dumps({"score": 5}), "two groups"])
    a = ask("What themes run across this corpus?", two_clusters, summaries=summaries, top=2,
            scorer="llm", local=fake_local, flat=fake_flat)
    assert (a.route, a.answer, len(a.evidence)) == ("global", "two groups", 2)
    assert all(isinstance(s, CommunitySummary) for s in a.evidence)
    # global without summaries: indexing happens first, and the note says so
    scripted.replies.extend([json.dumps({"title": "A", "summary": "a."}),
                             json.dumps({"title": "X", "summary": "x."}),
                             json.dumps({"score": 1}), json.dumps({"score": 8}), "themes"])
    a = ask("Which industries does this news cover?", two_clusters, top=1, scorer="llm",
            local=fake_local, flat=fake_flat)
    assert (a.route, a.answer) == ("global", "themes") and [s.title for s in a.evidence] == ["X"]
    assert "summarized 2 communities first" in a.note
    with pytest.raises(ValueError, match="route_to"):
        ask("q?", two_clusters, route_to="sideways")


def test_draw_communities(two_clusters):
    import matplotlib

    matplotlib.use("Agg")
    comms = detect_communities(two_clusters)
    ax = cm.draw_communities(two_clusters, comms, labels={"c0": "Acme group"})
    texts = [t.get_text() for t in ax.get_legend().get_texts()]
    assert texts[0].startswith("c0 (3): Acme group") and len(texts) == 2


def test_community_documents(two_clusters):
    two_clusters.edges["Ann", "Acme", "CEO_OF"]["sources"] = [["d", "x"], ["e", "y"]]
    c0, c1 = detect_communities(two_clusters)
    assert cm.community_documents(two_clusters, c0) == ["d", "e"]
    assert cm.community_documents(two_clusters, ["Lonely"]) == []


def test_ask_answers_a_connection_question_from_the_paths(scripted):
    """Two entities and a connection cue: the path search answers; anything else keeps Graph RAG."""
    H = nx.MultiDiGraph()
    for s, r, o in [("Ana Rusk", "charters", "Tern"), ("Pell Quay", "berths", "Tern"),
                    ("Pell Quay", "leases_cranes_to", "Osk Freight"), ("Vim Lode", "audits", "Harl Mint")]:
        _edge(H, s, r, o)
    scripted.replies.append("Through Tern and Pell Quay.")
    a = ask("How is Ana Rusk connected to Osk Freight?", H, use_model=False)
    assert (a.route, a.answer) == ("local", "Through Tern and Pell Quay.")
    assert [p.nodes for p in a.evidence] == [("Ana Rusk", "Tern", "Pell Quay", "Osk Freight")]
    assert "path search answered" in a.note
    prompt = scripted.requests[-1]["messages"][-1]["content"]
    assert "So Ana Rusk is connected to Osk Freight through Tern and Pell Quay." in prompt
    calls = []

    def fake_local(q, G, hops=2):
        calls.append(q)
        return "graph answer", []

    # a caller's own local retriever is always used; no path between the two: Graph RAG
    assert ask("How is Ana Rusk connected to Osk Freight?", H, use_model=False, local=fake_local).answer == "graph answer"
    scripted.replies.append("Facts used: Vim Lode audits Harl Mint.\nAnswer: I don't know")
    a = ask("How is Ana Rusk connected to Harl Mint?", H, use_model=False)
    assert a.route == "local" and "path search" not in a.note and a.answer.startswith("I don't know")
