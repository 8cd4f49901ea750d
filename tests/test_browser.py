"""The hop explorer in the built book, driven in headless Chromium.

Opens ``_build/html/chapters/graph_rag.html`` (built by ``make book``; set ``GABA_BOOK_HTML`` to
another build's ``html`` folder to test that one), clicks an entity in the hop explorer, expands
it to two hops, and checks that the page lists exactly the facts ``gather_facts`` gathers.
Uses Debian's ``chromium`` through the ``playwright`` package; skipped only when Chromium is
not installed.
"""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK_HTML = Path(os.environ.get("GABA_BOOK_HTML") or ROOT / "_build" / "html")
PAGE = BOOK_HTML / "chapters" / "graph_rag.html"
ENTITY = "Aurora Cell Works"
SCREENSHOT = os.environ.get("GABA_SCREENSHOT")  # optional path of a PNG of the explorer

pytestmark = pytest.mark.browser
PAGE_ERRORS: list[str] = []


@pytest.fixture(scope="module")
def page():
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium, or `make chromium`)")
    if "chapters/graph_rag" not in (ROOT / "_toc.yml").read_text(encoding="utf-8"):
        pytest.skip("the Graph RAG chapter is not in the book yet (_toc.yml), so there is no hop explorer page")
    if not PAGE.is_file():
        pytest.fail(f"{PAGE} does not exist: run `make book` first (or point GABA_BOOK_HTML at a built book)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=[
            "--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run"])
        try:
            pg = browser.new_page(viewport={"width": 1280, "height": 1000})
            PAGE_ERRORS.clear()
            pg.on("pageerror", lambda exc: PAGE_ERRORS.append(str(exc)))
            pg.goto(PAGE.as_uri())
            pg.wait_for_selector(".hop-explorer li.fact", timeout=15000)
            yield pg
        finally:
            browser.close()


def test_explorer_renders_with_a_default_entity(page):
    explorer = page.locator(".hop-explorer").first
    assert explorer.locator("svg g.node").count() > 5
    assert explorer.locator("li.fact").count() > 0, "the page must never show an empty explorer"
    assert not [e for e in PAGE_ERRORS if "renderHopExplorer" in e or "hop" in e.lower()], PAGE_ERRORS


def test_click_and_expand_lists_the_gathered_facts(page):
    from gaba.graph import build_knowledge_graph, gather_facts

    G = build_knowledge_graph(progress=False)
    explorer = page.locator(".hop-explorer").first
    explorer.locator(f'g.node[data-name="{ENTITY}"] circle.dot').click()
    status = explorer.locator(".hop-status")
    assert status.get_attribute("data-hops") == "1"
    assert explorer.locator("li.fact").count() == len(gather_facts(G, [ENTITY], 1))
    explorer.locator("button.hx-more").click()
    assert status.get_attribute("data-hops") == "2"
    listed = explorer.locator("li.fact")
    expected = gather_facts(G, [ENTITY], 2)
    assert listed.count() == len(expected)
    assert status.get_attribute("data-total") == str(len(expected))
    assert explorer.locator("select.entity-select").input_value() == ENTITY
    hops_listed = {listed.nth(i).get_attribute("data-hop") for i in range(listed.count())}
    assert hops_listed == {"1", "2"}
    if SCREENSHOT:
        explorer.screenshot(path=SCREENSHOT)


def test_choosing_from_the_list_resets_to_one_hop(page):
    from gaba.graph import build_knowledge_graph, gather_facts

    G = build_knowledge_graph(progress=False)
    explorer = page.locator(".hop-explorer").first
    explorer.locator("select.entity-select").select_option("Kestrel Motors")
    assert explorer.locator(".hop-status").get_attribute("data-hops") == "1"
    assert explorer.locator("li.fact").count() == len(gather_facts(G, ["Kestrel Motors"], 1))
