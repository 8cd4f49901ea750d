"""Node merging (chapter "Retrieval that stays sharp at scale"): one node per entity a graph spells
several ways, the other spellings its aliases."""
from __future__ import annotations

from collections import defaultdict
from itertools import combinations

import networkx as nx
from rapidfuzz import fuzz

from .entities import check_graph, check_node_names, node_aliases
from .words import comma_head, name_tokens

__all__ = ["merge_equivalent_nodes"]


def merge_equivalent_nodes(G, *, threshold: float = 0.9):
    """Merge nodes that name one entity in different ways; return ``(new graph, {merged: kept})``.

    Names merge when their words are equal, one is the other before a comma title, or they share first
    and last word and reach ``threshold`` similarity. The longest name stays, the others become aliases.

    >>> import networkx as nx
    >>> G = nx.MultiDiGraph([("Free Guy", "Shawn Levy"), ("Shawn Levy (director)", "1968")])
    >>> merge_equivalent_nodes(G)[1]
    {'Shawn Levy': 'Shawn Levy (director)'}
    """
    check_graph(G)
    check_node_names(G, "merge_equivalent_nodes")
    if not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    names = sorted(str(n) for n in G.nodes)
    words = {n: name_tokens(n) for n in names}
    heads = {n: comma_head(n) for n in names}
    numbers = {n: {w for w in words[n] if any(c.isdigit() for c in w)} for n in names}
    same_entity = nx.utils.UnionFind(names)
    by_last: dict[str, list[str]] = defaultdict(list)
    for n in names:
        if len(words[n]) >= 2 and not n.strip().isdigit():
            by_last[words[n][-1]].append(n)
            if heads[n] and len(heads[n]) >= 2:
                by_last[heads[n][-1]].append(n)
    for group in by_last.values():
        group = sorted(set(group))
        if len(group) > 50:
            continue        # a very common last word: too many to compare safely
        for a, b in combinations(group, 2):
            wa, wb, ha, hb, na, nb = words[a], words[b], heads[a], heads[b], numbers[a], numbers[b]
            if na and nb and na != nb:
                continue    # "16th Earl" and "17th Earl", "2nd" and "3rd Baronet": different people
            if (wa == wb or (ha and ha == wb) or (hb and hb == wa)
                    or (len(wa) >= 2 and len(wb) >= 2 and wa[0] == wb[0]
                        and fuzz.token_sort_ratio(" ".join(wa), " ".join(wb)) >= 100 * threshold)):
                same_entity.union(a, b)
    mapping = {}
    for members in same_entity.to_sets():
        target = max(members, key=lambda m: (len(m), m))
        mapping.update((m, target) for m in members if m != target)
    merged_aliases: dict[str, list[str]] = defaultdict(list)
    for n in names:
        target = mapping.get(n, n)
        for a in node_aliases(G, n) + ([n] if n != target else []):
            if a not in merged_aliases[target]:
                merged_aliases[target].append(a)
    H = nx.relabel_nodes(G, lambda n: mapping.get(str(n), n), copy=True)
    for node, aliases in merged_aliases.items():
        if node in H and (aliases or "aliases" in H.nodes[node]):
            H.nodes[node]["aliases"] = aliases
    return H, dict(sorted(mapping.items()))
