"""Multi-hop paths between two entities: bounded enumeration, scoring, beam search, cycles, direction.

Taught in chapter *Multi-hop queries in a graph database*.

Every function takes a graph first, and the graph may be either a NetworkX graph
(a :class:`networkx.MultiDiGraph` whose edges carry a ``relation`` attribute, such as
:func:`gaba.data.westeros.load_westeros`) or a :class:`gaba.store.FalkorStore` holding the same
graph in FalkorDB. Both give the same paths; the database runs the traversal in one Cypher query.

- :func:`paths_between` lists the paths between two nodes up to ``max_depth`` hops, with a
  ``limit`` and a ``timeout``, and counts what it explored and what it pruned
  (:class:`TraversalStats`). ``cycles`` chooses how cycles are handled: ``"prune"`` never steps
  onto a node already on the path (what FalkorDB's variable-length patterns do) and drops the
  few returned paths that still revisit the target; ``"detect"``
  enumerates every walk (as a naive traversal or a fixed-length Cypher pattern does) and drops
  the cyclic ones afterwards, counting them; ``"keep"`` returns the walks, cycles included.
- :func:`score_path` scores a path by its relation types and a per-hop decay;
  :func:`rank_paths` and :func:`top_paths` rank them; :func:`beam_search` keeps only the best
  ``beam_width`` partial paths at each depth.
- :func:`neighbors` walks outward from one node: ``direction="in"`` over ``FATHER_OF`` and
  ``MOTHER_OF`` gives ancestors, ``"out"`` descendants, ``"both"`` everything.
- :func:`multi_hop_query` is the whole pipeline: classify the question, find the two
  characters, traverse, format the best paths, and let the model explain them.

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

import dataclasses
import difflib
import math
import re
import time
import warnings
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from . import prompts
from .data.westeros import RELATIONS
from .errors import EntityNotFound, NoPath
from .llm import call_llm

#: Weight of each relation type in :func:`score_path` (strong family ties near 1, weak ties 0.1).
EDGE_WEIGHTS: dict[str, float] = {
    "FATHER_OF": 1.0,
    "MOTHER_OF": 1.0,
    "MARRIED_TO": 0.9,
    "SIBLING_OF": 0.8,
    "LOVER_OF": 0.7,
    "FOSTERED": 0.6,
    "BETROTHED_TO": 0.5,
    "SERVED": 0.1,
    "WORKED_WITH": 0.1,
    "MET_ONCE": 0.1,
}
#: Weight of a relation type missing from the weights table.
DEFAULT_WEIGHT = 0.5
#: Deepest traversal accepted: path counts grow like (branching factor) ** depth.
MAX_DEPTH = 8
#: Largest ``limit`` accepted.
MAX_LIMIT = 1_000_000
#: Hard cap on the paths one :func:`paths_between` call returns when ``limit=None``, and on the
#: walks ``cycles="detect"`` examines, on both backends: without it memory would be bounded only
#: by the time limit. A result stopped by it has ``stats.truncated`` set and a
#: :class:`TruncatedResult` warning (when ``limit=None``) names the cap.
MAX_PATHS = 100_000
#: Longest ``timeout`` accepted, in seconds.
MAX_TIMEOUT = 600.0
#: The three directions of a traversal.
DIRECTIONS = ("out", "in", "both")
CYCLE_MODES = ("prune", "detect", "keep")
_REL_RE = re.compile(r"^[A-Z][A-Z0-9_]{0,63}$")


# --- results ---------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class Path:
    """A path (or walk) through the graph: ``nodes[i]`` -``rels[i]``- ``nodes[i+1]``.

    ``forward[i]`` is True when the stored edge points from ``nodes[i]`` to ``nodes[i+1]``.
    """

    nodes: tuple[str, ...]
    rels: tuple[str, ...] = ()
    forward: tuple[bool, ...] = ()

    @property
    def hops(self) -> int:
        """Number of edges."""
        return len(self.rels)

    @property
    def start(self) -> str:
        return self.nodes[0]

    @property
    def end(self) -> str:
        return self.nodes[-1]

    @property
    def is_cyclic(self) -> bool:
        """True if a node appears twice (the walk went round a cycle)."""
        return len(set(self.nodes)) != len(self.nodes)

    def key(self) -> tuple:
        """A hashable identity; equal keys mean the same path on any backend."""
        return (self.nodes, self.rels, self.forward)

    def extend(self, node: str, rel: str, forward: bool) -> Path:
        return Path(self.nodes + (node,), self.rels + (rel,), self.forward + (forward,))

    def edges(self) -> list[tuple[str, str, str]]:
        """The edges as stored, ``(source, relation, target)``."""
        out = []
        for i, rel in enumerate(self.rels):
            a, b = self.nodes[i], self.nodes[i + 1]
            out.append((a, rel, b) if self.forward[i] else (b, rel, a))
        return out

    def __len__(self) -> int:
        return self.hops

    def __str__(self) -> str:
        parts = [self.nodes[0]]
        for i, rel in enumerate(self.rels):
            arrow = f" -{rel}-> " if self.forward[i] else f" <-{rel}- "
            if _is_symmetric(rel):
                arrow = f" -{rel}- "
            parts.append(arrow + self.nodes[i + 1])
        return "".join(parts)


def _is_symmetric(rel: str) -> bool:
    r = RELATIONS.get(rel)
    return bool(r and r.symmetric)


@dataclasses.dataclass
class TraversalStats:
    """What a traversal did.

    ``explored`` counts the candidate paths (or walks) that reached the target (for
    :func:`beam_search`: the partial paths it scored; for :func:`neighbors`: the nodes reached);
    ``cyclic_pruned`` those dropped because they visit a node twice; ``returned`` what the
    caller got back. ``truncated`` is True when more paths existed than were returned (``limit``,
    or :data:`MAX_PATHS` for ``limit=None``, stopped the enumeration; the same rule on both
    backends), and ``timed_out`` when ``timeout`` stopped it (the result then holds what was found
    before, possibly nothing).
    """

    backend: str = "networkx"
    explored: int = 0
    cyclic_pruned: int = 0
    returned: int = 0
    seconds: float = 0.0
    timed_out: bool = False
    truncated: bool = False
    queries: int = 0              # database round trips (0 on NetworkX)

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        flags = (" TIMED OUT" if self.timed_out else "") + (" (limit reached)" if self.truncated else "")
        return (f"{self.backend}: explored {self.explored}, cyclic pruned {self.cyclic_pruned}, "
                f"returned {self.returned} in {self.seconds * 1000:.1f} ms{flags}")


@dataclasses.dataclass
class PathResult:
    """Paths plus how they were found. Iterating yields the paths."""

    paths: list[Path]
    stats: TraversalStats
    scores: list[float] | None = None      # set by ranking functions, aligned with ``paths``

    def __iter__(self):
        return iter(self.paths)

    def __len__(self) -> int:
        return len(self.paths)

    def keys(self) -> set:
        """The set of path identities (compare backends with it)."""
        return {p.key() for p in self.paths}

    def to_frame(self):
        """A pandas DataFrame: one row per path with hops (and score when ranked)."""
        import pandas as pd
        rows = [{"path": str(p), "hops": p.hops} for p in self.paths]
        if self.scores is not None:
            for r, s in zip(rows, self.scores):
                r["score"] = s
        return pd.DataFrame(rows)


@dataclasses.dataclass
class Neighborhood:
    """Nodes reached from ``start``: ``nodes`` maps each to the fewest hops that reach it."""

    start: str
    nodes: dict[str, int]
    stats: TraversalStats

    def names(self) -> list[str]:
        """Reached nodes sorted by hops, then name."""
        return sorted(self.nodes, key=lambda n: (self.nodes[n], n))

    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, name: object) -> bool:
        return name in self.nodes


# --- validation ------------------------------------------------------------------------------

class TruncatedResult(UserWarning):
    """A path query with ``limit=None`` stopped at the hard cap :data:`MAX_PATHS`; the result is
    incomplete."""


def _warn_capped(what: str, cap: int) -> None:
    warnings.warn(f"{what} stopped at {cap:,} rows, the cap for limit=None (gaba.paths.MAX_PATHS): "
                  "the result is incomplete (stats.truncated is set). Pass a limit, a smaller "
                  "max_depth, or rank with top_paths/beam_search.", TruncatedResult, stacklevel=4)


def _is_store(G: Any) -> bool:
    return getattr(G, "_gaba_store", False) is True


def _check_depth(max_depth: Any, what: str = "max_depth") -> int:
    if isinstance(max_depth, bool) or not isinstance(max_depth, int):
        raise TypeError(f"{what} must be an integer number of hops, not {max_depth!r}.")
    if max_depth < 1:
        raise ValueError(f"{what}={max_depth} asks for no hops at all; use 1 or more.")
    if max_depth > MAX_DEPTH:
        raise ValueError(f"{what}={max_depth} is too deep: the number of paths grows like "
                         f"(branching factor)**depth, so traversals stop at {MAX_DEPTH} hops "
                         f"(gaba.paths.MAX_DEPTH). Use a smaller depth, a limit, or beam_search.")
    return max_depth


def _check_limit(limit: Any) -> int | None:
    if limit is None:
        return None
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise TypeError(f"limit must be an integer or None, not {limit!r}.")
    if not 1 <= limit <= MAX_LIMIT:
        raise ValueError(f"limit={limit} must be between 1 and {MAX_LIMIT:,} (or None for no limit).")
    return limit


def _check_timeout(timeout: Any) -> float:
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or math.isnan(timeout):
        raise TypeError(f"timeout must be a number of seconds, not {timeout!r}.")
    if not 0 < timeout <= MAX_TIMEOUT:
        raise ValueError(f"timeout={timeout} must be more than 0 and at most {MAX_TIMEOUT:g} seconds.")
    return float(timeout)


def _check_direction(direction: Any) -> str:
    if direction not in DIRECTIONS:
        raise ValueError(f"direction={direction!r} is not one of {DIRECTIONS}: 'out' follows edges "
                         "as stored (parent to child), 'in' walks them backwards, 'both' ignores direction.")
    return direction


_nx_cache: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _cached(G, what: str, build: Callable[[], Any], *, refresh: bool = False) -> Any:
    """Per-graph cache of derived tables (relation types, names); ``refresh`` rebuilds it.

    Counting a NetworkX multigraph's edges is linear in their number, so the cache is not keyed
    on it: callers refresh when a lookup misses (the graph may have changed since).
    """
    entry = _nx_cache.setdefault(G, {})
    if refresh or what not in entry:
        entry[what] = build()
    return entry[what]


def relation_types(G: Any, *, refresh: bool = False) -> list[str]:
    """The relation types present in ``G`` (NetworkX graph or FalkorStore), sorted."""
    if _is_store(G):
        return G.relation_types()
    return _cached(G, "relation_types", lambda: sorted(
        {d.get("relation", k) for _, _, k, d in G.edges(keys=True, data=True)}), refresh=refresh)


def _check_rel_types(G: Any, rel_types: Any) -> tuple[str, ...] | None:
    if rel_types is None:
        return None
    if isinstance(rel_types, str):
        rel_types = [rel_types]
    rel_types = tuple(sorted(set(rel_types)))
    if not rel_types:
        raise ValueError("rel_types is empty; pass None to follow every relation type.")
    for r in rel_types:
        if not isinstance(r, str) or not _REL_RE.match(r):
            raise ValueError(f"relation type {r!r} is not a valid name (upper-case letters, digits, _).")
    known = set(relation_types(G))
    if not set(rel_types) <= known and not _is_store(G):
        known = set(relation_types(G, refresh=True))
    unknown = [r for r in rel_types if r not in known]
    if unknown:
        raise ValueError(f"unknown relation type(s) {unknown}; this graph has: {', '.join(sorted(known))}.")
    return rel_types


def _check_cycles(cycles: Any) -> str:
    if cycles not in CYCLE_MODES:
        raise ValueError(f"cycles={cycles!r} is not one of {CYCLE_MODES}.")
    return cycles


# --- names -----------------------------------------------------------------------------------

def _name_table(G: Any, *, refresh: bool = False) -> dict[str, str]:
    """lower-cased name or alias -> canonical node name (names win over aliases)."""
    if _is_store(G):
        return G.name_table()

    def build():
        table: dict[str, str] = {}
        for n, d in G.nodes(data=True):
            for a in d.get("aliases") or ():
                table.setdefault(str(a).lower(), n)
        for n in G.nodes:
            table[str(n).lower()] = n
        return table
    return _cached(G, "names", build, refresh=refresh)


def resolve(G: Any, name: Any) -> str:
    """Map a name or alias (any case) to the node's canonical name.

    Taught in chapter *Multi-hop queries in a graph database*.

    Raises
    ------
    EntityNotFound
        No such character; the message lists the closest names (fuzzy match).

    Examples
    --------
    >>> from gaba.data.westeros import load_westeros
    >>> resolve(load_westeros(), "dany")
    'Daenerys Targaryen'
    """
    if not isinstance(name, str) or not name.strip():
        raise EntityNotFound(f"{name!r} is not a character name; pass a non-empty string.")
    if not _is_store(G) and name in G:
        return name
    key = " ".join(name.split()).lower()
    hit = _name_table(G).get(key)
    if hit is None or (not _is_store(G) and hit not in G):
        hit = _name_table(G, refresh=not _is_store(G)).get(key)   # the graph may have changed
    if hit is not None:
        return hit
    raise EntityNotFound(f"No character called {name!r} in this graph. "
                         f"Did you mean: {', '.join(repr(s) for s in suggest(G, name))}?")


def suggest(G: Any, name: str, k: int = 3) -> list[str]:
    """The ``k`` canonical names closest to ``name`` (fuzzy match on names and aliases)."""
    table = _name_table(G)
    try:
        from rapidfuzz import fuzz, process
        hits = process.extract(name.lower(), list(table), scorer=fuzz.WRatio, limit=4 * k)
        keys = [h[0] for h in hits]
    except ImportError:  # pragma: no cover - rapidfuzz is pinned
        keys = difflib.get_close_matches(name.lower(), list(table), n=4 * k, cutoff=0.0)
    out: list[str] = []
    for key in keys:
        if table[key] not in out:
            out.append(table[key])
    return out[:k]


def find_entities(G: Any, text: str) -> list[str]:
    """Characters named in ``text`` (longest names and aliases first, whole words), in order.

    Examples
    --------
    >>> from gaba.data.westeros import load_westeros
    >>> find_entities(load_westeros(), "How is Jon Snow related to Daenerys?")
    ['Jon Snow', 'Daenerys Targaryen']
    """
    table = _name_table(G)
    low = text.lower()
    taken = [False] * len(low)
    found: list[tuple[int, str]] = []
    for key in sorted(table, key=len, reverse=True):
        if len(key) < 3:
            continue
        for m in re.finditer(r"(?<![\w])" + re.escape(key) + r"(?![\w])", low):
            if not any(taken[m.start():m.end()]):
                taken[m.start():m.end()] = [True] * (m.end() - m.start())
                found.append((m.start(), table[key]))
    out: list[str] = []
    for _, n in sorted(found):
        if n not in out:
            out.append(n)
    return out


# --- NetworkX traversal primitives -----------------------------------------------------------

def _nx_steps(G, node: str, direction: str, rel_types: tuple[str, ...] | None):
    """(neighbor, relation, forward) for every edge at ``node`` in the given direction."""
    out = []
    if direction in ("out", "both"):
        for nbr, keyed in G._succ[node].items():
            for k, d in keyed.items():
                r = d.get("relation", k)
                if rel_types is None or r in rel_types:
                    out.append((nbr, r, True))
    if direction in ("in", "both"):
        for nbr, keyed in G._pred[node].items():
            for k, d in keyed.items():
                r = d.get("relation", k)
                if rel_types is None or r in rel_types:
                    out.append((nbr, r, False))
    return out


def _expand(G, nodes: Iterable[str], direction: str, rel_types, timeout: float) -> dict[str, list]:
    """Steps out of each node: ``{node: [(neighbor, relation, forward), ...]}``."""
    if _is_store(G):
        return G._expand(list(nodes), direction=direction, rel_types=rel_types, timeout=timeout)
    return {n: _nx_steps(G, n, direction, rel_types) for n in nodes}


class _Clock:
    def __init__(self, timeout: float):
        self.t0 = time.perf_counter()
        self.deadline = self.t0 + timeout
        self.ticks = 0

    def over(self) -> bool:
        self.ticks += 1
        return (self.ticks & 1023) == 0 and time.perf_counter() > self.deadline

    def elapsed(self) -> float:
        return time.perf_counter() - self.t0


def _nx_paths(G, a, b, max_depth, direction, rel_types, limit, timeout, cycles):
    """Depth-first enumeration on NetworkX that returns exactly what FalkorDB returns.

    ``cycles="prune"`` mirrors a Cypher variable-length pattern: a step never lands on a node
    already on the path, except that the target may be reached again at the end (a path can pass
    through ``b``, wander off and come back) as long as no edge repeats. Those few cyclic
    candidates are counted and dropped. The other modes enumerate walks, as fixed-length
    patterns do: any node and edge may repeat.

    ``limit`` counts returned paths only (never dropped cyclic candidates); one more path is
    looked for, so ``stats.truncated`` means more existed. ``limit=None`` stops at
    :data:`MAX_PATHS` paths, and ``"detect"`` also stops after examining :data:`MAX_PATHS` walks,
    as the database backend does.
    """
    stats = TraversalStats(backend="networkx")
    clock = _Clock(timeout)
    found: list[Path] = []
    naive = cycles != "prune"
    cap = limit if limit is not None else MAX_PATHS
    row_cap = MAX_PATHS if cycles == "detect" else None
    steps_cache: dict[str, list] = {}

    def steps(n):
        s = steps_cache.get(n)
        if s is None:
            s = steps_cache[n] = _nx_steps(G, n, direction, rel_types)
        return s

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
        _warn_capped("paths_between", MAX_PATHS)
    return found, stats


def _sort_paths(paths: list[Path]) -> list[Path]:
    return sorted(paths, key=lambda p: (p.hops, p.nodes, p.rels, p.forward))


# --- public API ------------------------------------------------------------------------------

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
        Names or aliases of the two end nodes (resolved with :func:`resolve`).
    max_depth : int
        Most hops in a path, 1 to :data:`MAX_DEPTH` (more is rejected: paths explode).
    direction : {"both", "out", "in"}
        ``"out"`` follows edges as stored, ``"in"`` against, ``"both"`` either way.
    rel_types : list of str, optional
        Follow only these relation types (validated against the graph's types).
    limit : int or None
        Return at most this many paths (which ones depends on the engine's order; rank
        afterwards). It counts returned paths only, never candidates dropped as cyclic, and
        ``stats.truncated`` says that more existed - the same on both backends. None means up to
        :data:`MAX_PATHS`, with a :class:`TruncatedResult` warning if that cap is reached.
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
    if _is_store(G):
        found, stats = G._paths(a, b, max_depth=max_depth, direction=direction, rel_types=rel_types,
                                limit=limit, timeout=timeout, cycles=cycles)
    else:
        found, stats = _nx_paths(G, a, b, max_depth, direction, rel_types, limit, timeout, cycles)
    found = _sort_paths(found)
    stats.returned = len(found)
    return PathResult(found, stats)


def score_path(path: Path, weights: dict[str, float] | None = None, decay: float = 0.8) -> float:
    """Score a path: ``decay ** hops`` times the product of its relation weights.

    Taught in chapter *Multi-hop queries in a graph database*.

    Longer paths score lower (``decay`` per hop) and weak relations (``MET_ONCE``: 0.1) score far
    lower than family ties (``FATHER_OF``: 1.0). Relation types missing from ``weights`` count
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
    stats = TraversalStats(backend="falkordb" if _is_store(G) else "networkx")
    t0 = time.perf_counter()
    frontier = [Path((a,))]
    complete: list[tuple[Path, float]] = []
    for _ in range(max_depth):
        remaining = timeout - (time.perf_counter() - t0)
        if remaining <= 0:
            stats.timed_out = True
            break
        try:
            steps = _expand(G, sorted({p.end for p in frontier}), direction, rel_types, remaining)
        except TimeoutError:
            stats.timed_out = True
            break
        stats.queries += 1 if _is_store(G) else 0
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
    if _is_store(G):
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


