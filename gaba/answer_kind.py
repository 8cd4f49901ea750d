"""What a question asks for and about, read from its English question word, numbers and grammar.

Taught in chapter "Graph RAG and multi-hop reasoning", as the last parts of the grounding rule: a
"who" question is not answered by a place, a number the question writes must be written where the
answer came from, and a question of one relation is answered by a neighbour of its entity.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from .checks import check_text
from .names import FUNCTION_WORDS, NAME_RUN, whole_words

__all__ = ["EXCLUDED_TYPES", "question_word", "type_mismatch", "numbers", "unmatched_numbers",
           "asks_one_relation", "relative_clause", "describes_no_other", "rest_of_question", "described_phrase",
           "described_noun", "the_one", "innermost_clause"]

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
    check_text(question, "the question")
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

    >>> type_mismatch("Who is the chief executive of Osk Freight?", {"Lisvik": "place"})
    'the question asks "who", and the answer names only a place (Lisvik)'
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


_NUMBER = re.compile(r"\d+(?:[.,:/-]\d+)*")


def numbers(text: str) -> list[str]:
    """The numbers written in digits in ``text``, in order, with thousands commas dropped and every
    dash read as "-" ("14,000" -> "14000", "2–2" -> "2-2").

    >>> numbers("Osk Freight drew 2–2 in 1974 before 14,000 fans, its 3rd draw.")
    ['2-2', '1974', '14000', '3']
    """
    text = re.sub(r"[\u2010-\u2015\u2212]", "-", text)
    return [re.sub(r"(?<=\d),(?=\d{3}\b)", "", m) for m in _NUMBER.findall(text)]


def unmatched_numbers(question: str, texts: Iterable[str]) -> list[str]:
    """The numbers of ``question`` that none of ``texts`` writes, each once.

    >>> unmatched_numbers("Who scored in the 2-2 draw of 1974?", ["Ana Rusk scored in 1974."])
    ['2-2']
    """
    have = {n for t in texts for n in numbers(t)}
    return [n for n in dict.fromkeys(numbers(question)) if n not in have]


#: Words that open a relative clause when they follow the question word ("the firm that ..."), and
#: possessive determiners, which describe something of the entity ("during his loan spell").
RELATIVE_WORDS = frozenset({"that", "which", "who", "whom", "whose", "where", "when",
                            "his", "her", "its", "their"})


#: The relative words that open a clause describing an entity on the way.
_CLAUSE_OPENERS = frozenset({"that", "which", "who", "whom", "whose", "where"})
_OPENER = r"\b(?:" + "|".join(sorted(_CLAUSE_OPENERS)) + r")\b"

#: The preposition before an opening question word ("In which town ..."), which opens no relative clause.
_OPENING_WH = re.compile(r"^\s*\w+\s+(?=(?:which|what|whom|whose)\b)", flags=re.I)


def asks_one_relation(question: str, names: Iterable[str] = ()) -> bool:
    """Whether ``question`` asks one relation of the entities it names, describing no entity on the way.

    A relative clause ("the firm that owns"), a possessive ("Ana Rusk's", "his"), "the <noun> of"
    except right after an opening "<wh> is", "the <noun> <Name> <verb>", "the <noun> <verb>ing" or
    "the <noun> <verb>ed by" (or "after", "for", "from", "to", "with") describes one. ``names``: the
    question's entities, blanked first so their own words do not count.

    >>> asks_one_relation("Who is the wife of Ana Rusk?", ["Ana Rusk"])
    True
    >>> asks_one_relation("Who chairs the owner of Osk Freight?")
    False
    >>> asks_one_relation("Where was the wife of Ana Rusk born?", ["Ana Rusk"])
    False
    """
    q = _blanked(question, names)
    q = _OPENING_WH.sub("", q)                                  # "In which town ..."
    words = re.findall(r"[\w'\u2019-]+", q)
    if any(w.casefold() in RELATIVE_WORDS for w in words[1:]):
        return False
    if re.search(r"\w['\u2019]s?(?=\s|[?.!,]|$)", q):
        return False
    # "Who is the wife of Ana Rusk?" asks one relation; "Where was the wife of Ana Rusk born?", with
    # its verb after the name, asks about the wife
    after = r"\s*(?:[?.!,]|$|(?:" + "|".join(sorted(FUNCTION_WORDS)) + r")\b)"
    body = re.sub(r"^\s*\w+\s+(?:is|was|are|were)\s+the\s+(?:(?!of\b)[a-z][\w-]*\s+){1,3}of\b"
                  r"(?=\s+(?:the\s+)?" + NAME_RUN + after + ")", " ", q)
    if re.search(r"\bthe\s+(?:[a-z][\w-]*\s+){1,3}of\b", body):
        return False
    if re.search(r"\bthe\s+(?:[a-z][\w-]*\s+){1,2}(?:[A-Z][\w-]*\s+)+[a-z]", q):
        return False
    # a participle: "the yard building", "the choir founded by", "the hut named after"
    return not re.search(r"\bthe\s+(?:[a-z][\w-]*\s+){1,2}[a-z]+"
                         r"(?:ing\b|(?:ed|en|wn|lt|nt|ght)\s+(?:by|after|for|from|to|with)\b)", q)


def _blanked(question: str, names: Iterable[str]) -> str:
    """``question`` with each of ``names`` (longest first) written as "Xname"."""
    for n in sorted({n for n in names if n}, key=len, reverse=True):
        question = re.sub(whole_words(n), "Xname", question, flags=re.I)
    return question


def relative_clause(question: str, names: Iterable[str] = ()) -> str | None:
    """The relative clause with which ``question`` describes an entity on the way ("the team *whose*
    base is in Cleddon" -> "base is in Cleddon?"), or None. ``names``: the question's entities,
    blanked first.

    The question word is no relative: first ("In which city ..." too) or last ("Osk Freight is based where?").

    >>> relative_clause("Who runs the guild that maintains Tarr Hut?"), relative_clause("Who is its chief?")
    ('maintains Tarr Hut?', None)

    A clause without its relative word counts too, where a noun is followed by one of ``names`` and
    a lowercase word:

    >>> relative_clause("Who coaches the team Ana Rusk plays for?", ["Ana Rusk"])
    'Ana Rusk plays for?'
    """
    names = [n for n in names if n]
    inside = [m.span() for n in names for m in re.finditer(whole_words(n), question, flags=re.I)]
    opening = _OPENING_WH.match(question)
    words = [m for m in re.finditer(r"[\w'\u2019-]+", question)
             if m.start() >= (opening.end() if opening else 0) and not any(a <= m.start() < b for a, b in inside)]
    for m in words[1:-1]:
        if m.group(0).casefold() in _CLAUSE_OPENERS:
            return " ".join(question[m.end():].split())
    # a clause without its relative word: "the team Ana Rusk plays for" (not "the leader of Ana Rusk")
    noun = r"(?:(?!(?:" + "|".join(sorted(FUNCTION_WORDS)) + r")\b)[a-z][\w-]*\s+)"
    for n in sorted(set(names), key=len, reverse=True):
        if m := re.search(r"\bthe\s+" + noun + "{1,2}(?=" + whole_words(n) + r"\s+[a-z])", question):
            return " ".join(question[m.end():].split())
    return None


def _span(question: str, clause: str) -> tuple[int, int] | None:
    """Where ``clause`` last stands in ``question``, spaces between its words matched as any run of
    white space (:func:`relative_clause` returns it with white space collapsed); None when it is not in it."""
    words = clause.split()
    found = list(re.finditer(r"\s+".join(map(re.escape, words)), question)) if words else []
    return found[-1].span() if found else None


def _before(question: str, clause: str) -> str | None:
    """The text of ``question`` before the last place ``clause`` stands in it; None when it is not in it."""
    span = _span(question, clause)
    return question[:span[0]] if span else None


def describes_no_other(question: str, clause: str, names: Iterable[str] = ()) -> bool:
    """Whether the relative ``clause`` is about one of the question's ``names`` (", which ...") or
    about what is asked ("Which studio that ..."), rather than an entity on the way.

    >>> describes_no_other("Which studio that paid for Tarn Road hired Bo Chan?", "paid for Tarn Road hired Bo Chan?")
    True
    """
    head = _before(question, clause)
    if head is None:
        return False
    head = re.sub(r"\s*\b(?:that|which|who|whom|whose|where)$", "", head.rstrip()).rstrip(" ,")
    return (any(head.casefold().endswith(n.casefold()) for n in names if n)
            or re.fullmatch(r"\s*(?:which|what)\s+[\w-]+", head, flags=re.I) is not None)


def rest_of_question(question: str, clause: str, entity: str) -> str | None:
    """``question`` with the phrase that describes an entity on the way, "the <noun> [that] <clause>",
    written as that ``entity``'s name: what is left to ask once the entity is known. None when the
    phrase has no "the" at most four words before ``clause``, or when the clause describes an entity
    of its own ("the film whose music came from *the composer of* ..."), or when the question's verb
    may come after the clause ("Where was ... born?", "Which firm did ... buy?").

    >>> rest_of_question("Who founded the studio that paid for Low Tide?", "paid for Low Tide?", "Greywater")
    'Who founded Greywater?'
    """
    if (at := _phrase(question, clause)) is None:
        return None
    the, _, end = at
    end = end - 1 if question[end - 1] == "?" and clause.endswith("?") else end
    return question[:the] + entity + question[end:].lstrip()


def _phrase(question: str, clause: str) -> tuple[int, int, int] | None:
    """Where the phrase "the <noun> [that] <clause>" stands in ``question``: the start of its "the",
    and the start and end of ``clause``; None on the conditions of :func:`rest_of_question`."""
    span = _span(question, clause)
    if span is None or re.search(r"\bthe\s+(?:[a-z][\w-]*\s+){1,3}of\b", clause) or re.match(
            r"\s*(?:\w+\s+)?(?:(?:which|what)\s+[\w-]+\s+|\w+\s+)(?:do|does|did)\b"
            r"|\s*(?:where|when|how|why)\s+(?:is|was|are|were)\b", question, flags=re.I):
        return None
    head = question[:span[0]]
    the = list(re.finditer(r"\bthe\b", head, flags=re.I))
    if not the or len(head[the[-1].end():].split()) > 4:
        return None
    return the[-1].start(), span[0], span[1]


#: A noun phrase that opens a clause: "the judge", "the head of the fund" (its verb comes after any
#: clause that describes it).
_NOUN_PHRASE = r"\s*the\s+(?:[\w-]+\s+){1,3}(?:of\s+(?:the\s+)?(?:[\w-]+\s+){1,3})?"
#: "In which town is the firm that ... based?": the question's verb may come after the clause.
_VERB_LAST = re.compile(r"\s*(?:\w+\s+)?(?:which|what)\s+[\w-]+\s+(?:is|was|are|were)\b", flags=re.I)
#: "What is (the name of) the stadium where ...?": the entity the clause describes is what is asked.
_ASKS_IT = re.compile(r"\s*(?:what|which|who)\s+(?:is|was|are|were)\s+(?:the\s+name\s+of\s+)?"
                      r"(?:the\s+\S+\s+){0,4}\S*\s*", flags=re.I)


def described_phrase(question: str, clause: str) -> str | None:
    """The phrase "the <noun> [that] <clause>" with which ``question`` describes an entity on the way,
    or None: when :func:`rest_of_question` finds no such phrase, when the question's verb may come
    after the clause, or when the entity the clause describes is what is asked.

    >>> described_phrase("Who founded the studio that paid for Low Tide?", "paid for Low Tide?")
    'the studio that paid for Low Tide'
    >>> described_phrase("In which town is the studio that paid for Low Tide based?", "paid for Low Tide based?")
    """
    if (at := _phrase(question, clause)) is None or _VERB_LAST.match(question):
        return None
    the, start, end = at
    if _ASKS_IT.fullmatch(question[:start]):
        return None
    return " ".join(question[the:end].split()).rstrip("?").rstrip()


def described_noun(question: str, clause: str) -> str | None:
    """The head noun of the phrase "the <noun> [that] <clause>" with which ``question`` describes an
    entity on the way, when the question writes that noun nowhere before the phrase: an answer whose
    name holds it ("Velm Chandlery") is of the kind described, not of the kind asked. Else None.

    >>> described_noun("Who owns the chandlery that buys wax from Osk?", "buys wax from Osk?")
    'chandlery'
    >>> described_noun("Which firm owns the firm that buys wax from Osk?", "buys wax from Osk?")
    """
    if (at := _phrase(question, clause)) is None:
        return None
    the, start, _ = at
    words = re.findall(r"[\w'\u2019-]+", question[the:start])[1:]
    if words and words[-1].casefold() in _CLAUSE_OPENERS:
        words.pop()
    if not words or re.search(whole_words(words[-1]), question[:the], flags=re.I):
        return None
    return words[-1].casefold()


def the_one(phrase: str, clause: str) -> str | None:
    """``phrase`` (as :func:`described_phrase` returns it) with its head noun written "one", its other
    words kept: what to ask for when no fact says what kind of thing the entity is. None when the
    phrase has no noun before ``clause`` other than "one".

    >>> the_one("the queen whose husband was Emeric", "husband was Emeric?")
    'the one whose husband was Emeric'
    >>> the_one("the 2001 film that featured Yu Rongguang", "featured Yu Rongguang?")
    'the 2001 one that featured Yu Rongguang'
    """
    tail = " ".join(clause.rstrip("?").split())
    if not phrase.endswith(" " + tail):
        return None
    words = phrase[:-len(tail)].split()
    opener = [words.pop()] if words and words[-1].casefold() in _CLAUSE_OPENERS else []
    if len(words) < 2 or words[0].casefold() != "the" or words[-1].casefold() == "one":
        return None
    return " ".join([*words[:-1], "one", *opener, tail])


def innermost_clause(clause: str | None, names: Iterable[str] = ()) -> str | None:
    """The last relative clause inside ``clause`` (as :func:`relative_clause` returns it), the one
    nearest the question's entity: "supplies chips to the firm that bought Osk?" -> "bought Osk?",
    and one without its relative word: "buys malt from the mill Osk owns?" -> "Osk owns?" (Osk one
    of ``names``). None when there is none, when a clause opens on a noun described by another
    ("where the judge who ... had sat", "where the head of the fund that ... worked": its verb comes
    after), or when it describes its entity through a possessive of one of ``names`` ("the club that
    Ana Rusk's brother plays for": two facts away, not one).

    >>> innermost_clause("supplies chips to the firm that bought Osk?")
    'bought Osk?'
    >>> innermost_clause("buys malt from the mill Osk owns?", ["Osk"])
    'Osk owns?'
    >>> innermost_clause("the head of the fund that bought Osk once worked?")
    >>> innermost_clause("Ana Rusk's brother plays for?", ["Ana Rusk"])
    """
    if not clause or re.match(_NOUN_PHRASE + _OPENER, clause, flags=re.I):
        return None
    inner = " ".join(re.split(_OPENER, clause)[-1].split()) or clause
    inner = relative_clause(inner, names) or inner          # "the mill Osk owns?" inside it
    if any(re.search(whole_words(n) + r"['\u2019]", inner, flags=re.I) for n in names if n):
        return None
    return inner
