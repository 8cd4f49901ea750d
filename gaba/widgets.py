"""The hop explorer: pick an entity, expand hop by hop, see which facts the traversal gathers.

Taught in chapter "Graph RAG and multi-hop reasoning". One JavaScript renderer draws the
figure in two settings:

- in a live notebook, :func:`hop_explorer` returns an ``anywidget`` widget whose selected
  entity and hop count are synced with Python (``w.entity``, ``w.hops``, ``w.facts``);
- in the static HTML book (no kernel, no network), the same object's ``text/html``
  representation is a self-contained block: inline SVG, inline CSS and inline JavaScript, with
  the traversal results embedded as JSON. Nothing is fetched from a CDN.

The layout is computed in Python (``networkx.spring_layout`` with a fixed seed) and the facts
reached at each hop are computed in Python by :func:`gaba.graph.gather_facts_by_hop`, so the
browser only displays: the counts it shows are exactly those of :func:`gaba.graph.gather_facts`.

Stable selectors for tests: ``.hop-explorer`` (the figure), ``g.node[data-name]`` (clickable
nodes), ``select.entity-select``, ``button.hx-more`` / ``button.hx-less`` / ``button.hx-reset``,
``.hop-status[data-hops][data-total]`` and ``li.fact[data-hop]`` (the listed facts).

Examples
--------
>>> import networkx as nx
>>> from gaba.widgets import hop_explorer_html
>>> G = nx.MultiDiGraph()
>>> G.add_edge("A", "B", key="R", relation="R")
'R'
>>> "hop-explorer" in hop_explorer_html(G, "A")
True
"""
from __future__ import annotations

import hashlib
import html
import json
from collections import deque
from typing import Any

from .graph import _traverse, fact_evidence, fact_sentence, gather_facts, resolve_entity

#: Size guard: a graph with more entities or facts than this is shown as the excerpt nearest to
#: the starting entity, with a visible note (the page would otherwise carry every entity's reach).
MAX_NODES = 200
MAX_FACTS = 800