def _nx_neighbors(G, a, depth, direction, rel_types, timeout):
    stats = TraversalStats(backend="networkx")
    clock = _Clock(timeout)
    dist = {a: 0}
    queue = deque([a])
    try:
        while queue:
            n = queue.popleft()
            if dist[n] >= depth:
                continue
            for nbr, _, _ in _nx_steps(G, n, direction, rel_types):
                if clock.over():
                    raise TimeoutError
                if nbr not in dist:
                    dist[nbr] = dist[n] + 1
                    queue.append(nbr)
        del dist[a]
        # like the database, report the start node when a cycle of <= depth hops returns to it
        cyc = _nx_cycle_length(G, a, depth, direction, rel_types, clock)
        if cyc is not None:
            dist[a] = cyc
    except TimeoutError:
        stats.timed_out = True
        dist.pop(a, None)
    stats.explored = len(dist)
    stats.returned = len(dist)
    stats.seconds = clock.elapsed()
    return dist, stats


def _nx_cycle_length(G, a, depth, direction, rel_types, clock) -> int | None:
    """Length of the shortest simple cycle through ``a`` with at most ``depth`` edges, else None.

    The cycle leaves ``a`` by a first edge to ``x``, walks a simple path avoiding ``a`` to some
    ``z``, and returns to ``a`` by a closing edge that is not the first edge.
    """
    back = {"out": "in", "in": "out", "both": "both"}[direction]
    closers = _nx_steps(G, a, back, rel_types)       # (z, rel, fwd): an edge between a and z
    best = None
    for x, rel1, f1 in _nx_steps(G, a, direction, rel_types):
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
            for nbr, _, _ in _nx_steps(G, n, direction, rel_types):
                if nbr != a and nbr not in dist:
                    dist[nbr] = dist[n] + 1
                    queue.append(nbr)
    return best


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
    if _is_store(G):
        dist, stats = G._neighbors(a, depth=depth, direction=direction, rel_types=rel_types,
                                   timeout=timeout)
    else:
        dist, stats = _nx_neighbors(G, a, depth, direction, rel_types, timeout)
    return Neighborhood(a, dict(sorted(dist.items(), key=lambda kv: (kv[1], kv[0]))), stats)


