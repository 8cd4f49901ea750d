"""The knowledge graph of the book: build it, gather the facts around entities, show them.

Taught in chapter "Graph RAG and multi-hop reasoning". A *fact* is a ``(subject, relation,
object)`` edge whose data carries ``relation``, ``doc_id`` and the ``evidence`` sentence.
"""
from __future__ import annotations

import statistics
import timeit
import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

import networkx as nx

from .data.news import load_documents  # re-exported, as are load_graph and save_graph
from .entities import check_graph, resolve_entity
from .errors import NoPath
from .kgfile import edge_relation, load_graph, save_graph
from .prompts import SCHEMA_PHRASES
from .tokens import estimate_tokens

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

#: A fact: ``(subject, relation, object)``, one edge of the graph.
Fact = tuple[str, str, str]
#: Traversals deeper than this are capped (with a warning): the context would swallow the graph.
MAX_HOPS = 6
_DIRECTIONS = ("both", "out", "in")

__all__ = ["MAX_HOPS", "build_knowledge_graph", "save_graph", "load_graph", "load_documents", "edges_between",
           "gather_facts", "gather_facts_by_hop", "fact_evidence", "fact_sentence", "shortest_connection",
           "hop_table", "traversal_seconds"]


def build_knowledge_graph(documents=None, **options) -> "nx.MultiDiGraph":
    """Extract a knowledge graph from documents (:func:`gaba.kgbuild.build_knowledge_graph`, imported lazily)."""
    from .kgbuild import build_knowledge_graph as build
    return build(documents, **options)


def edges_between(G, s, o) -> list[tuple[str, dict]]:
    """``(relation, edge data)`` of every edge ``s -> o``."""
    if G is None or not G.has_edge(s, o):
        return []
    data = G.get_edge_data(s, o)
    return [(edge_relation(k, d), d) for k, d in (data.items() if G.is_multigraph() else [(None, data)])]


def _check_hops(hops) -> int:
    if isinstance(hops, bool) or not isinstance(hops, int):
        raise TypeError(f"hops must be an integer, got {hops!r}")
    if hops <= 0:
        raise ValueError(f"hops must be at least 1 (got {hops}): one hop gathers the entities' own edges.")
    if hops > MAX_HOPS:
        warnings.warn(f"hops={hops} capped at {MAX_HOPS}: beyond that the traversal gathers most of "
                      "any connected graph and the context stops being a selection.", stacklevel=3)
        return MAX_HOPS
    return hops


def _check_facts(facts, *, lists: bool = False) -> list[Fact]:
    """``facts`` as a list when each is a (subject, relation, object) of strings (with ``lists``, a list of
    three strings counts, as a tuple), else TypeError."""
    if isinstance(facts, (str, bytes)) or not isinstance(facts, Iterable):
        raise TypeError("facts must be a collection of (subject, relation, object) tuples, not "
                        f"{'a string' if isinstance(facts, str) else type(facts).__name__}.")
    facts = [tuple(f) if lists and type(f) is list else f for f in facts]
    for f in facts:
        if not (isinstance(f, tuple) and len(f) == 3 and all(isinstance(x, str) for x in f)):
            raise TypeError(f"each fact must be a (subject, relation, object) tuple of strings, got {f!r:.80}")
    return facts


def _traverse(G, entities, hops: int, direction: str) -> tuple[list[set], list[set]]:
    """Frontier-by-frontier walk: (new facts per hop, new nodes per hop); hop 0 of the nodes = starts."""
    check_graph(G)
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction must be one of {_DIRECTIONS}, not {direction!r}")
    if isinstance(entities, str) or entities in G:   # networkx: an unhashable entities is not in G
        entities = [entities]              # one name, or one node of a graph not named by strings
    elif isinstance(entities, (bytes, Mapping)) or not isinstance(entities, Iterable):
        raise TypeError(f"entities must be a name or a list of names, not {type(entities).__name__} "
                        f"{entities!r:.60}; pass e.g. [name] for one entity.")
    starts = [resolve_entity(G, e) for e in entities]
    if not starts:
        raise ValueError("gather_facts needs at least one entity; find them with gaba.entities.find_entities(question, G).")
    hops = _check_hops(hops)
    directed, keys = G.is_directed(), {"keys": True} if G.is_multigraph() else {}

    def steps(node):
        """(fact, the node at its other end) of each edge the walk may take from ``node``."""
        if direction != "in" or not directed:
            for u, v, *k, d in G.edges(node, data=True, **keys):
                yield (str(u), edge_relation(k[0] if k else None, d), str(v)), v
        if direction != "out" and directed:
            for u, v, *k, d in G.in_edges(node, data=True, **keys):
                yield (str(u), edge_relation(k[0] if k else None, d), str(v)), u

    seen: set[Fact] = set()
    visited = set(starts)
    facts_by_hop: list[set] = []
    nodes_by_hop: list[set] = [set(starts)]
    for _ in range(hops):                   # an empty frontier adds empty hops
        found = [step for node in nodes_by_hop[-1] for step in steps(node)]
        facts_by_hop.append({f for f, _ in found} - seen)
        nodes_by_hop.append({n for _, n in found} - visited)
        seen |= facts_by_hop[-1]
        visited |= nodes_by_hop[-1]
    return facts_by_hop, nodes_by_hop


