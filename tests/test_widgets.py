"""Tests of gaba.widgets: the hop explorer's data, its self-contained HTML and the live widget."""
from __future__ import annotations

import json
import re

import networkx as nx
import pytest

from gaba import hop_layout, widgets
from gaba.errors import EntityNotFound
from gaba.graph import gather_facts, gather_facts_by_hop


@pytest.fixture
def G():
    G = nx.MultiDiGraph()
    for s, r, o in [("Aurora Cell Works", "SUPPLIES_TO", "Kestrel Motors"),
                    ("Voltaic Dynamics", "COMPETES_WITH", "Aurora Cell Works"),
                    ("Mara Voss", "BOARD_MEMBER_OF", "Kestrel Motors"),
                    ("Mara Voss", "BOARD_MEMBER_OF", "Northwind Systems"),
                    ("Meridian Semiconductors", "SUPPLIES_TO", "Northwind Systems")]:
        G.add_edge(s, o, key=r, relation=r, evidence=f"{s} and {o}.")
    G.add_node("</script><b>Evil & Co", aliases=[])
    return G


def test_data_matches_gather_facts_for_every_entity(G):
    data = hop_layout.explorer_data(G, "Kestrel Motors", max_hops=3)
    assert data["default_entity"] == "Kestrel Motors"
    assert [n["name"] for n in data["nodes"]] == sorted(G.nodes)
    for name, reach in data["reach"].items():
        by_hop = gather_facts_by_hop(G, [name], 3)
        assert [len(h) for h in reach["facts"]] == [len(h) for h in by_hop]
        shown = {tuple(data["facts"][i]) for hop in reach["facts"][:2] for i in hop}
        assert shown == gather_facts(G, [name], 2)


def test_layout_is_stable_and_inside_the_canvas(G):
    a = hop_layout.explorer_data(G, seed=7)
    b = hop_layout.explorer_data(G, seed=7)
    assert a["nodes"] == b["nodes"]
    for n in a["nodes"]:
        assert 0 <= n["x"] <= a["width"] and 0 <= n["y"] <= a["height"]


def test_default_entity_is_the_busiest_node(G):
    assert hop_layout.explorer_data(G)["default_entity"] in {"Kestrel Motors", "Aurora Cell Works",
                                                            "Mara Voss", "Northwind Systems"}


def test_html_is_self_contained_and_escaped(G):
    page = widgets.hop_explorer_html(G, "Kestrel Motors", hops=2)
    assert 'class="hop-explorer"' in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page), "no network resources"
    assert "import(" not in page and "require(" not in page
    # the hostile node name cannot close the script element early
    assert page.count("</script>") == 2
    data_json = re.search(r'<script type="application/json" id="[^"]+">(.*?)</script>', page, re.S).group(1)
    data = json.loads(data_json)
    assert "</script><b>Evil & Co" in [n["name"] for n in data["nodes"]]
    # the no-script fallback lists the preselected entity's facts within the initial hops
    assert page.count('<li class="fact"') == len(gather_facts(G, ["Kestrel Motors"], 2))


def test_bad_input(G):
    with pytest.raises(ValueError, match="non-empty"):
        hop_layout.explorer_data(nx.MultiDiGraph())
    with pytest.raises(ValueError, match="max_hops"):
        hop_layout.explorer_data(G, max_hops=0)
    with pytest.raises(EntityNotFound):
        hop_layout.explorer_data(G, "Kestrel Motorz")


def test_static_object_has_html(G):
    w = widgets.hop_explorer(G, "Kestrel Motors", live=False)
    assert "hop-explorer" in w._repr_html_()


def test_live_widget_carries_html_for_the_static_book(G):
    pytest.importorskip("anywidget")
    w = widgets.hop_explorer(G, "kestrel motors", hops=2)
    assert (w.entity, w.hops) == ("Kestrel Motors", 2)
    assert w.facts == gather_facts(G, ["Kestrel Motors"], 2)
    data, _ = w._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data
    assert 'class="hop-explorer"' in data["text/html"]
    w.entity, w.hops = "Mara Voss", 1
    assert w.facts == gather_facts(G, ["Mara Voss"], 1)
    assert "export default" in w._esm and "renderHopExplorer" in w._esm