# --- formatting and the pipeline -------------------------------------------------------------

def relation_sentence(source: str, relation: str, target: str) -> str:
    """``"Rhaegar Targaryen is the father of Jon Snow."`` for one stored edge."""
    r = RELATIONS.get(relation)
    phrase = r.phrase if r else relation.lower().replace("_", " ")
    return f"{source} {phrase} {target}."


#: (relation, walked forward?) -> words for the person reached: (male, female, unknown gender).
#: "Forward" means the stored edge points from the current person to the next one.
ROLE_WORDS: dict[tuple[str, bool], tuple[str, str, str]] = {
    ("FATHER_OF", True): ("son", "daughter", "child"),
    ("FATHER_OF", False): ("father", "father", "father"),
    ("MOTHER_OF", True): ("son", "daughter", "child"),
    ("MOTHER_OF", False): ("mother", "mother", "mother"),
    ("SIBLING_OF", True): ("brother", "sister", "sibling"),
    ("MARRIED_TO", True): ("husband", "wife", "spouse"),
    ("LOVER_OF", True): ("lover", "lover", "lover"),
    ("BETROTHED_TO", True): ("betrothed", "betrothed", "betrothed"),
    ("FOSTERED", True): ("foster son", "foster daughter", "ward"),
    ("FOSTERED", False): ("foster father", "foster mother", "foster parent"),
    ("SERVED", True): ("lord", "lady", "lord"),
    ("SERVED", False): ("servant", "servant", "servant"),
    ("WORKED_WITH", True): ("co-worker", "co-worker", "co-worker"),
    ("MET_ONCE", True): ("one-time acquaintance", "one-time acquaintance", "one-time acquaintance"),
}