#: The hop explorer's JavaScript. ``renderHopExplorer(el, data, state, onChange)`` draws into
#: ``el``; the static page and the anywidget front end both call it.
_JS_RENDERER = r"""
function renderHopExplorer(el, data, state, onChange) {
  const NS = "http://www.w3.org/2000/svg";
  const HOP_COLORS = ["#1f2328", "#0969da", "#bf3989", "#9a6700", "#1a7f37", "#8250df", "#cf222e"];
  const maxHops = data.max_hops;
  const byName = Object.create(null);
  data.nodes.forEach((n, i) => { byName[n.name] = i; });
  // Every name, relation and evidence string is data: it is only ever set as text
  // (textContent, attribute values, option values), never parsed as HTML.
  el.replaceChildren();
  el.classList.add("hop-explorer");

  const controls = document.createElement("div");
  controls.className = "hx-controls";
  const label = document.createElement("label");
  label.textContent = "Entity ";
  const select = document.createElement("select");
  select.className = "entity-select";
  select.setAttribute("aria-label", "Start entity");
  [...data.nodes].map(n => n.name).sort().forEach(name => {
    const opt = document.createElement("option");
    opt.value = name; opt.textContent = name; select.appendChild(opt);
  });
  label.appendChild(select);
  const collapse = document.createElement("button");
  collapse.className = "hx-less"; collapse.type = "button"; collapse.textContent = "\u2212 one hop";
  const expand = document.createElement("button");
  expand.className = "hx-more"; expand.type = "button"; expand.textContent = "+ one hop";
  const reset = document.createElement("button");
  reset.className = "hx-reset"; reset.type = "button"; reset.textContent = "reset";
  const status = document.createElement("span");
  status.className = "hop-status"; status.setAttribute("aria-live", "polite");
  controls.append(label, collapse, expand, reset, status);

  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${data.width} ${data.height}`);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "Knowledge graph; click a node to start the traversal there");
  svg.classList.add("hx-graph");
  const defs = document.createElementNS(NS, "defs");
  HOP_COLORS.forEach((c, i) => {
    const m = document.createElementNS(NS, "marker");
    m.setAttribute("id", `${data.uid}-arrow-${i}`);
    m.setAttribute("viewBox", "0 0 10 10"); m.setAttribute("refX", "10"); m.setAttribute("refY", "5");
    m.setAttribute("markerUnits", "userSpaceOnUse");
    m.setAttribute("markerWidth", "9"); m.setAttribute("markerHeight", "9"); m.setAttribute("orient", "auto");
    const p = document.createElementNS(NS, "path");
    p.setAttribute("d", "M0,0 L10,5 L0,10 z"); p.setAttribute("fill", i === 0 ? "#afb8c1" : c);
    m.appendChild(p); defs.appendChild(m);
  });
  svg.appendChild(defs);

  const edgeLayer = document.createElementNS(NS, "g");
  const nodeLayer = document.createElementNS(NS, "g");
  svg.append(edgeLayer, nodeLayer);
  const edgeEls = data.facts.map((f, i) => {
    const a = data.nodes[byName[f[0]]], b = data.nodes[byName[f[2]]];
    const dx = b.x - a.x, dy = b.y - a.y, len = Math.hypot(dx, dy) || 1;
    const r = 9;
    const line = document.createElementNS(NS, "line");
    line.setAttribute("x1", a.x + dx / len * r); line.setAttribute("y1", a.y + dy / len * r);
    line.setAttribute("x2", b.x - dx / len * (r + 2)); line.setAttribute("y2", b.y - dy / len * (r + 2));
    line.setAttribute("class", "edge");
    const title = document.createElementNS(NS, "title");
    title.textContent = `${f[0]} \u2014${f[1]}\u2192 ${f[2]}`;
    line.appendChild(title);
    edgeLayer.appendChild(line);
    return line;
  });
  const nodeEls = data.nodes.map(n => {
    const g = document.createElementNS(NS, "g");
    g.setAttribute("class", "node");
    g.setAttribute("data-name", n.name);
    g.setAttribute("tabindex", "0");
    g.setAttribute("role", "button");
    g.setAttribute("aria-label", `Start at ${n.name}`);
    const hit = document.createElementNS(NS, "circle");
    hit.setAttribute("cx", n.x); hit.setAttribute("cy", n.y); hit.setAttribute("r", 14);
    hit.setAttribute("class", "hit"); hit.setAttribute("fill", "transparent");
    const c = document.createElementNS(NS, "circle");
    c.setAttribute("class", "dot");
    c.setAttribute("cx", n.x); c.setAttribute("cy", n.y); c.setAttribute("r", 9);
    const t = document.createElementNS(NS, "text");
    t.setAttribute("x", n.lx); t.setAttribute("y", n.ly);
    t.setAttribute("text-anchor", n.anchor);
    t.textContent = n.name;
    g.append(hit, c, t);
    g.addEventListener("click", () => choose(n.name, 1));
    g.addEventListener("keydown", ev => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); choose(n.name, 1); } });
    nodeLayer.appendChild(g);
    return g;
  });

  const side = document.createElement("div");
  side.className = "hx-side";
  const summary = document.createElement("p");
  summary.className = "hx-summary";
  const list = document.createElement("ol");
  list.className = "facts";
  side.append(summary, list);
  if (data.truncated) {
    const note = document.createElement("p");
    note.className = "hx-note";
    note.setAttribute("role", "note");
    note.textContent = data.truncated.note;
    side.prepend(note);
  }

  const body = document.createElement("div");
  body.className = "hx-body";
  body.append(svg, side);
  el.append(controls, body);

  function draw() {
    if (!Object.prototype.hasOwnProperty.call(data.reach, state.entity)) state.entity = data.default_entity;
    const entity = state.entity, hops = state.hops;
    const reach = data.reach[entity];
    select.value = entity;
    const nodeHop = Object.create(null); nodeHop[entity] = 0;
    for (let h = 1; h <= hops; h++) (reach.nodes[h] || []).forEach(i => { nodeHop[data.nodes[i].name] = h; });
    const factHop = {};
    for (let h = 1; h <= hops; h++) (reach.facts[h - 1] || []).forEach(i => { factHop[i] = h; });
    nodeEls.forEach((g, i) => {
      const name = data.nodes[i].name;
      const h = nodeHop[name];
      const c = g.querySelector("circle.dot");
      g.classList.toggle("reached", h !== undefined);
      g.classList.toggle("start", h === 0);
      g.setAttribute("data-hop", h === undefined ? "" : String(h));
      c.setAttribute("fill", h === undefined ? "#ffffff" : (h === 0 ? HOP_COLORS[0] : HOP_COLORS[h]));
      c.setAttribute("stroke", h === undefined ? "#8c959f" : (h === 0 ? HOP_COLORS[0] : HOP_COLORS[h]));
    });
    edgeEls.forEach((line, i) => {
      const h = factHop[i];
      line.setAttribute("data-hop", h === undefined ? "" : String(h));
      line.setAttribute("stroke", h === undefined ? "#d0d7de" : HOP_COLORS[h]);
      line.setAttribute("stroke-width", h === undefined ? 1 : 2.6);
      line.setAttribute("marker-end", `url(#${data.uid}-arrow-${h === undefined ? 0 : h})`);
    });
    list.replaceChildren();
    let total = 0;
    const counts = [];
    for (let h = 1; h <= hops; h++) {
      const idx = (reach.facts[h - 1] || []);
      counts.push(idx.length);
      total += idx.length;
      const head = document.createElement("li");
      head.className = "hop-head";
      head.style.borderLeftColor = HOP_COLORS[h];
      head.textContent = `hop ${h}: ${idx.length} new fact${idx.length === 1 ? "" : "s"}`;
      list.appendChild(head);
      idx.forEach(i => {
        const f = data.facts[i];
        const li = document.createElement("li");
        li.className = "fact";
        li.setAttribute("data-hop", String(h));
        li.style.borderLeftColor = HOP_COLORS[h];
        li.textContent = `${f[0]} \u2014${f[1]}\u2192 ${f[2]}`;
        if (data.evidence[i]) li.title = data.evidence[i];
        list.appendChild(li);
      });
    }
    status.textContent = `${hops} of ${maxHops} hops \u00b7 ${total} facts`;
    status.setAttribute("data-hops", String(hops));
    status.setAttribute("data-total", String(total));
    summary.textContent = `From ${entity}: ` + counts.map((c, i) => `hop ${i + 1} +${c}`).join(", ") +
      ` = ${total} facts, about ${Math.round(total * data.tokens_per_fact)} context tokens.`;
    collapse.disabled = hops <= 1;
    expand.disabled = hops >= maxHops;
  }

  function choose(entity, hops) {
    state.entity = entity;
    state.hops = Math.max(1, Math.min(maxHops, hops));
    draw();
    if (onChange) onChange(state.entity, state.hops);
  }
  select.addEventListener("change", () => choose(select.value, 1));
  expand.addEventListener("click", () => choose(state.entity, state.hops + 1));
  collapse.addEventListener("click", () => choose(state.entity, state.hops - 1));
  reset.addEventListener("click", () => choose(data.default_entity, 1));
  draw();
  return { redraw: (entity, hops) => { state.entity = entity; state.hops = hops; draw(); } };
}
"""

