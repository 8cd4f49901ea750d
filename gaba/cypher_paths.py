"""The Cypher side of :mod:`gaba.paths`: path search and neighbourhoods on FalkorDB.

Taught in chapter *Multi-hop queries in a graph database*. :class:`CypherPaths` gives the same
paths as :mod:`gaba.nxpaths`. Neighbourhoods take one query per hop, so a dense graph costs its
nodes and edges, not its paths. Names are always query parameters; relation types enter the
query text only after matching :data:`IDENT_RE`.
"""
from __future__ import annotations

import re
import time

from . import paths as _paths
from . import traversal as _traversal
from .errors import QueryTimeout
from .nxpaths import Clock, nx_cycle_length
from .traversal import Neighborhood, Path, PathResult, TraversalStats, _warn_capped

#: Names per neighbourhood expansion query.
FRONTIER_BATCH = 10_000
#: Cypher predicate: no node appears twice on path ``p`` (a simple path).
_ACYCLIC = "all(i IN range(0, size(nodes(p)) - 2) WHERE NOT nodes(p)[i] IN nodes(p)[i + 1..])"
#: A relation type or label, safe to format into query text.
IDENT_RE = re.compile(r"^[A-Z][A-Za-z0-9_]{0,63}$")


def _arrow(direction: str, inner: str) -> str:
    return {"out": f"-[{inner}]->", "in": f"<-[{inner}]-", "both": f"-[{inner}]-"}[direction]