def path_roles(path: Path, genders: dict[str, str] | None = None) -> list[str]:
    """What each person on the path is to the previous one: ``["father", "sister"]``.

    Symmetric relations read the same both ways; gendered words need ``genders``
    (``{name: "male" | "female"}``), otherwise a neutral word is used.

    Examples
    --------
    >>> p = Path(("Jon Snow", "Rhaegar Targaryen", "Daenerys Targaryen"), ("FATHER_OF", "SIBLING_OF"), (False, False))
    >>> path_roles(p, {"Daenerys Targaryen": "female"})
    ['father', 'sister']
    """
    genders = genders or {}
    out = []
    for i, rel in enumerate(path.rels):
        fwd = path.forward[i] or _is_symmetric(rel)
        words = ROLE_WORDS.get((rel, fwd))
        if words is None:
            out.append(rel.lower().replace("_", " "))
            continue
        g = genders.get(path.nodes[i + 1])
        out.append(words[0] if g == "male" else words[1] if g == "female" else words[2])
    return out


#: (relation, walked forward?) -> the basic kin step it is, for :func:`kinship`.
_KIN_STEP = {("FATHER_OF", False): "parent", ("MOTHER_OF", False): "parent",
             ("FATHER_OF", True): "child", ("MOTHER_OF", True): "child",
             ("SIBLING_OF", True): "sibling", ("MARRIED_TO", True): "spouse"}