_CSS = """
.hop-explorer{font:13px/1.35 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;text-align:left;
 background:#fff;border:1px solid #d0d7de;border-radius:6px;padding:8px;margin:0.5em 0}
.hop-explorer .hx-controls{display:flex;flex-wrap:wrap;gap:6px;align-items:center;margin-bottom:6px}
.hop-explorer select,.hop-explorer button{font:inherit;padding:2px 8px;border:1px solid #8c959f;
 border-radius:4px;background:#f6f8fa;color:#1f2328;cursor:pointer}
.hop-explorer button:disabled{opacity:.45;cursor:default}
.hop-explorer .hop-status{margin-left:auto;font-weight:600}
.hop-explorer .hx-body{display:flex;flex-wrap:wrap;gap:8px}
.hop-explorer svg.hx-graph{flex:3 1 420px;min-width:300px;max-height:520px;background:#fbfcfd;border-radius:4px}
.hop-explorer .hx-side{flex:2 1 240px;max-height:520px;overflow-y:auto}
.hop-explorer .hx-summary{margin:0 0 4px 0}
.hop-explorer .hx-note{margin:0 0 4px 0;padding:2px 6px;background:#fff8c5;border:1px solid #d4a72c;border-radius:4px}
.hop-explorer ol.facts{list-style:none;margin:0;padding:0}
.hop-explorer li.fact,.hop-explorer li.hop-head{border-left:4px solid #ccc;padding:1px 6px;margin:1px 0}
.hop-explorer li.hop-head{font-weight:600;margin-top:6px}
.hop-explorer g.node{cursor:pointer}
.hop-explorer g.node circle.dot{stroke-width:2}
.hop-explorer g.node circle.hit{pointer-events:all}
.hop-explorer g.node text{font-size:10px;fill:#57606a;paint-order:stroke;stroke:#fbfcfd;stroke-width:3px}
.hop-explorer g.node.reached text{fill:#1f2328;font-weight:600}
.hop-explorer g.node:focus circle.dot,.hop-explorer g.node:hover circle.dot{stroke:#fb8500;stroke-width:3}
"""


