// The hop explorer's renderer: renderHopExplorer(el, data, state, onChange) draws the data of
// gaba.hop_layout.explorer_data. Used by the static page and by the live widget (gaba/widgets.py).
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
  const make = (tag, cls) => { const e = document.createElement(tag); if (cls) e.className = cls; return e; };

  const controls = make("div", "hx-controls");
  const label = document.createElement("label");
  label.textContent = "Entity ";
  const select = make("select", "entity-select");
  select.setAttribute("aria-label", "Start entity");
  [...data.nodes].map(n => n.name).sort().forEach(name => {
    const opt = document.createElement("option");
    opt.value = name; opt.textContent = name; select.appendChild(opt);
  });
  label.appendChild(select);
  const collapse = make("button", "hx-less");
  collapse.type = "button"; collapse.textContent = "\u2212 one hop";
  const expand = make("button", "hx-more");
  expand.type = "button"; expand.textContent = "+ one hop";
  const reset = make("button", "hx-reset");
  reset.type = "button"; reset.textContent = "reset";
  const status = make("span", "hop-status");
  status.setAttribute("aria-live", "polite");
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

  const side = make("div", "hx-side");
  const summary = make("p", "hx-summary");
  const list = make("ol", "facts");
  side.append(summary, list);
  if (data.truncated) {
    const note = make("p", "hx-note");
    note.setAttribute("role", "note");
    note.textContent = data.truncated.note;
    side.prepend(note);
  }

  const body = make("div", "hx-body");
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
      const head = make("li", "hop-head");
      head.style.borderLeftColor = HOP_COLORS[h];
      head.textContent = `hop ${h}: ${idx.length} new fact${idx.length === 1 ? "" : "s"}`;
      list.appendChild(head);
      idx.forEach(i => {
        const f = data.facts[i];
        const li = make("li", "fact");
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
