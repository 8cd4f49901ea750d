"""Which way a triple reads: subject and object swapped by a passive, a preposition, a relative clause.

Taught in chapter "From text to a knowledge graph". Used by :mod:`gaba.validate`.
"""
from __future__ import annotations

import re

from .names import NAME_RUN, capitalised_names, mentions, whole_words


#: A form of "to be" before a participle makes a passive ("was acquired by", "has been led by"), and so
#: does a comma before it, where a participle describes the name before the comma ("Osk, founded in 1990 by").
_PASSIVE = r"(?:\b(?:is|are|was|were|be|been|being)\s+|,\s*)(?:\w+ly\s+)?{verb}(?:\s+[\w,]+){{0,3}}?\s+by\b"


def _active_verb(predicate: str) -> str | None:
    """The verb that opens a predicate read active ("founded_in" -> "founded"); None for a passive
    ("founded_by"), whose record already says who did it."""
    words = predicate.split("_")
    return None if "by" in words else words[0]


def passive_read_as_active(predicate: str, sentence: str, subject: str, obj: str) -> bool:
    """Whether the sentence says "<subject> was <predicate> by <obj>" but the record reads it active.

    Validation then keeps the predicate as ``<predicate>_by``.

    >>> s = "Brightwater Records was acquired in 2021 by Tessellate."
    >>> passive_read_as_active("acquired", s, "Brightwater Records", "Tessellate")
    True
    """
    if (verb := _active_verb(predicate)) is None:
        return False
    for m in re.finditer(_PASSIVE.format(verb=re.escape(verb)), sentence, flags=re.I):
        before = sentence[:m.start()]
        # the object named before the verb too? Not inside the subject's own name ("Keel & Varga ...
        # was founded by Hollis Keel")
        rest = re.sub(whole_words(subject), " ", before, flags=re.I)
        # a subject named before the verb, or a description there that names no one ("The charity,
        # founded in 1990 by Ann Lee, ...") with the subject not named after it
        after = sentence[m.end():]
        named = mentions(before, subject) or (not capitalised_names(before) and not mentions(after, subject))
        if named and mentions(after, obj) and not mentions(rest, obj):
            return True
    return False


#: Prepositions that close a predicate ("reigned_for", "based_in") and take its object after them.
_CLOSING = frozenset("about at for from in into of on onto over to under with".split())
_PRONOUN_OR_BY = re.compile(r"\s*(?:it|its|them|their|him|his|her|by)\b", re.IGNORECASE)


def _after_closing(predicate: str, sentence: str) -> str | None:
    """What ``sentence`` writes after a predicate's closing preposition ("reigned for" -> "23 years"),
    or None when the predicate has none or the sentence does not write it."""
    words = predicate.split("_")
    if words[-1] not in _CLOSING or len(words) < 2:
        return None
    m = re.search(rf"\b{re.escape(words[0][:4])}\w*(?:\s+[\w'’-]+){{0,3}}?\s+{words[-1]}\b", sentence,
                  flags=re.IGNORECASE)
    return sentence[m.end():] if m else None


def other_object(predicate: str, sentence: str, subject: str, obj: str) -> str | None:
    """What the sentence puts after a predicate's closing preposition when a record takes its object
    from the sentence before: "Sevrine reigned for 23 years" read as ``reigned_for Aldemar``.

    Only for a record one of whose names the sentence leaves out; then the words after the
    preposition must be the object, a pronoun or "by" (a passive). Returns those words, else None.

    >>> other_object("reigned_for", "Ilsa reigned for 23 years.", "Ilsa", "Oswin")
    '23 years.'
    >>> other_object("based_in", "The charity is based in Linmouth.", "Second Breath", "Linmouth")
    """
    if mentions(sentence, subject) and mentions(sentence, obj):
        return None
    after = _after_closing(predicate, sentence)
    if after is None or _PRONOUN_OR_BY.match(after) or mentions(" ".join(after.split()[:len(obj.split()) + 2]), obj):
        return None
    return " ".join(after.split()[:2]) or None


def preposition_read_backwards(predicate: str, sentence: str, subject: str, obj: str) -> bool:
    """Whether the sentence puts the record's subject, not its object, after the predicate's closing
    preposition: "Tarn Hall was the tallest building in Pesk" read as ``Pesk tallest_building_in
    Tarn Hall``.

    >>> preposition_read_backwards("tallest_building_in", "Tarn Hall was the tallest building in Pesk.",
    ...                            "Pesk", "Tarn Hall")
    True
    """
    after = _after_closing(predicate, sentence)
    if after is None:
        return False
    head = " ".join(re.sub(r"^\s*(?:the|a|an)\s+", "", after, flags=re.IGNORECASE).split()[:4])
    return (re.match(whole_words(subject), head, flags=re.IGNORECASE) is not None
            and not mentions(head, obj))