def _place_labels(nodes: list[dict], width: int, height: int, *, char_w: float = 5.6,
                  line_h: float = 11.0, r: float = 9.0) -> None:
    """Give every node a label position (``lx``, ``ly``, ``anchor``) that avoids the other labels
    and nodes where it can: greedy, busiest nodes first, trying above, below, right and left."""
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
        best, best_cost = None, None
        for i, (lx, ly, anchor, box) in enumerate(options):
            outside = max(0, -box[0]) + max(0, box[2] - width) + max(0, -box[1]) + max(0, box[3] - height)
            cost = sum(overlap(box, b) for b in boxes) + outside * 50 + i * 0.5
            if best_cost is None or cost < best_cost:
                best, best_cost = (lx, ly, anchor, box), cost
        lx, ly, anchor, box = best
        n.update(lx=round(lx, 1), ly=round(ly, 1), anchor=anchor)
        boxes.append(box)


def _excerpt(G, entity: str, max_nodes: int, max_facts: int):
    """The entities nearest to ``entity`` (breadth-first, ties by name) and the edges among them,
    adding entities while both stay within ``max_nodes`` and ``max_facts``."""
    directed = G.is_directed()

    def nbrs(n):
        out = set(G.successors(n)) | set(G.predecessors(n)) if directed else set(G.neighbors(n))
        return sorted(out, key=str)

    def edges_between(a, b):
        if a == b:
            return G.number_of_edges(a, a)
        return G.number_of_edges(a, b) + (G.number_of_edges(b, a) if directed else 0)

    kept = {entity}
    facts = edges_between(entity, entity)
    queue = deque([entity])
    seen = {entity}
    full = False
    while queue and not full:
        n = queue.popleft()
        for m in nbrs(n):
            if m in seen:
                continue
            seen.add(m)
            extra = edges_between(m, m) + sum(edges_between(m, k) for k in kept)
            if len(kept) + 1 > max_nodes or facts + extra > max_facts:
                full = True
                break
            kept.add(m)
            facts += extra
            queue.append(m)
    return G.subgraph(kept).copy()


