"""The built book in headless Chromium, served the way readers open it.

Serves ``_build/html`` (built by ``make book``; set ``GABA_BOOK_HTML`` to another build's ``html``
folder to test that one) with ``http.server`` on 127.0.0.1, as the README says, and

- opens every page of the book and fails on any request that leaves 127.0.0.1 and on any console
  error or uncaught exception the book causes;
- checks that MathJax, served from the book itself, typesets the evaluation chapter's math;
- clicks an entity in the Graph RAG chapter's hop explorer, expands it to two hops, and checks
  that the page lists exactly the facts ``gather_facts`` gathers.

Uses Debian's ``chromium`` through the ``playwright`` package; skipped only when Chromium is
not installed.
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import threading
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK_HTML = Path(os.environ.get("GABA_BOOK_HTML") or ROOT / "_build" / "html")
PAGE = BOOK_HTML / "chapters" / "graph_rag.html"
MATH_PAGE = "chapters/evaluation.html"
ENTITY = "Aurora Cell Works"
SCREENSHOT = os.environ.get("GABA_SCREENSHOT")  # optional path of a PNG of the explorer
CHROMIUM_ARGS = ["--no-sandbox", "--headless", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run",
                 # a request for any other host fails at once instead of waiting for a network
                 "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]

pytestmark = pytest.mark.browser
PAGE_ERRORS: list[str] = []


def _chromium() -> str:
    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium, or `make chromium`)")
    return chromium


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def server():
    """``python -m http.server -d _build/html`` on a free port of 127.0.0.1, for this module."""
    if not (BOOK_HTML / "index.html").is_file():
        pytest.fail(f"{BOOK_HTML} holds no built book: run `make book` first (or point GABA_BOOK_HTML at one)")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(BOOK_HTML)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    chromium = _chromium()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture(scope="module")
def page(browser, server):
    if "chapters/graph_rag" not in (ROOT / "_toc.yml").read_text(encoding="utf-8"):
        pytest.skip("the Graph RAG chapter is not in the book yet (_toc.yml), so there is no hop explorer page")
    if not PAGE.is_file():
        pytest.fail(f"{PAGE} does not exist: run `make book` first (or point GABA_BOOK_HTML at a built book)")
    pg = browser.new_page(viewport={"width": 1280, "height": 1000})
    PAGE_ERRORS.clear()
    pg.on("pageerror", lambda exc: PAGE_ERRORS.append(str(exc)))
    pg.goto(f"{server}/chapters/graph_rag.html")
    pg.wait_for_selector(".hop-explorer li.fact", timeout=15000)
    yield pg
    pg.close()


def _book_pages() -> list[str]:
    """Every HTML page of the built book, as paths relative to its root."""
    return sorted(p.relative_to(BOOK_HTML).as_posix() for p in BOOK_HTML.glob("**/*.html")
                  if not {"_static", "_sources"} & set(p.relative_to(BOOK_HTML).parts))


def _is_local(url: str, server: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme in {"file", "data", "blob", "about"}:
        return True
    return parts.scheme in {"http", "https", "ws"} and parts.hostname == "127.0.0.1" \
        and url.startswith(server)


# Console messages the book does not cause: none. (sphinx-thebe's configuration script used to be
# written twice on every page, "Identifier 'THEBE_JS_URL' has already been declared"; the layout
# in assets/templates writes each script once. The theme's "Got invalid theme mode" on a first
# visit is gone with html_theme_options.default_mode in _config.yml.)
KNOWN_CONSOLE_ERRORS: tuple[str, ...] = ()
REFRESH = re.compile(r'<meta http-equiv="Refresh" content="\d+; url=([^"]+)"', re.I)


def test_every_page_loads_offline_without_errors(browser, server):
    """Every page loads from 127.0.0.1 alone, with no console error and no failed request.

    A failed request is reported with its URL: the console only says "Failed to load resource",
    and it says it on whichever page is open when the browser makes the request (a missing
    /favicon.ico once showed up as a 404 "on" a page of highlighted module source).
    """
    pages = _book_pages()
    assert len(pages) > 20, f"only {len(pages)} pages under {BOOK_HTML}"
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_navigation_timeout(60_000)
    outside: list[str] = []
    errors: list[str] = []
    current = {"page": ""}
    context.on("request", lambda req: None if _is_local(req.url, server)
               else outside.append(f"{current['page']}: {req.url}"))
    pg = context.new_page()
    pg.on("console", lambda msg: errors.append(f"{current['page']}: {msg.text}")
          if msg.type == "error" and not any(k in msg.text for k in KNOWN_CONSOLE_ERRORS) else None)
    pg.on("pageerror", lambda exc: errors.append(f"{current['page']}: {exc}"))
    failed: list[str] = []
    context.on("response", lambda resp: failed.append(f"{current['page']}: HTTP {resp.status} {resp.url}")
               if resp.status >= 400 else None)
    try:
        for rel in pages:
            current["page"] = rel
            response = pg.goto(f"{server}/{rel}", wait_until="load")
            assert response is not None and response.ok, f"{rel}: HTTP {response and response.status}"
            refresh = REFRESH.search((BOOK_HTML / rel).read_text(encoding="utf-8"))
            if refresh:      # the root index.html forwards to the first chapter: let it land
                target = urljoin(f"{server}/{rel}", refresh.group(1))
                pg.wait_for_url(target, wait_until="load")
        assert not outside, "requests that leave 127.0.0.1:\n" + "\n".join(outside[:20])
        assert not failed, "failed requests:\n" + "\n".join(failed[:20])
        assert not errors, "console errors:\n" + "\n".join(errors[:20])
    finally:
        context.close()


def test_math_is_typeset_offline(browser, server):
    """MathJax comes from the book's own _static folder and turns the evaluation chapter's TeX into math."""
    if not (BOOK_HTML / MATH_PAGE).is_file():
        pytest.fail(f"{MATH_PAGE} was not built")
    pg = browser.new_page()
    scripts: list[str] = []
    pg.on("request", lambda req: scripts.append(req.url) if "mathjax" in req.url.lower() else None)
    try:
        pg.goto(f"{server}/{MATH_PAGE}", wait_until="load")
        pg.wait_for_selector("mjx-container", timeout=15000)
        assert pg.locator("mjx-container").count() >= 3
        assert pg.locator("mjx-container[display='true']").count() >= 1, "the display formula is typeset"
        assert scripts and all(u.startswith(server) for u in scripts), scripts
    finally:
        pg.close()


def test_explorer_renders_with_a_default_entity(page):
    explorer = page.locator(".hop-explorer").first
    assert explorer.locator("svg g.node").count() > 5
    assert explorer.locator("li.fact").count() > 0, "the page must never show an empty explorer"
    assert not [e for e in PAGE_ERRORS if "renderHopExplorer" in e or "hop" in e.lower()], PAGE_ERRORS


def test_click_and_expand_lists_the_gathered_facts(page):
    from gaba.graph import build_knowledge_graph, gather_facts
    from gaba.prompts import NEWS_SCHEMA

    G = build_knowledge_graph(schema=NEWS_SCHEMA, progress=False)   # the graph the chapter draws
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
    from gaba.prompts import NEWS_SCHEMA

    G = build_knowledge_graph(schema=NEWS_SCHEMA, progress=False)   # the graph the chapter draws
    explorer = page.locator(".hop-explorer").first
    explorer.locator("select.entity-select").select_option("Kestrel Motors")
    assert explorer.locator(".hop-status").get_attribute("data-hops") == "1"
    assert explorer.locator("li.fact").count() == len(gather_facts(G, ["Kestrel Motors"], 1))