class CypherPaths:
    """Path search for :mod:`gaba.paths` in Cypher, mixed into :class:`gaba.store.FalkorStore`."""

    def _types(self, rel_types) -> str:
        if not rel_types:
            return ""
        for r in rel_types:
            if not IDENT_RE.match(r):
                raise ValueError(f"relation type {r!r} is not a valid name.")
        return ":" + "|".join(rel_types)

    _RETURN_PATH = ("RETURN [n IN nodes(p) | n.name] AS nodes, [r IN relationships(p) | type(r)] AS rels, "
                    "[r IN relationships(p) | startNode(r).name] AS starts")

    @staticmethod
    def _to_path(nodes, rels, starts) -> Path:
        fwd = tuple(starts[i] == nodes[i] for i in range(len(rels)))
        return Path(tuple(nodes), tuple(rels), fwd)

    def _paths(self, a, b, *, max_depth, direction, rel_types, limit, timeout, cycles):
        """``(paths, stats)`` for :func:`gaba.paths.paths_between`, counted as on NetworkX."""
        stats = TraversalStats(backend="falkordb")
        label, types = self.label, self._types(rel_types)
        t0 = time.perf_counter()
        found: list[Path] = []
        row_cap = _traversal.MAX_PATHS
        cap = int(limit) if limit is not None else row_cap

        def left() -> float:
            rest = timeout - (time.perf_counter() - t0)
            if rest <= 0:
                raise QueryTimeout("path enumeration ran past its time limit")
            return rest

        try:
            if cycles == "prune":
                # the engine may reach b, leave and come back: _ACYCLIC drops those in the query
                pattern = (f"MATCH p = (a:{label} {{name: $a}}){_arrow(direction, f'{types}*1..{int(max_depth)}')}"
                           f"(b:{label} {{name: $b}})")
                q = f"{pattern} WHERE {_ACYCLIC} {self._RETURN_PATH} LIMIT {cap + 1}"
                res = self.query(q, {"a": a, "b": b}, timeout=left())
                stats.queries += 1
                found = [self._to_path(*row) for row in res.rows]
                if len(found) > cap:
                    stats.truncated = True
                    found = found[:cap]
                stats.explored = len(found)
                if not stats.truncated:
                    # complete: count the cyclic rows dropped, for the stats
                    try:
                        n = self.query(f"{pattern} WHERE NOT {_ACYCLIC} RETURN count(p)",
                                       {"a": a, "b": b}, timeout=left()).rows[0][0]
                        stats.queries += 1
                        stats.cyclic_pruned = int(n)
                        stats.explored += int(n)
                    except QueryTimeout:
                        pass            # only the statistic is missing
            else:
                # fixed-length patterns, one per length: walks that may go round cycles
                for k in range(1, int(max_depth) + 1):
                    rest = left()
                    hops = "".join(f"{_arrow(direction, types)}()" for _ in range(k - 1))
                    q = (f"MATCH p = (a:{label} {{name: $a}}){hops}{_arrow(direction, types)}"
                         f"(b:{label} {{name: $b}}) {self._RETURN_PATH}")
                    if cycles == "keep":
                        q += f" LIMIT {cap + 1 - len(found)}"
                    else:                # detect: cyclic walks are counted, so rows are capped
                        q += f" LIMIT {row_cap + 1 - stats.explored}"
                    res = self.query(q, {"a": a, "b": b}, timeout=rest)
                    stats.queries += 1
                    for row in res.rows:
                        p = self._to_path(*row)
                        if cycles == "detect" and stats.explored >= row_cap:
                            stats.truncated = True      # a walk past the cap: not examined
                            break
                        stats.explored += 1
                        if cycles == "detect" and p.is_cyclic:
                            stats.cyclic_pruned += 1
                            continue
                        found.append(p)
                        if len(found) > cap:            # one more than asked for: the result is cut
                            found.pop()
                            stats.explored -= 1
                            stats.truncated = True
                            break
                    if stats.truncated:
                        break
        except QueryTimeout:
            stats.timed_out = True
        stats.seconds = time.perf_counter() - t0
        if stats.truncated and limit is None:
            _warn_capped("paths_between", row_cap)
        return found, stats

    def _neighbors(self, a, *, depth, direction, rel_types, timeout):
        """Breadth-first ``(dist, stats)`` for :func:`gaba.paths.neighbors`: one query per hop."""
        import networkx as nx

        stats = TraversalStats(backend="falkordb")
        t0 = time.perf_counter()
        dist: dict[str, int] = {a: 0}
        seen_edges = nx.MultiDiGraph()     # the edges met, for the start node's shortest cycle
        seen_edges.add_node(a)
        frontier = [a]
        try:
            for hop in range(1, int(depth) + 1):
                if not frontier:
                    break
                nxt = []
                for i in range(0, len(frontier), FRONTIER_BATCH):
                    rest = timeout - (time.perf_counter() - t0)
                    if rest <= 0:
                        raise QueryTimeout("neighbourhood expansion ran past its time limit")
                    rows = self._expand_rows(frontier[i:i + FRONTIER_BATCH], direction=direction,
                                             rel_types=rel_types, timeout=rest)
                    stats.queries += 1
                    for n, nbr, rel, fwd in rows:
                        u, v = (n, nbr) if fwd else (nbr, n)
                        seen_edges.add_edge(u, v, key=rel, relation=rel)
                        if nbr not in dist:
                            dist[nbr] = hop
                            nxt.append(nbr)
                frontier = nxt
            del dist[a]
            rest = timeout - (time.perf_counter() - t0)
            clock = Clock(max(rest, 0.001))
            cyc = nx_cycle_length(seen_edges, a, int(depth), direction, None, clock)
            if cyc is not None:
                dist[a] = cyc
        except (QueryTimeout, TimeoutError):
            stats.timed_out = True
            dist.pop(a, None)
        stats.explored = stats.returned = len(dist)
        stats.seconds = time.perf_counter() - t0
        return dist, stats

    def _expand_rows(self, names, *, direction, rel_types, timeout) -> list:
        """``[name, neighbor, relation, forward]`` for every edge at each of ``names``."""
        q = (f"UNWIND $names AS n MATCH (a:{self.label} {{name: n}}){_arrow(direction, 'r' + self._types(rel_types))}"
             f"(b) RETURN n, b.name, type(r), startNode(r) = a")
        return self.query(q, {"names": list(names)}, timeout=timeout).rows

    def _expand(self, names, *, direction, rel_types, timeout):
        """One hop out of each name: ``{name: [(neighbor, relation, forward), ...]}``."""
        try:
            rows = self._expand_rows(names, direction=direction, rel_types=rel_types, timeout=timeout)
        except QueryTimeout as exc:
            raise TimeoutError(str(exc)) from exc
        out: dict[str, list] = {n: [] for n in names}
        for n, nbr, rel, fwd in rows:
            out[n].append((nbr, rel, bool(fwd)))
        return out

    def _shortest(self, a, b, *, max_depth, direction, rel_types, timeout):
        """Every shortest path via Cypher ``allShortestPaths`` (endpoints bound first)."""
        label = self.label
        q = (f"MATCH (a:{label} {{name: $a}}), (b:{label} {{name: $b}}) WITH a, b "
             f"MATCH p = allShortestPaths((a){_arrow(direction, f'{self._types(rel_types)}*..{int(max_depth)}')}(b)) "
             f"{self._RETURN_PATH}")
        return [self._to_path(*row) for row in self.query(q, {"a": a, "b": b}, timeout=timeout).rows]

    # the path API as methods -------------------------------------------------------------------
    def paths_between(self, a: str, b: str, **kwargs) -> PathResult:
        """:func:`gaba.paths.paths_between` on this store."""
        return _paths.paths_between(self, a, b, **kwargs)

    def top_paths(self, a: str, b: str, **kwargs) -> PathResult:
        """:func:`gaba.paths.top_paths` on this store."""
        return _paths.top_paths(self, a, b, **kwargs)

    def beam_search(self, a: str, b: str, **kwargs) -> PathResult:
        """:func:`gaba.paths.beam_search` on this store."""
        return _paths.beam_search(self, a, b, **kwargs)

    def shortest_paths(self, a: str, b: str, **kwargs) -> PathResult:
        """:func:`gaba.paths.shortest_paths` on this store."""
        return _paths.shortest_paths(self, a, b, **kwargs)

    def neighbors(self, a: str, **kwargs) -> Neighborhood:
        """:func:`gaba.paths.neighbors` on this store."""
        return _paths.neighbors(self, a, **kwargs)