#: chain of kin steps -> (what the last person is to the first, what the first is to the last)
_KIN_TERMS = {
    ("parent",): ("parent", "child"), ("child",): ("child", "parent"),
    ("sibling",): ("sibling", "sibling"), ("spouse",): ("spouse", "spouse"),
    ("parent", "child"): ("sibling", "sibling"), ("sibling", "sibling"): ("sibling", "sibling"),
    ("parent", "parent"): ("grandparent", "grandchild"), ("child", "child"): ("grandchild", "grandparent"),
    ("parent", "sibling"): ("uncle", "nephew"), ("parent", "parent", "child"): ("uncle", "nephew"),
    ("sibling", "child"): ("nephew", "uncle"), ("parent", "child", "child"): ("nephew", "uncle"),
    ("parent", "sibling", "child"): ("cousin", "cousin"),
    ("parent", "parent", "parent"): ("great-grandparent", "great-grandchild"),
    ("parent", "parent", "sibling"): ("great-uncle", "great-nephew"),
    ("sibling", "spouse"): ("sibling-in-law", "sibling-in-law"),
    ("spouse", "sibling"): ("sibling-in-law", "sibling-in-law"),
    ("parent", "child", "spouse"): ("sibling-in-law", "sibling-in-law"),
    ("spouse", "parent"): ("parent-in-law", "child-in-law"),
    ("child", "spouse"): ("child-in-law", "parent-in-law"),
}
#: kin term -> words (male, female, unknown gender)
_KIN_WORDS = {
    "parent": ("father", "mother", "parent"), "child": ("son", "daughter", "child"),
    "sibling": ("brother", "sister", "sibling"), "spouse": ("husband", "wife", "spouse"),
    "grandparent": ("grandfather", "grandmother", "grandparent"),
    "grandchild": ("grandson", "granddaughter", "grandchild"),
    "great-grandparent": ("great-grandfather", "great-grandmother", "great-grandparent"),
    "great-grandchild": ("great-grandson", "great-granddaughter", "great-grandchild"),
    "uncle": ("uncle", "aunt", "uncle or aunt"), "nephew": ("nephew", "niece", "nephew or niece"),
    "great-uncle": ("great-uncle", "great-aunt", "great-uncle or great-aunt"),
    "great-nephew": ("great-nephew", "great-niece", "great-nephew or great-niece"),
    "cousin": ("cousin", "cousin", "cousin"),
    "sibling-in-law": ("brother-in-law", "sister-in-law", "sibling-in-law"),
    "parent-in-law": ("father-in-law", "mother-in-law", "parent-in-law"),
    "child-in-law": ("son-in-law", "daughter-in-law", "child-in-law"),
}


