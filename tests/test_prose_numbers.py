"""Every number typed with digits in a chapter's prose is computed, checked, or explained (issue 19).

A number in a markdown cell passes when it is

- glued: shown with a MyST role such as {glue:}`name` (the role is not prose, so it is never read);
- in code: it appears as a number in the source of some code cell of the same notebook, either a
  hidden ``remove-cell`` assertion (``assert len(docs) == 14``) or the code that prints it;
- allowlisted: listed in ``ALLOWED`` below for that chapter, with the reason it is a fact that no
  cell can compute (a model's size, a documented default, a hypothetical example).

Anything else is a number typed into the prose that nothing keeps true, and the test lists it.
Not read as prose: inline code, fenced code blocks, MyST roles and directive arguments/options,
math, link targets and URLs, label targets, heading numbering, years (1900-2099), version strings
and date ordinals. Only digits are scanned; numbers written as words are not.
"""
from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Callable

import pytest

from test_chapters import CHAPTERS, ROOT, _cells, _src

# --- the scanner -----------------------------------------------------------------------------

# Fenced blocks whose body is code or markup, not prose; any other {directive} keeps its body.
_CODE_DIRECTIVES = {"code", "code-block", "code-cell", "sourcecode", "mermaid", "math", "raw",
                    "literalinclude", "glue:figure", "glue:any", "glue:math", "csv-table"}
_FENCE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})\s*(\{([^}]*)\})?(.*)$")
_OPTION = re.compile(r"^\s*:[\w-]+:")
_MONTHS = ("January|February|March|April|May|June|July|August|September|October|November|"
           "December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec")
# What is cut out of a prose line before numbers are read, in this order.
_CUTS = [
    re.compile(r"<!--.*?-->", re.S),                         # HTML comments
    re.compile(r"\$\$.*?\$\$", re.S),                        # display math
    re.compile(r"(?<![\\$])\$(?!\s)[^$\n]+?(?<!\s)\$"),      # inline math
    re.compile(r"\{[\w:.+-]+\}(`+).*?\1", re.S),             # MyST roles with their content
    re.compile(r"(`+).*?\1", re.S),                          # inline code
    re.compile(r"\]\([^)]*\)"),                              # link targets [text](target)
    re.compile(r"^\[[^\]]+\]:\s*\S+.*$", re.M),              # reference-style link definitions
    re.compile(r"<[a-z]+://[^>]*>|\b(?:https?|ftp|file)://\S+"),  # URLs
    re.compile(r"<[^>\n]+>"),                                # HTML tags and their attributes
    re.compile(r"^\s*\([\w:.-]+\)=\s*$", re.M),              # label targets (label)=
    re.compile(r"^(\s*#{1,6}\s+)(?:\d+(?:\.\d+)*\.?\s+)", re.M),  # heading numbering "## 2.1 "
    re.compile(r"^\s*\d+[.)](?=\s)", re.M),                  # ordered-list markers "2. gather"
    re.compile(r"\*\*(?:Exercise\s+|Question\s+|Q)?\d+[.)]?\*\*"),  # question labels **6.**
    re.compile(r"\b(?:Python|CUDA|Node(?:\.js)?)\s+\d+(?:\.\d+)+"),  # "Python 3.11"
    re.compile(r"\b[vV]\d+(?:\.\d+)+\b|(?<![\w.])\d+\.\d+\.\d+(?:[\w.+-]*)"),  # versions
    re.compile(rf"\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b"    # "March 3rd"
               rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{_MONTHS})\b"),  # "3rd of March"
    re.compile(r"(?<![\w.,])(?:19|20)\d\d(?:-[01]\d(?:-[0-3]\d)?)?(?![\w.,]\d)"),  # years, 2026-11
]
# A number: 1,400 / 0.905 / 14 / .5 ; not part of a word, identifier or name (F1, 2Wiki, ex3,
# k_2, top-5, SHA-256, Qwen2.5-Coder-1.5B), though the second number of a range 11-12 is read;
# but a unit or multiplier may follow it (1.14x, 190s, 8GB, 0.5B).
_UNITS = r"(?:x|×|k|K|M|B|G|GB|MB|KB|TB|s|ms|h|min)?"
_NUMBER = re.compile(r"(?<![\w./])(?<![A-Za-z]-)(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
                     + _UNITS + r"(?![\w])")
_CODE_NUMBER = re.compile(r"(?<![\w.])(\d[\d_]*(?:\.\d+)?(?:[eE][+-]?\d+)?|\.\d+)(?![\w])")