def active_read_backwards(predicate: str, sentence: str, subject: str, obj: str) -> bool:
    """Whether the sentence says "<obj> ... <predicate> ... <subject>" but the record reads it the
    other way round; validation then swaps the two. Not for "by" (a passive's agent), a possessive
    ("Acme's chief executive, Ann Lee") or an inversion after a comma or a quote ("..., said Ann Lee").

    >>> s = "Orrel Mills, based in Vantry, has supplied the looms at Tarn Works."
    >>> active_read_backwards("supplied", s, "Tarn Works", "Orrel Mills")
    True
    """
    if (verb := _active_verb(predicate)) is None:
        return False
    subject_re, obj_re = re.compile(whole_words(subject), re.I), re.compile(whole_words(obj), re.I)
    for m in re.finditer(whole_words(verb), sentence, flags=re.I):
        before, after = sentence[:m.start()], sentence[m.end():]
        at, objs = subject_re.search(after), list(obj_re.finditer(before))
        if at is None or not objs or re.search(r"\bby\b", sentence[objs[0].end():m.end() + at.start()], flags=re.I):
            continue
        if any(re.match(r"['\u2019]s?\s", before[o.end():]) for o in objs):
            continue                                      # "Acme's chief executive, Ann Lee"
        if not after[:at.start()].strip() and before.rstrip()[-1:] in (",", '"', "\u201d", "'"):
            continue                                      # "..., said Ann Lee"
        if not mentions(obj_re.sub(" ", before), subject):
            return True
    return False


def relative_read_backwards(predicate: str, sentence: str, subject: str, obj: str) -> bool:
    """Whether the sentence says "<subject> ... that <obj> <predicate>" (a relative clause whose own
    subject is ``obj``) but the record reads it the other way round; validation then swaps the two.

    >>> s = "Tarn Mill, the loom works that Orrel Textiles grew out of, closed in 1990."
    >>> relative_read_backwards("grew_out_of", s, "Tarn Mill", "Orrel Textiles")
    True
    >>> relative_read_backwards("grew_out_of", s, "Orrel Textiles", "Tarn Mill")
    False
    """
    verb = predicate.split("_")[0]
    pattern = (r"\b(?:that|which|whom)\s+(?:the\s+)?" + whole_words(obj)
               + r"\s+(?:[a-z]+\s+){0,2}?" + whole_words(verb))
    return any(mentions(sentence[:m.start()], subject) for m in re.finditer(pattern, sentence, flags=re.I))


def other_agent(predicate: str, sentence: str, subject: str, obj: str) -> str | None:
    """The agent of a passive "<be> <predicate> ... by <Name>" in the sentence when it is neither
    ``subject`` nor ``obj``: a record of a bare verb, or of "<verb>_by", then names someone else as
    the doer ("It was founded in 1921 by Ann Lee" read as "Acme founded Leeds"; "founded in 1958 by
    the cooper Ann Lee in the town of Leeds" read as "Acme founded_by Leeds"). The agent may follow
    a short description ("the cooper") and may be several names joined by "and" or commas. Not for
    a verb with another preposition: "jets were leased to Tern Air by Orrel Leasing" gives "jets
    leased_to Tern Air" rightly.

    >>> other_agent("founded", "It was founded in 1921 by Ann Lee.", "Lee Mills", "Leeds")
    'Ann Lee'
    >>> other_agent("founded_by", "Osk was founded by the cooper Ann Lee in Leeds.", "Osk", "Leeds")
    'Ann Lee'
    >>> other_agent("founded_by", "Osk was founded by Ann Lee and Bo Chan.", "Osk", "Bo Chan")
    >>> other_agent("run_by", "Osk is run by the Osk Harbour Board (OHB).", "Osk", "OHB")
    >>> other_agent("leased_to", "Jets were leased to Tern Air by Orrel Leasing.", "Jets", "Tern Air")
    """
    words = predicate.split("_")
    if not (len(words) == 1 or (len(words) == 2 and words[1] == "by")):
        return None
    name = NAME_RUN + r"(?:\s*\([^()]*\))?"                    # and its short form: "(CHB)"
    lead = r"(?:(?:the|a|an)\s+)?(?:[a-z][\w-]*\s+){0,2}?"      # "the cooper", "chef"
    for m in re.finditer(_PASSIVE.format(verb=re.escape(words[0])), sentence, flags=re.I):
        agent = re.match(r"\s+" + lead + "(" + name + r")(?:\s*(?:,|\band\b|&)\s*" + lead + name + ")*",
                         sentence[m.end():])
        if agent and not any(re.search(whole_words(a), b, flags=re.I)       # the whole name, not a word of it
                             for x in (subject, obj) for a, b in ((x, agent.group(0)), (agent.group(1), x))):
            return agent.group(1).rstrip(".")
    return None


def agent_read_backwards(predicate: str, sentence: str, subject: str, obj: str) -> bool:
    """Whether a "<verb>_by" record puts the agent first: the sentence says "<verb> by <subject>"
    and names ``obj`` nowhere after it. Validation then swaps the two.

    >>> s = "Work at Tarn Weir ended. The weir was rebuilt by Orrel Mills in May."
    >>> agent_read_backwards("rebuilt_by", s, "Orrel Mills", "Tarn Weir")
    True
    """
    words = predicate.split("_")
    if len(words) < 2 or words[-1] != "by":
        return False
    for m in re.finditer(r"\b(\w+)\s+by\s+(?:the\s+)?", sentence, flags=re.I):
        after = sentence[m.end():]
        if (m.group(1).lower() in words[:-1] and re.match(whole_words(subject), after, flags=re.I)
                and not mentions(after, obj)):
            return True
    return False