def gather_facts(G, entities: Iterable[str] | str, hops: int = 2, *, direction: str = "both") -> set[Fact]:
    """The facts within ``hops`` hops of the given entities (only the frontier is expanded).

    ``direction``: ``"both"``, ``"out"`` or ``"in"``; ``hops`` above :data:`MAX_HOPS` is capped with a warning.

    >>> import networkx as nx
    >>> G = nx.MultiDiGraph([("A", "B", "R"), ("C", "B", "S")])      # (subject, object, relation)
    >>> sorted(gather_facts(G, ["A"], hops=1)), len(gather_facts(G, ["A"], hops=2))
    ([('A', 'R', 'B')], 2)
    """
    return set().union(*_traverse(G, entities, hops, direction)[0])


def gather_facts_by_hop(G, entities: Iterable[str] | str, hops: int = 2, *,
                        direction: str = "both") -> list[set[Fact]]:
    """The facts first reached at each hop: element ``i`` holds the facts new at hop ``i + 1``."""
    return _traverse(G, entities, hops, direction)[0]


def fact_evidence(G, facts: Iterable[Fact]) -> list[str]:
    """The evidence sentences behind facts (edge ``evidence`` and ``sources``), sorted, each once."""
    check_graph(G)
    out: set[str] = set()
    for s, r, o in facts:
        for rel, d in edges_between(G, s, o):
            if rel != r:
                continue
            ev = d.get("evidence")
            sentences = [ev] if isinstance(ev, str) else list(ev) if isinstance(ev, (list, tuple, set, frozenset)) else []
            sentences += [src[1] for src in d.get("sources") or [] if isinstance(src, (list, tuple)) and len(src) == 2]
            out.update(" ".join(t.split()) for t in sentences if isinstance(t, str) and t.strip())
    return sorted(out)


def traversal_seconds(G, entities, hops: int = 2, *, repeat: int = 200) -> float:
    """Median wall time in seconds of one :func:`gather_facts` call (no model is involved)."""
    return statistics.median_high(timeit.repeat(lambda: gather_facts(G, entities, hops),
                                                number=1, repeat=max(1, repeat)))


def fact_sentence(fact: Fact) -> str:
    """A fact as a plain sentence: a schema label reads as its phrase, any other as its own words.

    >>> fact_sentence(("Voltaic Dynamics", "COMPETES_WITH", "Aurora Cell Works"))
    'Voltaic Dynamics competes with Aurora Cell Works.'
    """
    s, r, o = fact
    if r in SCHEMA_PHRASES:
        return f"{s} {SCHEMA_PHRASES[r]} {o}."
    words = r.replace("_", " ").replace("-", " ").strip().lower()
    if words.endswith(" of") and not words.startswith(("is ", "was ")):
        words = "is " + words
    return f"{s} {words or 'is related to'} {o}."


def shortest_connection(G, a: str, b: str) -> tuple[list[str], list[Fact]]:
    """The shortest chain between two entities, ignoring direction: ``(nodes, facts as stored)``; NoPath if none.

    >>> import networkx as nx
    >>> shortest_connection(nx.MultiDiGraph([("A", "B", "R"), ("C", "B", "S")]), "A", "C")
    (['A', 'B', 'C'], [('A', 'R', 'B'), ('C', 'S', 'B')])
    """
    check_graph(G)
    src, dst = resolve_entity(G, a), resolve_entity(G, b)
    U = G.to_undirected(as_view=True) if G.is_directed() else G
    try:
        path = nx.shortest_path(U, src, dst)
    except nx.NetworkXNoPath:
        raise NoPath(f"{src!r} and {dst!r} are not connected in this graph, in either direction; "
                     "the extractor may have missed the edge that links them.") from None
    facts = [min((str(s), rel, str(o)) for s, o in ((u, v), (v, u)) for rel, _ in edges_between(G, s, o))
             for u, v in zip(path, path[1:])]        # of parallel edges, the first in sorted order
    return [str(n) for n in path], facts


def hop_table(G, entity: str, hops: Sequence[int] = (1, 2, 3)) -> "pd.DataFrame":
    """Facts gathered, new facts and approximate context tokens for each hop count, from one entity."""
    import pandas as pd
    rows, previous = [], 0
    for h in sorted(hops):
        facts = gather_facts(G, [entity], h)
        context = "\n".join(fact_sentence(f) for f in sorted(facts))
        rows.append({"hops": h, "facts gathered": len(facts), "new at this hop": len(facts) - previous,
                     "approx context tokens": estimate_tokens(context, words_only=True)})
        previous = len(facts)
    return pd.DataFrame(rows)
