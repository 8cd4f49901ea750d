"""Kinship words for the family graph (chapter *Multi-hop queries in a graph database*): a relation
as a sentence, the role of each person on a path. A *path* has ``nodes``, ``rels`` and
``forward`` (:class:`gaba.traversal.Path`)."""
from __future__ import annotations

from typing import Any

from .westeros import RELATIONS, is_symmetric


def relation_sentence(source: str, relation: str, target: str) -> str:
    """One stored edge as an English sentence ("Rhaegar Targaryen is the father of Jon Snow.")."""
    r = RELATIONS.get(relation)
    phrase = r.phrase if r else relation.lower().replace("_", " ")
    return f"{source} {phrase} {target}."


#: (relation, walked forward?) -> words for the person reached (male, female, unknown gender).
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
    """What each person on the path is to the previous one (gendered words where ``genders`` says)."""
    genders = genders or {}
    out = []
    for i, rel in enumerate(path.rels):
        words = ROLE_WORDS.get((rel, path.forward[i] or is_symmetric(rel)))
        out.append(rel.lower().replace("_", " ") if words is None
                   else _gendered(words, genders.get(path.nodes[i + 1])))
    return out


def _gendered(words: tuple[str, str, str], gender: str | None) -> str:
    return words[0] if gender == "male" else words[1] if gender == "female" else words[2]


# (relation, walked forward?) -> the basic kin step it is
_KIN_STEP = {("FATHER_OF", False): "parent", ("MOTHER_OF", False): "parent",
             ("FATHER_OF", True): "child", ("MOTHER_OF", True): "child",
             ("SIBLING_OF", True): "sibling", ("MARRIED_TO", True): "spouse"}
# chain of kin steps -> (what the last person is to the first, what the first is to the last)
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
# kin term -> words (male, female, unknown gender)
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
    """(What the end of a family path is to its start, what the start is to the end), or None.

    >>> from gaba.traversal import Path
    >>> p = Path(("Jon Snow", "Rhaegar Targaryen", "Daenerys Targaryen"), ("FATHER_OF", "SIBLING_OF"), (False, False))
    >>> kinship(p, {"Jon Snow": "male", "Daenerys Targaryen": "female"})
    ('aunt', 'nephew')
    """
    steps = tuple(_KIN_STEP.get((rel, fwd or is_symmetric(rel)))
                  for rel, fwd in zip(path.rels, path.forward))
    terms = _KIN_TERMS.get(steps)
    if terms is None:
        return None
    genders = genders or {}
    return (_gendered(_KIN_WORDS[terms[0]], genders.get(path.nodes[-1])),
            _gendered(_KIN_WORDS[terms[1]], genders.get(path.nodes[0])))
