"""The knowledge graph of the book: build it, gather the facts around entities, show them.

Taught in chapter "Graph RAG and multi-hop reasoning". The question's entities come from
:func:`gaba.entities.find_entities`; from there on:

- :func:`build_knowledge_graph`, :func:`save_graph`, :func:`load_graph` (implemented in
  :mod:`gaba.kgbuild` and :mod:`gaba.kgfile`, re-exported here) and :func:`load_documents` (the news corpus);
- :func:`gather_facts`, :func:`gather_facts_by_hop`, :func:`fact_evidence` - hop-by-hop traversal;
- :func:`fact_sentence` - a fact as a plain sentence;
- :func:`shortest_connection`, :func:`hop_table`.

Answering from the gathered facts (:func:`gaba.rag.graph_rag`, :func:`gaba.rag.flat_rag`) sits
in :mod:`gaba.rag`, above entity linking and fact ranking.

A *fact* is a ``(subject, relation, object)`` tuple of strings: one edge of the directed
multigraph, whose edge data carries the ``relation``, the ``doc_id`` it came from and the
``evidence`` sentence that states it.

Examples
--------
>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_edge("Aurora Cell Works", "Kestrel Motors", key="SUPPLIES_TO", relation="SUPPLIES_TO")
'SUPPLIES_TO'
>>> G.add_edge("Voltaic Dynamics", "Aurora Cell Works", key="COMPETES_WITH", relation="COMPETES_WITH")
'COMPETES_WITH'
>>> sorted(gather_facts(G, ["Kestrel Motors"], hops=2))     # doctest: +NORMALIZE_WHITESPACE
[('Aurora Cell Works', 'SUPPLIES_TO', 'Kestrel Motors'),
 ('Voltaic Dynamics', 'COMPETES_WITH', 'Aurora Cell Works')]
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from .data.news import load_documents  # re-exported: the news corpus, or a reader's corpus
from .entities import check_graph, resolve_entity
from .errors import NoPath
from .kgfile import load_graph as _load
from .kgfile import save_graph as _save
from .prompts import SCHEMA_PHRASES
from .tokens import estimate_tokens

if TYPE_CHECKING:  # pragma: no cover
    import networkx as nx
    import pandas as pd

#: Traversals deeper than this are capped (with a warning): the context would swallow the graph.
MAX_HOPS = 6
_DIRECTIONS = ("both", "out", "in")

__all__ = [
    "MAX_HOPS", "build_knowledge_graph", "save_graph", "load_graph", "load_documents",
    "gather_facts", "gather_facts_by_hop", "fact_evidence",
    "fact_sentence", "shortest_connection", "hop_table", "traversal_seconds",
]


# --------------------------------------------------------------------------- re-exports

def build_knowledge_graph(documents=None, *, schema=None, cache_dir=None, rebuild: bool = False,
                          concurrency: int | None = None,
                          progress: bool = True, cooccurrence: bool | None = None) -> "nx.MultiDiGraph":
    """Extract a knowledge graph from documents (default: the book's news corpus).

    A thin wrapper of :func:`gaba.kgbuild.build_knowledge_graph`, documented there. Taught in
    chapter "From text to a knowledge graph"; used by chapter "Graph RAG and multi-hop reasoning".

    Examples
    --------
    >>> G = build_knowledge_graph(progress=False)        # doctest: +SKIP
    >>> G.number_of_nodes() > 0                           # doctest: +SKIP
    True
    """
    from .kgbuild import build_knowledge_graph as _build

    return _build(documents, schema=schema, cache_dir=cache_dir, rebuild=rebuild, concurrency=concurrency,
                  progress=progress,
                  cooccurrence=cooccurrence)


def save_graph(G, path) -> None:
    """Write a graph to a JSON file (see :func:`gaba.kgfile.save_graph`)."""
    return _save(G, path)


def load_graph(path) -> "nx.MultiDiGraph":
    """Read a graph written by :func:`save_graph` (see :func:`gaba.kgfile.load_graph`)."""
    return _load(path)


# --------------------------------------------------------------------------- helpers

def _relation(key, data: dict) -> str:
    rel = data.get("relation")
    return str(rel if rel is not None else key)


# --------------------------------------------------------------------------- traversal

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


def _traverse(G, entities, hops: int, direction: str) -> tuple[list[set], list[set]]:
    """Frontier-by-frontier walk. Returns (new facts per hop, new nodes per hop); hop 0 = starts."""
    check_graph(G)
    if direction not in _DIRECTIONS:
        raise ValueError(f"direction must be one of {_DIRECTIONS}, not {direction!r}")
    if isinstance(entities, str):
        entities = [entities]
    starts = [resolve_entity(G, e) for e in entities]
    if not starts:
        raise ValueError("gather_facts needs at least one entity; find them with gaba.entities.find_entities(question, G).")
    hops = _check_hops(hops)
    directed = G.is_directed()
    multi = G.is_multigraph()
    visited = set(starts)
    frontier = set(starts)
    seen_facts: set[tuple[str, str, str]] = set()
    facts_by_hop: list[set] = []
    nodes_by_hop: list[set] = [set(starts)]
    for _ in range(hops):
        new_facts: set[tuple[str, str, str]] = set()
        reached: set = set()
        for node in frontier:
            steps = []
            if direction in ("both", "out") or not directed:
                edges = G.out_edges(node, keys=True, data=True) if (multi and directed) else \
                    G.edges(node, keys=True, data=True) if multi else \
                    ((u, v, None, d) for u, v, d in G.edges(node, data=True))
                steps += [(u, v, k, d, v) for u, v, k, d in edges]
            if directed and direction in ("both", "in"):
                edges = G.in_edges(node, keys=True, data=True) if multi else \
                    ((u, v, None, d) for u, v, d in G.in_edges(node, data=True))
                steps += [(u, v, k, d, u) for u, v, k, d in edges]
            for u, v, k, d, other in steps:
                fact = (str(u), _relation(k, d), str(v))
                if fact not in seen_facts:
                    seen_facts.add(fact)
                    new_facts.add(fact)
                if other not in visited:
                    reached.add(other)
        visited |= reached
        facts_by_hop.append(new_facts)
        nodes_by_hop.append(reached)
        frontier = reached
        if not frontier:
            # Nothing new to expand: later hops add nothing (kept so the lists have `hops` entries).
            facts_by_hop += [set() for _ in range(hops - len(facts_by_hop))]
            nodes_by_hop += [set() for _ in range(hops + 1 - len(nodes_by_hop))]
            break
    return facts_by_hop, nodes_by_hop


def gather_facts(G, entities: Iterable[str] | str, hops: int = 2, *,
                 direction: str = "both") -> set[tuple[str, str, str]]:
    """The facts within ``hops`` hops of the given entities.

    The walk goes frontier by frontier: hop 1 takes every edge touching a start entity, hop 2
    every edge touching an entity reached at hop 1, and so on. Only the frontier is expanded, so
    the cost grows with hops x degree, not with the size of the graph. With
    ``direction="both"`` (default) edges are followed either way, because "Aurora supplies
    Kestrel" connects Kestrel to Aurora as much as Aurora to Kestrel.

    Parameters
    ----------
    G : networkx graph
        Usually the ``MultiDiGraph`` of :func:`build_knowledge_graph`.
    entities : str or iterable of str
        Start entities: node names, or names/aliases :func:`gaba.entities.resolve_entity` understands.
    hops : int
        At least 1; values above :data:`MAX_HOPS` are capped with a warning.
    direction : {"both", "out", "in"}
        Follow edges regardless of direction, only along them, or only against them.

    Returns
    -------
    set of (subject, relation, object)

    Raises
    ------
    EntityNotFound
        An entity is not in the graph (the message suggests close names).
    ValueError
        ``hops`` < 1, unknown ``direction``, or no entities.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_edge("A", "B", key="R", relation="R"); G.add_edge("C", "B", key="S", relation="S")
    'R'
    'S'
    >>> sorted(gather_facts(G, ["A"], hops=1)), len(gather_facts(G, ["A"], hops=2))
    ([('A', 'R', 'B')], 2)
    """
    facts_by_hop, _ = _traverse(G, entities, hops, direction)
    return set().union(*facts_by_hop) if facts_by_hop else set()


def gather_facts_by_hop(G, entities: Iterable[str] | str, hops: int = 2, *,
                        direction: str = "both") -> list[set[tuple[str, str, str]]]:
    """The facts first reached at each hop: element ``i`` holds the facts new at hop ``i + 1``.

    The union of the list is :func:`gather_facts` with the same arguments. Used by the hop table
    and the hop explorer widget.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_edge("A", "B", key="R", relation="R"); G.add_edge("C", "B", key="S", relation="S")
    'R'
    'S'
    >>> [len(h) for h in gather_facts_by_hop(G, ["A"], hops=3)]
    [1, 1, 0]
    """
    facts_by_hop, _ = _traverse(G, entities, hops, direction)
    return facts_by_hop


def fact_evidence(G, facts: Iterable[tuple[str, str, str]]) -> list[str]:
    """The evidence sentences behind facts: sorted, each once (edges without evidence add nothing).

    Reads the edge attribute ``evidence`` and, when present, every ``[doc_id, sentence]`` of
    ``sources`` (an edge stated by several documents).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_edge("A", "B", key="R", relation="R", evidence="A supplies B.")
    'R'
    >>> fact_evidence(G, [("A", "R", "B")])
    ['A supplies B.']
    """
    check_graph(G)
    out: set[str] = set()
    for s, r, o in facts:
        if not G.has_edge(s, o):
            continue
        if G.is_multigraph():
            items = G.get_edge_data(s, o).items()
        else:
            items = [(None, G.get_edge_data(s, o))]
        for k, d in items:
            if _relation(k, d) != r:
                continue
            ev = d.get("evidence")
            sentences = [ev] if isinstance(ev, str) else list(ev or [])
            # edges stated by several documents keep every [doc_id, evidence] in "sources"
            sentences += [src[1] for src in d.get("sources") or []
                          if isinstance(src, (list, tuple)) and len(src) == 2]
            for sentence in sentences:
                if isinstance(sentence, str) and sentence.strip():
                    out.add(" ".join(sentence.split()))
    return sorted(out)


def traversal_seconds(G, entities, hops: int = 2, *, repeat: int = 200) -> float:
    """Median wall time in seconds of one :func:`gather_facts` call (no model is involved)."""
    times = []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        gather_facts(G, entities, hops)
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


# --------------------------------------------------------------------------- facts as sentences

def _phrase(relation: str) -> str:
    if relation in SCHEMA_PHRASES:
        return SCHEMA_PHRASES[relation]
    words = relation.replace("_", " ").replace("-", " ").strip().lower()
    if words.endswith(" of") and not words.startswith(("is ", "was ")):
        words = "is " + words
    return words or "is related to"


def fact_sentence(fact: tuple[str, str, str]) -> str:
    """A fact as a plain sentence: ``("A", "SUPPLIES_TO", "B")`` -> ``"A supplies B."``.

    A label of the book's schemas reads as its phrase (:data:`gaba.prompts.SCHEMA_PHRASES`); any
    other label reads as its own words, so a relation the code has never seen reads as well.

    Examples
    --------
    >>> fact_sentence(("Voltaic Dynamics", "COMPETES_WITH", "Aurora Cell Works"))
    'Voltaic Dynamics competes with Aurora Cell Works.'
    >>> fact_sentence(("Lena Marsh", "born_in", "Eastholm"))
    'Lena Marsh born in Eastholm.'
    """
    s, r, o = fact
    return f"{s} {_phrase(r)} {o}."


# --------------------------------------------------------------------------- paths, routing, tables

def shortest_connection(G, a: str, b: str) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The shortest chain of edges between two entities, ignoring edge direction.

    Returns
    -------
    (names, facts)
        The node names from ``a`` to ``b`` and, for each step, the fact (in its stored
        direction) that links the two nodes (the alphabetically first when several do).

    Raises
    ------
    EntityNotFound, NoPath

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_edge("A", "B", key="R", relation="R"); G.add_edge("C", "B", key="S", relation="S")
    'R'
    'S'
    >>> shortest_connection(G, "A", "C")
    (['A', 'B', 'C'], [('A', 'R', 'B'), ('C', 'S', 'B')])
    """
    import networkx as nx

    check_graph(G)
    src, dst = resolve_entity(G, a), resolve_entity(G, b)
    U = G.to_undirected(as_view=True) if G.is_directed() else G
    try:
        path = nx.shortest_path(U, src, dst)
    except nx.NetworkXNoPath:
        raise NoPath(f"{src!r} and {dst!r} are not connected in this graph, in either direction; "
                     "the extractor may have missed the edge that links them.") from None
    facts = []
    for u, v in zip(path, path[1:]):
        options = []
        for s, o in ((u, v), (v, u)):
            if G.has_edge(s, o):
                data = G.get_edge_data(s, o)
                items = data.items() if G.is_multigraph() else [(None, data)]
                options += [(str(s), _relation(k, d), str(o)) for k, d in items]
        facts.append(sorted(options)[0])
    return [str(n) for n in path], facts




def hop_table(G, entity: str, hops: Sequence[int] = (1, 2, 3)) -> "pd.DataFrame":
    """Facts gathered and approximate context size for each hop count, from one entity.

    Columns: ``hops``, ``facts gathered``, ``new at this hop``, ``approx context tokens`` (the
    facts rendered as sentences, words x 1.3).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_edge("A", "B", key="R", relation="R"); G.add_edge("C", "B", key="S", relation="S")
    'R'
    'S'
    >>> hop_table(G, "A", hops=(1, 2))["facts gathered"].tolist()
    [1, 2]
    """
    import pandas as pd

    rows = []
    previous = 0
    for h in sorted(hops):
        facts = gather_facts(G, [entity], h)
        context = "\n".join(fact_sentence(f) for f in sorted(facts))
        rows.append({"hops": h, "facts gathered": len(facts), "new at this hop": len(facts) - previous,
                     "approx context tokens": estimate_tokens(context, words_only=True)})
        previous = len(facts)
    return pd.DataFrame(rows)
