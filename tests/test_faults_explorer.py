"""Fault probes of the static hop explorer (gaba.widgets): hostile names, relations, aliases and
evidence must stay text, the embedded data must always parse, and huge graphs are capped.

The browser probes load the explorer's HTML in headless Chromium (Debian's ``chromium``, as in
tests/test_browser.py) and are skipped when it is not installed.
"""
from __future__ import annotations

import json
import re
import shutil

import networkx as nx
import pytest

from gaba import hop_layout, widgets
from gaba.graph import gather_facts

SCRIPT = "</script><script>window.__pwned=1</script>"
IMG = '<img src=x onerror="window.__pwned=1">'
COMMENT = "<!--"
START = f"Acme{SCRIPT}"
OTHER = f"Beta {IMG} {COMMENT} Co"
THIRD = f"Gamma {COMMENT}\u2028\u2029 & Sons"
REL = "OWNS"


def hostile_graph() -> nx.MultiDiGraph:
    """A tiny graph whose starting (and busiest) entity, relation, alias and evidence are hostile."""
    G = nx.MultiDiGraph()
    G.add_node(START, aliases=[f"acme {IMG}", COMMENT])
    G.add_node(OTHER, aliases=[SCRIPT])
    G.add_node(THIRD, aliases=[])
    G.add_edge(START, OTHER, key=REL, relation=REL, evidence=f"{SCRIPT} {IMG} {COMMENT} owns it.")
    evil_rel = f"SUPPLIES{IMG}"
    G.add_edge(START, THIRD, key=evil_rel, relation=evil_rel, evidence=f"{COMMENT} {SCRIPT}")
    G.add_edge(THIRD, OTHER, key=REL, relation=REL, evidence=IMG)
    return G


def _data_json(page_html: str) -> str:
    m = re.search(r'<script type="application/json" id="[^"]+">(.*?)</script>', page_html, re.S)
    assert m, "the explorer's data element is missing"
    return m.group(1)


# --- the HTML as text ---------------------------------------------------------------------------

def test_starting_entity_cannot_close_the_script():
    html = widgets.hop_explorer_html(hostile_graph())      # the busiest node is the hostile one
    assert html.count("</script>") == 2 and html.count("<script") == 2
    # the hostile text appears nowhere raw (only escaped, in the data and the no-script list)
    assert SCRIPT not in html and "<img" not in html and "<!--" not in html


def test_explicit_starting_entity_is_not_code():
    html = widgets.hop_explorer_html(hostile_graph(), START)
    code = html.split("<script>(function(){", 1)[1]
    assert "Acme" not in code, "the entity name must not be written into the script's code"
    scripts = _data_json(html) + code
    assert "\u2028" not in scripts and "\u2029" not in scripts


def test_embedded_json_round_trips_exactly():
    G = hostile_graph()
    html = widgets.hop_explorer_html(G, START, hops=2)
    blob = _data_json(html)
    assert "<" not in blob and ">" not in blob and "&" not in blob
    data = json.loads(blob)
    assert data["default_entity"] == START
    assert {n["name"] for n in data["nodes"]} == {START, OTHER, THIRD}
    assert any(f[1] == f"SUPPLIES{IMG}" for f in data["facts"])
    assert any(SCRIPT in e and COMMENT in e for e in data["evidence"])


def test_comment_opener_alone_keeps_the_data_parseable():
    G = nx.MultiDiGraph()
    G.add_edge("A <!-- b", "C", key="R", relation="R", evidence="x <!-- y")
    data = json.loads(_data_json(widgets.hop_explorer_html(G)))
    assert data["nodes"][0]["name"] == "A <!-- b" and data["evidence"] == ["x <!-- y"]


def test_noscript_fallback_is_escaped():
    html = widgets.hop_explorer_html(hostile_graph(), START)
    noscript = html.split("<noscript>", 1)[1].split("</noscript>", 1)[0]
    assert "<img" not in noscript and "<script" not in noscript
    assert "&lt;/script&gt;" in noscript


# --- size guard ---------------------------------------------------------------------------------

