"""Path search on a NetworkX graph: the in-memory backend of :mod:`gaba.paths`.

Taught in chapter *Multi-hop queries in a graph database*. It returns the same paths, counted
the same way, as the FalkorDB backend (:mod:`gaba.cypher_paths`); arguments arrive already checked.
"""
from __future__ import annotations

import functools
import time
from collections import deque

from . import traversal
from .traversal import Path, TraversalStats, _warn_capped


def nx_steps(G, node: str, direction: str, rel_types: tuple[str, ...] | None):
    """``(neighbor, relation, forward)`` for every edge at ``node`` in ``direction``, out-edges first.

    Examples
    --------
    >>> from gaba.data.westeros import load_westeros
    >>> nx_steps(load_westeros(), "Jon Snow", "in", ("FATHER_OF",))
    [('Rhaegar Targaryen', 'FATHER_OF', False)]
    """
    out = []
    for adjacency, forward in ((G.succ, True), (G.pred, False)):
        if direction != "both" and forward != (direction == "out"):
            continue
        for nbr, keyed in adjacency[node].items():
            for k, d in keyed.items():
                r = d.get("relation", k)
                if rel_types is None or r in rel_types:
                    out.append((nbr, r, forward))
    return out


class Clock:
    """A deadline checked every 1,024 steps (reading the clock at every step would cost more)."""

    def __init__(self, timeout: float):
        self.t0 = time.perf_counter()
        self.deadline = self.t0 + timeout
        self.ticks = 0

    def over(self) -> bool:
        self.ticks += 1
        return (self.ticks & 1023) == 0 and time.perf_counter() > self.deadline

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0


def nx_paths(G, a, b, max_depth, direction, rel_types, limit, timeout, cycles):
    """Depth-first ``(paths, stats)`` from ``a`` to ``b``, exactly what FalkorDB returns.

    ``cycles="prune"`` mirrors a Cypher variable-length pattern: no step lands on a node already
    on the path, except that a path may come back to ``b`` by another edge (counted and dropped).
    The other modes enumerate walks. One path beyond ``limit`` is looked for, to set
    ``stats.truncated``.
    """
    stats = TraversalStats(backend="networkx")
    clock = Clock(timeout)
    found: list[Path] = []
    naive = cycles != "prune"
    cap = limit if limit is not None else traversal.MAX_PATHS    # read at call time: one cap
    row_cap = traversal.MAX_PATHS if cycles == "detect" else None
    steps = functools.cache(lambda n: nx_steps(G, n, direction, rel_types))
    stack = [(a, (a,), (), (), frozenset((a,)))]
    try:
        while stack:
            node, nodes, rels, fwd, on_path = stack.pop()
            depth = len(rels)
            for nbr, rel, f in steps(node):
                if clock.over():
                    raise TimeoutError
                revisit = nbr in on_path
                if revisit and not naive and nbr != b:
                    continue
                path = Path(nodes + (nbr,), rels + (rel,), fwd + (f,))
                if nbr == b:
                    if revisit and not naive and len(set(path.edges())) != path.hops:
                        continue            # back over the edge it came by: not a path
                    stats.explored += 1
                    if row_cap is not None and stats.explored > row_cap:
                        stats.explored -= 1         # the walk past the cap was not examined
                        stats.truncated = True
                        raise StopIteration
                    if cycles != "keep" and path.is_cyclic:
                        stats.cyclic_pruned += 1
                    else:
                        found.append(path)
                        if len(found) > cap:        # one more than asked for: the result is cut
                            found.pop()
                            stats.explored -= 1
                            stats.truncated = True
                            raise StopIteration
                if depth + 1 < max_depth and (naive or not revisit):
                    stack.append((nbr, path.nodes, path.rels, path.forward,
                                  on_path if naive else on_path | {nbr}))
    except TimeoutError:
        stats.timed_out = True
    except StopIteration:
        pass
    stats.seconds = clock.elapsed()
    if stats.truncated and limit is None:
        _warn_capped("paths_between", traversal.MAX_PATHS)
    return found, stats


def nx_neighbors(G, a, depth, direction, rel_types, timeout):
    """Breadth-first ``({node: fewest hops}, stats)`` within ``depth`` of ``a``."""
    stats = TraversalStats(backend="networkx")
    clock = Clock(timeout)
    dist = {a: 0}
    queue = deque([a])
    try:
        while queue:
            n = queue.popleft()
            if dist[n] >= depth:
                continue
            for nbr, _, _ in nx_steps(G, n, direction, rel_types):
                if clock.over():
                    raise TimeoutError
                if nbr not in dist:
                    dist[nbr] = dist[n] + 1
                    queue.append(nbr)
        del dist[a]
        # like the database, report the start node when a cycle of <= depth hops returns to it
        cyc = nx_cycle_length(G, a, depth, direction, rel_types, clock)
        if cyc is not None:
            dist[a] = cyc
    except TimeoutError:
        stats.timed_out = True
        dist.pop(a, None)
    stats.explored = len(dist)
    stats.returned = len(dist)
    stats.seconds = clock.elapsed()
    return dist, stats


def nx_cycle_length(G, a, depth, direction, rel_types, clock) -> int | None:
    """Length of the shortest simple cycle through ``a`` of at most ``depth`` edges, else None.

    The cycle leaves ``a`` to ``x``, walks to some ``z`` avoiding ``a``, and closes by another edge.
    """
    back = {"out": "in", "in": "out", "both": "both"}[direction]
    closers = nx_steps(G, a, back, rel_types)       # (z, rel, fwd): an edge between a and z
    best = None
    for x, rel1, f1 in nx_steps(G, a, direction, rel_types):
        tails = {z for z, rz, fz in closers if not (z == x and rz == rel1 and fz == f1)}
        if not tails:
            continue
        dist = {x: 0}
        queue = deque([x])
        while queue:
            n = queue.popleft()
            if clock.over():
                raise TimeoutError
            if n in tails:
                length = dist[n] + 2
                if length <= depth and (best is None or length < best):
                    best = length
                break
            if dist[n] + 3 > depth:
                continue
            for nbr, _, _ in nx_steps(G, n, direction, rel_types):
                if nbr != a and nbr not in dist:
                    dist[nbr] = dist[n] + 1
                    queue.append(nbr)
    return best
