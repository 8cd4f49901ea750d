"""The hop explorer: pick an entity, expand hop by hop, see which facts the traversal gathers.

Taught in chapter "Graph RAG and multi-hop reasoning". One JavaScript renderer draws the data of
:func:`gaba.hop_layout.explorer_data`, live in a notebook (an ``anywidget`` widget) or in the
static book (self-contained HTML, nothing from a CDN). Stable selectors for tests:
``.hop-explorer``, ``g.node[data-name]``, ``button.hx-more``, ``li.fact[data-hop]`` and others.
"""
from __future__ import annotations

import html
import json
from typing import Any

from .graph import gather_facts
from .hop_layout import explorer_data

#: ``renderHopExplorer(el, data, state, onChange)``, called by the static page and the widget.
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


#: Escapes that keep embedded JSON from ending ``<script>`` or breaking a JavaScript string.
_SCRIPT_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                   "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _script_json(data: Any) -> str:
    """JSON safe inside ``<script type="application/json">``; ``JSON.parse`` restores the exact text."""
    text = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return "".join(_SCRIPT_ESCAPES.get(ch, ch) for ch in text)


def hop_explorer_html(G, entity: str | None = None, *, hops: int = 1, max_hops: int = 3,
                      seed: int = 7) -> str:
    """The self-contained HTML of the hop explorer (inline SVG, CSS and JavaScript; no network).

    A ``<noscript>`` fallback lists the preselected entity's facts, so the page is never blank.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> _ = G.add_edge("A", "B", key="R", relation="R")
    >>> "hop-explorer" in hop_explorer_html(G, "A")
    True
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
    """The interactive hop explorer of a knowledge graph: click a node, add or remove hops.

    ``entity`` is preselected (default: the node with the most edges); ``live=True`` returns the
    anywidget widget, ``False`` a static HTML object (default: the widget if ``anywidget`` is
    installed). Both carry the static HTML, which is what the built book shows.

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
