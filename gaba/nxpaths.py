"""Path search on a NetworkX graph, the in-memory backend of :mod:`gaba.paths`: the same paths, counted the
same way, as :mod:`gaba.cypher_paths`. Arguments arrive checked."""
from __future__ import annotations

import functools
import itertools
import time

import networkx as nx

from . import traversal
from .kgfile import edge_relation
from .traversal import Path, PathCounter, TraversalStats, symmetric_relations


def nx_steps(G, node: str, direction: str, rel_types: tuple[str, ...] | None):
    """``(neighbor, relation, forward)`` for every edge at ``node`` in ``direction``, out-edges first."""
    out = []
    for adjacency, forward in ((G.succ, True), (G.pred, False)):
        if direction != "both" and forward != (direction == "out"):
            continue
        for nbr, keyed in adjacency[node].items():
            for k, d in keyed.items():
                r = edge_relation(k, d)
                if rel_types is None or r in rel_types:
                    out.append((nbr, r, forward))
    return out


def nx_view(G, direction: str, rel_types: tuple[str, ...] | None):
    """``G`` as a traversal sees it (a view, not a copy): ``rel_types`` edges only, in ``direction``."""
    if rel_types is not None:
        full = G
        G = nx.subgraph_view(full, filter_edge=lambda u, v, k: edge_relation(k, full[u][v][k]) in rel_types)
    if direction == "both":
        return G.to_undirected(as_view=True)
    return G.reverse(copy=False) if direction == "in" else G


class Clock:
    """A deadline; :meth:`over` reads the clock every 1,024th call only (each read costs)."""

    def __init__(self, timeout: float):
        self.t0 = time.perf_counter()
        self.deadline = self.t0 + timeout
        self.ticks = 0

    def over(self) -> bool:
        self.ticks += 1
        return (self.ticks & 1023) == 0 and time.perf_counter() > self.deadline

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0


def _stepper(G, direction, rel_types, clock, skip=None):
    """The ``neighbors`` function of a networkx BFS that ticks ``clock``, skipping the edge ``skip``."""
    def step(n):
        for m, r, f in nx_steps(G, n, direction, rel_types):
            if clock.over():
                raise TimeoutError
            if (n, m, r, f) != skip:
                yield m
    return step


def _candidates(G, a, b, max_depth, direction, rel_types, cycles, clock):
    """Depth first, every path or walk from ``a`` to ``b`` of at most ``max_depth`` hops (TimeoutError when
    ``clock`` runs out). As in Cypher, no step revisits a node except ``b`` by another edge (a cyclic
    candidate, counted and dropped)."""
    walks = cycles != "prune"
    steps = functools.cache(lambda n: nx_steps(G, n, direction, rel_types))
    stack = [Path((a,), symmetric=symmetric_relations(G))]
    while stack:
        path = stack.pop()
        for nbr, rel, forward in steps(path.end):
            if clock.over():
                raise TimeoutError
            revisit = nbr in path.nodes
            if revisit and not walks and nbr != b:
                continue
            longer = path.extend(nbr, rel, forward)
            if nbr == b and (walks or not revisit or len(set(longer.edges())) == longer.hops):
                yield longer        # (not back over the edge it came by: that is no path)
            if longer.hops < max_depth and (walks or not revisit):
                stack.append(longer)


def nx_paths(G, a, b, max_depth, direction, rel_types, limit, timeout, cycles):
    """``(paths, stats)`` from ``a`` to ``b``, exactly what FalkorDB returns (see :class:`PathCounter`)."""
    counter = PathCounter("networkx", limit, cycles)
    try:
        for path in _candidates(G, a, b, max_depth, direction, rel_types, cycles, Clock(timeout)):
            if not counter.add(path):
                break
    except TimeoutError:
        counter.stats.timed_out = True
    return counter.result()


def nx_shortest(G, a, b, max_depth, direction, rel_types, timeout) -> tuple[list[Path], bool]:
    """``(fewest-hop paths from a to b within max_depth, whether timeout cut them short)``."""
    clock = Clock(timeout)
    found: list[Path] = []
    sym = symmetric_relations(G)
    try:
        for nodes in nx.all_shortest_paths(nx_view(G, direction, rel_types), a, b):
            if len(nodes) > max_depth + 1:
                break
            if clock.over():
                return found, True
            hops = [[(r, f) for n, r, f in nx_steps(G, u, direction, rel_types) if n == v]
                    for u, v in itertools.pairwise(nodes)]
            for c in itertools.product(*hops):          # parallel edges multiply the paths
                if clock.over():
                    return found, True
                found.append(Path(tuple(nodes), tuple(r for r, _ in c), tuple(f for _, f in c), sym))
                if len(found) > traversal.MAX_PATHS:              # one more than the cap: the result is cut
                    return found, False
    except nx.NetworkXNoPath:
        pass
    return found, False


def nx_neighbors(G, a, depth, direction, rel_types, timeout):
    """Breadth-first ``({node: fewest hops}, stats)`` within ``depth`` of ``a``."""
    stats = TraversalStats(backend="networkx")
    clock = Clock(timeout)
    dist = {a: 0}
    try:
        for u, v in nx.generic_bfs_edges(G, a, _stepper(G, direction, rel_types, clock), depth_limit=depth):
            dist[v] = dist[u] + 1
        del dist[a]
        # like the database, report the start node when a cycle of <= depth hops returns to it
        cyc = nx_cycle_length(G, a, depth, direction, rel_types, clock)
        if cyc is not None:
            dist[a] = cyc
    except TimeoutError:
        stats.timed_out = True
        dist.pop(a, None)
    stats.explored = stats.returned = len(dist)
    stats.seconds = clock.elapsed()
    return dist, stats


def nx_cycle_length(G, a, depth, direction, rel_types, clock) -> int | None:
    """Length of the shortest cycle through ``a`` of at most ``depth`` edges, else None."""
    best = None
    for x, rel, forward in nx_steps(G, a, direction, rel_types):
        if x == a:                      # a loop: a cycle of one edge
            return 1
        step = _stepper(G, direction, rel_types, clock, skip=(x, a, rel, not forward))
        dist = {x: 1}
        for u, v in nx.generic_bfs_edges(G, x, step, depth_limit=(best or depth + 1) - 2):
            dist[v] = dist[u] + 1
            if v == a:
                best = dist[v]
                break
    return best
