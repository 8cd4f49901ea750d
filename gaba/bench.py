"""Measuring instruments of the benchmarks (chapter "Choosing your stack"; ``benchmarks/`` times
with the same code): repeated timings, test graphs, two backends."""
from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import networkx as nx
import numpy as np

from .checks import check_positive_int
from .data.westeros import synthetic_genealogy
from .entities import is_store as _is_store
from .graph import gather_facts
from .paths import neighbors, paths_between

#: Relation labels of the scale-free graph (a knowledge graph has typed edges).
SCALE_FREE_RELATIONS = ("PARTNERS_WITH", "SUPPLIES_TO", "INVESTS_IN", "COMPETES_WITH")


# --------------------------------------------------------------------------- timing

def time_queries(fn: Callable[[Any], Any], queries: Sequence[Any], *, repeat: int = 3,
                 warmup: int = 1, size: Callable[[Any], int] | None = None) -> dict:
    """Time ``fn(q)`` for every query: ``warmup`` untimed runs, then ``repeat`` timed.

    Returns ``median_ms`` (of per-query medians), ``p90_ms``, ``n_queries``, and with ``size`` the
    ``sizes`` of each query's last result.
    """
    if repeat < 1 or warmup < 0:
        raise ValueError(f"time_queries needs repeat >= 1 and warmup >= 0, got {repeat} and {warmup}")
    queries = list(queries)
    if not queries:
        raise ValueError("time_queries needs at least one query")
    per_query, sizes = [], []
    for q in queries:
        for _ in range(warmup):
            fn(q)
        runs = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            result = fn(q)
            runs.append(time.perf_counter() - t0)
        per_query.append(statistics.median(runs) * 1000)
        if size is not None:
            sizes.append(size(result))
    out = {"median_ms": statistics.median(per_query),
           "p90_ms": float(np.percentile(per_query, 90, method="nearest")), "n_queries": len(queries)}
    return {**out, "sizes": sizes} if size is not None else out


# --------------------------------------------------------------------------- graphs

def _check_edges(n_edges: int) -> None:
    """ValueError unless ``n_edges`` is an integer of at least 10."""
    if not isinstance(n_edges, int) or isinstance(n_edges, bool) or n_edges < 10:
        raise ValueError(f"n_edges must be an integer of at least 10, got {n_edges!r}")


def scale_free_graph(n_edges: int, *, seed: int = 0):
    """A directed Barabási-Albert graph (m=2) of exactly ``n_edges`` edges (a few hubs, nodes ``"E000123"``).

    >>> G = scale_free_graph(100, seed=1)
    >>> G.number_of_edges(), G.is_directed()
    (100, True)
    """
    _check_edges(n_edges)
    m = 2                       # edges each new node brings
    n = (n_edges + m * m) // m + 1
    U = nx.barabasi_albert_graph(n, m, seed=seed)
    rng = random.Random(seed)
    width = len(str(n))
    G = nx.MultiDiGraph()
    G.add_nodes_from(f"E{i:0{width}d}" for i in range(n))
    edges = sorted((max(u, v), min(u, v)) for u, v in U.edges())[:n_edges]
    for u, v in edges:
        rel = rng.choice(SCALE_FREE_RELATIONS)
        G.add_edge(f"E{u:0{width}d}", f"E{v:0{width}d}", key=rel, relation=rel)
    G.remove_nodes_from(list(nx.isolates(G)))
    G.graph["name"] = f"scale-free (Barabási-Albert m={m}, seed={seed})"
    return G


def family_graph(n_edges: int, *, seed: int = 0):
    """A family graph of exactly ``n_edges`` edges, all degrees small."""
    _check_edges(n_edges)
    return synthetic_genealogy(n_edges=n_edges, seed=seed)


def sample_starts(G, k: int, *, seed: int = 0) -> list[Hashable]:
    """``k`` start nodes drawn uniformly (reproducibly) from the nodes that have an edge."""
    nodes = sorted((v for v in G if G.degree(v) > 0), key=str)
    if not nodes:
        raise ValueError("the graph has no edges to start from")
    rng = random.Random(seed)
    return [nodes[rng.randrange(len(nodes))] for _ in range(k)]


