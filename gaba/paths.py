"""Multi-hop paths between two entities: enumeration, scoring, ranking, beam search.

Chapter *Multi-hop queries in a graph database*. ``G`` is a NetworkX MultiDiGraph with a ``relation``
on each edge, or a :class:`gaba.store.FalkorStore` holding it (same paths).
"""
from __future__ import annotations

import math
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from .checks import check_positive_int
from .entities import is_store
from .errors import NoPath
from .nxpaths import nx_neighbors, nx_paths, nx_shortest, nx_steps
from . import traversal
from .traversal import (MAX_DEPTH, Neighborhood, Path, PathResult, TraversalStats, TruncatedResult,
                        _check_cycles, _check_depth, _check_direction, _check_limit, _check_rel_types,
                        _check_timeout, _is_number, _sorted, edge_weights, resolve, symmetric_relations)

#: Weight of a relation type missing from the weights table.
DEFAULT_WEIGHT = 0.5


def _checked(G, depth, direction, timeout, rel_types, what="max_depth") -> tuple:
    """``(depth, direction, timeout, rel_types)`` checked (ValueError or TypeError before any query)."""
    _walkable(G)
    return (_check_depth(depth, what), _check_direction(direction), _check_timeout(timeout),
            _check_rel_types(G, rel_types))


def _walkable(G) -> None:
    """Raise TypeError unless ``G`` is a store or a NetworkX MultiDiGraph (the graph paths walk)."""
    if not is_store(G) and not (getattr(G, "is_directed", bool)() and getattr(G, "is_multigraph", bool)()):
        raise TypeError(f"path search walks a networkx MultiDiGraph (as build_knowledge_graph and load_graph "
                        f"return) or a FalkorStore, not a {type(G).__name__}; convert yours with "
                        f"networkx.MultiDiGraph(G).")


def _two_nodes(G, a: str, b: str) -> tuple[str, str]:
    """``a`` and ``b`` resolved to graph nodes (aliases allowed); they must differ."""
    a, b = resolve(G, a), resolve(G, b)
    if a == b:
        raise ValueError(f"a and b are both {a!r}; ask for two different nodes "
                         "(use neighbors() to see what surrounds one node).")
    return a, b


def expand(G, nodes: Iterable[str], direction: str, rel_types, timeout: float) -> dict[str, list]:
    """One hop out of each node (unchecked arguments): ``{node: [(neighbor, relation, forward), ...]}``."""
    if is_store(G):
        return G._expand(list(nodes), direction=direction, rel_types=rel_types, timeout=timeout)
    return {n: nx_steps(G, n, direction, rel_types) for n in nodes}


def _sort_paths(paths: list[Path]) -> list[Path]:
    return _sorted(paths, lambda p, text: (p.hops, text(p.nodes), p.rels, p.forward))


def paths_between(G: Any, a: str, b: str, *, max_depth: int = 4, direction: str = "both",
                  rel_types: Sequence[str] | None = None, limit: int | None = 1000,
                  timeout: float = 10.0, cycles: str = "prune") -> PathResult:
    """All paths from ``a`` to ``b`` of 1 to ``max_depth`` hops, sorted by hops then names.

    ``limit`` counts returned paths (``stats.truncated`` says more existed). ``cycles``: ``"prune"``
    (simple paths, as Cypher), ``"detect"`` (drop cyclic walks, counted) or ``"keep"``.

    >>> from gaba.data.westeros import load_westeros
    >>> r = paths_between(load_westeros(), "Aerys II", "Daenerys", max_depth=3, cycles="detect")
    >>> r.stats.explored, r.stats.cyclic_pruned, r.stats.returned
    (69, 46, 23)
    """
    limit, cycles = _check_limit(limit), _check_cycles(cycles)
    max_depth, direction, timeout, rel_types = _checked(G, max_depth, direction, timeout, rel_types)
    a, b = _two_nodes(G, a, b)
    if is_store(G):
        found, stats = G._paths(a, b, max_depth=max_depth, direction=direction, rel_types=rel_types,
                                limit=limit, timeout=timeout, cycles=cycles)
    else:
        found, stats = nx_paths(G, a, b, max_depth, direction, rel_types, limit, timeout, cycles)
    found = _sort_paths(found)
    stats.returned = len(found)
    return PathResult(found, stats)


