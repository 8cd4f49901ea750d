"""Fault probes of graph-database traversals (gaba.store on the embedded FalkorDB): dense graphs,
limits spent on cyclic rows, unbounded results, and connection wording.

One embedded server is started for the module (as in tests/test_store.py).
"""
from __future__ import annotations

import itertools
import time
import warnings

import networkx as nx
import pytest

from gaba import paths as P
from gaba import traversal as T
from gaba.errors import StoreError
from gaba.store import FalkorStore
from gaba.traversal import TruncatedResult


def complete(n: int) -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    for i, j in itertools.combinations(range(n), 2):
        G.add_edge(f"n{i:02d}", f"n{j:02d}", key="LINKED", relation="LINKED")
    return G


def many_cyclic_rows() -> nx.MultiDiGraph:
    """a - b, 40 two-hop routes a - c - b, and b inside a clique of 7: a path may reach b, go round
    the clique and come back to b, so at 5 hops the variable-length pattern yields 1350 cyclic rows
    (dropped) for only 41 simple paths."""
    G = nx.MultiDiGraph()
    G.add_edge("a", "b", key="LINKED", relation="LINKED")
    for i in range(40):
        G.add_edge("a", f"c{i:02d}", key="LINKED", relation="LINKED")
        G.add_edge(f"c{i:02d}", "b", key="LINKED", relation="LINKED")
    ring = ["b"] + [f"k{i}" for i in range(6)]
    for u, v in itertools.combinations(ring, 2):
        G.add_edge(u, v, key="LINKED", relation="LINKED")
    return G


@pytest.fixture(scope="module")
def server():
    with FalkorStore.start(graph="faults_main") as st:
        yield st


@pytest.fixture(scope="module")
def k30(server):
    st = FalkorStore(server.url, graph="faults_k30")
    st.load_networkx(complete(30))
    yield st
    st.drop()
    st.close()


@pytest.fixture(scope="module")
def cyclic(server):
    st = FalkorStore(server.url, graph="faults_cyclic")
    st.load_networkx(many_cyclic_rows())
    yield st
    st.drop()
    st.close()


# --- neighbourhoods on a dense graph -------------------------------------------------------------

def test_dense_graph_depth_6_reaches_everything_quickly(k30):
    t0 = time.perf_counter()
    res = P.neighbors(k30, "n00", depth=6)
    assert time.perf_counter() - t0 < 5
    assert not res.stats.timed_out
    assert len(res) == 30                     # 29 others and the start (a triangle returns to it)
    assert res.nodes == P.neighbors(complete(30), "n00", depth=6).nodes


@pytest.mark.parametrize("direction", ["out", "in", "both"])
@pytest.mark.parametrize("depth", [1, 2, 6, 8])
def test_dense_graph_matches_networkx(k30, direction, depth):
    G = complete(30)
    for name in ("n00", "n15", "n29"):
        got = P.neighbors(k30, name, depth=depth, direction=direction)
        assert got.nodes == P.neighbors(G, name, depth=depth, direction=direction).nodes
        assert got.stats.queries <= depth + 1


def test_random_dense_graph_matches_networkx(server):
    import random

    rng = random.Random(3)
    G = nx.MultiDiGraph()
    names = [f"v{i:03d}" for i in range(120)]
    G.add_nodes_from(names)
    for u, v in itertools.permutations(names, 2):
        if rng.random() < 0.08:
            rel = rng.choice(["A_OF", "B_OF"])
            G.add_edge(u, v, key=rel, relation=rel)
    st = FalkorStore(server.url, graph="faults_random")
    try:
        st.load_networkx(G)
        t0 = time.perf_counter()
        for name in names[:5]:
            for kwargs in (dict(depth=5), dict(depth=3, direction="out", rel_types=["A_OF"]),
                           dict(depth=4, direction="in")):
                assert P.neighbors(st, name, **kwargs).nodes == P.neighbors(G, name, **kwargs).nodes
        assert time.perf_counter() - t0 < 20
    finally:
        st.drop()
        st.close()


def test_neighbors_of_isolated_and_leaf_nodes(server):
    G = nx.MultiDiGraph()
    G.add_node("alone")
    G.add_edge("x", "y", key="LINKED", relation="LINKED")
    st = FalkorStore(server.url, graph="faults_small")
    try:
        st.load_networkx(G)
        assert len(P.neighbors(st, "alone", depth=6)) == 0
        assert P.neighbors(st, "x", depth=6).nodes == {"y": 1}      # no cycle back over one edge
    finally:
        st.drop()
        st.close()


# --- path limits count returned paths only ---------------------------------------------------------

def test_limit_is_not_spent_on_cyclic_rows(cyclic):
    G = many_cyclic_rows()
    every = P.paths_between(G, "a", "b", max_depth=5, limit=None)
    assert every.stats.cyclic_pruned > 1000, "the probe needs more cyclic rows than the limit"
    res = P.paths_between(cyclic, "a", "b", max_depth=5, limit=1000)
    assert len(res) == min(1000, len(every)) == 41
    assert res.keys() == every.keys()
    assert not res.stats.truncated and not res.stats.timed_out
    assert all(not p.is_cyclic for p in res)
    # the statistics of a complete enumeration still match NetworkX
    assert (res.stats.explored, res.stats.cyclic_pruned) == (every.stats.explored, every.stats.cyclic_pruned)


