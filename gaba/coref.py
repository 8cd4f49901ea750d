"""Referring back: a pronoun ("it", "his", "the pair") resolved to the name it means.

Taught in chapter "From text to a knowledge graph". Generic English rules, no corpus word list.
"""
from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable

from .names import (ALL_TITLES, FUNCTION_WORDS, PRONOUNS, SENTENCE_START, UPPER, _END_MARK, capitalised_names,
                    looks_like_person, strip_title, whole_words)


#: What follows a person's name where a biography opens: "(born 1950)", "(1882 - 1952)", "was born".
_BORN = re.compile(r"\s*(?:\([^)]*?\b(?:born|\d{3,4})\b[^)]*\)|(?:was|is)\s+born\b)", re.IGNORECASE)


def resolve_opening_pronoun(text: str, opening: str) -> str:
    """``text``, a later passage of a document, with the "he" or "she" of its first sentence written
    as the person the document opens with, when that sentence names no person before it.

    A long document is read passage by passage, and one that opens "He was born in Leeds" would
    not say who was. The person is the name that opens ``opening`` (the document's first passage)
    the way a biography opens: "Ann Lee (born 1950) ...", "Ann Lee (1882 - 1952) ...", "Ann Lee was
    born ...". Otherwise, or when the pronoun comes after the first sentence, ``text`` is returned
    unchanged.

    >>> resolve_opening_pronoun("In 1990 she moved to Leeds. He stayed.", "Ann Lee (born 1950) paints.")
    'In 1990 Ann Lee moved to Leeds. He stayed.'
    """
    m = re.search(r"\b([Hh]e|[Ss]he)\b", text)
    if not m or not opening or re.search(r"[.!?][\"')\]]*\s", text[:m.start()]):
        return text
    if any(looks_like_person(n) for n in capitalised_names(text[:m.start()])):
        return text
    if (topic := _biography_subject(opening)) is None:
        return text
    return text[:m.start()] + topic + text[m.end():]


@functools.lru_cache(maxsize=64)
def _biography_subject(opening: str) -> str | None:
    """The person a document's first passage opens with the way a biography does, else None;
    worked out once for all the later passages of the document."""
    opening = opening.lstrip()
    names = capitalised_names(opening)
    topic = names[0] if names and opening.startswith(names[0]) else None
    if topic is None or not looks_like_person(topic) or not _BORN.match(opening[len(topic):]):
        return None
    return topic


#: What follows a sentence's subject: a comma (not a list, "Ann Lee, Bo Chan and ..."), a bracket, a
#: preposition of place, or a verb that ends in "s" or "ed" or is a form of "be", "have" or a modal
#: ("Ollen Cross station reopened", "Werner Erhard and Associates": the subject is not the name alone).
_VERB_THEN = (r"\s+(?:[a-z]+(?:s|ed)|is|are|was|were|has|had|have|will|would|can|could|may|might|must|should"
              r"|did|does)\b")
_SUBJECT_THEN = re.compile(r"\s*\((?!.*\)\s*,?\s*and\b)|\s*,(?!\s*" + UPPER + r"[\w'’-]*(?:\s+" + UPPER
                           + r"[\w'’-]*)*\s*(?:,|and\b))|\s+(?:in|at|on|from|near|with)\b|" + _VERB_THEN)
_ONE_WORD_THEN = re.compile(r"\s*,|" + _VERB_THEN)
_BE = frozenset({"is", "are", "was", "were", "be", "been", "being"})
#: "It is likely that ...", "It was not known whether ...": an "it" that stands for no name.
_EXPLETIVE = re.compile(r"\s+(?:is|was|seems|seemed|appears|appeared|has\s+been|had\s+been|will\s+be|would\s+be)"
                        r"\s+(?:not\s+)?(?:\w+\s+){0,2}?(?:that|whether|how|why|what|when)\b")


#: A sentence end, but not after an initial ("Stephen R. Covey") or a short title ("St. Peter's").
_IT_SENTENCE_END = re.compile(r"(?<!\b[A-Z])(?<!\b(?:St|Mt|Dr|Mr|Ms|Jr|Sr|No))(?<!\bMrs)" + _END_MARK + r"|\n\s*")


