"""The Cypher side of :mod:`gaba.paths`: path search and neighbourhoods on FalkorDB, same paths as
:mod:`gaba.nxpaths`. Names are query parameters; relation types enter the query text only after matching
:data:`IDENT_RE`."""
from __future__ import annotations

import re
import time

import networkx as nx

from .errors import QueryTimeout
from .nxpaths import nx_neighbors
from . import traversal
from .traversal import Path, PathCounter, symmetric_relations

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
    def _to_path(row, symmetric: frozenset[str]) -> Path:
        """A returned row ``(nodes, rels, starts)`` as a :class:`Path`."""
        nodes, rels, starts = row
        return Path(tuple(nodes), tuple(rels), tuple(s == n for s, n in zip(starts, nodes)), symmetric)

    def _paths(self, a, b, *, max_depth, direction, rel_types, limit, timeout, cycles):
        """``(paths, stats)`` for :func:`gaba.paths.paths_between`, counted as on NetworkX."""
        counter = PathCounter("falkordb", limit, cycles)
        sym = symmetric_relations(self)          # read once, not per returned row
        stats, types, params = counter.stats, self._types(rel_types), {"a": a, "b": b}
        ends = (f"(a:{self.label} {{name: $a}})", f"(b:{self.label} {{name: $b}})")

        def run(q):
            rest = timeout - (time.perf_counter() - counter.t0)
            if rest <= 0:
                raise QueryTimeout("path enumeration ran past its time limit")
            rows = self.query(q, params, timeout=rest).rows
            stats.queries += 1
            return rows

        try:
            if cycles == "prune":
                # the engine may reach b, leave and come back: _ACYCLIC drops those in the query
                pattern = f"MATCH p = {ends[0]}{_arrow(direction, f'{types}*1..{int(max_depth)}')}{ends[1]}"
                rows = run(f"{pattern} WHERE {_ACYCLIC} {self._RETURN_PATH} LIMIT {counter.cap + 1}")
                all(counter.add(self._to_path(row, sym)) for row in rows)     # all() stops at a False
                if not stats.truncated:
                    # complete: count the cyclic rows dropped, for the stats
                    try:
                        n = int(run(f"{pattern} WHERE NOT {_ACYCLIC} RETURN count(p)")[0][0])
                        stats.cyclic_pruned, stats.explored = n, stats.explored + n
                    except QueryTimeout:
                        pass            # only the statistic is missing
            else:
                # fixed-length patterns, one per length: walks that may go round cycles
                for k in range(1, int(max_depth) + 1):
                    hops = f"{_arrow(direction, types)}()" * (k - 1)
                    rows_left = (counter.cap - len(counter.paths) if cycles == "keep"
                                 else counter.row_cap - stats.explored)     # detect: rows are capped
                    rows = run(f"MATCH p = {ends[0]}{hops}{_arrow(direction, types)}{ends[1]} "
                               f"{self._RETURN_PATH} LIMIT {rows_left + 1}")
                    if not all(counter.add(self._to_path(row, sym)) for row in rows):
                        break
        except QueryTimeout:
            stats.timed_out = True
        return counter.result()

    def _neighbors(self, a, *, depth, direction, rel_types, timeout):
        """``(dist, stats)`` for :func:`gaba.paths.neighbors`: one query per hop, then the networkx search."""
        t0, queries = time.perf_counter(), 0
        seen = nx.MultiDiGraph()
        seen.add_node(a)
        frontier = [a]
        try:
            for _ in range(int(depth)):
                nxt = []
                for i in range(0, len(frontier), FRONTIER_BATCH):
                    rest = timeout - (time.perf_counter() - t0)
                    if rest <= 0:
                        raise TimeoutError
                    hop = self._expand(frontier[i:i + FRONTIER_BATCH], direction=direction,
                                       rel_types=rel_types, timeout=rest)
                    queries += 1
                    for n, steps in hop.items():
                        for nbr, rel, fwd in steps:
                            if nbr not in seen:
                                nxt.append(nbr)
                            seen.add_edge(*((n, nbr) if fwd else (nbr, n)), key=rel, relation=rel)
                frontier = nxt
                if not frontier:
                    break
            timed_out = False
        except TimeoutError:
            timed_out = True
        rest = max(timeout - (time.perf_counter() - t0), 0.001)
        dist, stats = nx_neighbors(seen, a, int(depth), direction, None, rest)
        if timed_out:
            dist.pop(a, None)
            stats.timed_out, stats.explored, stats.returned = True, len(dist), len(dist)
        stats.backend, stats.queries, stats.seconds = "falkordb", queries, time.perf_counter() - t0
        return dist, stats

    def _expand(self, names, *, direction, rel_types, timeout):
        """One hop out of each name: ``{name: [(neighbor, relation, forward), ...]}``; TimeoutError."""
        q = (f"UNWIND $names AS n MATCH (a:{self.label} {{name: n}}){_arrow(direction, 'r' + self._types(rel_types))}"
             f"(b) RETURN n, b.name, type(r), startNode(r) = a")
        try:
            rows = self.query(q, {"names": list(names)}, timeout=timeout).rows
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
             f"{self._RETURN_PATH} LIMIT {traversal.MAX_PATHS + 1}")
        sym = symmetric_relations(self)
        return [self._to_path(row, sym) for row in self.query(q, {"a": a, "b": b}, timeout=timeout).rows]
