"""What the hop explorer of :mod:`gaba.widgets` shows, computed in Python: layout and reach by hop."""
from __future__ import annotations

import hashlib
import json
from typing import Any

import networkx as nx

from .checks import check_positive_int
from .entities import check_graph, resolve_entity
from .graph import _traverse, fact_evidence, fact_sentence

__all__ = ["MAX_NODES", "MAX_FACTS", "explorer_data"]

#: Size guard: a larger graph is shown as the excerpt nearest to the starting entity, with a note.
MAX_NODES = 200
MAX_FACTS = 800


def _place_labels(nodes: list[dict], width: int, height: int, *, char_w: float = 5.6,
                  line_h: float = 11.0, r: float = 9.0) -> None:
    """Set each node's ``lx``, ``ly``, ``anchor``: greedily above, below, right or left, avoiding overlaps."""
    boxes: list[tuple[float, float, float, float]] = [(n["x"] - r, n["y"] - r, n["x"] + r, n["y"] + r)
                                                       for n in nodes]

    def overlap(a, b):
        w = min(a[2], b[2]) - max(a[0], b[0])
        h = min(a[3], b[3]) - max(a[1], b[1])
        return max(w, 0) * max(h, 0)

    for n in sorted(nodes, key=lambda n: (n["y"], n["x"])):
        w = len(n["name"]) * char_w
        x, y = n["x"], n["y"]
        options = [  # (label x, baseline y, anchor, box)
            (x, y - r - 4, "middle", (x - w / 2, y - r - 4 - line_h, x + w / 2, y - r - 2)),
            (x, y + r + line_h + 1, "middle", (x - w / 2, y + r + 2, x + w / 2, y + r + line_h + 3)),
            (x + r + 4, y + 4, "start", (x + r + 3, y - line_h / 2, x + r + 4 + w, y + line_h / 2)),
            (x - r - 4, y + 4, "end", (x - r - 4 - w, y - line_h / 2, x - r - 3, y + line_h / 2)),
        ]
        def cost(i: int) -> float:
            box = options[i][3]
            outside = max(0, -box[0]) + max(0, box[2] - width) + max(0, -box[1]) + max(0, box[3] - height)
            return sum(overlap(box, b) for b in boxes) + outside * 50 + i * 0.5

        lx, ly, anchor, box = options[min(range(len(options)), key=cost)]   # the first of equal costs
        n.update(lx=round(lx, 1), ly=round(ly, 1), anchor=anchor)
        boxes.append(box)


def _excerpt(G, entity: str, max_nodes: int, max_facts: int):
    """The subgraph of the entities nearest to ``entity`` (breadth first) within both caps."""
    def nbrs(n):
        return sorted(set(nx.all_neighbors(G, n)), key=str)

    def edges_between(a, b):
        if a == b or not G.is_directed():
            return G.number_of_edges(a, b)
        return G.number_of_edges(a, b) + G.number_of_edges(b, a)

    kept = {entity}
    facts = edges_between(entity, entity)
    for _, m in nx.generic_bfs_edges(G, entity, nbrs):
        extra = edges_between(m, m) + sum(edges_between(m, k) for k in kept)
        if len(kept) + 1 > max_nodes or facts + extra > max_facts:
            break
        kept.add(m)
        facts += extra
    return G.subgraph(kept).copy()


