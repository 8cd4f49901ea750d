"""A graph's entities by name: the name table, resolving one name, finding the names in a question.

Chapter "Graph RAG and multi-hop reasoning". Names and ``aliases`` match in any case, on a NetworkX
graph or a :class:`gaba.store.FalkorStore`.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Any

from rapidfuzz import fuzz, process

from .checks import check_text
from .errors import EntityNotFound
from .names import find_mentions, fold

__all__ = ["name_key", "build_name_table", "name_table", "resolve_entity", "suggest", "find_entities",
           "node_aliases", "check_graph", "check_node_names", "is_store", "per_graph"]


def check_graph(G) -> None:
    """Raise ``TypeError`` unless ``G`` looks like a NetworkX graph."""
    if not hasattr(G, "nodes") or not hasattr(G, "edges"):
        raise TypeError(f"expected a networkx graph, got {type(G).__name__}; build one with "
                        "build_knowledge_graph() or load_graph(path).")


def check_node_names(G, what: str) -> None:
    """Raise ``TypeError`` unless every node of ``G`` is named by a string (facts are strings)."""
    if is_store(G):
        return
    bad = next((n for n in G.nodes if not isinstance(n, str)), None)
    if bad is not None:
        raise TypeError(f"{what} needs a graph whose node names are strings, but node {bad!r} is of type "
                        f"{type(bad).__name__}; relabel it first: G = networkx.relabel_nodes(G, str).")


def is_store(G) -> bool:
    """True for a :class:`gaba.store.FalkorStore`, which keeps its own (cached) name table."""
    return getattr(G, "_gaba_store", False) is True


_tables: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def per_graph(G, what: str, build: Callable[[], Any], *, refresh: bool = False) -> Any:
    """A table derived from ``G``, built once per graph (``refresh`` rebuilds it; changes go unnoticed)."""
    entry = _tables.setdefault(G, {})
    if refresh or what not in entry:
        entry[what] = build()
    return entry[what]


def name_key(text: str) -> str:
    """The form a name is looked up by: stripped and folded (:func:`gaba.names.fold`)."""
    return fold(text.strip())


def _alias_list(raw) -> list[str]:
    if isinstance(raw, str):
        raw = [raw]
    elif not isinstance(raw, Iterable):
        return []           # a number or a missing value (NaN) of a hand-made graph names nothing
    return [a for a in raw if isinstance(a, str) and a.strip()]


def node_aliases(G, node) -> list[str]:
    """The other names of a NetworkX node (its ``aliases`` attribute, a list or one string)."""
    return _alias_list(G.nodes[node].get("aliases"))


def build_name_table(rows: Iterable[tuple[str, object]]) -> dict[str, str]:
    """``{name_key(surface form): node}`` from ``(node, aliases)`` rows; a node's own name wins over aliases."""
    rows = sorted(rows, key=lambda row: str(row[0]))
    table: dict[str, str] = {}
    for node, raw in rows:
        for alias in _alias_list(raw):
            table.setdefault(name_key(alias), node)
    for node, _ in rows:
        table[name_key(str(node))] = node
    return table


def name_table(G, *, refresh: bool = False) -> dict[str, str]:
    """The name table of a NetworkX graph (cached, see :func:`per_graph`) or of a FalkorStore."""
    if is_store(G):
        return G.name_table()
    return per_graph(G, "names", lambda: build_name_table((n, G.nodes[n].get("aliases")) for n in G.nodes),
                     refresh=refresh)


def suggest(G, name: str, k: int = 3) -> list[str]:
    """The ``k`` node names closest to ``name`` (RapidFuzz over names and aliases)."""
    table = name_table(G)
    hits = process.extract(name.lower(), list(table), scorer=fuzz.WRatio, limit=4 * k)
    return list(dict.fromkeys(table[key] for key, _, _ in hits))[:k]


def resolve_entity(G, name: str, *, noun: str = "entity") -> str:
    """The node a name refers to: the node itself, or a name or alias in any case and spacing.

    EntityNotFound for an unknown or empty name suggests the closest names.

    >>> import networkx as nx
    >>> G = nx.MultiDiGraph(); G.add_node("Kestrel Motors", aliases=["Kestrel"])
    >>> resolve_entity(G, "  KESTREL ")
    'Kestrel Motors'
    """
    store = is_store(G)
    if not store:
        check_graph(G)
        if name in G:
            return name
    if not isinstance(name, str) or not name.strip():
        raise EntityNotFound(f"{name!r} is not a name; pass a non-empty string.")
    keys = dict.fromkeys((name_key(name), name_key(" ".join(name.split()))))
    # a miss rebuilds the table: the graph may have changed (a store keeps its own table)
    for refresh in ((False,) if store else (False, True)):
        table = name_table(G, refresh=refresh)
        for key in keys:
            hit = table.get(key)
            if hit is not None and (store or hit in G):
                return hit
    close = suggest(G, name)
    shown = name if len(name) <= 120 else f"{name[:120]}..."      # a pasted page is not repeated whole
    raise EntityNotFound(f"No {noun} called {shown!r} in this graph. " +
                         (f"Did you mean: {', '.join(map(repr, close))}?" if close else "No name in it is close."))


def find_entities(question: str, G) -> list[str]:
    """The graph's entities named in a question, each once, in order of appearance (``[]`` if none).

    Whole phrases, any case, longest first: "Kestrel Motors" is not also "Kestrel". In a question with
    capitals, a one-word name counts only where it is written with one ("Chronicle", not "which chronicle").
    """
    if not is_store(G):
        check_graph(G)
    check_text(question, "the question")
    table = name_table(G, refresh=True)     # the graph's names now (a chapter may add aliases)
    folded = fold(question)
    # a question all in lowercase says nothing by case; spans of the folded text are spans of the
    # question when folding kept its length
    cased = question != question.lower() and len(folded) == len(question)
    return list(dict.fromkeys(table[key] for a, b, key in find_mentions(folded, table)
                              if " " in key or not cased or question[a:b] != question[a:b].lower()))
