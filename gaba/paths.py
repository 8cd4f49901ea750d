"""Multi-hop paths between two entities: bounded enumeration, scoring, beam search, cycles, direction.

Taught in chapter *Multi-hop queries in a graph database*.

Every function takes a graph first, and the graph may be either a NetworkX graph
(a :class:`networkx.MultiDiGraph` whose edges carry a ``relation`` attribute, such as
:func:`gaba.data.westeros.load_westeros`) or a :class:`gaba.store.FalkorStore` holding the same
graph in FalkorDB. Both give the same paths; the database runs the traversal in one Cypher query,
NetworkX the functions of :mod:`gaba.nxpaths`. The results, limits and argument checks are those
of :mod:`gaba.traversal`.

- :func:`paths_between` lists the paths between two nodes up to ``max_depth`` hops, with a
  ``limit`` and a ``timeout``, and counts what it explored and what it pruned
  (:class:`~gaba.traversal.TraversalStats`). ``cycles`` chooses how cycles are handled:
  ``"prune"`` never steps onto a node already on the path (what FalkorDB's variable-length
  patterns do) and drops the few returned paths that still revisit the target; ``"detect"``
  enumerates every walk (as a naive traversal or a fixed-length Cypher pattern does) and drops
  the cyclic ones afterwards, counting them; ``"keep"`` returns the walks, cycles included.
- :func:`score_path` scores a path by its relation types and a per-hop decay;
  :func:`rank_paths` and :func:`top_paths` rank them; :func:`beam_search` keeps only the best
  ``beam_width`` partial paths at each depth.
- :func:`neighbors` walks outward from one node: ``direction="in"`` over ``FATHER_OF`` and
  ``MOTHER_OF`` gives ancestors, ``"out"`` descendants, ``"both"`` everything.

Examples
--------
>>> from gaba.data.westeros import load_westeros
>>> G = load_westeros()
>>> res = paths_between(G, "Jon Snow", "Daenerys Targaryen", max_depth=2)
>>> print(res.paths[0])
Jon Snow <-FATHER_OF- Rhaegar Targaryen -SIBLING_OF- Daenerys Targaryen
>>> round(score_path(res.paths[0]), 3)
0.512
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .data.westeros import EDGE_WEIGHTS
from .entities import is_store
from .errors import NoPath
from .nxpaths import nx_neighbors, nx_paths, nx_steps
from .traversal import (MAX_DEPTH, Neighborhood, Path, PathResult, TraversalStats, _check_cycles,
                        _check_depth, _check_direction, _check_limit, _check_rel_types, _check_timeout,
                        resolve)

#: Weight of a relation type missing from the weights table.
DEFAULT_WEIGHT = 0.5


def expand(G, nodes: Iterable[str], direction: str, rel_types, timeout: float) -> dict[str, list]:
    """One hop out of each node, on either backend: ``{node: [(neighbor, relation, forward), ...]}``.

    Arguments are not checked (the callers have): ``rel_types`` is None or a tuple of types.
    """
    if is_store(G):
        return G._expand(list(nodes), direction=direction, rel_types=rel_types, timeout=timeout)
    return {n: nx_steps(G, n, direction, rel_types) for n in nodes}


def _sort_paths(paths: list[Path]) -> list[Path]:
    return sorted(paths, key=lambda p: (p.hops, p.nodes, p.rels, p.forward))


def paths_between(G: Any, a: str, b: str, *, max_depth: int = 4, direction: str = "both",
                  rel_types: Sequence[str] | None = None, limit: int | None = 1000,
                  timeout: float = 10.0, cycles: str = "prune") -> PathResult:
    """All paths from ``a`` to ``b`` of 1 to ``max_depth`` hops (bounded, with statistics).

    Taught in chapter *Multi-hop queries in a graph database*.

    Parameters
    ----------
    G : networkx.MultiDiGraph or gaba.store.FalkorStore
        The graph; edges carry a ``relation`` attribute (NetworkX) or type (FalkorDB).
    a, b : str
        Names or aliases of the two end nodes (resolved with :func:`~gaba.traversal.resolve`).
    max_depth : int
        Most hops in a path, 1 to :data:`~gaba.traversal.MAX_DEPTH` (more is rejected: paths explode).
    direction : {"both", "out", "in"}
        ``"out"`` follows edges as stored, ``"in"`` against, ``"both"`` either way.
    rel_types : list of str, optional
        Follow only these relation types (validated against the graph's types).
    limit : int or None
        Return at most this many paths (which ones depends on the engine's order; rank
        afterwards). It counts returned paths only, never candidates dropped as cyclic, and
        ``stats.truncated`` says that more existed - the same on both backends. None means up to
        :data:`~gaba.traversal.MAX_PATHS`, with a :class:`~gaba.traversal.TruncatedResult` warning if that cap is reached.
    timeout : float
        Seconds; a traversal that runs longer is cancelled and ``stats.timed_out`` is set.
    cycles : {"prune", "detect", "keep"}
        ``"prune"``: never step onto a node already on the path, as FalkorDB's ``-[*1..k]-``
        does; that pattern still lets a path reach ``b``, leave and come back to ``b`` by
        another edge, so such returned paths are dropped too and counted in
        ``stats.cyclic_pruned``. Only simple paths are returned. ``"detect"``: enumerate every walk
        up to ``max_depth`` (a walk may go back and forth), then drop the cyclic ones and count
        them in ``stats.cyclic_pruned``. ``"keep"``: return all walks, cycles included.

    Returns
    -------
    PathResult
        ``paths`` sorted by hops then names (deterministic on both backends) and ``stats``.

    Raises
    ------
    EntityNotFound
        ``a`` or ``b`` is not a node (the message suggests close names).
    ValueError, TypeError
        An option is out of range; nothing is queried.
    gaba.errors.StoreError
        The database is unreachable or died (FalkorDB backend).

    Examples
    --------
    >>> from gaba.data.westeros import load_westeros
    >>> G = load_westeros()
    >>> r = paths_between(G, "Aerys II", "Daenerys", max_depth=3, cycles="detect")
    >>> r.stats.explored, r.stats.cyclic_pruned, r.stats.returned
    (69, 46, 23)
    """
    max_depth = _check_depth(max_depth)
    direction = _check_direction(direction)
    limit = _check_limit(limit)
    timeout = _check_timeout(timeout)
    cycles = _check_cycles(cycles)
    rel_types = _check_rel_types(G, rel_types)
    a, b = resolve(G, a), resolve(G, b)
    if a == b:
        raise ValueError(f"a and b are both {a!r}; ask for two different nodes "
                         "(use neighbors() to see what surrounds one node).")
    if is_store(G):
        found, stats = G._paths(a, b, max_depth=max_depth, direction=direction, rel_types=rel_types,
                                limit=limit, timeout=timeout, cycles=cycles)
    else:
        found, stats = nx_paths(G, a, b, max_depth, direction, rel_types, limit, timeout, cycles)
    found = _sort_paths(found)
    stats.returned = len(found)
    return PathResult(found, stats)


def score_path(path: Path, weights: dict[str, float] | None = None, decay: float = 0.8) -> float:
    """Score a path: ``decay ** hops`` times the product of its relation weights.

    Taught in chapter *Multi-hop queries in a graph database*.

    Longer paths score lower (``decay`` per hop) and weak relations (``MET_ONCE``: 0.1) score far
    lower than family ties (``FATHER_OF``: 1.0). ``weights`` defaults to the family graph's
    :data:`gaba.data.westeros.EDGE_WEIGHTS`; relation types missing from it count
    :data:`DEFAULT_WEIGHT`.

    Examples
    --------
    >>> p = Path(("Arya Stark", "Sansa Stark", "Tyrion Lannister"), ("SIBLING_OF", "MARRIED_TO"), (True, False))
    >>> round(score_path(p), 4)       # 0.8**2 * 0.8 * 0.9
    0.4608
    """
    if not 0 < decay <= 1:
        raise ValueError(f"decay={decay} must be in (0, 1].")
    w = EDGE_WEIGHTS if weights is None else weights
    s = decay ** path.hops
    for rel in path.rels:
        s *= w.get(rel, DEFAULT_WEIGHT)
    return s


#: Scores equal to this many decimal places are a tie in :func:`rank_paths` (the same weights
#: multiplied in another order can differ in the last bit: 0.8 * 0.9 * 0.8 != 0.8 * 0.8 * 0.9).
TIE_DECIMALS = 12


def _rank_key(scored: tuple[Path, float]) -> tuple:
    """Sort key of a ``(path, score)`` pair: best score first, then fewer hops, names, relations."""
    p, s = scored
    return (-round(s, TIE_DECIMALS), p.hops, p.nodes, p.rels)


def rank_paths(paths: Iterable[Path], *, scorer: Callable[[Path], float] | None = None,
               k: int | None = None) -> list[tuple[Path, float]]:
    """``(path, score)`` pairs, best score first; the top ``k`` if given.

    Taught in chapter *Multi-hop queries in a graph database*.

    Ties are common, because a score is a product of a few round numbers: a two-hop path through
    a sibling (0.8² × 1.0 × 0.8) and a three-hop path of parent links (0.8³ × 1.0 × 1.0 × 1.0)
    both score 0.512. Paths whose scores agree to :data:`TIE_DECIMALS` decimal places are tied,
    and a tie is broken by **fewer hops first**, then by the names along the path, then by the
    relation types. So the ranking never depends on the order in which the database returned
    the paths, and of two equally good explanations the shorter comes first. :func:`top_paths`
    and :func:`beam_search` rank the same way.

    Examples
    --------
    >>> aunt = Path(("Jon", "Rhaegar", "Daenerys"), ("FATHER_OF", "SIBLING_OF"), (False, True))
    >>> grandfather = Path(("Jon", "Rhaegar", "Aerys", "Daenerys"),
    ...                    ("FATHER_OF", "FATHER_OF", "FATHER_OF"), (False, False, True))
    >>> [(p.hops, round(s, 3)) for p, s in rank_paths([grandfather, aunt])]
    [(2, 0.512), (3, 0.512)]
    """
    scorer = scorer or score_path
    scored = [(p, scorer(p)) for p in paths]
    scored.sort(key=_rank_key)
    return scored if k is None else scored[:k]


def top_paths(G: Any, a: str, b: str, *, k: int = 10, max_depth: int = 4, direction: str = "both",
              rel_types: Sequence[str] | None = None, limit: int | None = 1000, timeout: float = 10.0,
              scorer: Callable[[Path], float] | None = None) -> PathResult:
    """The seatbelt: a depth limit, a LIMIT on the query, then keep the ``k`` best-scoring paths.

    Taught in chapter *Multi-hop queries in a graph database*. ``stats.explored`` is how many
    paths the query returned, ``stats.returned`` how many survived the ranking.

    Examples
    --------
    >>> from gaba.data.westeros import load_westeros
    >>> r = top_paths(load_westeros(), "Arya Stark", "Tyrion Lannister", k=1, max_depth=3)
    >>> print(r.paths[0])
    Arya Stark -SIBLING_OF- Sansa Stark -MARRIED_TO- Tyrion Lannister
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k={k!r} must be a positive integer.")
    res = paths_between(G, a, b, max_depth=max_depth, direction=direction, rel_types=rel_types,
                        limit=limit, timeout=timeout)
    t0 = time.perf_counter()
    ranked = rank_paths(res.paths, scorer=scorer, k=k)
    res.stats.seconds += time.perf_counter() - t0
    res.stats.returned = len(ranked)
    return PathResult([p for p, _ in ranked], res.stats, [s for _, s in ranked])


def beam_search(G: Any, a: str, b: str, *, beam_width: int = 10, max_depth: int = 4,
                direction: str = "both", rel_types: Sequence[str] | None = None,
                scorer: Callable[[Path], float] | None = None, timeout: float = 10.0) -> PathResult:
    """Best-first search that keeps only the ``beam_width`` best partial paths at each depth.

    Taught in chapter *Multi-hop queries in a graph database*.

    At each depth every kept partial path is extended by one hop (never onto a node already on
    it: those steps are counted in ``stats.cyclic_pruned``); extensions that reach ``b`` are
    complete, the others are scored with ``scorer`` and only the best ``beam_width`` survive.
    The work per depth is bounded by ``beam_width`` times the branching factor, instead of
    growing exponentially. It may miss a path whose prefix scored badly. On FalkorDB each depth
    is one query.

    Returns
    -------
    PathResult
        Up to ``beam_width`` complete paths, best score first, with ``scores``;
        ``stats.explored`` counts the partial paths scored.

    Examples
    --------
    >>> from gaba.data.westeros import load_westeros
    >>> r = beam_search(load_westeros(), "Arya", "Tyrion", beam_width=10, max_depth=3)
    >>> print(r.paths[0]); round(r.scores[0], 2)
    Arya Stark -SIBLING_OF- Sansa Stark -MARRIED_TO- Tyrion Lannister
    0.46
    """
    if isinstance(beam_width, bool) or not isinstance(beam_width, int) or not 1 <= beam_width <= 10_000:
        raise ValueError(f"beam_width={beam_width!r} must be an integer from 1 to 10,000.")
    max_depth = _check_depth(max_depth)
    direction = _check_direction(direction)
    timeout = _check_timeout(timeout)
    rel_types = _check_rel_types(G, rel_types)
    a, b = resolve(G, a), resolve(G, b)
    if a == b:
        raise ValueError(f"a and b are both {a!r}; ask for two different nodes.")
    scorer = scorer or score_path
    stats = TraversalStats(backend="falkordb" if is_store(G) else "networkx")
    t0 = time.perf_counter()
    frontier = [Path((a,))]
    complete: list[tuple[Path, float]] = []
    for _ in range(max_depth):
        remaining = timeout - (time.perf_counter() - t0)
        if remaining <= 0:
            stats.timed_out = True
            break
        try:
            steps = expand(G, sorted({p.end for p in frontier}), direction, rel_types, remaining)
        except TimeoutError:
            stats.timed_out = True
            break
        stats.queries += 1 if is_store(G) else 0
        candidates: list[tuple[Path, float]] = []
        for p in frontier:
            on_path = set(p.nodes)
            for nbr, rel, fwd in steps.get(p.end, ()):
                if nbr in on_path:
                    stats.cyclic_pruned += 1
                    continue
                q = p.extend(nbr, rel, fwd)
                s = scorer(q)
                stats.explored += 1
                (complete if nbr == b else candidates).append((q, s))
        candidates.sort(key=_rank_key)
        frontier = [p for p, _ in candidates[:beam_width]]
        if not frontier:
            break
    complete.sort(key=_rank_key)
    complete = complete[:beam_width]
    stats.returned = len(complete)
    stats.seconds = time.perf_counter() - t0
    return PathResult([p for p, _ in complete], stats, [s for _, s in complete])


def shortest_paths(G: Any, a: str, b: str, *, max_depth: int = MAX_DEPTH, direction: str = "both",
                   rel_types: Sequence[str] | None = None, timeout: float = 10.0) -> PathResult:
    """Every path with the fewest hops from ``a`` to ``b`` (Cypher's ``allShortestPaths``).

    Taught in chapter *Multi-hop queries in a graph database*.

    Raises
    ------
    NoPath
        No path within ``max_depth`` hops.
    """
    max_depth = _check_depth(max_depth)
    if is_store(G):
        direction = _check_direction(direction)
        timeout = _check_timeout(timeout)
        rel_types = _check_rel_types(G, rel_types)
        a, b = resolve(G, a), resolve(G, b)
        if a == b:
            raise ValueError(f"a and b are both {a!r}; ask for two different nodes.")
        t0 = time.perf_counter()
        found = _sort_paths(G._shortest(a, b, max_depth=max_depth, direction=direction,
                                        rel_types=rel_types, timeout=timeout))
        if not found:
            raise NoPath(f"No path between {a!r} and {b!r} within {max_depth} hops; "
                         "raise max_depth or allow more relation types.")
        stats = TraversalStats(backend="falkordb", explored=len(found), returned=len(found),
                               seconds=time.perf_counter() - t0, queries=1)
        return PathResult(found, stats)
    for depth in range(1, max_depth + 1):
        res = paths_between(G, a, b, max_depth=depth, direction=direction, rel_types=rel_types,
                            limit=None, timeout=timeout)
        if res.stats.timed_out:
            return res
        if res.paths:
            shortest = [p for p in res.paths if p.hops == depth]
            res.stats.returned = len(shortest)
            return PathResult(shortest, res.stats)
    raise NoPath(f"No path between {resolve(G, a)!r} and {resolve(G, b)!r} within {max_depth} hops; "
                 "raise max_depth or allow more relation types.")


def neighbors(G: Any, a: str, *, depth: int = 1, direction: str = "both",
              rel_types: Sequence[str] | None = None, timeout: float = 10.0) -> Neighborhood:
    """Everything within ``depth`` hops of ``a``, with the fewest hops to each.

    Taught in chapter *Multi-hop queries in a graph database*.

    With ``rel_types=("FATHER_OF", "MOTHER_OF")``, ``direction="in"`` gives the ancestors and
    ``"out"`` the descendants; ``"both"`` mixes in siblings, cousins and in-laws. As in Cypher's
    ``MATCH (a)-[*1..depth]-(b) RETURN DISTINCT b``, the start node itself is included when a
    cycle of at most ``depth`` hops leads back to it (its value is that cycle's length).

    Examples
    --------
    >>> from gaba.data.westeros import load_westeros, PARENT_RELATIONS
    >>> G = load_westeros()
    >>> neighbors(G, "Jon Snow", depth=1, direction="in", rel_types=PARENT_RELATIONS).names()
    ['Lyanna Stark', 'Rhaegar Targaryen']
    >>> len(neighbors(G, "Jon Snow", depth=4, direction="out", rel_types=PARENT_RELATIONS))
    0
    """
    depth = _check_depth(depth, "depth")
    direction = _check_direction(direction)
    timeout = _check_timeout(timeout)
    rel_types = _check_rel_types(G, rel_types)
    a = resolve(G, a)
    if is_store(G):
        dist, stats = G._neighbors(a, depth=depth, direction=direction, rel_types=rel_types,
                                   timeout=timeout)
    else:
        dist, stats = nx_neighbors(G, a, depth, direction, rel_types, timeout)
    return Neighborhood(a, dict(sorted(dist.items(), key=lambda kv: (kv[1], kv[0]))), stats)