def kinship(path: Path, genders: dict[str, str] | None = None) -> tuple[str, str] | None:
    """The kinship words of a family path: (what the end is to the start, what the start is to the end).

    Only chains of parent, child, sibling and spouse steps that English names in one word or
    two are covered (aunt, cousin, sister-in-law, ...); anything else gives None.

    Examples
    --------
    >>> p = Path(("Jon Snow", "Rhaegar Targaryen", "Daenerys Targaryen"), ("FATHER_OF", "SIBLING_OF"), (False, False))
    >>> kinship(p, {"Jon Snow": "male", "Daenerys Targaryen": "female"})
    ('aunt', 'nephew')
    """
    steps = []
    for rel, fwd in zip(path.rels, path.forward):
        step = _KIN_STEP.get((rel, fwd or _is_symmetric(rel)))
        if step is None:
            return None
        steps.append(step)
    terms = _KIN_TERMS.get(tuple(steps))
    if terms is None:
        return None
    genders = genders or {}

    def word(term, person):
        g = genders.get(person)
        w = _KIN_WORDS[term]
        return w[0] if g == "male" else w[1] if g == "female" else w[2]
    return word(terms[0], path.end), word(terms[1], path.start)


def format_paths(paths: Sequence[Path], scores: Sequence[float] | None = None,
                 genders: dict[str, str] | None = None, *, kinship_words: bool = True) -> str:
    """Number the paths and write each one from its first person's point of view.

    Each path becomes one sentence per hop (``Jon Snow's father is Rhaegar Targaryen.``) and a
    summary of the whole chain (``So Daenerys Targaryen is Jon Snow's father's sister``). With
    ``kinship_words`` (default), a chain that English names gets its kinship word in both
    directions (``..., his aunt, and Jon Snow is Daenerys Targaryen's nephew.``), computed by
    :func:`kinship` rather than left to the model. This is the context handed to the model by
    :func:`multi_hop_query`.
    """
    lines = []
    for i, p in enumerate(paths, start=1):
        roles = path_roles(p, genders)
        steps = [f"{p.nodes[j]}'s {roles[j]} is {p.nodes[j + 1]}." for j in range(p.hops)]
        head = f"Path {i}" + (f" (score {scores[i - 1]:.3f})" if scores is not None else "")
        chain = "'s ".join(roles)
        summary = f"So {p.end} is {p.start}'s {chain}"
        kin = kinship(p, genders) if kinship_words else None
        if kin is not None and p.hops > 1:
            summary += f", {p.start}'s {kin[0]}, and {p.start} is {p.end}'s {kin[1]}"
        summary += "."
        lines.append(f"{head}: " + " ".join(steps) + (f" {summary}" if p.hops > 1 else ""))
    return "\n".join(lines)