def prose(markdown: str) -> str:
    """The text a reader reads as sentences: code, markup, math and targets removed."""
    kept, stack = [], []  # stack of open fences: (marker, is_code)
    pending_options = False
    for line in markdown.splitlines():
        m = _FENCE.match(line)
        if m:
            marker, name = m.group(1), (m.group(3) or "").strip()
            if stack and marker[0] == stack[-1][0][0] and len(marker) >= len(stack[-1][0]) \
                    and not m.group(2) and not m.group(4).strip():
                stack.pop()  # a closing fence
                pending_options = False
                continue
            if not (stack and stack[-1][1]):  # a fence opened in prose (not inside code)
                stack.append((marker, not m.group(2) or name in _CODE_DIRECTIVES))
                pending_options = True  # directive options (:label: ex3) follow the opening
                continue
        if stack and stack[-1][1]:
            continue  # inside a code block
        if pending_options and _OPTION.match(line):
            continue
        pending_options = False
        kept.append(line)
    text = "\n".join(kept)
    for cut in _CUTS:
        text = cut.sub(lambda m: m.group(1) if cut.pattern.startswith("^(\\s*#") else " ", text)
    return text


def numbers_in_prose(markdown: str) -> list[str]:
    """The numbers written with digits in a markdown cell's prose, as written (``1,400``)."""
    return [m.group(1) for m in _NUMBER.finditer(prose(markdown))]


def _value(token: str) -> Decimal | None:
    try:
        return Decimal(token.replace(",", "").replace("_", ""))
    except InvalidOperation:
        return None


def code_numbers(cells: list[dict]) -> set[Decimal]:
    """Every number literal in the source of the notebook's code cells (asserts, prints, settings)."""
    found = set()
    for c in cells:
        if c["cell_type"] == "code":
            for m in _CODE_NUMBER.finditer(_src(c)):
                v = _value(m.group(1))
                if v is not None:
                    found.add(v.normalize())
    return found


def unchecked_numbers(cells: list[dict]) -> list[str]:
    """Prose numbers of a notebook that no code cell contains, in reading order, each once."""
    in_code = code_numbers(cells)
    out: list[str] = []
    for c in cells:
        if c["cell_type"] != "markdown":
            continue
        for tok in numbers_in_prose(_src(c)):
            v = _value(tok)
            if (v is None or v.normalize() not in in_code) and tok not in out:
                out.append(tok)
    return out


# --- the allowlist ---------------------------------------------------------------------------

# Prose numbers that no cell computes or asserts, per chapter, each with why it may stay typed.
# A number is listed as written in the prose (``1,400`` not ``1400``). No wildcards: a new number
# must be glued, asserted by a hidden cell, or added here with its reason.
ALLOWED: dict[str, dict[str, str]] = {
    "chapters/evaluation": {
        "11": "size of the smallest transfer collections (sport, history), a fact about shipped data",
        "1.5": "model size (Qwen2.5-Coder-1.5B), a fact about the model",
    },
    "chapters/global_questions": {
        "1.5": "model size (Qwen2.5-Coder-1.5B), a fact about the model",
        "9": "exercise instruction: the range of seeds the reader is asked to try",
    },
    "chapters/graph_database": {
        "1.5": "model size (Qwen2.5-Coder-1.5B), a fact about the model",
    },
    "chapters/graph_rag": {
        "95": "the Wilson interval's confidence level, a fixed convention (z = 1.96)",
        "26": "size of the next chapter's test set, asserted there (len(cases) == 26)",
    },
    "chapters/knowledge_graph": {
        "1.5": "model size (Qwen2.5-Coder-1.5B), a fact about the model",
        "400": "a setting's documented default (gaba.request.EXTRACTION_MAX_TOKENS = 400)",
        "800": "size of nameparser's list of personal titles, a fact about the library (about 800)",
        "6,000": "a setting's documented default (gaba.passages.MAX_DOCUMENT_TOKENS = 6000)",
    },
    "chapters/labs/evaluate_lab": {
        "95": "the Wilson interval's confidence level, a fixed convention (z = 1.96)",
        "26": "size of the evaluation chapter's test set, asserted there (len(cases) == 26)",
    },
    "chapters/preface": {
        "4": "quantisation of the model and of the embedder (4-bit), a fact about the models",
    },
    "chapters/retrieval_at_scale": {
        "95": "the Wilson interval's confidence level, a fixed convention (z = 1.96)",
    },
    "chapters/stack": {
        "0.3": "a setting's documented default (tests/fake_openai.py latency=0.3 s)",
        "300": "example in a sentence about a hypothetical (a team's 300-million-edge graph)",
    },
}


