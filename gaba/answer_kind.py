"""What kind of answer a question asks for, read from its question word alone.

Taught in chapter "Graph RAG and multi-hop reasoning", as the last part of the grounding rule.
English question words only, no field's words: a "who" question is not answered by a place, a
"where" question not by a person, and "when", "how much", "how many", "how long" or "how old" not
by a person, an organisation or a place. The entity types are the ones extraction assigned.

Examples
--------
>>> type_mismatch("Who is the chief executive of Osk Freight?", {"Lisvik": "place"})
'the question asks "who", and the answer names only a place (Lisvik)'
>>> type_mismatch("Who is the chief executive of Osk Freight?", {"Ana Rusk": "person"}) is None
True
"""
from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["EXCLUDED_TYPES", "question_word", "type_mismatch"]

_NOT_A_NAME = frozenset({"person", "org", "place"})
#: Question word -> the entity types that cannot answer it.
EXCLUDED_TYPES: dict[str, frozenset[str]] = {
    "who": frozenset({"place"}), "whom": frozenset({"place"}), "where": frozenset({"person"}),
    "when": _NOT_A_NAME, "how much": _NOT_A_NAME, "how many": _NOT_A_NAME, "how long": _NOT_A_NAME,
    "how old": _NOT_A_NAME,
}


def question_word(question: str) -> str | None:
    """The question word of :data:`EXCLUDED_TYPES` a question opens with, or ends with before its
    question mark ("... born where?"); None for any other question.

    >>> question_word("How many ships did Osk Freight buy?"), question_word("Ana Rusk was born where?")
    ('how many', 'where')
    """
    words = re.findall(r"[a-z]+", question.casefold())
    if not words:
        return None
    for w in (" ".join(words[:2]), words[0]):
        if w in EXCLUDED_TYPES:
            return w
    if question.rstrip().endswith("?") and words[-1] in EXCLUDED_TYPES:
        return words[-1]
    return None


def type_mismatch(question: str, answer_types: Mapping[str, str | None]) -> str | None:
    """Why the entities an answer names cannot answer ``question``, or None when one of them can.

    ``answer_types``: each entity the answer names -> its type (None when extraction gave none,
    which never counts against it).
    """
    word = question_word(question)
    if word is None or not answer_types:
        return None
    excluded = EXCLUDED_TYPES[word]
    if not all(t in excluded for t in answer_types.values()):
        return None
    kinds = " or ".join(sorted({str(t) for t in answer_types.values()}))
    article = "an" if kinds[0] in "aeiou" else "a"
    return (f'the question asks "{word}", and the answer names only {article} {kinds} '
            f'({", ".join(answer_types)})')