def _other_thing(rest: str, names: Iterable[str]) -> bool:
    """Whether the rest of a sentence after its subject has an object that a following "it" may
    mean: a name or a singular "a firm", "the ferry" right after a verb or "by" ("bought Osk",
    "founded a firm", "was represented by Pike & Dunn"). After another preposition ("in Lisvik"),
    "is"/"was", a comma or a participle ("a team covering the Harl Fells") it describes the subject
    or a circumstance; "the fells" are several; a relative clause (", which is chaired by Ann
    Lee,") is left out."""
    rest = re.sub(r",\s+(?:which|who)\b[^,]*,", ",", rest)
    def after_verb(at: int) -> bool:
        before = re.findall(r"[\w,]+", rest[:at])
        w, v = (before[-1] if before else ""), (before[-2] if len(before) > 1 else "")
        if w.endswith("ing") and v not in _BE:      # "a team covering the Harl Fells" describes the team
            return False
        return w == "by" or (w.islower() and w not in FUNCTION_WORDS | PRONOUNS | _BE)

    if any(after_verb(m.start()) for n in names for m in re.finditer(whole_words(n), rest)):
        return True
    for m in re.finditer(r"\b(?:a|an|the)\s+((?:[a-z][\w-]*\s*)+)", rest):
        run = []
        for w in m.group(1).split():
            if w in FUNCTION_WORDS or w in PRONOUNS:
                break
            run.append(w)
        if run and not run[-1].endswith("s") and after_verb(m.start()):
            return True
    return False


def written_inside(word: str, text: str) -> bool:
    """Whether ``text`` writes ``word`` as a name of its own inside a sentence (not "Vessen Drivers' Union")."""
    return any((m.group(1)[:1].islower() or m.group(1)[-1] in ",;)") and m.group(1)[-1] not in ".!?:"
               for m in re.finditer(r"(\S+)\s+" + re.escape(word) + r"\b(?!['’]?\s+" + UPPER + ")", text))


def _a_person(name: str, sentence: str) -> bool:
    """Whether the sentence shows ``name``, its subject, to be a person, whom "it" never means: a
    personal title first ("Philanthropist Ann Lee"), ", who ..." after it, or "he"/"she" in it."""
    return (name.split()[0].rstrip(".").lower() in ALL_TITLES
            or re.match(r"\s*,\s*who\b", sentence[len(name):]) is not None
            or re.search(r"\b(?:he|she|his|her|him)\b", sentence, flags=re.IGNORECASE) is not None)


