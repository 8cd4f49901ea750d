"""The prompts that reach the model when answering carry no name of the book's corpora, and no
code path of gaba keys on one.

The worked examples in the prompts use invented names, so a reader's documents meet the same prompt
the book's questions do, and no answer can lean on a name the prompt happened to mention. The code
of every module outside gaba.data (which holds the corpora) is scanned for the corpora's entity
names; docstrings are left out, since their examples are prose.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from gaba import prompts
from gaba.data.greenhouse import load_greenhouse_triples
from gaba.data.news import load_gold_aliases, load_gold_triples
from gaba.data.transfer import COLLECTIONS, load_gold
from gaba.names import whole_words

ROOT = Path(__file__).resolve().parents[1]

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
    found = [w for w in WORDS if re.search(whole_words(w.casefold()), text)]
    assert not found, f"prompts.{name} mentions {found}"


#: Modules whose code may name the book's own entities, and why.
ABOUT_THE_BOOK = {
    "gaba/labs.py": "checks the book's labs, which are exercises on the news corpus",
}


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """Every string constant of a module's code, docstrings left out (their examples are prose)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


CODE = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "gaba").rglob("*.py")
              if "data" not in p.relative_to(ROOT / "gaba").parts[:-1])


def test_the_scan_sees_a_planted_name(tmp_path):
    planted = tmp_path / "m.py"
    planted.write_text('"""Doc: Kestrel Motors is fine here."""\nX = {"kestrel motors": 1}\n')
    hits = [s for _, s in _code_strings(planted) if "kestrel motors" in s.casefold()]
    assert hits == ["kestrel motors"]


@pytest.mark.parametrize("path", [p for p in CODE if p not in ABOUT_THE_BOOK])
def test_no_code_path_names_an_entity_of_the_corpora(path):
    """No code outside gaba.data (the corpora themselves) keys on a name of the book's corpora."""
    found = [(line, w) for line, s in _code_strings(ROOT / path) for w in WORDS
             if re.search(whole_words(w.casefold()), s.casefold())]
    assert not found, f"{path} names {found}"
