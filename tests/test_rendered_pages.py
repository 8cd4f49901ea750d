"""What a reader sees on the built pages: no placeholders, no pointers to material the reader does
not have, and no TeX that failed to become math.

Reads the HTML that ``make book`` writes to ``_build/html`` (set ``GABA_BOOK_HTML`` to test another
build). Only the text a reader sees is checked: scripts, styles and the HTML attributes are not,
and the raw-TeX check skips math elements (MathJax typesets those) and code (Cypher's ``$name``
parameters are not TeX).
"""
from __future__ import annotations

import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOOK_HTML = Path(os.environ.get("GABA_BOOK_HTML") or ROOT / "_build" / "html")
# The book's own pages: every chapter, lab, API page and the glossary. Sphinx's generated pages
# (search, index) and the highlighted module sources under _modules are not prose.
PAGES = sorted(p for p in BOOK_HTML.glob("**/*.html")
               if not ({"_static", "_sources", "_modules", "_images"} & set(p.relative_to(BOOK_HTML).parts))
               and p.name not in {"genindex.html", "search.html", "py-modindex.html"})

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
SKIP = {"script", "style", "template", "noscript"}

# text that marks an unfinished page
PLACEHOLDERS = [
    re.compile(r"has not been committed yet"),
    re.compile(r"\bTODO\b"),
    re.compile(r"\bFIXME\b"),
    re.compile(r"\{(?:glue|glue:text|glue:any|term|py:func|py:class|numref|ref|doc)\}`"),   # unrendered MyST role
    re.compile(r"```\{"),                                                                 # unrendered directive
]
# a prompt template's slot left in a chapter's text or output (the API reference documents the
# templates themselves, so there these are expected)
TEMPLATE_SLOTS = [
    re.compile(r"<copy the", re.I),
    re.compile(r"\{abstain\}"),
]
# pointers to material the reader does not have
OUTSIDE = [
    re.compile(r"\bseed (?:chapter|book|notebook|repo(?:sitory)?|project|version)s?\b", re.I),
    re.compile(r"\bthe seed\b(?!s)(?! (?:and|for|of|is|in|that|value|argument|parameter|gives|fixed|changes|"
               r"makes|=|\d))", re.I),
    re.compile(r"(?<![\w.])/(?:work|root|home|tmp)/"),
]
# TeX that should have been typeset
RAW_TEX = [
    re.compile(r"\\(?:frac|sqrt|hat|sum|prod|cdot|times|pm|leq?|geq?|mathrm|mathbf|text|alpha|beta|lambda)\b"),
    re.compile(r"\$\$"),
    re.compile(r"(?<![\w$])\$[A-Za-z\\][^$\n]{0,60}\$(?![\w$])"),
]