def test_large_graph_is_capped_with_a_note():
    G = nx.MultiDiGraph()
    for i in range(400):
        G.add_edge(f"n{i:03d}", f"n{(i + 1) % 400:03d}", key="NEXT", relation="NEXT")
        G.add_edge(f"n{i:03d}", f"n{(i * 7) % 400:03d}", key="JUMP", relation="JUMP")
    data = hop_layout.explorer_data(G, "n000")
    assert data["truncated"]["total_nodes"] == 400
    assert len(data["nodes"]) <= hop_layout.MAX_NODES and len(data["facts"]) <= hop_layout.MAX_FACTS
    assert "n000" in {n["name"] for n in data["nodes"]}
    assert "showing the" in data["truncated"]["note"] and "400" in data["truncated"]["note"]
    small = hop_layout.explorer_data(G, "n000", max_nodes=10, max_facts=12)
    assert len(small["nodes"]) <= 10 and len(small["facts"]) <= 12


def test_small_graph_is_not_capped():
    assert "truncated" not in hop_layout.explorer_data(hostile_graph())


def test_bad_caps_are_refused():
    with pytest.raises(ValueError, match="max_nodes"):
        hop_layout.explorer_data(hostile_graph(), max_nodes=0)


# --- in a browser -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser():
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=[
            "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run"])
        try:
            yield b
        finally:
            b.close()


def _load(browser, html: str):
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("dialog", lambda d: (errors.append(f"dialog: {d.message}"), d.dismiss()))
    page.set_content(f"<!doctype html><html><body>{html}</body></html>")
    page.wait_for_selector(".hop-explorer li.fact", timeout=10000)
    return page, errors


def test_browser_hostile_start_runs_no_script(browser):
    G = hostile_graph()
    page, errors = _load(browser, widgets.hop_explorer_html(G, START, hops=2))
    try:
        assert page.evaluate("typeof window.__pwned") == "undefined"
        assert errors == []
        assert page.locator("img").count() == 0
        facts = page.locator(".hop-explorer li.fact").all_text_contents()
        expected = gather_facts(G, [START], 2)
        assert len(facts) == len(expected)
        assert f"{START} \u2014OWNS\u2192 {OTHER}" in facts           # the literal names
        assert page.locator(".hop-explorer select.entity-select").input_value() == START
        titles = page.locator(".hop-explorer li.fact").evaluate_all("els => els.map(e => e.title)")
        assert any(SCRIPT in t for t in titles)
        # clicking another hostile node still runs nothing and lists its facts
        page.locator(".hop-explorer g.node").nth(1).click()
        assert page.locator(".hop-explorer li.fact").count() > 0
        assert page.evaluate("typeof window.__pwned") == "undefined" and errors == []
    finally:
        page.close()


def test_browser_default_entity_hostile(browser):
    page, errors = _load(browser, widgets.hop_explorer_html(hostile_graph()))
    try:
        assert page.evaluate("typeof window.__pwned") == "undefined" and errors == []
        status = page.locator(".hop-explorer .hop-status")
        assert int(status.get_attribute("data-total")) > 0
    finally:
        page.close()


def test_browser_comment_in_names_renders(browser):
    G = nx.MultiDiGraph()
    G.add_edge("A <!-- b", "C --> d", key="R", relation="R", evidence="x <!-- y")
    page, errors = _load(browser, widgets.hop_explorer_html(G, "A <!-- b"))
    try:
        assert errors == []
        assert page.locator(".hop-explorer li.fact").all_text_contents() == ["A <!-- b \u2014R\u2192 C --> d"]
    finally:
        page.close()


def test_browser_proto_name_renders(browser):
    G = nx.MultiDiGraph()
    G.add_edge("__proto__", "constructor", key="R", relation="R")
    page, errors = _load(browser, widgets.hop_explorer_html(G, "__proto__"))
    try:
        assert errors == []
        assert page.locator(".hop-explorer li.fact").count() == 1
    finally:
        page.close()


def test_browser_capped_graph_shows_the_note(browser, monkeypatch):
    G = nx.MultiDiGraph()
    for i in range(60):
        G.add_edge(f"n{i:02d}", f"n{(i + 1) % 60:02d}", key="NEXT", relation="NEXT")
    assert "truncated" not in json.loads(_data_json(widgets.hop_explorer_html(G, "n00")))
    monkeypatch.setattr(hop_layout, "MAX_NODES", 12)
    capped = widgets.hop_explorer_html(G, "n00")
    page, errors = _load(browser, capped)
    try:
        assert errors == []
        note = page.locator(".hop-explorer .hx-note").text_content()
        assert "showing the 12 of 60 entities" in note
        assert page.locator(".hop-explorer g.node").count() == 12
    finally:
        page.close()