def sample_pairs(G, k: int, *, distance: int = 3, seed: int = 0) -> list[tuple]:
    """``k`` node pairs ``(a, b)`` at undirected distance exactly ``distance`` (fewer if not found)."""
    if distance < 1:
        raise ValueError(f"distance must be at least 1, got {distance}")
    rng = random.Random(seed)
    U = G.to_undirected(as_view=True) if G.is_directed() else G
    pairs: list[tuple] = []
    for a in sample_starts(G, 20 * k, seed=seed):
        levels = nx.single_source_shortest_path_length(U, a, cutoff=distance)
        far = sorted((v for v, d in levels.items() if d == distance), key=str)
        if far:
            pairs.append((a, far[rng.randrange(len(far))]))
        if len(pairs) == k:
            break
    return pairs


# --------------------------------------------------------------------------- traversal on two backends

def store_gather_facts(store, entities: Sequence[str] | str, hops: int = 2, *,
                       timeout: float = 60.0) -> set[tuple[str, str, str]]:
    """:func:`gaba.graph.gather_facts` run inside FalkorDB (one Cypher query per hop): the same facts."""
    if isinstance(entities, str):
        entities = [entities]
    check_positive_int("hops", hops)
    cypher = (f"UNWIND $names AS n MATCH (a:{store.label} {{name: n}})-[r]-(b) "
              "RETURN startNode(r).name, type(r), endNode(r).name, b.name")
    frontier = sorted(set(entities))
    visited = set(frontier)
    facts: set[tuple[str, str, str]] = set()
    for _ in range(hops):
        if not frontier:
            break
        rows = store.query(cypher, {"names": frontier}, timeout=timeout).rows
        facts |= {(s, r, o) for s, r, o, _ in rows}
        reached = {other for *_, other in rows} - visited
        visited |= reached
        frontier = sorted(reached)
    return facts


def traversal_operations(graph, *, hops: int = 2, depth: int = 3, path_depth: int = 4,
                         limit: int = 100, timeout: float = 60.0) -> dict[str, tuple[Callable, str]]:
    """The three measured operations: ``{name: (function, kind)}``, kind ``"start"`` or ``"pair"``."""
    facts = (lambda s: store_gather_facts(graph, [s], hops, timeout=timeout)) if _is_store(graph) \
        else (lambda s: gather_facts(graph, [s], hops))
    return {
        f"facts {hops}-hop": (facts, "start"),
        f"neighbors {depth}-hop": (lambda s: neighbors(graph, s, depth=depth, timeout=timeout), "start"),
        f"paths <={path_depth} hops (limit {limit})": (
            lambda ab: paths_between(graph, ab[0], ab[1], max_depth=path_depth, limit=limit,
                                     timeout=timeout), "pair"),
    }


def _size(result) -> tuple[int, bool]:
    """How many items a traversal returned, and whether it was cut by its timeout."""
    return len(result), bool(getattr(getattr(result, "stats", None), "timed_out", False))


def compare_backends(backends: dict[str, Any], *, starts: Sequence, pairs: Sequence, repeat: int = 3,
                     warmup: int = 1, reference: str = "networkx", **options) -> list[dict]:
    """Time the traversal operations on each backend (name -> graph or store) with the same queries.

    One row per (operation, backend): :func:`time_queries` fields, ``mean_result``, ``timed_out``,
    ``same_result`` and ``ratio`` (median / ``reference`` median).
    """
    if reference not in backends:
        raise ValueError(f"reference backend {reference!r} is not among {sorted(backends)}")
    ops = {name: traversal_operations(g, **options) for name, g in backends.items()}
    rows = []
    for op in ops[reference]:
        ref_sizes = ref_ms = None
        for name in [reference] + [b for b in backends if b != reference]:
            fn, kind = ops[name][op]
            queries = list(starts if kind == "start" else pairs)
            if not queries:
                continue
            t = time_queries(fn, queries, repeat=repeat, warmup=warmup, size=_size)
            sizes, cut = (list(v) for v in zip(*t.pop("sizes")))
            if name == reference:
                ref_sizes, ref_ms = sizes, t["median_ms"]
            rows.append({"operation": op, "backend": name, **t,
                         "mean_result": sum(sizes) / len(sizes), "timed_out": sum(cut),
                         "same_result": sizes == ref_sizes,
                         "ratio": t["median_ms"] / ref_ms if ref_ms else float("nan")})
    return rows