def explorer_data(G, entity: str | None = None, *, max_hops: int = 3, seed: int = 7,
                  width: int = 640, height: int = 460, max_nodes: int | None = None,
                  max_facts: int | None = None) -> dict[str, Any]:
    """Everything the hop explorer displays, as JSON-ready data (layout and traversal from Python).

    Parameters
    ----------
    G : networkx graph
        The knowledge graph.
    entity : str, optional
        The entity preselected when the figure appears (default: the node of highest degree).
    max_hops : int
        The deepest hop the buttons reach (1 to 6).
    seed : int
        Seed of ``networkx.spring_layout``, so the picture is the same on every build.
    max_nodes, max_facts : int, optional
        Size guard (default :data:`MAX_NODES` and :data:`MAX_FACTS`). A larger graph is shown as
        the excerpt of entities nearest to ``entity`` within both caps, and the figure says so.

    Returns
    -------
    dict
        ``nodes`` (name, x, y), ``facts`` (sorted triples), ``evidence``, and ``reach``: for each
        entity, the fact indices first gathered at each hop and the node indices first reached.
        ``truncated`` is None, or (for an excerpt) the counts shown and in the graph plus a
        ``note`` the figure displays.
    """
    import networkx as nx

    if G.number_of_nodes() == 0:
        raise ValueError("the hop explorer needs a non-empty graph; build one with build_knowledge_graph().")
    if isinstance(max_hops, bool) or not isinstance(max_hops, int) or not 1 <= max_hops <= 6:
        raise ValueError(f"max_hops must be an integer from 1 to 6, not {max_hops!r}")
    names = sorted(str(n) for n in G.nodes)
    if entity is None:
        entity = max(names, key=lambda n: (G.degree(n), [-ord(ch) for ch in n]))
    entity = resolve_entity(G, entity)
    max_nodes = MAX_NODES if max_nodes is None else max_nodes
    max_facts = MAX_FACTS if max_facts is None else max_facts
    for label, cap in (("max_nodes", max_nodes), ("max_facts", max_facts)):
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise ValueError(f"{label} must be a positive integer, not {cap!r}")
    truncated = None
    total_nodes, total_facts = G.number_of_nodes(), G.number_of_edges()
    if total_nodes > max_nodes or total_facts > max_facts:
        G = _excerpt(G, entity, max_nodes, max_facts)
        names = sorted(str(n) for n in G.nodes)
        shown_nodes, shown_facts = G.number_of_nodes(), G.number_of_edges()
        truncated = {
            "nodes": shown_nodes, "total_nodes": total_nodes,
            "facts": shown_facts, "total_facts": total_facts,
            "note": (f"Large graph: showing the {shown_nodes} of {total_nodes} entities nearest to "
                     f"{entity} and the {shown_facts} of {total_facts} facts among them (caps: "
                     f"{max_nodes} entities, {max_facts} facts). Counts are within this excerpt.")}
    U = nx.Graph()
    U.add_nodes_from(names)
    U.add_edges_from((str(u), str(v)) for u, v in G.edges())
    # Kamada-Kawai spreads the components evenly; a seeded spring relaxation then untangles it.
    init = nx.kamada_kawai_layout(U) if U.number_of_edges() else None
    pos = nx.spring_layout(U, pos=init, seed=seed, k=1.8 / max(len(names), 1) ** 0.5, iterations=60)
    xs = [p[0] for p in pos.values()]
    ys = [p[1] for p in pos.values()]
    pad_x, pad_y = 70, 34
    span_x = (max(xs) - min(xs)) or 1.0
    span_y = (max(ys) - min(ys)) or 1.0

    def sx(v):
        return round(pad_x + (v - min(xs)) / span_x * (width - 2 * pad_x), 1)

    def sy(v):
        return round(pad_y + (v - min(ys)) / span_y * (height - 2 * pad_y), 1)

    nodes = [{"name": n, "x": sx(pos[n][0]), "y": sy(pos[n][1])} for n in names]
    _place_labels(nodes, width, height)
    node_index = {n: i for i, n in enumerate(names)}
    facts: list[tuple[str, str, str]] = []
    index: dict[tuple[str, str, str], int] = {}
    reach: dict[str, dict[str, list]] = {}
    for n in names:
        f_by_hop, n_by_hop = _traverse(G, [n], max_hops, "both")
        for hop_facts in f_by_hop:
            for f in hop_facts:
                if f not in index:
                    index[f] = -1
    facts = sorted(index)
    index = {f: i for i, f in enumerate(facts)}
    for n in names:
        f_by_hop, n_by_hop = _traverse(G, [n], max_hops, "both")
        reach[n] = {"facts": [sorted(index[f] for f in hop) for hop in f_by_hop],
                    "nodes": [sorted(node_index[str(x)] for x in hop) for hop in n_by_hop]}
    evidence = [" ".join(fact_evidence(G, [f])) for f in facts]
    words = sum(len(fact_sentence(f).split()) for f in facts) / max(len(facts), 1)
    uid = "hx-" + hashlib.sha256(json.dumps([names, facts, entity]).encode()).hexdigest()[:10]
    out = {"uid": uid, "width": width, "height": height, "max_hops": max_hops,
           "default_entity": entity, "nodes": nodes, "facts": [list(f) for f in facts],
           "evidence": evidence, "reach": reach, "tokens_per_fact": round(words * 1.3, 3)}
    if truncated is not None:
        out["truncated"] = truncated
    return out