def score_path(path: Path, weights: dict[str, float] | None = None, decay: float = 0.8) -> float:
    """``decay ** hops`` times the product of the path's relation weights (:data:`DEFAULT_WEIGHT` if missing).

    >>> p = Path(("Arya Stark", "Sansa Stark", "Tyrion Lannister"), ("SIBLING_OF", "MARRIED_TO"), (True, False))
    >>> round(score_path(p, {"SIBLING_OF": 0.8, "MARRIED_TO": 0.9}), 4)       # 0.8**2 * 0.8 * 0.9
    0.4608
    """
    if not isinstance(path, Path):
        raise TypeError(f"score_path scores a gaba.traversal.Path (as paths_between returns), not {path!r}.")
    if isinstance(decay, bool) or not isinstance(decay, (int, float)) or not 0 < decay <= 1:
        raise ValueError(f"decay={decay!r} must be a number in (0, 1].")
    if weights is not None and not isinstance(weights, Mapping):
        raise TypeError(f"weights must map relation types to numbers, such as {{'OWNS': 0.9}}, not {weights!r}.")
    w = weights or {}
    bad = [r for r in path.rels if r in w and not _is_number(w[r])]
    if bad:
        raise ValueError(f"the weight of {bad[0]!r} is {w[bad[0]]!r}; give each relation type a number.")
    return _score(path, w, decay)


def _score(path: Path, weights: Mapping[str, float], decay: float = 0.8) -> float:
    """:func:`score_path` without its checks, for weights and a decay checked once."""
    return math.prod((weights.get(rel, DEFAULT_WEIGHT) for rel in path.rels), start=decay ** path.hops)


#: Decimal places to which scores are compared in :func:`rank_paths` (0.8 * 0.9 * 0.8 != 0.8 * 0.8 * 0.9).
TIE_DECIMALS = 12


def _rank_key(scored: tuple[Path, float], text=lambda nodes: nodes) -> tuple:
    """Best score first, then fewer hops, names, relations."""
    p, s = scored
    return (-round(s, TIE_DECIMALS), p.hops, text(p.nodes), p.rels)


def _check_scorer(scorer) -> None:
    if not callable(scorer):
        raise TypeError(f"scorer must be a function from a Path to a number, not {scorer!r}.")


def _score_with(scorer: Callable[[Path], float], p: Path) -> float:
    """``scorer(p)``; ValueError unless it is a number."""
    s = scorer(p)
    if not _is_number(s):
        raise ValueError(f"the scorer gave {s!r} for the path {p}; it must return a number (not NaN).")
    return s


def _scored(paths: Iterable[Path], scorer: Callable[[Path], float]) -> list[tuple[Path, float]]:
    """``(path, score)`` pairs; TypeError/ValueError unless ``scorer`` gives each path a number."""
    _check_scorer(scorer)
    out = []
    for p in paths:
        if not isinstance(p, Path):
            raise TypeError(f"rank_paths ranks gaba.traversal.Path objects (as paths_between returns), not {p!r}.")
        out.append((p, _score_with(scorer, p)))
    return out


def rank_paths(paths: Iterable[Path], *, scorer: Callable[[Path], float] | None = None,
               weights: dict[str, float] | None = None, k: int | None = None) -> list[tuple[Path, float]]:
    """``(path, score)`` pairs, best first (top ``k`` if given); default scorer :func:`score_path`.

    Ties go to fewer hops, then names, then relations, so the order never depends on the backend.
    """
    check_positive_int("k", k, allow_none=True, hint="how many paths to keep (None: every path).")
    if isinstance(paths, (str, bytes, Path)) or not isinstance(paths, Iterable):
        raise TypeError(f"rank_paths needs a list of paths (or a PathResult), not {paths!r}.")
    scorer = scorer or (lambda p: score_path(p, weights))
    return _sorted(_scored(paths, scorer), _rank_key)[:k]      # [:None] keeps them all


def graph_scorer(G) -> Callable[[Path], float]:
    """:func:`score_path` with the graph's ``edge_weights``; default scorer of :func:`top_paths`."""
    weights = edge_weights(G)                   # checked here, once, not on every path scored
    return lambda p: _score(p, weights) if isinstance(p, Path) else score_path(p, weights)


def top_paths(G: Any, a: str, b: str, *, k: int = 10, max_depth: int = 4, direction: str = "both",
              rel_types: Sequence[str] | None = None, limit: int | None = 1000, timeout: float = 10.0,
              scorer: Callable[[Path], float] | None = None) -> PathResult:
    """The seatbelt: a depth limit, a LIMIT on the query, then keep the ``k`` best-scoring paths.

    >>> from gaba.data.westeros import load_westeros
    >>> r = top_paths(load_westeros(), "Arya Stark", "Tyrion Lannister", k=1, max_depth=3)
    >>> print(r.paths[0])
    Arya Stark -SIBLING_OF- Sansa Stark -MARRIED_TO- Tyrion Lannister
    """
    check_positive_int("k", k)
    res = paths_between(G, a, b, max_depth=max_depth, direction=direction, rel_types=rel_types,
                        limit=limit, timeout=timeout)
    t0 = time.perf_counter()
    ranked = rank_paths(res.paths, scorer=scorer or graph_scorer(G), k=k)
    res.stats.seconds += time.perf_counter() - t0
    res.stats.returned = len(ranked)
    return PathResult([p for p, _ in ranked], res.stats, [s for _, s in ranked])


