"""Unusual and hostile input to path search, ranking, the multi-hop pipeline, communities, the
hop explorer and the graph store: each gets a clear gaba error, ValueError or TypeError, never
an AttributeError, a confusing TypeError or a silently wrong result. Invented names only."""
from __future__ import annotations

import math

import networkx as nx
import pytest

from gaba import paths as P
from gaba.errors import GabaError
from gaba.traversal import Path


def harbour() -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    G.add_edge("Ana Rusk", "Tern", key="OWNS", relation="OWNS")
    G.add_edge("Pell Quay", "Tern", key="BERTHS", relation="BERTHS")
    G.add_edge("Ana Rusk", "Corve Mill", key="RUNS", relation="RUNS")
    G.add_edge("Corve Mill", "Pell Quay", key="SUPPLIES", relation="SUPPLIES")
    return G


# --- relation types ---------------------------------------------------------------------------

@pytest.mark.parametrize("bad", [["OWNS", None], 5, [["OWNS"]], b"OWNS"])
def test_rel_types_that_are_not_strings_say_so(bad):
    with pytest.raises(TypeError, match="rel_types must be a relation type or a list of them"):
        P.paths_between(harbour(), "Ana Rusk", "Pell Quay", rel_types=bad)


def test_rel_types_accepts_the_graphs_own_relation_names():
    G = nx.MultiDiGraph()
    G.add_edge("Ana Rusk", "Tern", relation="works for")
    G.add_edge("Tern", "Pell Quay", relation="Docks_at")
    r = P.paths_between(G, "Ana Rusk", "Pell Quay", rel_types=["works for", "Docks_at"])
    assert [p.rels for p in r] == [("works for", "Docks_at")]
    with pytest.raises(ValueError, match="not a valid name"):
        P.paths_between(G, "Ana Rusk", "Pell Quay", rel_types=["sails to"])


def test_edges_without_a_relation_use_their_key_as_text():
    G = nx.MultiDiGraph([("Ana Rusk", "Tern"), ("Tern", "Pell Quay")])
    G.add_edge("Ana Rusk", "Pell Quay", relation=None)
    G.add_edge("Corve Mill", "Tern", relation="OWNS")
    r = P.paths_between(G, "Ana Rusk", "Pell Quay")
    assert {p.rels for p in r} == {("0",), ("0", "0")}
    assert [p.rels for p in P.paths_between(G, "Corve Mill", "Pell Quay", rel_types="OWNS")] == []
    with pytest.raises(ValueError, match="unknown relation type"):
        P.paths_between(G, "Ana Rusk", "Pell Quay", rel_types=["SAILS_TO"])


# --- the graph's weights and symmetric relations ---------------------------------------------

@pytest.mark.parametrize("weights", [[1, 2], "x", {"OWNS": "heavy"}, {"OWNS": None}, {"OWNS": math.nan}])
def test_malformed_edge_weights_are_named(weights):
    G = harbour()
    G.graph["edge_weights"] = weights
    for search in (P.top_paths, P.beam_search):
        with pytest.raises(ValueError, match=r"G.graph\['edge_weights'\] must map relation types to numbers"):
            search(G, "Ana Rusk", "Pell Quay")


def test_symmetric_relation_given_as_one_string_is_one_relation():
    G = harbour()
    G.graph["symmetric"] = "RUNS"
    p = P.shortest_paths(G, "Ana Rusk", "Pell Quay").paths[0]
    assert p.symmetric == frozenset({"RUNS"})
    assert str(p) == "Ana Rusk -RUNS- Corve Mill -SUPPLIES-> Pell Quay"
    G.graph["symmetric"] = 5
    with pytest.raises(ValueError, match=r"G.graph\['symmetric'\] must list relation types"):
        P.paths_between(G, "Ana Rusk", "Pell Quay")


# --- scoring and ranking ----------------------------------------------------------------------

P1 = Path(("Ana Rusk", "Tern"), ("OWNS",), (True,))


