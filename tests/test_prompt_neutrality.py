"""The prompts that reach the model when answering carry no name of the book's corpora.

The worked examples in them use invented names, so a reader's documents meet the same prompt the
book's questions do, and no answer can lean on a name the prompt happened to mention.
"""
from __future__ import annotations

import re

import pytest

from gaba import prompts
from gaba.data.greenhouse import load_greenhouse_triples
from gaba.data.news import load_gold_aliases, load_gold_triples
from gaba.data.transfer import COLLECTIONS, load_gold

ANSWERING = {name: getattr(prompts, name) for name in [
    "ANSWER_SYSTEM", "ANSWER_EXAMPLE", "ANSWER_FORMAT", "GRAPH_ANSWER_PROMPT", "GRAPH_OUTLINE_PROMPT",
    "FLAT_ANSWER_PROMPT", "DECOMPOSE_SYSTEM", "DECOMPOSE_PROMPT"]}


def _corpus_names() -> set[str]:
    """Every entity name and alias of the book's corpora (relation verbs are ordinary words)."""
    names = set(load_gold_aliases())
    for t in load_gold_triples():
        names |= {t["subject"], t["object"]}
    for c in COLLECTIONS:
        for t in load_gold(c):
            names |= {t["subject"], t["object"]}
    for s, _, o, *_ in load_greenhouse_triples():
        names |= {s, o}
    return {n for n in names if len(n) > 3}


WORDS = sorted(_corpus_names())


def test_the_corpora_give_words_to_look_for():
    assert len(WORDS) > 100 and "Kestrel Motors" in WORDS


@pytest.mark.parametrize("name", sorted(ANSWERING))
def test_an_answering_prompt_names_nothing_of_the_corpora(name):
    text = ANSWERING[name].casefold()
    found = [w for w in WORDS if re.search(r"(?<!\w)" + re.escape(w.casefold()) + r"(?!\w)", text)]
    assert not found, f"prompts.{name} mentions {found}"