def _stem(path: Path) -> str:
    return str(path.relative_to(ROOT).with_suffix(""))


# --- the tests -------------------------------------------------------------------------------

@pytest.mark.parametrize("path", CHAPTERS, ids=_stem)
def test_prose_numbers_are_glued_asserted_or_allowlisted(path):
    allowed = ALLOWED.get(_stem(path), {})
    left = [n for n in unchecked_numbers(_cells(path)) if n not in allowed]
    assert not left, (f"{_stem(path)}: numbers typed in the prose that are neither glued nor in a "
                      f"code cell nor allowlisted: {left}")


@pytest.mark.parametrize("path", CHAPTERS, ids=_stem)
def test_allowlist_has_no_stale_entries(path):
    """An allowlisted number the chapter no longer types (or now asserts) is removed from the list."""
    stale = set(ALLOWED.get(_stem(path), {})) - set(unchecked_numbers(_cells(path)))
    assert not stale, f"{_stem(path)}: allowlisted numbers no longer needed: {sorted(stale)}"


def check_allowlist(allowed: dict[str, dict[str, str]], valid: Callable[[str], object]) -> None:
    """Every entry names a chapter of the book, a ``valid`` key, and a reason of three words or more."""
    stems = {_stem(p) for p in CHAPTERS}
    for chapter, entries in allowed.items():
        assert chapter in stems, f"ALLOWED names {chapter}, not a chapter of the book"
        for key, reason in entries.items():
            assert valid(key), f"{chapter}: {key!r} is not a valid entry"
            assert len(reason.split()) >= 3, f"{chapter}: {key!r} needs a reason"


def test_allowlist_names_real_chapters_and_reasons():
    check_allowlist(ALLOWED, _NUMBER.fullmatch)


def _nb(*cells: tuple[str, str]) -> list[dict]:
    """A notebook's cells from (cell_type, source) pairs."""
    return [{"cell_type": t, "metadata": {}, "source": s} for t, s in cells]


def test_scanner_catches_a_typed_number_and_ignores_code_math_and_roles():
    cells = _nb(
        ("markdown", "# 3. Title\n\n(ch-ex3)=\n"
                     "We ran {glue:}`n-trials` trials on 14 documents and got 0.905, "
                     "about 1,400 in all, a 1.14x speed-up, and 37 surprises.\n\n"
                     "Inline `k = 99` and math $x^{77}$ and $$\\frac{1}{55}$$ are not prose; "
                     "neither is {glue:text}`score:.2f` nor {term}`F1 <F1 score>` nor "
                     "[the 2019 paper](https://example.org/v/123) nor Python 3.12.1 "
                     "nor March 3rd, 2024, nor 2026-11, nor F1, 2WikiMultihopQA or Qwen2.5.\n\n"
                     "```python\nx = 4242\n```\n\n"
                     "```{exercise-start}\n:label: ch-ex8\n```\n"
                     "Count the 66 edges, 5-15 s each, with top-5 and SHA-256."),
        ("code", "assert len(docs) == 14\nprint(f'{f1:.3f}')  # 0.905\nTOTAL = 1_400\n"),
    )
    assert numbers_in_prose(_src(cells[0])) == ["14", "0.905", "1,400", "1.14", "37", "66",
                                                 "5", "15"]
    # 14, 0.905 and 1,400 are in a code cell; 1.14x, 37 and 66 are typed and caught
    assert unchecked_numbers(cells) == ["1.14", "37", "66", "5", "15"]
    # a number typed only in a code block or math is never reported
    assert unchecked_numbers(_nb(("markdown", "```\n5150\n```\n$5150$"))) == []


def test_scanner_reads_directive_bodies_as_prose():
    md = "```{note}\n:class: dropdown\nThe model has 0.5B parameters.\n```\n"
    assert numbers_in_prose(md) == ["0.5"]
    assert numbers_in_prose("```{mermaid}\ngraph LR; A-->|3|B\n```") == []


@pytest.mark.parametrize("path", CHAPTERS[:1], ids=_stem)
def test_a_number_typed_into_a_real_chapter_is_reported(path):
    cells = _cells(path) + _nb(("markdown", "Graph RAG passed 4711 of them, `x = 4712`."))
    allowed = ALLOWED.get(_stem(path), {})
    assert [n for n in unchecked_numbers(cells) if n not in allowed] == ["4711"]
