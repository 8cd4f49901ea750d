"""gaba.book: glued strings render without quotes."""
from IPython.core.formatters import PlainTextFormatter

from gaba.book import Plain, glue


def test_plain_text_has_no_quotes():
    fmt = PlainTextFormatter()
    assert fmt(Plain("10/15 = 0.67")) == "10/15 = 0.67"
    assert fmt("10/15 = 0.67") == "'10/15 = 0.67'"   # what a bare str would show
    assert Plain("a") == "a" and str(Plain("a")) == "a"


def test_glue_wraps_strings_only(monkeypatch):
    seen = {}
    import myst_nb

    monkeypatch.setattr(myst_nb, "glue", lambda name, value, display=True: seen.update({name: value}))
    glue("s", "text", display=False)
    glue("n", 5, display=False)
    assert isinstance(seen["s"], Plain) and seen["n"] == 5


def test_every_module_has_an_api_page_in_the_book():
    """One reference page per public module, listed in _toc.yml (the API reference issue)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    toc = (root / "_toc.yml").read_text(encoding="utf-8")
    pages = {p.stem: p.read_text(encoding="utf-8") for p in (root / "chapters" / "api").glob("*.md")}
    documented = {m for text in pages.values() for m in re.findall(r"automodule:: (gaba[\w.]*)", text)}
    modules = {"gaba." + ".".join(p.relative_to(root / "gaba").with_suffix("").parts)
               for p in (root / "gaba").rglob("*.py")
               if not p.name.startswith("_") and "__pycache__" not in p.parts}
    assert modules - documented == set(), f"modules without an API page: {sorted(modules - documented)}"
    for stem in pages:
        if stem != "index":
            assert f"chapters/api/{stem}" in toc, f"chapters/api/{stem}.md is not in _toc.yml"
