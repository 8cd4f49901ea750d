"""Kinship words of the family graph: a relation as a sentence, the role of each person on a path.

Taught in chapter *Multi-hop queries in a graph database*. The words belong to the relation
vocabulary of :mod:`gaba.data.westeros` (``FATHER_OF``, ``SIBLING_OF``, ...), so they live beside
it, in the data layer; :func:`gaba.multihop.format_paths` uses them to write paths for the model.

A *path* here is anything with ``nodes``, ``rels`` and ``forward`` (a :class:`gaba.traversal.Path`):
``nodes[i]`` -``rels[i]``- ``nodes[i+1]``, where ``forward[i]`` says the stored edge points from
``nodes[i]`` to ``nodes[i+1]``.

Examples
--------
>>> relation_sentence("Rhaegar Targaryen", "FATHER_OF", "Jon Snow")
'Rhaegar Targaryen is the father of Jon Snow.'
"""
from __future__ import annotations

from typing import Any

from .westeros import RELATIONS, is_symmetric


def relation_sentence(source: str, relation: str, target: str) -> str:
    """``"Rhaegar Targaryen is the father of Jon Snow."`` for one stored edge."""
    r = RELATIONS.get(relation)
    phrase = r.phrase if r else relation.lower().replace("_", " ")
    return f"{source} {phrase} {target}."


#: (relation, walked forward?) -> words for the person reached: (male, female, unknown gender).
#: "Forward" means the stored edge points from the current person to the next one.
ROLE_WORDS: dict[tuple[str, bool], tuple[str, str, str]] = {
    ("FATHER_OF", True): ("son", "daughter", "child"),
    ("FATHER_OF", False): ("father", "father", "father"),
    ("MOTHER_OF", True): ("son", "daughter", "child"),
    ("MOTHER_OF", False): ("mother", "mother", "mother"),
    ("SIBLING_OF", True): ("brother", "sister", "sibling"),
    ("MARRIED_TO", True): ("husband", "wife", "spouse"),
    ("LOVER_OF", True): ("lover", "lover", "lover"),
    ("BETROTHED_TO", True): ("betrothed", "betrothed", "betrothed"),
    ("FOSTERED", True): ("foster son", "foster daughter", "ward"),
    ("FOSTERED", False): ("foster father", "foster mother", "foster parent"),
    ("SERVED", True): ("lord", "lady", "lord"),
    ("SERVED", False): ("servant", "servant", "servant"),
    ("WORKED_WITH", True): ("co-worker", "co-worker", "co-worker"),
    ("MET_ONCE", True): ("one-time acquaintance", "one-time acquaintance", "one-time acquaintance"),
}


def path_roles(path: Any, genders: dict[str, str] | None = None) -> list[str]:
    """What each person on the path is to the previous one: ``["father", "sister"]``.

    Symmetric relations read the same both ways; gendered words need ``genders``
    (``{name: "male" | "female"}``), otherwise a neutral word is used.

    Examples
    --------
    >>> from gaba.traversal import Path
    >>> p = Path(("Jon Snow", "Rhaegar Targaryen", "Daenerys Targaryen"), ("FATHER_OF", "SIBLING_OF"), (False, False))
    >>> path_roles(p, {"Daenerys Targaryen": "female"})
    ['father', 'sister']
    """
    genders = genders or {}
    out = []
    for i, rel in enumerate(path.rels):
        fwd = path.forward[i] or is_symmetric(rel)
        words = ROLE_WORDS.get((rel, fwd))
        if words is None:
            out.append(rel.lower().replace("_", " "))
            continue
        g = genders.get(path.nodes[i + 1])
        out.append(words[0] if g == "male" else words[1] if g == "female" else words[2])
    return out


#: (relation, walked forward?) -> the basic kin step it is, for :func:`kinship`.
_KIN_STEP = {("FATHER_OF", False): "parent", ("MOTHER_OF", False): "parent",
             ("FATHER_OF", True): "child", ("MOTHER_OF", True): "child",
             ("SIBLING_OF", True): "sibling", ("MARRIED_TO", True): "spouse"}