def test_small_limit_returns_exactly_limit_simple_paths(cyclic):
    res = P.paths_between(cyclic, "a", "b", max_depth=5, limit=10)
    assert len(res) == 10 and res.stats.truncated
    assert all(not p.is_cyclic for p in res)


def test_limit_on_a_dense_graph(k30):
    res = P.paths_between(k30, "n00", "n01", max_depth=6, limit=1000)
    assert len(res) == 1000 and res.stats.truncated and not res.stats.timed_out
    assert all(not p.is_cyclic for p in res)


@pytest.mark.parametrize("cycles, depth, limit", [("prune", 6, 1), ("prune", 6, 1000), ("detect", 3, 1),
                                                   ("detect", 3, 30), ("keep", 3, 1), ("keep", 3, 30)])
def test_dense_graph_limit_parity_with_networkx(k30, cycles, depth, limit):
    """Both backends return exactly ``limit`` paths and flag the cut the same way. (Walk modes
    use one fixed-length query per depth; on the complete graph a deep one is slow to plan.)"""
    G = complete(30)
    db = P.paths_between(k30, "n00", "n01", max_depth=depth, limit=limit, cycles=cycles, timeout=60)
    nx_ = P.paths_between(G, "n00", "n01", max_depth=depth, limit=limit, cycles=cycles, timeout=60)
    assert len(db) == len(nx_) == limit
    assert db.stats.truncated and nx_.stats.truncated
    assert not db.stats.timed_out and not nx_.stats.timed_out


def test_exact_limit_is_not_flagged_on_either_backend(cyclic):
    G = many_cyclic_rows()
    for g in (cyclic, G):
        assert not P.paths_between(g, "a", "b", max_depth=5, limit=41).stats.truncated
        assert P.paths_between(g, "a", "b", max_depth=5, limit=40).stats.truncated


def test_cap_parity_with_networkx(k30, monkeypatch):
    monkeypatch.setattr(T, "MAX_PATHS", 60)
    for g in (k30, complete(30)):
        with pytest.warns(TruncatedResult, match="stopped at 60 rows"):
            res = P.paths_between(g, "n00", "n01", max_depth=3, limit=None)
        assert len(res) == 60 and res.stats.truncated


@pytest.mark.parametrize("cycles", ["detect", "keep"])
def test_walk_modes_count_returned_paths(cyclic, cycles):
    res = P.paths_between(cyclic, "a", "b", max_depth=3, limit=30, cycles=cycles)
    assert len(res) == 30 and res.stats.truncated


# --- limit=None has a hard cap that says so --------------------------------------------------------

def check_unlimited_query_is_capped(G, monkeypatch) -> None:
    """limit=None stops at MAX_PATHS with a warning (shared with the NetworkX tests)."""
    monkeypatch.setattr(T, "MAX_PATHS", 50)
    with pytest.warns(TruncatedResult, match=r"stopped at 50 rows.*MAX_PATHS.*incomplete"):
        res = P.paths_between(G, "n00", "n01", max_depth=3, limit=None)
    assert len(res) == 50 and res.stats.truncated


def check_unlimited_walks_are_capped(G, monkeypatch, cycles: str) -> None:
    """Walk modes with limit=None stop at MAX_PATHS too (shared with the NetworkX tests)."""
    monkeypatch.setattr(T, "MAX_PATHS", 40)
    with pytest.warns(TruncatedResult, match="40 rows"):
        res = P.paths_between(G, "n00", "n01", max_depth=3, limit=None, cycles=cycles)
    assert 0 < len(res) <= 40 and res.stats.truncated and res.stats.explored == 40


def test_unlimited_query_is_capped_with_a_warning(k30, monkeypatch):
    check_unlimited_query_is_capped(k30, monkeypatch)


@pytest.mark.parametrize("cycles", ["detect", "keep"])
def test_unlimited_walks_are_capped(k30, monkeypatch, cycles):
    check_unlimited_walks_are_capped(k30, monkeypatch, cycles)


def test_complete_unlimited_result_has_no_warning(cyclic):
    with warnings.catch_warnings():
        warnings.simplefilter("error", TruncatedResult)
        res = P.paths_between(cyclic, "a", "b", max_depth=5, limit=None)
    assert len(res) == 41 and not res.stats.truncated


def test_default_cap_is_set():
    assert 1000 < T.MAX_PATHS <= T.MAX_LIMIT


# --- connection wording ----------------------------------------------------------------------------

def test_never_connected_is_not_a_lost_connection():
    with pytest.raises(StoreError) as info:
        FalkorStore("redis://127.0.0.1:1", graph="x")
    assert "Cannot connect to FalkorDB" in str(info.value)
    assert "Lost the connection" not in str(info.value)
