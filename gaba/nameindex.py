"""The linking index of a graph, used by the tiers of :func:`gaba.link.link_entities`."""
from __future__ import annotations

import math
from collections import defaultdict

import networkx as nx

from . import embed
from .entities import check_node_names, node_aliases, per_graph
from .words import comma_head, name_tokens, phrase_key

__all__ = ["NameIndex", "name_index"]


class NameIndex:
    """Per-graph tables: name and alias keys, name words and their weights, neighbours, embeddings."""

    def __init__(self, G):
        check_node_names(G, "entity linking")
        self.signature = G.number_of_nodes()
        self.surfaces: dict[tuple[str, ...], list[tuple[str, str]]] = defaultdict(list)
        self.max_len = 1
        self.names = names = sorted(str(n) for n in G.nodes)
        for node in names:
            for alias in node_aliases(G, node):
                if key := phrase_key(alias):
                    self._add(key, node, "alias")
        # a person's last name alone ("Okello" for "Hana Okello"): questions use it where the texts
        # may not; only when it names no other node or alias and ends no other person's name
        people: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for node in names:
            if key := phrase_key(node):
                self._add(key, node, "exact")
            if G.nodes[node].get("type") == "person" and len(key) >= 2 and len(key[-1]) >= 3 and key[-1].isalpha():
                people[key[-1:]].append(node)
        for key, nodes in people.items():
            if len(nodes) == 1 and key not in self.surfaces:
                self._add(key, nodes[0], "surname")
        self.words: dict[str, list[str]] = {}
        df: dict[str, int] = defaultdict(int)
        self.by_word: dict[str, set[str]] = defaultdict(set)
        self.heads: dict[str, list[str]] = {}
        for node in names:
            words = name_tokens(node)
            self.words[node] = words
            head = comma_head(node)     # "Thomas Stanley, 1st Earl of Derby" is also "Thomas Stanley"
            if head and len(head) >= 2 and head != words:
                self.heads[node] = head
            for w in set(words):
                df[w] += 1
                self.by_word[w].add(node)
        n = max(len(names), 1)
        self.weight = {w: math.log(1 + n / c) for w, c in df.items()}
        self.vocab = sorted(self.by_word)
        self.G = G
        self._vectors = None

    def _add(self, key, node, kind):
        entries = self.surfaces[key]
        if (node, kind) not in entries:         # a node's own name beats an alias
            entries.insert(0 if kind == "exact" else len(entries), (node, kind))
        self.max_len = max(self.max_len, len(key))

    def neighbours(self, node) -> set[str]:
        """The names of the nodes joined to ``node`` in either direction."""
        return {str(x) for x in nx.all_neighbors(self.G, node)}

    def relations(self, node) -> set[str]:
        """The relations of the edges at ``node``: ``relation`` attributes and string edge keys."""
        G = self.G

        def at(**kw) -> list:                   # undirected graphs have no out_edges/in_edges
            return [*G.out_edges(node, **kw), *G.in_edges(node, **kw)] if G.is_directed() else list(G.edges(node, **kw))
        rels = {str(d["relation"]) for *_, d in at(data=True) if d.get("relation") is not None}
        if G.is_multigraph():
            rels |= {k for *_, k in at(keys=True) if isinstance(k, str)}
        return rels

    def vectors(self):
        """Node-name embeddings (unit rows, in ``self.names`` order), computed once."""
        if self._vectors is None:
            self._vectors = embed.embed_texts(self.names, kind="query")
        return self._vectors


def name_index(G) -> NameIndex:
    """The :class:`NameIndex` of ``G``, rebuilt only when its number of nodes changes.

    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_node("Margaret of Henneberg", aliases=["Margaret"])
    >>> idx = name_index(G)
    >>> idx.surfaces[("margaret",)], idx.words["Margaret of Henneberg"]
    ([('Margaret of Henneberg', 'alias')], ['margaret', 'henneberg'])
    """
    idx = per_graph(G, "name index", lambda: NameIndex(G))
    if idx.signature != G.number_of_nodes():       # O(1); counting edges is O(n)
        idx = per_graph(G, "name index", lambda: NameIndex(G), refresh=True)
    return idx