def node_attribute(G: Any, names: Iterable[str], attr: str) -> dict[str, Any]:
    """``{name: G.nodes[name][attr]}`` on either backend (missing values are left out)."""
    names = sorted(set(names))
    if _is_store(G):
        return G.node_attribute(names, attr)
    return {n: G.nodes[n][attr] for n in names if n in G and G.nodes[n].get(attr) is not None}


@dataclasses.dataclass
class HopAnswer:
    """What :func:`multi_hop_query` returns."""

    question: str
    kind: str                      # "multi-hop", "single-hop" or "unknown"
    entities: list[str]            # characters found in the question
    paths: list[Path]              # the ranked paths handed to the model
    scores: list[float]
    context: str                   # the formatted paths, exactly as in the prompt
    answer: str                    # the model's explanation (or why there is none)
    stats: TraversalStats
    llm: Any = None                # the gaba.llm.Response, when the model was called


def classify_query(G: Any, question: str) -> tuple[str, list[str]]:
    """``("multi-hop" | "single-hop" | "unknown", characters named)`` for a question.

    Two characters ask for a connection (multi-hop); one character asks about that character's
    direct relations (single-hop); none means the graph cannot help.

    Examples
    --------
    >>> from gaba.data.westeros import load_westeros
    >>> classify_query(load_westeros(), "Who is Jon Snow's father?")
    ('single-hop', ['Jon Snow'])
    """
    ents = find_entities(G, question)
    kind = "multi-hop" if len(ents) >= 2 else "single-hop" if ents else "unknown"
    return kind, ents