@functools.lru_cache(maxsize=256)
def opening_name(sentence: str) -> str | None:
    """The name ``sentence`` opens with, after an optional "The", else None: the name a later "it"
    may stand for.

    >>> opening_name("The Osk Depot opened in May."), opening_name("In May Osk Depot opened.")
    ('Osk Depot', None)
    """
    head = sentence[4:] if sentence.startswith("The ") else sentence
    names = capitalised_names(head)
    return names[0] if names and head.startswith(names[0]) else None


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, stop)`` of each sentence of ``text``, split where :data:`_IT_SENTENCE_END` ends one."""
    ends = list(_IT_SENTENCE_END.finditer(text))
    return list(zip([0] + [m.end() for m in ends], [m.start() for m in ends] + [len(text)]))


def resolve_it(text: str) -> str:
    """``text`` with a sentence-opening "It" written as the name the sentence before opens with.

    A small model reads "Osk Freight runs six ships. It was founded in 1990 by Ann Lee." and finds
    no fact in the second sentence: "it" names nothing. The name is taken only when the sentence
    before opens with it (after an optional "The") and has no object "it" could mean instead
    ("bought Osk", "founded a firm", "was represented by Pike & Dunn"), and that shows no person
    ("Dr. Ann Lee, who ...", "she"), nor an "it" of its own, nor an "its" past the text's first
    sentence (the topic: "The River Drava forms its border."). A one-word name must be written
    inside a sentence too ("Drivers on ..." names no one). "It is likely that ..." is left alone,
    and so is "Its": written "Osk Freight's chief", it gave the small model nouns for relations
    ("bell_tower") more often than facts (but see :func:`resolve_its_role`, for a role and a name).

    >>> resolve_it("Osk Freight runs six ships. It was founded by Ann Lee. It has 40 staff.")
    'Osk Freight runs six ships. Osk Freight was founded by Ann Lee. Osk Freight has 40 staff.'
    >>> resolve_it("Ann Lee founded a firm in 1990. It makes pumps.")     # "it" is the firm
    'Ann Lee founded a firm in 1990. It makes pumps.'
    """
    out, last, previous = [], 0, None
    for start, stop in _sentence_spans(text):
        rest = text[start:]
        if previous and re.match(r"It\b(?!['’])", rest) and not _EXPLETIVE.match(rest[2:]):
            out.append(text[last:start] + previous)
            last = start + 2
            continue                     # "It was ... . It has ...": the same name again
        head = rest[4:] if rest.startswith("The ") else rest
        sentence = text[start + len(rest) - len(head):stop]
        previous = opening_name(sentence)
        then = _SUBJECT_THEN if " " in (previous or "") else _ONE_WORD_THEN      # not "Back to the Future"
        if previous and (not then.match(sentence[len(previous):])
                         or _other_thing(sentence[len(previous):], capitalised_names(sentence)[1:])
                         or (" " not in previous and not written_inside(previous, text)) or _a_person(previous, sentence)
                         or re.search(r"\b(?:it|itself)\b" if start == 0 else r"\b(?:it|its|itself)\b",
                                      sentence[len(previous):]) is not None):
            previous = None
    out.append(text[last:])
    return "".join(out)


#: "His"/"Her" opening a sentence before a lowercase word: "His biggest customer is ...", but not
#: before a name in apposition ("Her deputy, Bo Chan, will ..."): that sentence is about Bo Chan.
_POSSESSIVE = re.compile(r"(?:His|Her)\s+(?=[a-z])(?!(?:[a-z][\w-]*\s+)?[a-z][\w-]*,?\s+" + UPPER + r")")
#: How many sentences back :func:`resolve_possessive` looks for the person.
_LOOK_BACK = 4
#: Evidence in a sentence that a name is a person's: ", who ..." or a bracket with a year after it.
_PERSON_AFTER = re.compile(r"\s*(?:,\s*who\b|\([^)]*\b\d{4}\b)")
#: Before a name, a role in lowercase ("chief executive Ann Lee", "the cellist Bo Chan"): a word that
#: is no function word and does not end like a verb's past or present form ("hired", "signs").
_ROLE_BEFORE = re.compile(r"\b(?!(?:" + "|".join(sorted(FUNCTION_WORDS)) + r")\s)[a-z]+(?<![ds])\s+$")
#: After a subject, another name joined to it: "Ann Lee and Bo Chan ...", "Ann Lee, Bo Chan ...".
_JOINED = re.compile(r"\s*(?:,|and\b|&)\s*" + UPPER)
#: Before a name, a word that makes it a place or a thing: "at Osk Park", "from Osk Water", "the Osk".
_PLACE_BEFORE = re.compile(r"\b(?:at|in|into|from|near|the|The)\s+$")


@functools.lru_cache(maxsize=8)
def _names_in(text: str) -> tuple[str, ...]:
    """:func:`gaba.names.capitalised_names` of a whole text, worked out once for all its sentences."""
    return tuple(capitalised_names(text))


@functools.lru_cache(maxsize=4096)
def _person(name: str, text: str, *, subject: bool = False) -> bool:
    """Whether ``name`` may be a person's: two or three capitalised words, no organisation word, never
    written after "at", "in", "from", "near" or "the"; or one word that ends such a name in ``text``
    ("Brack" after "Lavinia Brack") or, with ``subject=True``, opens a sentence and is written inside
    one too ("King Aldemar founded ... Aldemar was crowned ...", not "Bread is sold.")."""
    found = [m.start() for m in re.finditer(re.escape(name) + r"\b", text)]
    # the few characters before each mention are enough (a search from 0 would make a long text slow)
    if any(_PLACE_BEFORE.search(text, max(0, at - 40), at) for at in found):
        return False
    if " " not in name:
        return ((subject and any(not SENTENCE_START.search(text, max(0, at - 40), at) for at in found))
                or any(n.endswith(" " + name) and _person(n, text) for n in _names_in(text)))
    return looks_like_person(name)


def _sentence_person(sentence: str, text: str) -> str | None | bool:
    """The person ``sentence`` is about: the one name it marks as a person's (a lowercase role before
    it, ", who ..." or "(born 1950)" after it), else its subject when that may be a person and is
    not one of several ("Ann Lee and Bo Chan ..."), else the one name that may be. None when it
    names nobody who may be a person, False when it is unclear."""
    names = [n for n in capitalised_names(sentence) if n.casefold() not in PRONOUNS]
    at = sentence.find(names[0]) if names else -1
    before = sentence[:at].split() if names else ["the"]
    subject = (not {w.casefold() for w in before} & FUNCTION_WORDS and _person(names[0], text, subject=True)
               and not _JOINED.match(sentence, at + len(names[0])))
    people = [n for n in names if _person(n, text) or (subject and n == names[0])]
    if not people:
        return None
    marked = {n for n in people for m in re.finditer(re.escape(n), sentence)
              if _PERSON_AFTER.match(sentence, m.end()) or _ROLE_BEFORE.search(sentence, 0, m.start())}
    if len(marked) == 1:
        return marked.pop()
    if not marked and subject:
        return names[0]                              # the subject ("Cellist Ann Lee has signed ...")
    return people[0] if len(people) == 1 and not marked else False


def resolve_possessive(text: str) -> str:
    """``text`` with a sentence-opening "His"/"Her" written as the person's name it stands for.

    "His biggest customer is Osk Freight." says whose customer only through the sentences before;
    read alone (as a small model reads a fact), it names no one. The person is the one an earlier
    sentence is about (see :func:`_sentence_person`), looking back at most four sentences, past those
    that name nobody who may be a person and past those that open with "He", "She", "His" or "Her"
    themselves; when the nearest sentence that names people leaves it unclear which, nothing is
    changed. Nor is it when the sentence names nothing else (no fact to gain) or names someone in
    apposition ("Her deputy, Bo Chan, will ..." is about Bo Chan).

    >>> resolve_possessive("Ann Lee runs a bakery. Bread is sold. Her main client is Osk Hotels.")
    "Ann Lee runs a bakery. Bread is sold. Ann Lee's main client is Osk Hotels."
    >>> resolve_possessive("Ann Lee runs a bakery. Her partner, Bo Chan, bakes.")   # about Bo Chan
    'Ann Lee runs a bakery. Her partner, Bo Chan, bakes.'
    >>> resolve_possessive("The firm hired Ann Lee and Bo Chan. His main task is sales.")   # which?
    'The firm hired Ann Lee and Bo Chan. His main task is sales.'
    """
    spans = _sentence_spans(text)
    sentences = [text[a:b] for a, b in spans]
    out, last = [], 0
    for i, ((start, _), sentence) in enumerate(zip(spans, sentences)):
        if not (m := _POSSESSIVE.match(sentence)) or not capitalised_names(sentence[m.end():]):
            continue                                  # no name for a fact to link the person to
        person = None
        for earlier in reversed(sentences[max(0, i - _LOOK_BACK):i]):
            if re.match(r"(?:He|She|His|Her)\b", earlier):
                continue                              # the same person, named further back
            if (person := _sentence_person(earlier, text)) is not None:
                break
        if person:
            out.append(text[last:start] + person + "'s ")
            last = start + m.end()
    out.append(text[last:])
    return "".join(out)



def _rewrite_openings(text: str, rewrite: Callable[[int, int, str], tuple[int, str] | None]) -> str:
    """``text`` with the opening of each sentence after the first rewritten where ``rewrite(start,
    stop, sentence_before)`` returns ``(end, replacement)``: ``text[start:end]`` becomes ``replacement``."""
    spans = _sentence_spans(text)
    out, last = [], 0
    for (start, stop), (p_start, p_stop) in zip(spans[1:], spans):
        if (done := rewrite(start, stop, text[p_start:p_stop])) is not None:
            out.append(text[last:start] + done[1])
            last = done[0]
    out.append(text[last:])
    return "".join(out)


#: "The pair", "The couple" or "The duo" opening a sentence (not "The pair of boots").
_PAIR = re.compile(r"The (?:pair|couple|duo)\b(?!\s+of\b)")
#: Between two names, what joins them into a pair: "and", "and her climbing partner", "and the novelist".
_PAIR_JOIN = re.compile(r"\s+and\s+(?:(?:his|her|their|the)\s+)?(?:[a-z][\w-]*\s+){0,3}$")


def _joined_pair(sentence: str, text: str) -> tuple[str, str] | None:
    """The two people ``sentence`` joins with "and" ("Ann Lee and her partner Bo Chan ..."), when it
    joins exactly two, else None."""
    people = [strip_title(n, extended=True) for n in capitalised_names(sentence)
              if n.casefold() not in PRONOUNS and _person(n, text)]
    pairs = {(a, b) for a, b in zip(people, people[1:])
             if (i := sentence.find(a)) >= 0 and (j := sentence.find(b, i + len(a))) > 0
             and _PAIR_JOIN.match(sentence[i + len(a):j])}
    return pairs.pop() if len(pairs) == 1 else None


def resolve_pair(text: str) -> str:
    """``text`` with a sentence-opening "The pair", "The couple" or "The duo" written as the two
    people the sentence before joins with "and".

    "The pair were backed by Osk Outfitters." names nobody a fact could join the backer to; written
    "Ann Lee and Bo Chan were backed by ...", it does. Nothing changes when the sentence before joins
    no two people, or more than one pair, or when the sentence names nothing else ("The couple met in
    2019.": no fact to gain, and a small model makes one of the pair a place they live in).

    >>> resolve_pair("Ann Lee and her partner Bo Chan climbed Osk Peak. The pair were backed by Osk Gear.")
    'Ann Lee and her partner Bo Chan climbed Osk Peak. Ann Lee and Bo Chan were backed by Osk Gear.'
    >>> resolve_pair("Ann Lee met Bo Chan. The pair of boots was lost.")
    'Ann Lee met Bo Chan. The pair of boots was lost.'
    """
    def pair(start: int, stop: int, before: str) -> tuple[int, str] | None:
        if ((m := _PAIR.match(text, start)) and capitalised_names(text[m.end():stop])   # a name to link them to
                and (two := _joined_pair(before, text))):
            return m.end(), " and ".join(two)
        return None

    return _rewrite_openings(text, pair)


#: "Its <role>, <Name>," or "Its <role> is <Name>" opening a sentence: "Its chief executive, Ann Lee, said ...".
_ITS_ROLE = re.compile(r"Its\s+(?=(?:[a-z][\w-]*\s+){0,3}[a-z][\w-]*(?:,|\s+(?:is|was))\s+" + UPPER + ")")


def resolve_its_role(text: str) -> str:
    """``text`` with a sentence-opening "Its" before a role and a name ("Its leader, Ann Lee, said
    ...") written as the possessive of the name the sentence before opens with.

    Read alone, "Its leader, Ann Lee, said ..." says whose leader only through the sentence before.
    The owner is the name that sentence opens with (after an optional "The"), when that cannot be a
    person's (two or three capitalised words without an organisation word, as "Osk Gear", may be);
    otherwise nothing changes. Only a role with a name after it is rewritten: other
    sentences that open with "Its" are left as written (see :func:`resolve_it`).

    >>> resolve_its_role("The Osk Rescue team is based in Lund. Its leader, Ann Lee, said so.")
    "The Osk Rescue team is based in Lund. Osk Rescue's leader, Ann Lee, said so."
    >>> resolve_its_role("Osk Gear grew. Its profits rose.")
    'Osk Gear grew. Its profits rose.'
    """
    def owner(start: int, stop: int, before: str) -> tuple[int, str] | None:
        name = opening_name(before)
        if (m := _ITS_ROLE.match(text, start)) and name and not _person(name, text, subject=True):
            return m.end(), name + ("'" if name.endswith("s") else "'s") + " "
        return None

    return _rewrite_openings(text, owner)


def resolve_pronouns(text: str) -> str:
    """``text`` with every sentence-opening back-reference of this module written out, in one order:
    "It" (:func:`resolve_it`), "The pair" (:func:`resolve_pair`), "Its <role>, <Name>"
    (:func:`resolve_its_role`), then "His"/"Her" (:func:`resolve_possessive`).

    >>> resolve_pronouns("Ann Lee and her partner Bo Chan won. The pair were backed by Osk Gear.")
    'Ann Lee and her partner Bo Chan won. Ann Lee and Bo Chan were backed by Osk Gear.'
    """
    return resolve_possessive(resolve_its_role(resolve_pair(resolve_it(text))))