class _Text(HTMLParser):
    """Collects the visible text of a page, and separately the part outside math and code."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, str]] = []     # (tag, "skip" | "math" | "code" | "")
        self.all: list[str] = []
        self.prose: list[str] = []

    def _kinds(self):
        return {k for _, k in self.stack}

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        cls = (dict(attrs).get("class") or "").split()
        if tag in SKIP:
            kind = "skip"
        elif "math" in cls or tag in {"mjx-container", "math"}:
            kind = "math"
        elif tag in {"pre", "code", "kbd", "samp"} or "highlight" in cls or "cell_output" in cls:
            kind = "code"
        else:
            kind = ""
        self.stack.append((tag, kind))

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        kinds = self._kinds()
        if "skip" in kinds:
            return
        self.all.append(data)
        if not kinds & {"math", "code"}:
            self.prose.append(data)


def _texts(path: Path) -> tuple[str, str]:
    parser = _Text()
    parser.feed(path.read_text(encoding="utf-8"))
    return " ".join(parser.all), " ".join(parser.prose)


def _hits(patterns, text: str) -> list[str]:
    out = []
    for pat in patterns:
        for m in pat.finditer(text):
            out.append(text[max(0, m.start() - 60):m.end() + 60].replace("\n", " "))
    return out


# Known failures, expected to pass once their owners finish (strict=False: a fix is welcome early).
# (The Graph RAG chapter prints its answering prompt; printed copies of the format are removed
# before the template-slot check, which is meant for replies that copied the slot.)
_PLACEHOLDER_PENDING: dict[str, str] = {}   # page -> reason, for a known failure (none now)
# (API pages used to print path constants such as gaba.config.ROOT with the absolute path of the
# machine that built the book; assets/sphinx/gaba_autodoc.py now leaves those values out and
# autodoc_preserve_defaults shows `folder=SAMPLE_DIR` instead of the evaluated path.)


def _params(known: dict[str, str] | None = None):
    known = known or {}
    for p in PAGES:
        rel = p.relative_to(BOOK_HTML).as_posix()
        reason = known.get(rel)
        marks = [pytest.mark.xfail(reason=reason, strict=False)] if reason else []
        yield pytest.param(p, marks=marks, id=rel)


@pytest.fixture
def _built():
    if not PAGES:
        pytest.skip(f"the book is not built ({BOOK_HTML} has no pages): run `make book` first")


@pytest.mark.usefixtures("_built")
def test_the_book_has_its_chapters():
    names = {p.relative_to(BOOK_HTML).as_posix() for p in PAGES}
    toc = set(re.findall(r"file:\s*(\S+)", (ROOT / "_toc.yml").read_text(encoding="utf-8")))
    missing = sorted(f"{f}.html" for f in toc if f"{f}.html" not in names)
    assert not missing, f"pages in _toc.yml that were not built: {missing}"


@pytest.mark.usefixtures("_built")
def test_the_root_serves_an_icon():
    """The root index.html is a bare redirect with no icon link: a browser opening it asks the
    server for /favicon.ico, so the book ships one there (a 404 in the console otherwise)."""
    from PIL import Image

    icon = BOOK_HTML / "favicon.ico"
    assert icon.is_file(), "no favicon.ico at the root of the built book (html_extra_path in _config.yml)"
    with Image.open(icon) as im:
        assert im.format == "ICO", f"favicon.ico is {im.format}, not an ICO"


def _without_answer_template(text: str) -> str:
    """The page text with every printed copy of the answering format removed (a chapter may show
    its prompt; a *reply* that copied the template's slot is what the slot check is for)."""
    from gaba.answer import ABSTAIN
    from gaba.prompts import ANSWER_FORMAT

    flat = " ".join(text.split())
    return flat.replace(" ".join(ANSWER_FORMAT.format(abstain=ABSTAIN).split()), "")


@pytest.mark.parametrize("path", list(_params(_PLACEHOLDER_PENDING)))
def test_no_placeholder(path):
    text, _ = _texts(path)
    text = _without_answer_template(text)
    patterns = PLACEHOLDERS + ([] if "api" in path.relative_to(BOOK_HTML).parts else TEMPLATE_SLOTS)
    assert not _hits(patterns, text), f"placeholder text on the page: {_hits(patterns, text)}"


@pytest.mark.parametrize("path", list(_params()))
def test_no_reference_to_material_the_reader_lacks(path):
    text, _ = _texts(path)
    assert not _hits(OUTSIDE, text), f"points outside the book: {_hits(OUTSIDE, text)}"


@pytest.mark.parametrize("path", list(_params()))
def test_no_raw_tex_outside_math(path):
    _, prose = _texts(path)
    assert not _hits(RAW_TEX, prose), f"TeX shown as text: {_hits(RAW_TEX, prose)}"


def test_the_checks_catch_what_they_are_for(tmp_path):
    """The parser and patterns flag a bad page and pass math, code and a random seed."""
    page = tmp_path / "p.html"
    page.write_text('<p>A <span class="math">\\(\\frac{a}{b}\\)</span> and <code>$name</code>; fix the '
                    'seed and the split is the same.</p><script>var x = "TODO";</script>', encoding="utf-8")
    text, prose = _texts(page)
    assert not _hits(PLACEHOLDERS, text) and not _hits(OUTSIDE, text) and not _hits(RAW_TEX, prose)
    page.write_text("<p>TODO: see the seed chapter in /work/main, where $$x$$ and \\frac{1}{2} and "
                    "$k = 2$ show.</p>", encoding="utf-8")
    text, prose = _texts(page)
    assert len(_hits(PLACEHOLDERS, text)) == 1 and not _hits(TEMPLATE_SLOTS, text)
    assert len(_hits(OUTSIDE, text)) >= 2
    assert len(_hits(RAW_TEX, prose)) >= 3


class _Assets(HTMLParser):
    """The scripts and stylesheets a page loads."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.urls.append(a["src"])
        elif tag == "link" and "stylesheet" in (a.get("rel") or "") or tag == "link" and a.get("as") in {"script", "style", "font"}:
            self.urls.append(a.get("href") or "")


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(BOOK_HTML).as_posix())
def test_scripts_and_styles_are_served_by_the_book(path):
    """Math, diagrams and the theme load from _static: a page names no http(s) script or stylesheet."""
    parser = _Assets()
    parser.feed(path.read_text(encoding="utf-8"))
    remote = [u for u in parser.urls if re.match(r"(?:https?:)?//", u)]
    assert not remote, f"loads from the network: {remote}"


# Every page a reader can reach, including Sphinx's generated ones and the highlighted sources.
ALL_PAGES = sorted(p for p in BOOK_HTML.glob("**/*.html")
                   if not ({"_static", "_sources"} & set(p.relative_to(BOOK_HTML).parts)))


class _Links(HTMLParser):
    """Every link and resource a page names (a, link, script, img, source, iframe)."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        url = a.get("href") if tag in {"a", "link"} else a.get("src") if tag in {"script", "img", "source", "iframe"} else None
        if url:
            self.urls.append(url)


@pytest.mark.parametrize("path", ALL_PAGES, ids=lambda p: p.relative_to(BOOK_HTML).as_posix())
def test_local_links_resolve(path):
    """Every relative link of the page points to a file of the build (a [source] link to a
    module page that was not written would be a 404 for the reader)."""
    from urllib.parse import unquote, urlsplit

    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    missing = []
    for url in parser.urls:
        parts = urlsplit(url)
        if parts.scheme or parts.netloc or not parts.path:
            continue
        target = (path.parent / unquote(parts.path)).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            missing.append(url)
    assert not missing, f"links to files the build does not have: {sorted(set(missing))[:10]}"