#: Characters escaped in the embedded JSON, so no text can end the ``<script>`` element, open an
#: HTML comment or break a JavaScript string: the result is still plain JSON for ``JSON.parse``.
_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                   "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _script_json(data: Any) -> str:
    """JSON safe inside an HTML ``<script type="application/json">`` element.

    ``<``, ``>``, ``&`` and U+2028/U+2029 can only occur inside JSON strings, where their
    ``\\uXXXX`` escapes mean the same characters, so ``JSON.parse`` restores the exact text.

    >>> _script_json({"n": "</script><!--&"})
    '{"n": "\\\\u003c/script\\\\u003e\\\\u003c!--\\\\u0026"}'
    """
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return "".join(_SCRIPT_ESCAPES.get(ch, ch) for ch in text)


def hop_explorer_html(G, entity: str | None = None, *, hops: int = 1, max_hops: int = 3,
                      seed: int = 7) -> str:
    """The self-contained HTML of the hop explorer (inline SVG, CSS and JavaScript; no network).

    A ``<noscript>`` fallback lists the preselected entity's facts, so the page is never blank.
    """
    data = explorer_data(G, entity, max_hops=max_hops, seed=seed)
    hops = max(1, min(int(hops), max_hops))
    uid = data["uid"]
    first = data["reach"][data["default_entity"]]["facts"]
    fallback = "".join(
        f'<li class="fact" data-hop="{h + 1}">{html.escape(" ".join(data["facts"][i]))}</li>'
        for h in range(hops) for i in first[h])
    return (
        f'<div class="hop-explorer" id="{uid}" data-default-entity="{html.escape(data["default_entity"])}">'
        f'<noscript><p>Facts within {hops} hop(s) of {html.escape(data["default_entity"])}:</p>'
        f'<ol class="facts">{fallback}</ol></noscript></div>\n'
        f"<style>{_CSS}</style>\n"
        f'<script type="application/json" id="{uid}-data">{_script_json(data)}</script>\n'
        "<script>(function(){\n"
        f"{_JS_RENDERER}\n"
        f'const el = document.getElementById("{uid}");\n'
        f'const data = JSON.parse(document.getElementById("{uid}-data").textContent);\n'
        # only the element id (hex) and an integer are written into the code itself
        f"renderHopExplorer(el, data, {{entity: data.default_entity, hops: {int(hops)}}}, null);\n"
        "})();</script>"
    )


