"""What a path query returns and accepts: paths, results, counts, limits, checks.

Chapter *Multi-hop queries in a graph database*. Both backends of :mod:`gaba.paths` use them, so they agree.
"""
from __future__ import annotations

import dataclasses
import math
import numbers
import re
import time
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .entities import is_store, per_graph, resolve_entity
from .kgfile import edge_relation, edge_rows

#: Deepest traversal accepted: path counts grow like (branching factor) ** depth.
MAX_DEPTH = 8
#: Largest ``limit`` accepted.
MAX_LIMIT = 1_000_000
#: Cap on the paths returned with ``limit=None`` and on the walks ``cycles="detect"`` examines.
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
    """A path (or walk): ``nodes[i]`` -``rels[i]``- ``nodes[i+1]``, stored from ``nodes[i]`` if ``forward[i]``.

    ``symmetric`` relations print without an arrow.

    >>> print(Path(("Jon Snow", "Rhaegar Targaryen"), ("FATHER_OF",), (False,)))
    Jon Snow <-FATHER_OF- Rhaegar Targaryen
    """

    nodes: tuple[str, ...]
    rels: tuple[str, ...] = ()
    forward: tuple[bool, ...] = ()
    symmetric: frozenset[str] = dataclasses.field(default=frozenset(), compare=False, repr=False)

    def __post_init__(self) -> None:
        if not (type(self.nodes) is tuple and type(self.rels) is tuple and type(self.forward) is tuple):
            raise TypeError(f"a Path holds tuples of nodes, relations and directions, not "
                            f"{self.nodes!r}, {self.rels!r}, {self.forward!r}.")
        if not len(self.nodes) == len(self.rels) + 1 == len(self.forward) + 1:
            raise ValueError(f"a Path of {len(self.rels)} relation(s) needs one node more and as many "
                             f"directions; got {len(self.nodes)} nodes and {len(self.forward)} directions.")
        if type(self.symmetric) is not frozenset:
            if isinstance(self.symmetric, str) or not isinstance(self.symmetric, Iterable):
                raise TypeError(f"Path.symmetric is a set of relation types, not {self.symmetric!r}.")
            object.__setattr__(self, "symmetric", frozenset(self.symmetric))

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
        """True if a node appears twice."""
        return len(set(self.nodes)) != len(self.nodes)

    def extend(self, node: str, rel: str, forward: bool) -> Path:
        # path search's innermost step: extending a checked Path is valid, so skip __post_init__
        q = object.__new__(Path)
        q.__dict__.update(nodes=self.nodes + (node,), rels=self.rels + (rel,),
                          forward=self.forward + (forward,), symmetric=self.symmetric)
        return q

    def edges(self) -> list[tuple[str, str, str]]:
        """The edges as stored, ``(source, relation, target)``."""
        return [(self.nodes[i], rel, self.nodes[i + 1]) if self.forward[i] else
                (self.nodes[i + 1], rel, self.nodes[i]) for i, rel in enumerate(self.rels)]

    def __str__(self) -> str:
        arrows = (f" -{r}- " if r in self.symmetric else f" -{r}-> " if f else f" <-{r}- "
                  for r, f in zip(self.rels, self.forward))
        return self.nodes[0] + "".join(a + n for a, n in zip(arrows, self.nodes[1:]))


@dataclasses.dataclass
class TraversalStats:
    """What a traversal did: paths ``explored``, ``cyclic_pruned``, ``truncated`` (more existed), ``timed_out``."""

    backend: str = "networkx"
    explored: int = 0
    cyclic_pruned: int = 0
    returned: int = 0
    seconds: float = 0.0
    timed_out: bool = False
    truncated: bool = False
    queries: int = 0              # database round trips (0 on NetworkX)

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

    def keys(self) -> set[Path]:
        """The set of paths (compare backends with it)."""
        return set(self.paths)


@dataclasses.dataclass
class Neighborhood:
    """Nodes reached from ``start``: ``nodes`` maps each to the fewest hops that reach it."""

    start: str
    nodes: dict[str, int]
    stats: TraversalStats

    def names(self) -> list[str]:
        """Reached nodes sorted by hops, then name."""
        return _sorted(self.nodes, lambda n, text: (self.nodes[n], text((n,))))

    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, name: object) -> bool:
        return name in self.nodes


def _sorted(items: Iterable, key: Callable) -> list:
    """``sorted`` by ``key(item, text)``; ``text`` turns node names to strings if they mix types (``1``, ``"a"``)."""
    items = list(items)
    try:
        return sorted(items, key=lambda x: key(x, lambda nodes: nodes))
    except TypeError:
        return sorted(items, key=lambda x: key(x, lambda nodes: tuple(map(str, nodes))))


# --- counting --------------------------------------------------------------------------------
class TruncatedResult(UserWarning):
    """A path query with ``limit=None`` stopped at :data:`MAX_PATHS`: the result is incomplete."""


