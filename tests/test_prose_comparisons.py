"""Every comparison or superlative in a chapter's prose is checked by a cell, or says why not (issue 19).

``test_prose_numbers`` keeps the numbers honest; this test does the same for the words that compare
them. A sentence of prose that uses a comparison word (``better``, ``faster``, ``fewer``, ``best``,
``perfect``, ``rarely``, any ``<word>er than``, ...) passes when

- a code cell of the same notebook that contains an ``assert`` quotes part of the sentence in a
  ``# checks: "..."`` comment, so the claim is tied to the assertion that keeps it true; or
- it is a question to the reader (it ends with ``?``); or
- part of it is listed in ``ALLOWED`` below for that chapter, with the reason it is not a measured
  result (a definition, a method's description, advice, a fact about the data or a library).

Anything else is a comparison typed into the prose that nothing keeps true, and the test lists it.
Prose is read the way ``test_prose_numbers`` reads it (code, math, roles and targets removed).
"""
from __future__ import annotations

import re

import pytest

from test_chapters import CHAPTERS, _cells, _src
from test_prose_numbers import _nb, _stem, check_allowlist, prose

# Comparatives and superlatives that state a result; "<word>er than" catches larger/longer/denser than.
COMPARISON = re.compile(
    r"\b(better|worse|beats?|outperform\w*|higher|lower(?! case)|faster|slower|fewer|best|worst|"
    r"highest|lowest|fastest|slowest|perfect|rarely|(?:(?!rather\b|other\b)\w+er|more|less) than)\b", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z*\"(\[-])|\n\s*\n|\n\s*[-*]\s+")
CHECKS = re.compile(r"#\s*checks:\s*\"([^\"]+)\"")


def sentences(markdown: str) -> list[str]:
    """The prose sentences of a markdown cell, whitespace collapsed."""
    parts = (re.sub(r"^\s*[-*]\s+", "", s) for s in _SENTENCE_END.split(prose(markdown)))
    return [" ".join(s.split()) for s in parts if s.strip()]


def comparisons(cells: list[dict]) -> list[str]:
    """Sentences of the notebook's prose that compare or rank, in reading order (questions skipped)."""
    out = []
    for c in cells:
        if c["cell_type"] == "markdown":
            out += [s for s in sentences(_src(c)) if COMPARISON.search(s) and not s.endswith("?")]
    return out


def guards(cells: list[dict]) -> list[str]:
    """Phrases quoted by ``# checks: "..."`` in code cells that assert something."""
    out = []
    for c in cells:
        src = _src(c)
        if c["cell_type"] == "code" and re.search(r"\bassert\b", src):
            out += [" ".join(q.split()) for q in CHECKS.findall(src)]
    return out


def unchecked(cells: list[dict], allowed: dict[str, str]) -> list[str]:
    """Comparison sentences that no assertion quotes and the allowlist does not cover."""
    covered = guards(cells) + list(allowed)
    return [s for s in comparisons(cells) if not any(p in s for p in covered)]


_DEFINITION = "a definition or a rule, not a measured result"
_METHOD = "describes what a method does, which its unit tests check"
_ADVICE = "advice or an argument, not a measured result"
_EXERCISE = "exercise or quiz text, not a claim"