def explorer_data(G, entity: str | None = None, *, max_hops: int = 3, seed: int = 7,
                  width: int = 640, height: int = 460, max_nodes: int | None = None,
                  max_facts: int | None = None) -> dict[str, Any]:
    """Everything the hop explorer displays, as JSON-ready data (layout and traversal from Python).

    ``reach``: per entity, the facts and nodes first reached at each hop (``max_hops`` 1 to 6). A
    graph over ``max_nodes`` or ``max_facts`` is an excerpt, marked ``truncated``.
    """
    check_graph(G)
    if G.number_of_nodes() == 0:
        raise ValueError("the hop explorer needs a non-empty graph; build one with build_knowledge_graph().")
    if isinstance(max_hops, bool) or not isinstance(max_hops, int) or not 1 <= max_hops <= 6:
        raise ValueError(f"max_hops must be an integer from 1 to 6, not {max_hops!r}")
    for label, size in (("width", width), ("height", height)):
        if isinstance(size, bool) or not isinstance(size, int) or size < 200:
            raise ValueError(f"{label} must be a whole number of pixels, at least 200, not {size!r}")
    if not all(isinstance(n, str) for n in G):
        # the page names nodes by their text: 7 and "7" would be one node
        if len({str(n) for n in G}) < G.number_of_nodes():
            raise ValueError("two nodes of this graph have the same text (such as 7 and '7'); "
                             "rename one before showing the graph.")
        entity = str(entity) if entity is not None and not isinstance(entity, str) and entity in G else entity
        G = nx.relabel_nodes(G, str)
    names = sorted(str(n) for n in G.nodes)
    if entity is None:
        entity = max(names, key=lambda n: (G.degree(n), [-ord(ch) for ch in n]))
    entity = resolve_entity(G, entity)
    max_nodes = MAX_NODES if max_nodes is None else max_nodes
    max_facts = MAX_FACTS if max_facts is None else max_facts
    check_positive_int("max_nodes", max_nodes)
    check_positive_int("max_facts", max_facts)
    truncated = None
    total_nodes, total_facts = G.number_of_nodes(), G.number_of_edges()
    if total_nodes > max_nodes or total_facts > max_facts:
        G = _excerpt(G, entity, max_nodes, max_facts)
        names = sorted(str(n) for n in G.nodes)
        shown_nodes, shown_facts = G.number_of_nodes(), G.number_of_edges()
        truncated = {
            "nodes": shown_nodes, "total_nodes": total_nodes, "facts": shown_facts, "total_facts": total_facts,
            "note": (f"Large graph: showing the {shown_nodes} of {total_nodes} entities nearest to "
                     f"{entity} and the {shown_facts} of {total_facts} facts among them (caps: "
                     f"{max_nodes} entities, {max_facts} facts). Counts are within this excerpt.")}
    U = nx.Graph()
    U.add_nodes_from(names)
    U.add_edges_from((str(u), str(v)) for u, v in G.edges())
    # Kamada-Kawai spreads the components evenly; a seeded spring relaxation untangles it
    init = nx.kamada_kawai_layout(U) if U.number_of_edges() else None
    pos = nx.spring_layout(U, pos=init, seed=seed, k=1.8 / max(len(names), 1) ** 0.5, iterations=60)
    xs, ys = zip(*pos.values())
    (pad_x, pad_y), (x0, y0) = (70, 34), (min(xs), min(ys))
    span_x, span_y = (max(xs) - x0) or 1.0, (max(ys) - y0) or 1.0
    nodes = [{"name": n, "x": round(pad_x + (pos[n][0] - x0) / span_x * (width - 2 * pad_x), 1),
              "y": round(pad_y + (pos[n][1] - y0) / span_y * (height - 2 * pad_y), 1)} for n in names]
    _place_labels(nodes, width, height)
    node_index = {n: i for i, n in enumerate(names)}
    walks = {n: _traverse(G, [n], max_hops, "both") for n in names}
    facts = sorted({f for f_by_hop, _ in walks.values() for hop in f_by_hop for f in hop})
    index = {f: i for i, f in enumerate(facts)}
    reach = {n: {"facts": [sorted(index[f] for f in hop) for hop in f_by_hop],
                 "nodes": [sorted(node_index[str(x)] for x in hop) for hop in n_by_hop]}
             for n, (f_by_hop, n_by_hop) in walks.items()}
    evidence = [" ".join(fact_evidence(G, [f])) for f in facts]
    words = sum(len(fact_sentence(f).split()) for f in facts) / max(len(facts), 1)
    uid = "hx-" + hashlib.sha256(json.dumps([names, facts, entity]).encode()).hexdigest()[:10]
    out = {"uid": uid, "width": width, "height": height, "max_hops": max_hops,
           "default_entity": entity, "nodes": nodes, "facts": [list(f) for f in facts],
           "evidence": evidence, "reach": reach, "tokens_per_fact": round(words * 1.3, 3)}
    if truncated is not None:
        out["truncated"] = truncated
    return out
