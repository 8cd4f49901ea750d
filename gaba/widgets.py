"""The hop explorer of chapter "Graph RAG and multi-hop reasoning": pick an entity, expand hop by
hop, see which facts the traversal gathers. Live in a notebook (``anywidget``) or as HTML in the book."""
from __future__ import annotations

import functools
import html
import json
import numbers
from pathlib import Path

from .graph import gather_facts
from .hop_layout import explorer_data

#: The renderer and its style (``gaba/static``), shared by the static page and the widget.
_STATIC = Path(__file__).parent / "static"
_JS_RENDERER = (_STATIC / "hop_explorer.js").read_text(encoding="utf-8")
_CSS = (_STATIC / "hop_explorer.css").read_text(encoding="utf-8")

#: Escapes that keep embedded JSON from ending ``<script>`` or breaking a JavaScript string
#: (``JSON.parse`` restores the exact text).
_SCRIPT_ESCAPES = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026",
                                 "\u2028": "\\u2028", "\u2029": "\\u2029"})


def hop_explorer_html(G, entity: str | None = None, *, hops: int = 1, max_hops: int = 3,
                      seed: int = 7) -> str:
    """The self-contained HTML of the hop explorer (no network; a ``<noscript>`` fallback lists facts)."""
    _check_hops(hops)
    return _page(explorer_data(G, entity, max_hops=max_hops, seed=seed), hops)


def _check_hops(hops) -> None:
    """TypeError unless ``hops`` (the hops shown first, kept within 1 to ``max_hops``) is an integer."""
    if isinstance(hops, bool) or not isinstance(hops, numbers.Integral):
        raise TypeError(f"hops must be an integer number of hops to show first, not {hops!r}.")


def _page(data: dict, hops: int) -> str:
    """The HTML of :func:`hop_explorer_html` for the data of :func:`gaba.hop_layout.explorer_data`."""
    hops = max(1, min(int(hops), data["max_hops"]))
    uid = data["uid"]
    payload = json.dumps(data, ensure_ascii=False, sort_keys=True).translate(_SCRIPT_ESCAPES)
    first = data["reach"][data["default_entity"]]["facts"]
    fallback = "".join(
        f'<li class="fact" data-hop="{h + 1}">{html.escape(" ".join(data["facts"][i]))}</li>'
        for h in range(hops) for i in first[h])
    return (
        f'<div class="hop-explorer" id="{uid}" data-default-entity="{html.escape(data["default_entity"])}">'
        f'<noscript><p>Facts within {hops} hop(s) of {html.escape(data["default_entity"])}:</p>'
        f'<ol class="facts">{fallback}</ol></noscript></div>\n'
        f"<style>{_CSS}</style>\n"
        f'<script type="application/json" id="{uid}-data">{payload}</script>\n'
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


@functools.cache
def _anywidget_class():
    """Define the anywidget class on first use (anywidget and traitlets are imported lazily)."""
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
            _check_hops(hops)
            data = explorer_data(G, entity, max_hops=max_hops, seed=seed)
            super().__init__(data=data, entity=data["default_entity"],
                             hops=max(1, min(int(hops), max_hops)), **kwargs)
            self.G = G
            self._static_html = _page(data, self.hops)

        @property
        def facts(self) -> set:
            """The facts the explorer currently shows (``gather_facts(G, [entity], hops)``)."""
            return gather_facts(self.G, [self.entity], self.hops)

        def _repr_mimebundle_(self, **kwargs):
            bundle = super()._repr_mimebundle_(**kwargs)
            data, meta = bundle if isinstance(bundle, tuple) else (bundle or {}, {})
            # The static book renders this (no kernel, no network); live front ends prefer the widget.
            return {**data, "text/html": self._static_html}, meta

    return HopExplorer


def hop_explorer(G, entity: str | None = None, *, hops: int = 1, max_hops: int = 3, seed: int = 7,
                 live: bool | None = None):
    """The interactive hop explorer of a knowledge graph: click a node, add or remove hops.

    ``entity`` is preselected (default: most edges); ``live=False`` returns a static :class:`StaticHopExplorer`.
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