# Comparison sentences that no cell can assert, per chapter: a phrase of the sentence and the reason.
ALLOWED: dict[str, dict[str, str]] = {
    "chapters/evaluation": {
        'more than half of its trials': _DEFINITION,
        'better extraction for the first': _ADVICE,
        'This is the graph a perfect extractor would build': _DEFINITION,
        'figures are lower bounds': _DEFINITION,
        'what a perfect extractor would build': _DEFINITION,
        'has perfect recall': _DEFINITION,
        'costs you much more than no answer': _ADVICE,
        'They differ only when the budget cuts': "exercise solution; the solution cell's assert checks it",
    },
    "chapters/global_questions": {
        'hides it better': 'an argument from the example printed above, not a measured rate',
        'hands the best summaries': _METHOD,
        'one community should answer best': 'introduces the comparison the next cell prints',
        'reduces the best ones': _METHOD,
        'the highest modularity': _ADVICE,
        'Higher resolution gives more, smaller communities':
            "a property of Louvain's resolution parameter (networkx documentation)",
        'fewer and larger communities': _ADVICE,
    },
    "chapters/graph_database": {
        'Walking deeper than two': "the chapter's outline; each problem is shown and asserted in its section",
        'take the best path between': _METHOD,
        'larger than the average': 'a property of walks on graphs with hubs (the friendship paradox)',
        'does not make one query slower': _ADVICE,
        'keeps the best *k*': _METHOD,
        'the best path it returns': 'introduces the table the next cell prints',
        'longer paths score lower': _DEFINITION,
        '**fewer hops first**': _METHOD,
        'fewer distinct people than people': _DEFINITION,
        'the ten best-scoring paths': _METHOD,
        'hold graphs larger than your process': 'a property of a database server, not a measured result',
        'the faster prototype': _ADVICE,
        'return the best ones': _EXERCISE,
        'puts fewer hops first': _EXERCISE,
        'Now lower the weight': _EXERCISE,
    },
    "chapters/graph_rag": {
        'the highest cosine similarity': _DEFINITION,
        'the reason matters more than the score': _ADVICE,
        '(a) higher': _EXERCISE,
        '(b) lower': _EXERCISE,
        '(c) higher': _EXERCISE,
        'A better router classifies': _ADVICE,
    },
    "chapters/knowledge_graph": {
        'extracts a document longer than': _METHOD,
        "the better measure of the model's work": _ADVICE,
        'A wrong label is worse than a plain verb': _ADVICE,
        "longer than the model's context": _METHOD,
        'Pair recall can only be higher or equal':
            "follows from the definitions (a pair ignores the relation label)",
        'better relation descriptions': _ADVICE,
    },
    "chapters/multihop_from_scratch": {
        'matches more than one node': 'introduces the example the next cell prints',
    },
    "chapters/retrieval_at_scale": {
        'word overlap, personalized PageRank and best path': _METHOD,
        'A hub has more than 30 facts of its own':
            "explains the cap's failure measured above (hop order takes the start's own facts first)",
        "the best similarity among the path's facts": _METHOD,
        'A fact scores the best path through it': _METHOD,
        'the best fact of each pair of entities first': _METHOD,
        "far fewer questions than on the book's":
            "history: code the book removed (a relation cue table), which no cell can run again",
        'the best exercise this chapter can offer': _ADVICE,
        'Find the highest threshold': _EXERCISE,
    },
    "chapters/stack": {
        'A ratio below 1 means the database was faster': _DEFINITION,
        'the in-memory graph is the better tool': _ADVICE,
    },
    "chapters/why_one_passage": {
        'The best it could do': _ADVICE,
        'n03 is longer than n05': _EXERCISE,
    },
}


@pytest.mark.parametrize("path", CHAPTERS, ids=_stem)
def test_prose_comparisons_are_asserted_or_allowlisted(path):
    left = unchecked(_cells(path), ALLOWED.get(_stem(path), {}))
    assert not left, (f"{_stem(path)}: comparisons in the prose that no assert cell quotes "
                      f"(# checks: \"...\") and ALLOWED does not list:\n- " + "\n- ".join(left))


@pytest.mark.parametrize("path", CHAPTERS, ids=_stem)
def test_every_guard_and_allowlist_entry_matches_a_sentence(path):
    """A quoted phrase or allowlisted phrase that no comparison sentence contains is stale."""
    cells = _cells(path)
    found = comparisons(cells)
    stale = [p for p in guards(cells) + list(ALLOWED.get(_stem(path), {}))
             if not any(p in s for s in found)]
    assert not stale, f"{_stem(path)}: phrases that match no comparison sentence: {stale}"


def test_allowlist_names_real_chapters_and_gives_reasons():
    check_allowlist(ALLOWED, lambda phrase: COMPARISON.search(phrase) or len(phrase.split()) >= 3)


def test_a_typed_comparison_is_caught_and_a_quoted_one_passes():
    cells = _nb(
        ("markdown", "Graph RAG did better than flat RAG on every question. Is it faster?\n\n"
                     "The shortest path is `faster_path()`; with $x > y$ nothing else. "
                     "It was the fastest method we tried."),
        ("code", "# checks: \"did better than flat RAG\"\nassert graph_rate > flat_rate\n"),
        ("code", "# checks: \"the fastest method\"\nprint(times)\n"),  # no assert: no guard
    )
    assert comparisons(cells) == ["Graph RAG did better than flat RAG on every question.",
                                  "It was the fastest method we tried."]
    assert unchecked(cells, {}) == ["It was the fastest method we tried."]
    assert unchecked(cells, {"fastest method": "a reason in words"}) == []
    assert sentences("One. Two.\n\n- three\n- four") == ["One.", "Two.", "three", "four"]


@pytest.mark.parametrize("path", CHAPTERS[:1], ids=_stem)
def test_a_comparison_typed_into_a_real_chapter_is_reported(path):
    cells = _cells(path) + _nb(("markdown", "Graph RAG did far better than flat RAG here."))
    assert unchecked(cells, ALLOWED.get(_stem(path), {})) == ["Graph RAG did far better than flat RAG here."]
