"""Fault probes of path limits on NetworkX (gaba.paths), the same rules as the database backend.

Issue 18, probe 5: ``limit`` counted candidates later dropped as cyclic, so on a dense graph
``limit=1000`` returned far fewer paths than asked, and ``limit=None`` was bounded only by the
timeout. Now ``limit`` counts returned paths on both backends, ``stats.truncated`` means more paths
existed, and ``limit=None`` stops at gaba.traversal.MAX_PATHS with a TruncatedResult warning.
(The FalkorDB side of each probe is in tests/test_faults_store.py.)
"""
from __future__ import annotations

import itertools
import warnings

import networkx as nx
import pytest

from gaba import paths as P
from gaba import traversal as T
from gaba.traversal import TruncatedResult
from test_faults_store import (check_unlimited_query_is_capped, check_unlimited_walks_are_capped,  # shared
                               many_cyclic_rows)  # one definition of the cyclic-rows graph


def complete(n: int) -> nx.MultiDiGraph:
    G = nx.MultiDiGraph()
    for i, j in itertools.combinations(range(n), 2):
        G.add_edge(f"n{i:02d}", f"n{j:02d}", key="LINKED", relation="LINKED")
    return G


@pytest.fixture(scope="module")
def k30():
    return complete(30)


def test_limit_counts_returned_paths_on_a_dense_graph(k30):
    res = P.paths_between(k30, "n00", "n01", max_depth=6, limit=1000)
    assert len(res) == 1000 and res.stats.returned == 1000
    assert res.stats.truncated and not res.stats.timed_out
    assert all(not p.is_cyclic for p in res)
    assert res.stats.explored == 1000 + res.stats.cyclic_pruned


def test_limit_is_not_spent_on_cyclic_candidates():
    G = many_cyclic_rows()
    every = P.paths_between(G, "a", "b", max_depth=5, limit=None)
    assert len(every) == 41 and every.stats.cyclic_pruned > 1000
    res = P.paths_between(G, "a", "b", max_depth=5, limit=1000)
    assert len(res) == 41 and not res.stats.truncated and res.keys() == every.keys()
    assert (res.stats.explored, res.stats.cyclic_pruned) == (every.stats.explored, every.stats.cyclic_pruned)
    few = P.paths_between(G, "a", "b", max_depth=5, limit=10)
    assert len(few) == 10 and few.stats.truncated and few.keys() <= every.keys()


@pytest.mark.parametrize("limit", [1, 7, 500])
@pytest.mark.parametrize("cycles", ["prune", "detect", "keep"])
def test_limit_is_exact_in_every_mode(k30, limit, cycles):
    res = P.paths_between(k30, "n00", "n01", max_depth=4, limit=limit, cycles=cycles)
    assert len(res) == limit and res.stats.truncated
    if cycles != "keep":
        assert all(not p.is_cyclic for p in res)


def test_truncated_only_when_more_paths_exist():
    G = complete(5)
    every = P.paths_between(G, "n00", "n01", max_depth=4, limit=None)
    n = len(every)                          # 1 + 3 + 6 + 6 = 16 simple paths
    assert n == 16 and not every.stats.truncated
    exact = P.paths_between(G, "n00", "n01", max_depth=4, limit=n)
    assert len(exact) == n and not exact.stats.truncated and exact.keys() == every.keys()
    short = P.paths_between(G, "n00", "n01", max_depth=4, limit=n - 1)
    assert len(short) == n - 1 and short.stats.truncated
    assert "limit reached" in str(short.stats) and "limit reached" not in str(exact.stats)


def test_unlimited_is_capped_with_a_warning(k30, monkeypatch):
    check_unlimited_query_is_capped(k30, monkeypatch)


@pytest.mark.parametrize("cycles", ["detect", "keep"])
def test_unlimited_walks_are_capped(k30, monkeypatch, cycles):
    check_unlimited_walks_are_capped(k30, monkeypatch, cycles)


def test_detect_examines_at_most_the_cap_even_with_a_limit(monkeypatch):
    """Walks that are all cyclic never fill the limit; the walk cap still stops them, flagged."""
    G = complete(8)
    monkeypatch.setattr(T, "MAX_PATHS", 200)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TruncatedResult)       # a limit was given: no warning
        res = P.paths_between(G, "n00", "n01", max_depth=5, limit=100_000, cycles="detect")
    assert res.stats.explored == 200 and res.stats.truncated


def test_complete_result_has_no_flag_and_no_warning():
    G = complete(6)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TruncatedResult)
        res = P.paths_between(G, "n00", "n01", max_depth=5, limit=None)
    assert not res.stats.truncated and len(res) == sum(
        1 for _ in nx.all_simple_paths(nx.Graph(G), "n00", "n01", cutoff=5))


def test_top_paths_ranks_a_full_limit(k30):
    res = P.top_paths(k30, "n00", "n01", k=5, max_depth=5, limit=300)
    assert res.stats.explored >= 300 and res.stats.truncated and len(res) == 5
    assert res.paths[0].hops == 1                             # the direct edge ranks first