def multi_hop_query(G: Any, question: str, *, max_depth: int = 4, beam_width: int = 10,
                    top: int = 3, limit: int = 1000, timeout: float = 10.0,
                    explain: bool = True, max_tokens: int = 120,
                    kinship_words: bool = True) -> HopAnswer:
    """The whole pipeline: classify, find the characters, traverse, format the paths, explain.

    Taught in chapter *Multi-hop queries in a graph database*.

    The graph finds the answer; the model only puts the best ``top`` paths into words (one
    :func:`gaba.llm.call_llm` call, with the prompt of :mod:`gaba.prompts`, recorded in the
    cache). Traversal statistics come back with the answer. ``explain=False`` skips the model.

    Raises
    ------
    EntityNotFound
        The question names no known character.
    NoPath
        Two characters were found but nothing connects them within ``max_depth`` hops.
    """
    kind, ents = classify_query(G, question)
    if kind == "unknown":
        raise EntityNotFound(f"The question {question!r} names no character of this graph; name "
                             f"one, for example {', '.join(repr(s) for s in suggest(G, question))}.")
    if kind == "multi-hop":
        res = top_paths(G, ents[0], ents[1], k=beam_width, max_depth=max_depth, limit=limit,
                        timeout=timeout)
        if not res.paths:
            raise NoPath(f"No path between {ents[0]!r} and {ents[1]!r} within {max_depth} hops"
                         + (" (the traversal timed out)" if res.stats.timed_out else "") + ".")
        paths, scores = res.paths[:top], (res.scores or [])[:top]
        stats = res.stats
    else:
        hood = neighbors(G, ents[0], depth=1, timeout=timeout)
        steps = _expand(G, [ents[0]], "both", None, timeout)[ents[0]]
        ranked = rank_paths([Path((ents[0], n), (r,), (f,)) for n, r, f in steps], k=beam_width)
        paths, scores = [p for p, _ in ranked], [s for _, s in ranked]
        stats = hood.stats
    genders = node_attribute(G, {n for p in paths for n in p.nodes}, "gender")
    context = format_paths(paths, scores, genders, kinship_words=kinship_words)
    if not explain:
        return HopAnswer(question, kind, ents, paths, scores, context, "", stats)
    template = prompts.PATHS_EXPLAIN if kinship_words else prompts.PATHS_EXPLAIN_CHAIN
    resp = call_llm(template.format(question=question.strip(), paths=context),
                    system=prompts.PATHS_SYSTEM, max_tokens=max_tokens,
                    purpose=f"paths: explain {question.strip()[:60]}")
    return HopAnswer(question, kind, ents, paths, scores, context, resp.text.strip(), stats, resp)


# --- figures -----------------------------------------------------------------------------------

def plot_path_growth(depths: Sequence[int], series: dict[str, Sequence[float]], *,
                     branching: dict[str, float] | None = None, ax=None):
    """Path counts against depth on a log axis: measured series and ``b ** k`` reference lines.

    Taught in chapter *Multi-hop queries in a graph database*.

    Parameters
    ----------
    depths : sequence of int
        The depths (x axis).
    series : dict
        Label -> measured counts, one per depth (zeros are not drawn on the log axis).
    branching : dict, optional
        Label -> branching factor ``b``; each is drawn as the dashed line ``b ** depth``.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.0))
    depths = list(depths)
    markers = "osd^v"
    for i, (label, counts) in enumerate(series.items()):
        pts = [(d, c) for d, c in zip(depths, counts) if c and c > 0]
        if pts:
            ax.plot([d for d, _ in pts], [c for _, c in pts], marker=markers[i % len(markers)],
                    label=label)
    for label, b in (branching or {}).items():
        ax.plot(depths, [b ** d for d in depths], linestyle="--", linewidth=1, label=label)
    ax.set_yscale("log")
    ax.set_xlabel("depth (hops)")
    ax.set_ylabel("number of paths (log scale)")
    ax.set_xticks(depths)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize="small")
    return ax