@pytest.mark.parametrize("args, kwargs, error, match", [
    (("not a path",), {}, TypeError, "score_path scores a gaba.traversal.Path"),
    ((None,), {}, TypeError, "score_path scores a gaba.traversal.Path"),
    ((P1, [1, 2]), {}, TypeError, "weights must map relation types to numbers"),
    ((P1, {"OWNS": "x"}), {}, ValueError, "the weight of 'OWNS' is 'x'"),
    ((P1, {"OWNS": math.nan}), {}, ValueError, "the weight of 'OWNS' is nan"),
    ((P1,), {"decay": "0.5"}, ValueError, "decay='0.5' must be a number"),
    ((P1,), {"decay": None}, ValueError, "decay=None must be a number"),
])
def test_score_path_arguments(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        P.score_path(*args, **kwargs)


@pytest.mark.parametrize("k", [0, -1, "2", 1.5, True])
def test_rank_paths_k_must_be_positive(k):
    with pytest.raises(ValueError, match="must be a positive integer, or None"):
        P.rank_paths([P1, P1], k=k)


@pytest.mark.parametrize("paths", ["abc", None, P1, [P1, "Tern"]])
def test_rank_paths_needs_paths(paths):
    with pytest.raises(TypeError, match="rank_paths"):
        P.rank_paths(paths)


@pytest.mark.parametrize("score", [None, "high", math.nan])
def test_a_scorer_that_gives_no_number_is_named(score):
    for call in (lambda: P.top_paths(harbour(), "Ana Rusk", "Pell Quay", scorer=lambda p: score),
                 lambda: P.beam_search(harbour(), "Ana Rusk", "Pell Quay", scorer=lambda p: score),
                 lambda: P.rank_paths([P1], scorer=lambda p: score)):
        with pytest.raises(ValueError, match="the scorer gave .* it must return a number"):
            call()
    with pytest.raises(TypeError, match="scorer must be a function"):
        P.top_paths(harbour(), "Ana Rusk", "Pell Quay", scorer=5)


# --- node names of mixed types ----------------------------------------------------------------

def test_nodes_of_mixed_types_are_ordered_by_their_text():
    G = nx.MultiDiGraph()
    for u, v in [(7, "Tern"), (7, 3), (3, "Tern"), ("Ana Rusk", 7), ("Ana Rusk", "Pell Quay"),
                 ("Pell Quay", "Tern")]:
        G.add_edge(u, v, relation="LINKS")
    assert P.neighbors(G, "Ana Rusk", depth=2).names() == [7, "Pell Quay", 3, "Tern"]
    found = P.paths_between(G, "Ana Rusk", "Tern", max_depth=3)
    assert [p.nodes for p in found][:2] == [("Ana Rusk", 7, "Tern"), ("Ana Rusk", "Pell Quay", "Tern")]
    assert len(P.top_paths(G, "Ana Rusk", "Tern").paths) == 3
    assert len(P.beam_search(G, "Ana Rusk", "Tern").paths) == 3


def test_path_search_refuses_a_non_graph_before_reading_rel_types():
    with pytest.raises(TypeError, match="path search walks a networkx MultiDiGraph"):
        P.paths_between(None, "Ana Rusk", "Tern", rel_types=["OWNS"])


# --- the multi-hop pipeline -------------------------------------------------------------------

def test_multi_hop_query_top_and_beam_width_must_be_positive():
    from gaba.multihop import multi_hop_query
    G = harbour()
    q = "How is Ana Rusk connected to Pell Quay?"
    assert len(multi_hop_query(G, q, explain=False, top=1).paths) == 1
    for kw in ({"top": 0}, {"top": -1}, {"top": "2"}, {"beam_width": 0}, {"beam_width": True}):
        name = next(iter(kw))
        with pytest.raises(ValueError, match=f"{name}=.* must be a positive integer"):
            multi_hop_query(G, q, explain=False, **kw)


def test_multi_hop_query_on_an_entity_without_relations_asks_no_model(scripted):
    from gaba.errors import NoPath
    from gaba.multihop import multi_hop_query
    G = harbour()
    G.add_node("Lonely Vale")
    with pytest.raises(NoPath, match="'Lonely Vale' has no relation in this graph"):
        multi_hop_query(G, "Who is Lonely Vale?")
    assert scripted.requests == []


def test_fact_paths_with_int_nodes_are_written():
    from gaba.multihop import format_fact_paths
    p = Path(("Ana Rusk", 7, 8, "Pell Quay"), ("OWNS", "LINKS", "BERTHS"), (True, True, False))
    assert format_fact_paths([p]).endswith("So Ana Rusk is connected to Pell Quay through 7 and 8.")


# --- communities ------------------------------------------------------------------------------

@pytest.mark.parametrize("kw", [{"resolution": "1"}, {"resolution": None}, {"levels": True}])
def test_detect_communities_options_are_named(kw):
    from gaba.communities import detect_communities
    with pytest.raises(ValueError, match=rf"{next(iter(kw))}(=\S+)? must be a"):
        detect_communities(harbour(), **kw)


def test_summarize_communities_refuses_what_is_not_communities(scripted):
    from gaba.communities import detect_communities, summarize_communities
    G = harbour()
    comms = detect_communities(G)
    with pytest.raises(TypeError, match="communities must be a list of Community objects"):
        summarize_communities(G, ["Ana Rusk", "Tern"])
    with pytest.raises(TypeError, match="communities must be a list of Community objects"):
        summarize_communities(G, None)
    with pytest.raises(TypeError, match="G must be the networkx graph the communities came from"):
        summarize_communities(None, comms)
    with pytest.raises(ValueError, match="max_facts=.3. must be a positive integer: how many facts"):
        summarize_communities(G, comms, max_facts="3")
    with pytest.raises(TypeError, match="level must be an int"):
        summarize_communities(G, comms, level="0")
    assert scripted.requests == []


def test_global_rag_refuses_what_is_not_summaries(scripted):
    from gaba.communities import Community, CommunitySummary, global_rag
    G = harbour()
    s = CommunitySummary(Community("c0", 0, ("Ana Rusk", "Tern")), "Boats", "Ana Rusk owns Tern.", ())
    with pytest.raises(TypeError, match="summaries must be a list of CommunitySummary objects"):
        global_rag("What are the themes?", G, "abc")
    with pytest.raises(TypeError, match="summaries must be a list of CommunitySummary objects"):
        global_rag("What are the themes?", G, [s, "Boats: Ana Rusk owns Tern."])
    with pytest.raises(TypeError, match="G must be the networkx graph the summaries came from"):
        global_rag("What are the themes?", None, [s])
    assert scripted.requests == []


# --- the graph store --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def harbour_store():
    pytest.importorskip("falkordb")
    from gaba.store import FalkorStore
    with FalkorStore.start(graph="path_inputs") as st:
        yield st


def test_store_refuses_a_name_its_index_cannot_find_again(harbour_store):
    G = harbour()
    longest = "Quay " + "é" * 2045          # 4095 bytes: found again
    G.add_edge(longest, "Tern", relation="MOORS_AT")
    harbour_store.load_networkx(G)
    assert [p.nodes for p in P.paths_between(harbour_store, longest, "Ana Rusk", max_depth=2)] == \
        [(longest, "Tern", "Ana Rusk")]
    G.add_edge("Quay " + "x" * 5000, "Tern", relation="MOORS_AT")
    with pytest.raises(ValueError, match="bytes long; FalkorDB's name index finds names of at most 4,095"):
        harbour_store.load_networkx(G)
    with pytest.raises(ValueError, match="not valid Unicode text"):
        harbour_store.load_records([{"name": "Tern \ud800"}], [])
    with pytest.raises(TypeError, match="expected a networkx graph"):
        harbour_store.load_networkx(None)


def test_store_accepts_the_graphs_own_relation_names(harbour_store):
    G = nx.MultiDiGraph()
    G.add_edge("Ana Rusk", "Tern", relation="Works_for")
    G.add_edge("Tern", "Pell Quay", relation="DOCKS_AT")
    harbour_store.load_networkx(G)
    want = [p.rels for p in P.paths_between(G, "Ana Rusk", "Pell Quay", rel_types=["Works_for", "DOCKS_AT"])]
    got = [p.rels for p in P.paths_between(harbour_store, "Ana Rusk", "Pell Quay", rel_types=["Works_for", "DOCKS_AT"])]
    assert got == want == [("Works_for", "DOCKS_AT")]
    with pytest.raises(ValueError, match="relation type .* is not a valid name"):
        P.paths_between(harbour_store, "Ana Rusk", "Pell Quay", rel_types=["DOCKS_AT]->() DETACH DELETE n //"])


# --- the hop explorer -------------------------------------------------------------------------

@pytest.mark.parametrize("G", [None, "Tern", {"Tern": []}])
def test_hop_explorer_refuses_what_is_not_a_graph(G):
    from gaba.widgets import hop_explorer_html
    with pytest.raises(TypeError, match="expected a networkx graph"):
        hop_explorer_html(G)


def test_hop_explorer_shows_a_graph_with_int_nodes():
    import json
    import re

    from gaba.hop_layout import explorer_data
    from gaba.widgets import hop_explorer_html
    G = nx.MultiDiGraph()
    G.add_edge(7, "Tern", relation="LINKS")
    G.add_edge(7, 8, relation="LINKS")
    G.add_edge("Ana Rusk", 7, relation="OWNS")
    data = explorer_data(G)
    assert data["default_entity"] == "7" and sorted(n["name"] for n in data["nodes"]) == ["7", "8", "Ana Rusk", "Tern"]
    assert explorer_data(G, 8)["default_entity"] == "8"
    page = hop_explorer_html(G, "Ana Rusk", hops=2)
    payload = re.search(r'<script type="application/json" id="[^"]+">(.*?)</script>', page, re.S).group(1)
    shown = json.loads(payload)
    assert [shown["facts"][i] for i in shown["reach"]["Ana Rusk"]["facts"][0]] == [["Ana Rusk", "OWNS", "7"]]
    G.add_node("7")
    with pytest.raises(ValueError, match="two nodes of this graph have the same text"):
        explorer_data(G)


@pytest.mark.parametrize("hops", [None, "2", 2.7, math.nan])
def test_hop_explorer_hops_must_be_an_integer(hops):
    from gaba.widgets import hop_explorer_html
    with pytest.raises(TypeError, match="hops must be an integer number of hops"):
        hop_explorer_html(harbour(), hops=hops)


@pytest.mark.parametrize("kw", [{"width": 0}, {"width": -1}, {"height": "x"}, {"width": None}])
def test_hop_explorer_size_must_be_pixels(kw):
    from gaba.hop_layout import explorer_data
    with pytest.raises(ValueError, match="must be a whole number of pixels"):
        explorer_data(harbour(), **kw)


def test_communities_of_a_graph_with_int_nodes_can_be_summarized(scripted):
    from gaba.communities import detect_communities, draw_communities, summarize_communities
    G = nx.MultiDiGraph()
    for u, v in [(1, 2), (2, 3), (1, 3), ("Ana Rusk", "Tern"), ("Tern", "Pell Quay"), ("Ana Rusk", "Pell Quay")]:
        G.add_edge(u, v, relation="LINKS")
    comms = detect_communities(G)
    assert {c.nodes for c in comms} == {(1, 2, 3), ("Ana Rusk", "Pell Quay", "Tern")}
    scripted.replies.extend(['{"title": "Numbers", "summary": "One links two."}'] * 2)
    summaries = summarize_communities(G, comms)
    assert [len(s.facts) for s in summaries] == [3, 3]
    assert draw_communities(G, comms) is not None


# --- figures ----------------------------------------------------------------------------------

@pytest.mark.parametrize("series, branching, match", [
    (None, None, "series and branching must map labels to values"),
    ({"paths": [1, 2]}, [3], "series and branching must map labels to values"),
    ({"paths": "ab"}, None, "each series must be a list of path counts"),
    ({"paths": [1, "many"]}, None, "must be numbers, not 'many'"),
    ({"paths": [1, 2]}, {"b^k": "x"}, "must be numbers, not 'x'"),
])
def test_plot_path_growth_names_a_bad_series(series, branching, match):
    pytest.importorskip("matplotlib")
    from gaba.figures import plot_path_growth
    with pytest.raises(TypeError, match=match):
        plot_path_growth([1, 2], series, branching=branching)


@pytest.mark.parametrize("args, error, match", [
    ((("Ana Rusk", "Tern"), ("OWNS", "BERTHS"), (True,)), ValueError, "needs one node more and as many directions"),
    ((("Ana Rusk",), ("OWNS",), ()), ValueError, "needs one node more and as many directions"),
    ((["Ana Rusk", "Tern"], ["OWNS"], [True]), TypeError, "a Path holds tuples"),
    (("AT", ("OWNS",), (True,)), TypeError, "a Path holds tuples"),
    ((("Ana Rusk", "Tern"), ("OWNS",), (True,), "OWNS"), TypeError, "Path.symmetric is a set of relation types"),
])
def test_a_path_that_does_not_add_up_is_refused(args, error, match):
    with pytest.raises(error, match=match):
        Path(*args)


def test_a_path_takes_any_set_of_symmetric_relations():
    p = Path(("Ana Rusk", "Tern"), ("OWNS",), (True,), {"OWNS"})
    assert p.symmetric == frozenset({"OWNS"}) and str(p) == "Ana Rusk -OWNS- Tern" and hash(p)


@pytest.mark.parametrize("url", ["localhost:6379", 5, None, "http://127.0.0.1:6379"])
def test_a_store_address_that_is_no_url_is_named(url):
    from gaba.store import FalkorStore
    with pytest.raises(ValueError, match="is not a FalkorDB address; give one like redis://"):
        FalkorStore(url)


@pytest.mark.parametrize("timeout", [0, -1, "x", None, math.nan])
def test_embedded_server_startup_timeout_is_checked(timeout):
    from gaba.falkor_server import EmbeddedServer
    with pytest.raises(ValueError, match="startup_timeout=.* must be a number of seconds"):
        EmbeddedServer(startup_timeout=timeout)


def test_store_node_attribute_name_must_be_text(harbour_store):
    harbour_store.load_networkx(harbour())
    with pytest.raises(ValueError, match="attribute name None must be letters"):
        harbour_store.node_attribute(["Tern"], None)


# --- formatting paths, routing ----------------------------------------------------------------

@pytest.mark.parametrize("paths, scores, error, match", [
    ([P1], [], ValueError, r"scores must hold one number per path \(1\)"),
    ([P1], ["x"], ValueError, r"scores must hold one number per path \(1\)"),
    ("ab", None, TypeError, "paths must be a list of gaba.traversal.Path"),
    ([P1, ("Ana Rusk", "Tern")], None, TypeError, "paths must be a list of gaba.traversal.Path"),
])
def test_formatting_paths_names_bad_paths_and_scores(paths, scores, error, match):
    from gaba.multihop import format_fact_paths, format_paths
    for fmt in (format_paths, format_fact_paths):
        with pytest.raises(error, match=match):
            fmt(paths, scores)


def test_numpy_scores_are_numbers():
    np = pytest.importorskip("numpy")
    from gaba.multihop import format_fact_paths
    r = P.top_paths(harbour(), "Ana Rusk", "Pell Quay", scorer=lambda p: np.float32(0.25))
    assert format_fact_paths(r.paths, r.scores).startswith("Path 1 (score 0.250): ")


def test_a_question_about_an_empty_graph_says_the_graph_is_empty():
    from gaba.errors import EntityNotFound
    from gaba.multihop import multi_hop_query
    with pytest.raises(EntityNotFound, match="this graph has none; build it first"):
        multi_hop_query(nx.MultiDiGraph(), "How is Ana Rusk connected to Tern?")


@pytest.mark.parametrize("kw, error, match", [
    ({"default": "nowhere"}, ValueError, "default='nowhere' is not a route"),
    ({"rules": {"local": ["("]}}, ValueError, "cue pattern '\\(' is not a valid regular expression"),
    ({"rules": ["local"]}, TypeError, "rules must map each route to a list of regular expressions"),
    ({"rules": {"flat": "how much"}}, TypeError, "rules must map each route to a list of regular expressions"),
])
def test_route_names_bad_rules_and_defaults(kw, error, match):
    from gaba.routing import route
    with pytest.raises(error, match=match):
        route("Tell me what happened to the harbour", harbour(), use_model=False, **kw)


def test_ask_names_a_retriever_that_returns_no_pair():
    from gaba.routing import ask
    with pytest.raises(TypeError, match="the flat retriever must return a pair"):
        ask("How much did Tern cost?", harbour(), route_to="flat", flat=lambda q, k: None)
    with pytest.raises(TypeError, match="the local retriever must return a pair"):
        ask("Tell me about Ana Rusk please", harbour(), route_to="local", local=lambda q, G, hops: "Tern")


# --- the command line -------------------------------------------------------------------------

def test_cli_ask_paths_prints_no_terminal_control_codes(scripted, tmp_path, capsys):
    from gaba.__main__ import main
    from gaba.graph import save_graph
    G = nx.MultiDiGraph()
    G.add_edge("Ana Rusk", "Tern\x1b]0;owned\x07", relation="OWNS")
    G.add_edge("Pell Quay", "Tern\x1b]0;owned\x07", relation="BERTHS")
    save_graph(G, tmp_path / "g.json")
    scripted.replies.append("Through \x1b[2JTern\u202e.")
    assert main(["ask", "--paths", "--trace", "--graph", str(tmp_path / "g.json"),
                 "How is Ana Rusk connected to Pell Quay?"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "Through \\x1b[2JTern\\u202e." in out and "Tern\\x1b]0;owned\\x07" in out
    assert main(["ask", "--paths", "--graph", str(tmp_path / "g.json"), "Who is \x1b[2JAna Rusk?"]) == 1
    assert "\x1b" not in capsys.readouterr().err


# --- shortest paths multiplied by parallel edges ----------------------------------------------

def ladder(hops: int, parallel: int) -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    for i in range(hops):
        for r in range(parallel):
            G.add_edge(f"Quay {i}", f"Quay {i + 1}", relation=f"ROUTE_{r}")
    return G


def test_shortest_paths_stop_at_the_cap_with_a_warning(monkeypatch):
    from gaba import traversal
    from gaba.traversal import TruncatedResult
    monkeypatch.setattr(traversal, "MAX_PATHS", 50)            # the one cap every backend reads
    with pytest.warns(TruncatedResult, match="shortest_paths stopped at 50 paths"):
        r = P.shortest_paths(ladder(3, 5), "Quay 0", "Quay 3")
    assert len(r) == 50 and r.stats.truncated and not r.stats.timed_out
    assert len(P.shortest_paths(ladder(2, 5), "Quay 0", "Quay 2")) == 25      # under the cap: all


def test_shortest_paths_keep_their_time_limit_with_parallel_edges(monkeypatch):
    import time

    from gaba import traversal
    monkeypatch.setattr(traversal, "MAX_PATHS", 10**9)        # the clock, not the cap, must stop it
    t0 = time.perf_counter()
    r = P.shortest_paths(ladder(6, 12), "Quay 0", "Quay 6", timeout=0.3)    # 12**6 paths
    # a hang guard, not a speed goal: without the clock this enumerates millions of paths
    assert r.stats.timed_out and not r.stats.truncated and time.perf_counter() - t0 < 60


def test_store_shortest_paths_stop_at_the_cap(harbour_store, monkeypatch):
    from gaba import traversal
    from gaba.traversal import TruncatedResult
    harbour_store.load_networkx(ladder(3, 5))
    monkeypatch.setattr(traversal, "MAX_PATHS", 50)
    with pytest.warns(TruncatedResult):
        r = P.shortest_paths(harbour_store, "Quay 0", "Quay 3")
    assert len(r) == 50 and r.stats.truncated


def test_store_refuses_what_it_would_garble_and_keeps_the_graph(harbour_store):
    harbour_store.load_networkx(harbour())
    before = harbour_store.counts()
    G = nx.MultiDiGraph()
    G.add_edge(1, "Tern", relation="OWNS")
    G.add_edge("1", "Pell Quay", relation="OWNS")
    with pytest.raises(ValueError, match="two nodes are named '1'; names must be unique"):
        harbour_store.load_networkx(G)
    with pytest.raises(ValueError, match="two nodes are named 'Tern'"):
        harbour_store.load_records([{"name": "Tern"}, {"name": "Tern"}], [])
    for props, match in [({"note": "a\x00b"}, "contains a NUL character"),
                         ({"depth": math.inf}, "FalkorDB stores no infinite number"),
                         ({"tonnage": 10**30}, "beyond FalkorDB's 64-bit integers"),
                         ({"tags": ["ok", "a\x00b"]}, "contains a NUL character")]:
        with pytest.raises(ValueError, match=match):
            harbour_store.load_records([{"name": "Tern", **props}], [])
    with pytest.raises(ValueError, match="contains a NUL character"):
        harbour_store.load_records([{"name": "Tern"}], [("Tern\x00", "OWNS", "Tern")])
    assert harbour_store.counts() == before            # a refused load loses nothing


def test_store_skips_nan_as_a_missing_value(harbour_store):
    harbour_store.load_records([{"name": "Tern", "tonnage": math.nan, "crew": 4},
                                {"name": "Ana Rusk", "tonnage": 2.5}], [("Ana Rusk", "OWNS", "Tern")])
    assert harbour_store.node_attribute(["Ana Rusk", "Tern"], "tonnage") == {"Ana Rusk": 2.5}
    assert harbour_store.node_attribute(["Tern"], "crew") == {"Tern": 4}


def test_a_store_never_loaded_says_so():
    pytest.importorskip("falkordb")
    from gaba.errors import StoreError
    from gaba.store import FalkorStore
    with FalkorStore.start(graph="never_loaded") as st, \
            pytest.raises(StoreError, match="Graph 'never_loaded' is empty; load it first"):
        P.paths_between(st, "Ana Rusk", "Tern")


def test_node_attribute_of_one_name_given_as_a_string():
    from gaba.traversal import node_attribute
    G = harbour()
    G.nodes["Tern"]["kind"] = "boat"
    G.add_node(7, kind="dock")
    assert node_attribute(G, "Tern", "kind") == {"Tern": "boat"}
    assert node_attribute(G, ["Tern", 7, "Ana Rusk"], "kind") == {"Tern": "boat", 7: "dock"}


@pytest.mark.parametrize("extra", [["--budget", "5"], ["--hops", "3"], ["--no-grounding"], ["--rank", "lexical"],
                                   ["--fact-order", "sorted"]])
def test_cli_ask_paths_refuses_options_it_would_ignore(extra, scripted, tmp_path, capsys):
    from gaba.__main__ import main
    from gaba.graph import save_graph
    save_graph(harbour(), tmp_path / "g.json")
    assert main(["ask", "--paths", "--graph", str(tmp_path / "g.json"), *extra,
                 "How is Ana Rusk connected to Pell Quay?"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"error: --paths answers from the paths between two entities and does not use {extra[0]}")
    assert err.count("\n") == 1 and scripted.requests == []


def test_community_helpers_refuse_a_string_or_no_graph():
    pytest.importorskip("matplotlib")
    from gaba.communities import (Community, community_documents, community_facts, draw_communities,
                                  partition_signature)
    G = harbour()
    G.add_edge("Ana Rusk", "Tern", relation="OWNS", sources=[5, ("dock-log",)])
    c = Community("c0", 0, ("Ana Rusk", "Tern"))
    with pytest.raises(TypeError, match="community must be a Community or a list of node names"):
        community_facts(G, "Ana Rusk")           # not the nodes A, n, a, ...
    for call in (lambda: community_facts(None, c), lambda: community_documents(None, c)):
        with pytest.raises(TypeError, match="G must be the networkx graph the community came from"):
            call()
    with pytest.raises(TypeError, match="communities are found in a networkx graph"):
        draw_communities(None, [c])
    with pytest.raises(TypeError, match="partition_signature needs the Community list"):
        partition_signature("c0")
    assert partition_signature(x for x in [c]) == ((0, ("Ana Rusk", "Tern")),)
    assert community_documents(G, c) == ["dock-log"]


@pytest.mark.parametrize("reply", ["", "   \n  "])
def test_an_empty_model_reply_to_the_paths_is_an_abstention_that_says_so(reply, scripted):
    from gaba.multihop import multi_hop_query
    scripted.replies.append(reply)
    a = multi_hop_query(harbour(), "How is Ana Rusk connected to Pell Quay?")
    assert a.answer == "I don't know: the model gave an empty reply." and len(scripted.requests) == 1


def test_plot_path_growth_draws_a_series_given_as_a_generator():
    import matplotlib
    matplotlib.use("Agg")
    from gaba.figures import plot_path_growth
    ax = plot_path_growth([1, 2, 3], {"paths": (c for c in [2, 7, 30])})
    assert len(ax.lines) == 1 and list(ax.lines[0].get_ydata()) == [2, 7, 30]