#: chain of kin steps -> (what the last person is to the first, what the first is to the last)
_KIN_TERMS = {
    ("parent",): ("parent", "child"), ("child",): ("child", "parent"),
    ("sibling",): ("sibling", "sibling"), ("spouse",): ("spouse", "spouse"),
    ("parent", "child"): ("sibling", "sibling"), ("sibling", "sibling"): ("sibling", "sibling"),
    ("parent", "parent"): ("grandparent", "grandchild"), ("child", "child"): ("grandchild", "grandparent"),
    ("parent", "sibling"): ("uncle", "nephew"), ("parent", "parent", "child"): ("uncle", "nephew"),
    ("sibling", "child"): ("nephew", "uncle"), ("parent", "child", "child"): ("nephew", "uncle"),
    ("parent", "sibling", "child"): ("cousin", "cousin"),
    ("parent", "parent", "parent"): ("great-grandparent", "great-grandchild"),
    ("parent", "parent", "sibling"): ("great-uncle", "great-nephew"),
    ("sibling", "spouse"): ("sibling-in-law", "sibling-in-law"),
    ("spouse", "sibling"): ("sibling-in-law", "sibling-in-law"),
    ("parent", "child", "spouse"): ("sibling-in-law", "sibling-in-law"),
    ("spouse", "parent"): ("parent-in-law", "child-in-law"),
    ("child", "spouse"): ("child-in-law", "parent-in-law"),
}
#: kin term -> words (male, female, unknown gender)
_KIN_WORDS = {
    "parent": ("father", "mother", "parent"), "child": ("son", "daughter", "child"),
    "sibling": ("brother", "sister", "sibling"), "spouse": ("husband", "wife", "spouse"),
    "grandparent": ("grandfather", "grandmother", "grandparent"),
    "grandchild": ("grandson", "granddaughter", "grandchild"),
    "great-grandparent": ("great-grandfather", "great-grandmother", "great-grandparent"),
    "great-grandchild": ("great-grandson", "great-granddaughter", "great-grandchild"),
    "uncle": ("uncle", "aunt", "uncle or aunt"), "nephew": ("nephew", "niece", "nephew or niece"),
    "great-uncle": ("great-uncle", "great-aunt", "great-uncle or great-aunt"),
    "great-nephew": ("great-nephew", "great-niece", "great-nephew or great-niece"),
    "cousin": ("cousin", "cousin", "cousin"),
    "sibling-in-law": ("brother-in-law", "sister-in-law", "sibling-in-law"),
    "parent-in-law": ("father-in-law", "mother-in-law", "parent-in-law"),
    "child-in-law": ("son-in-law", "daughter-in-law", "child-in-law"),
}


def kinship(path: Any, genders: dict[str, str] | None = None) -> tuple[str, str] | None:
    """The kinship words of a family path: (what the end is to the start, what the start is to the end).

    Only chains of parent, child, sibling and spouse steps that English names in one word or
    two are covered (aunt, cousin, sister-in-law, ...); anything else gives None.

    Examples
    --------
    >>> from gaba.traversal import Path
    >>> p = Path(("Jon Snow", "Rhaegar Targaryen", "Daenerys Targaryen"), ("FATHER_OF", "SIBLING_OF"), (False, False))
    >>> kinship(p, {"Jon Snow": "male", "Daenerys Targaryen": "female"})
    ('aunt', 'nephew')
    """
    steps = []
    for rel, fwd in zip(path.rels, path.forward):
        step = _KIN_STEP.get((rel, fwd or is_symmetric(rel)))
        if step is None:
            return None
        steps.append(step)
    terms = _KIN_TERMS.get(tuple(steps))
    if terms is None:
        return None
    genders = genders or {}

    def word(term, person):
        g = genders.get(person)
        w = _KIN_WORDS[term]
        return w[0] if g == "male" else w[1] if g == "female" else w[2]
    return word(terms[0], path.nodes[-1]), word(terms[1], path.nodes[0])
