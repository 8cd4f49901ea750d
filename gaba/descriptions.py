"""Descriptions: "the agency" or "the air ambulance" written as the name it refers back to.

Taught in chapter "From text to a knowledge graph". Generic English rules, no corpus word list; the
pronouns are :mod:`gaba.coref`'s.
"""
from __future__ import annotations

import re
from collections.abc import Mapping

from .names import FUNCTION_WORDS, PRONOUNS, UPPER, capitalised_names


#: Words for a place in a series: "the second" or "the latter" refers to no name by its last word.
_ORDINALS = frozenset("""first second third fourth fifth sixth seventh eighth ninth tenth last next former latter
    same other following previous""".split())
#: "the <noun>" in lowercase, not followed by "of" ("the bank of Tidewater" is no back-reference) or
#: by a name ("the painter Bo Chan" names someone else).
_TWO_WORD_DESCRIPTION = re.compile(r"\b([Tt]he) ([a-z]{3,}) ([a-z]{3,})\b(?!\s+of\b)(?!-)(?!\s+" + UPPER + ")")
_DESCRIPTION = re.compile(r"\b([Tt]he) ([a-z]{3,})\b(?!\s+of\b)(?!-)(?!\s+" + UPPER + ")")


def description_heads(text: str) -> dict[str, set[str]]:
    """The names of two or more words in ``text`` by their last word, case-folded: what a later
    "the <noun>" can refer back to.

    >>> description_heads("Osk Freight Agency hired Ann Lee.")
    {'agency': {'Osk Freight Agency'}, 'lee': {'Ann Lee'}}

    What the text calls a name counts too: "<Name>, a firm ...", "<Name> is an engineering
    consultancy", "her own firm, <Name>".

    >>> description_heads("Ann Lee founded her own firm, Lee & Osk.")["firm"]
    {'Lee & Osk'}

    And a lowercase noun after "the <Name>": the name and the noun.

    >>> description_heads("The Osk Rescue team is based in Lund.")["team"]
    {'Osk Rescue team'}
    """
    heads: dict[str, set[str]] = {}
    for name in capitalised_names(text):
        if name.casefold() in PRONOUNS:          # "It is a 2017 horror film": a pronoun, not a film's name
            continue
        if len(name.split()) >= 2:
            heads.setdefault(name.split()[-1].casefold(), set()).add(name)
        # a lowercase noun after "the <Name>": "the Osk Rescue team" is what a later "the team" means
        for m in re.finditer(r"\b[Tt]he\s+" + re.escape(name) + r"\s+([a-z]{3,})\b(?![\w'’-])(?<![ds])", text):
            if m.group(1) not in FUNCTION_WORDS and m.group(1) not in _ORDINALS:
                heads.setdefault(m.group(1), set()).add(f"{name} {m.group(1)}")
        # what the text calls it: "<Name>, a firm ...", "<Name> is an engineering consultancy",
        # "her own firm, <Name>"
        n = r"(?<![\w&] )(?<![\w&])" + re.escape(name)      # not the end of a longer name
        for m in re.finditer(n + r"(?:,|\s+(?:is|was))\s+(?:a|an)\s+((?:[a-z][\w-]*\s+){0,2}[a-z]{3,})\b"
                             r"|\b(?:his|her|its|their)\s+(?:own\s+)?((?:[a-z][\w-]*\s+){0,2}[a-z]{3,}),\s+" + n
                             + r"(?![\w&]|\s+&)", text):
            for w in (m.group(1) or m.group(2)).split():
                if w not in FUNCTION_WORDS:
                    heads.setdefault(w, set()).add(name)
    return heads


def resolve_descriptions(text: str, earlier: Mapping[str, set[str]] | None = None, *,
                         heads: Mapping[str, set[str]] | None = None) -> str:
    """``text`` with each "the <noun>" (not "the <noun> of") that refers back to a name written as that name.

    Resolved only when exactly one name of two or more words in ``text`` ends in that noun and is
    written before it ("the university" is not "University of Caldermoor"); "the air ambulance" when
    one name ends in "Air Ambulance". When no name in ``text``
    ends in the noun, the names of ``earlier`` (:func:`description_heads` of the earlier passages of
    a long document) are used. ``heads``: :func:`description_heads` of ``text``, when the caller has
    them already.

    >>> resolve_descriptions("Osk Freight Agency opened in May. The agency has 40 staff.")
    'Osk Freight Agency opened in May. The Osk Freight Agency has 40 staff.'
    >>> resolve_descriptions("The agency has 40 staff.", description_heads("Osk Freight Agency opened."))
    'The Osk Freight Agency has 40 staff.'
    """
    heads, earlier = description_heads(text) if heads is None else heads, earlier or {}

    def resolve(m: re.Match) -> str:
        if m.group(2) in _ORDINALS:                    # "the second": a place in a series, not a thing
            return m.group(0)
        names = heads.get(m.group(2), set())
        if len(names) == 1 and 0 <= text.find(name := next(iter(names))) < m.start():
            return f"{m.group(1)} {name}"
        if not names and len(names := earlier.get(m.group(2), set())) == 1:
            return f"{m.group(1)} {next(iter(names))}"
        return m.group(0)

    def resolve_two(m: re.Match) -> str:
        """"the air ambulance": the one name ending in "Air Ambulance" (a two-word description)."""
        ends = [m.group(2), m.group(3)]
        names = {n for n in heads.get(m.group(3), set()) | earlier.get(m.group(3), set())
                 if [w.casefold() for w in n.split()[-2:]] == ends}
        if len(names) == 1 and text.find(name := next(iter(names))) < m.start():   # named before, or earlier
            return f"{m.group(1)} {name}"
        return m.group(0)

    text = _TWO_WORD_DESCRIPTION.sub(resolve_two, text)
    return _DESCRIPTION.sub(resolve, text)