class PathCounter:
    """Counts :func:`~gaba.paths.paths_between`'s candidates alike on both backends. :meth:`add` keeps a
    path unless cyclic; False once no more are wanted (past ``limit``, or :data:`MAX_PATHS` walks)."""

    def __init__(self, backend: str, limit: int | None, cycles: str):
        self.stats = TraversalStats(backend=backend)
        self.paths: list[Path] = []
        self.limit, self.cycles = limit, cycles
        self.cap = limit if limit is not None else MAX_PATHS        # read at call time: one cap
        self.row_cap = MAX_PATHS if cycles == "detect" else None
        self.t0 = time.perf_counter()

    def add(self, path: Path) -> bool:
        s = self.stats
        if self.row_cap is not None and s.explored >= self.row_cap:
            s.truncated = True                  # a walk past the cap: not examined
            return False
        s.explored += 1
        if self.cycles != "keep" and path.is_cyclic:
            s.cyclic_pruned += 1
            return True
        self.paths.append(path)
        if len(self.paths) > self.cap:         # one more than asked for: the result is cut
            self.paths.pop()
            s.explored -= 1
            s.truncated = True
            return False
        return True

    def result(self) -> tuple[list[Path], TraversalStats]:
        """The paths kept and the stats; warns :class:`TruncatedResult` if ``limit=None`` was capped."""
        self.stats.seconds = time.perf_counter() - self.t0
        if self.stats.truncated and self.limit is None:
            warnings.warn(f"paths_between stopped at {MAX_PATHS:,} rows, the cap for limit=None "
                          "(gaba.traversal.MAX_PATHS): the result is incomplete (stats.truncated is "
                          "set). Pass a limit, a smaller max_depth, or rank with top_paths/beam_search.",
                          TruncatedResult, stacklevel=4)
        return self.paths, self.stats


# --- validation ------------------------------------------------------------------------------
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


def relation_types(G: Any, *, refresh: bool = False) -> list[str]:
    """The relation types present in ``G`` (NetworkX graph or FalkorStore), sorted."""
    if is_store(G):
        return G.relation_types()
    return per_graph(G, "relation_types", lambda: sorted(
        {edge_relation(k, d) for _, _, k, d in edge_rows(G)}), refresh=refresh)


def _graph_attr(G: Any, key: str):
    """``G.graph[key]`` of a NetworkX graph, or of the graph a store loaded; None if absent."""
    graph = G.loaded_graph if is_store(G) else getattr(G, "graph", None)
    return (graph or {}).get(key)


def symmetric_relations(G: Any) -> frozenset[str]:
    """The relations ``G`` stores once for both directions (``G.graph["symmetric"]``), else none."""
    sym = _graph_attr(G, "symmetric") or ()
    if isinstance(sym, str):
        sym = (sym,)                     # one relation, not its letters
    if not isinstance(sym, Iterable) or not all(isinstance(r, str) for r in sym):
        raise ValueError(f"G.graph['symmetric'] must list relation types, such as ['SIBLING_OF'], not {sym!r}.")
    return frozenset(sym)


def edge_weights(G: Any) -> dict[str, float]:
    """The graph's weight per relation type for path scoring (``G.graph["edge_weights"]``), else {}."""
    weights = _graph_attr(G, "edge_weights") or {}
    if not isinstance(weights, Mapping) or not all(_is_number(w) for w in weights.values()):
        raise ValueError(f"G.graph['edge_weights'] must map relation types to numbers, such as "
                         f"{{'OWNS': 0.9}}, not {weights!r}.")
    return dict(weights)


def _is_number(x: Any) -> bool:
    """True for a real number that is not NaN (bool excluded)."""
    return isinstance(x, numbers.Real) and not isinstance(x, bool) and not math.isnan(x)


def _check_rel_types(G: Any, rel_types: Any) -> tuple[str, ...] | None:
    if rel_types is None:
        return None
    if isinstance(rel_types, str):
        rel_types = [rel_types]
    items = list(rel_types) if isinstance(rel_types, Iterable) and not isinstance(rel_types, bytes) else [None]
    if not all(isinstance(r, str) for r in items):
        raise TypeError(f"rel_types must be a relation type or a list of them, as strings such as "
                        f"'OWNS' (or None for every type), not {rel_types!r}.")
    rel_types = tuple(sorted(set(items)))
    if not rel_types:
        raise ValueError("rel_types is empty; pass None to follow every relation type.")
    known = set(relation_types(G))
    if not set(rel_types) <= known and not is_store(G):
        known = set(relation_types(G, refresh=True))
    for r in rel_types:
        if r not in known and not _REL_RE.match(r):         # the graph's own names are valid
            raise ValueError(f"relation type {r!r} is not a valid name (upper-case letters, digits, _).")
    if unknown := [r for r in rel_types if r not in known]:
        raise ValueError(f"unknown relation type(s) {unknown}; this graph has: {', '.join(sorted(known))}.")
    return rel_types


def _check_cycles(cycles: Any) -> str:
    if cycles not in CYCLE_MODES:
        raise ValueError(f"cycles={cycles!r} is not one of {CYCLE_MODES}.")
    return cycles


# --- names -----------------------------------------------------------------------------------
def resolve(G: Any, name: Any) -> str:
    """A name or alias (any case) to the node's name; EntityNotFound lists the closest names.

    >>> from gaba.data.westeros import load_westeros
    >>> resolve(load_westeros(), "dany")
    'Daenerys Targaryen'
    """
    return resolve_entity(G, name, noun="character")


def node_attribute(G: Any, names: Iterable[str], attr: str) -> dict[str, Any]:
    """``{name: G.nodes[name][attr]}`` on either backend (missing values are left out)."""
    names = {names} if isinstance(names, str) else set(names)        # one name, not its letters
    names = _sorted(names, lambda n, text: text((n,)))
    if is_store(G):
        return G.node_attribute(names, attr)
    return {n: G.nodes[n][attr] for n in names if n in G and G.nodes[n].get(attr) is not None}