class StaticHopExplorer:
    """The hop explorer as a plain object with an HTML representation (no kernel needed)."""

    def __init__(self, G, entity: str | None = None, *, hops: int = 1, max_hops: int = 3, seed: int = 7):
        self._html = hop_explorer_html(G, entity, hops=hops, max_hops=max_hops, seed=seed)
        self.G = G

    def _repr_html_(self) -> str:
        return self._html


_widget_class = None


def _anywidget_class():
    """Define the anywidget class on first use (anywidget and traitlets are imported lazily)."""
    global _widget_class
    if _widget_class is not None:
        return _widget_class
    import anywidget
    import traitlets

    esm = _JS_RENDERER + """
function render({ model, el }) {
  const data = model.get("data");
  const view = renderHopExplorer(el, data, { entity: model.get("entity"), hops: model.get("hops") },
    (entity, hops) => { model.set("entity", entity); model.set("hops", hops); model.save_changes(); });
  const sync = () => view.redraw(model.get("entity"), model.get("hops"));
  model.on("change:entity", sync);
  model.on("change:hops", sync);
}
export default { render };
"""

    class HopExplorer(anywidget.AnyWidget):
        """Live hop explorer: ``entity`` and ``hops`` are synced with the browser."""

        _esm = esm
        _css = _CSS
        data = traitlets.Dict().tag(sync=True)
        entity = traitlets.Unicode().tag(sync=True)
        hops = traitlets.Int(1).tag(sync=True)

        def __init__(self, G, entity=None, *, hops=1, max_hops=3, seed=7, **kwargs):
            data = explorer_data(G, entity, max_hops=max_hops, seed=seed)
            super().__init__(data=data, entity=data["default_entity"],
                             hops=max(1, min(int(hops), max_hops)), **kwargs)
            self.G = G
            self._static_html = hop_explorer_html(G, data["default_entity"], hops=self.hops,
                                                  max_hops=max_hops, seed=seed)

        @property
        def facts(self) -> set:
            """The facts the explorer currently shows (``gather_facts(G, [entity], hops)``)."""
            return gather_facts(self.G, [self.entity], self.hops)

        def _repr_mimebundle_(self, **kwargs):
            bundle = super()._repr_mimebundle_(**kwargs)
            if isinstance(bundle, tuple):
                data, meta = bundle
            else:
                data, meta = bundle or {}, {}
            data = dict(data)
            # The static book renders this (no kernel, no network); live front ends prefer the widget.
            data["text/html"] = self._static_html
            return data, meta

    _widget_class = HopExplorer
    return HopExplorer


def hop_explorer(G, entity: str | None = None, *, hops: int = 1, max_hops: int = 3, seed: int = 7,
                 live: bool | None = None):
    """The interactive hop explorer of a knowledge graph.

    Click a node (or choose it in the list) to start the traversal there; the buttons add or
    remove one hop. The facts first gathered at each hop are highlighted in that hop's colour
    and listed with their counts.

    Parameters
    ----------
    G : networkx graph
    entity : str, optional
        The entity preselected (default: the node with the most edges).
    hops : int
        Hops shown at first (1 to ``max_hops``).
    max_hops : int
        The deepest expansion offered (default 3).
    seed : int
        Layout seed (a fixed seed gives the same picture on every run).
    live : bool, optional
        ``True`` returns the anywidget widget, ``False`` the static HTML object; default: the
        widget when ``anywidget`` is installed. Both carry the static HTML, which is what the
        built book shows.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph(); _ = G.add_edge("A", "B", key="R", relation="R")
    >>> w = hop_explorer(G, "A", live=False)
    >>> "li" in w._repr_html_()
    True
    """
    if live is None:
        try:
            import anywidget  # noqa: F401
            live = True
        except ImportError:
            live = False
    if live:
        return _anywidget_class()(G, entity, hops=hops, max_hops=max_hops, seed=seed)
    return StaticHopExplorer(G, entity, hops=hops, max_hops=max_hops, seed=seed)