def beam_search(G: Any, a: str, b: str, *, beam_width: int = 10, max_depth: int = 4,
                direction: str = "both", rel_types: Sequence[str] | None = None,
                scorer: Callable[[Path], float] | None = None, timeout: float = 10.0) -> PathResult:
    """Best-first search keeping the ``beam_width`` best partial paths per depth (may miss a path
    whose prefix scored badly). Returns up to ``beam_width`` complete paths with ``scores``.
    """
    if isinstance(beam_width, bool) or not isinstance(beam_width, int) or not 1 <= beam_width <= 10_000:
        raise ValueError(f"beam_width={beam_width!r} must be an integer from 1 to 10,000.")
    max_depth, direction, timeout, rel_types = _checked(G, max_depth, direction, timeout, rel_types)
    a, b = _two_nodes(G, a, b)
    scorer = scorer or graph_scorer(G)
    _check_scorer(scorer)                       # once: the loop below scores every extension
    stats = TraversalStats(backend="falkordb" if is_store(G) else "networkx")
    t0 = time.perf_counter()
    frontier = [Path((a,), symmetric=symmetric_relations(G))]
    complete: list[tuple[Path, float]] = []
    for _ in range(max_depth):
        remaining = timeout - (time.perf_counter() - t0)
        if remaining <= 0:
            stats.timed_out = True
            break
        try:
            ends = _sorted({p.end for p in frontier}, lambda n, text: text((n,)))
            steps = expand(G, ends, direction, rel_types, remaining)
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
                s = _score_with(scorer, q)
                stats.explored += 1
                (complete if nbr == b else candidates).append((q, s))
        frontier = [p for p, _ in _sorted(candidates, _rank_key)[:beam_width]]
        if not frontier:
            break
    complete = _sorted(complete, _rank_key)[:beam_width]
    stats.returned = len(complete)
    stats.seconds = time.perf_counter() - t0
    return PathResult([p for p, _ in complete], stats, [s for _, s in complete])


def shortest_paths(G: Any, a: str, b: str, *, max_depth: int = MAX_DEPTH, direction: str = "both",
                   rel_types: Sequence[str] | None = None, timeout: float = 10.0) -> PathResult:
    """Every fewest-hop path from ``a`` to ``b``; raises NoPath when none within ``max_depth``."""
    max_depth, direction, timeout, rel_types = _checked(G, max_depth, direction, timeout, rel_types)
    a, b = _two_nodes(G, a, b)
    t0, timed_out = time.perf_counter(), False
    if is_store(G):
        found = G._shortest(a, b, max_depth=max_depth, direction=direction, rel_types=rel_types, timeout=timeout)
    else:
        found, timed_out = nx_shortest(G, a, b, max_depth, direction, rel_types, timeout)
    if not found and not timed_out:
        raise NoPath(f"No path between {a!r} and {b!r} within {max_depth} hops; "
                     "raise max_depth or allow more relation types.")
    cap = traversal.MAX_PATHS                     # read at call time: one cap for every backend
    truncated = len(found) > cap
    if truncated:
        found = found[:cap]
        warnings.warn(f"shortest_paths stopped at {cap:,} paths (gaba.traversal.MAX_PATHS): parallel "
                      "edges multiply them, so the result is incomplete (stats.truncated is set). Pass "
                      "rel_types, or rank with top_paths.", TruncatedResult, stacklevel=2)
    stats = TraversalStats(backend="falkordb" if is_store(G) else "networkx", explored=len(found),
                           returned=len(found), seconds=time.perf_counter() - t0, timed_out=timed_out,
                           queries=int(is_store(G)), truncated=truncated)
    return PathResult(_sort_paths(found), stats)


def neighbors(G: Any, a: str, *, depth: int = 1, direction: str = "both",
              rel_types: Sequence[str] | None = None, timeout: float = 10.0) -> Neighborhood:
    """Everything within ``depth`` hops of ``a``, with the fewest hops to each.

    >>> from gaba.data.westeros import load_westeros, PARENT_RELATIONS
    >>> neighbors(load_westeros(), "Jon Snow", direction="in", rel_types=PARENT_RELATIONS).names()
    ['Lyanna Stark', 'Rhaegar Targaryen']
    """
    depth, direction, timeout, rel_types = _checked(G, depth, direction, timeout, rel_types, "depth")
    a = resolve(G, a)
    if is_store(G):
        dist, stats = G._neighbors(a, depth=depth, direction=direction, rel_types=rel_types, timeout=timeout)
    else:
        dist, stats = nx_neighbors(G, a, depth, direction, rel_types, timeout)
    return Neighborhood(a, dict(_sorted(dist.items(), lambda kv, text: (kv[1], text((kv[0],))))), stats)
