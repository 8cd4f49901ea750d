"""Names in text: tidy a surface form, find capitalised names, drop titles, test mentions.

Taught in chapter "From text to a knowledge graph". Generic English rules, no corpus word list.
"""
from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

from nameparser.config.titles import TITLES as _nameparser_titles

from .checks import check_text
from .data.news import plain_unicode


_PLAIN = str.maketrans("\u2019\u2018\u201c\u201d\u2013\u2014", "''\"\"--")


def fold(text: str) -> str:
    """The form names are compared in: NFKC, case-folded, typographic quotes and dashes made plain."""
    return unicodedata.normalize("NFKC", text).translate(_PLAIN).casefold()


#: Words that end organisation names ("Acme Inc"); alone they name no one.
ORG_WORDS = frozenset("""
    ag association bank co college company corp corporation foundation fund gmbh group holdings
    inc institute llc ltd partners plc sa society trust university""".split())
#: Titles before a person's name, dropped from the canonical name and kept as an alias.
TITLES = frozenset("""dr doctor prof professor mr mrs ms miss mx sir dame lord lady king queen prince
    princess emperor empress duke duchess rev reverend""".split())
#: Abbreviations after which a full stop does not end a sentence ("Dr. Lee"), nor a name.
ABBREVIATIONS = frozenset("""dr prof mr mrs ms mx st jr sr rev gen col capt lt sgt inc corp co ltd
    no vs etc approx dept univ est fig""".split())
#: The :data:`TITLES` written as abbreviations, with a full stop ("Dr.", "Prof."): unlike "Queen",
#: never a sentence's last word.
ABBREVIATED_TITLES = ABBREVIATIONS & TITLES
#: :data:`TITLES` plus the ~800 personal titles of ``nameparser`` ("General", "Coach", ...), less
#: "St" and "Saint", which open places' names ("St Bride's Hall") far more often than a person's.
ALL_TITLES = (frozenset(_nameparser_titles) | TITLES) - {"st", "saint", "sainte"}
#: Function words: never a distinctive word of a name, never the first word of one.
FUNCTION_WORDS = frozenset("""a an and as at after before but by for from in of on since the this that
    to when while with""".split())
#: Prepositions and conjunctions that, capitalised to open a sentence, open no name there ("Like
#: Grandmaster Ann Lee, Bo Chan was born in Osk."). Left out: words that begin names ("Under Armour",
#: "Beyond Meat", "Inside Out"), and those of :data:`FUNCTION_WORDS`, which open no name anywhere.
CLAUSE_OPENERS = frozenset("""against along alongside although amid among because below beneath beside
    besides despite during except following if including like onto per regarding though through
    throughout toward towards unless unlike until upon via whereas whether within without""".split())
#: Personal pronouns: never a name, and a subject pronoun inside a predicate marks a clause.
PRONOUNS = frozenset({"he", "she", "it", "they", "we", "i", "you", "him", "her", "them", "its",
                      "their", "his"})
#: Determiners, quantifiers and question words: closed classes of English, capitalised only to open
#: a sentence ("Most of the money ...", "What we do"), never a name on their own.
NOT_NAMES = frozenset("""all another any both each either every few many more most much neither no
    none other several some such what which who whom whose where when why how""".split())
#: Calendar words: capitalised, but not names.
CALENDAR = frozenset("""monday tuesday wednesday thursday friday saturday sunday january february
    march april may june july august september october november december""".split())
#: Lowercase words a quoted title may hold ("Pride and Prejudice", "Set the Fire to the Third Bar").
TITLE_WORDS = FUNCTION_WORDS | {"or", "nor", "into", "upon", "over", "under", "is", "are", "was", "not"}
#: A capital letter of any alphabet ("É", "Ø", "Ł" as well as "A" to "Z"), for the name patterns.
UPPER = "[" + re.escape("".join(c for c in map(chr, range(0x3000)) if c.isupper())) + "]"
#: A run of capitalised words ("Calloway Harbour Board", "St. Ann's"), as a regular-expression fragment.
NAME_RUN = UPPER + r"[\w'\u2019&.-]*(?:\s+" + UPPER + r"[\w'\u2019&.-]*)*"
_QUOTED = re.compile(r"[\"\u201c]((?:" + UPPER + r"|\d)[^\"\u201c\u201d\n]{0,80}?)[\"\u201d]")


def quoted_titles(text: str) -> list[str]:
    """Titles in double quotes that hold lowercase words (a run of capitalised words would split them)."""
    out = []
    for m in _QUOTED.finditer(text):
        words = m.group(1).split()
        inner = [w.strip(",:;!?'") for w in words]
        if (2 <= len(words) <= 10 and inner[-1][:1].isupper()
                and any(w in TITLE_WORDS for w in inner)
                and all(w[:1].isupper() or w[:1].isdigit() or w in TITLE_WORDS for w in inner)):
            out.append(" ".join(words).rstrip(",.;:"))
    return out


def candidate_names(text: str) -> list[str]:
    """The names the open extractor may use: capitalised runs without titles, dates or pronouns.

    >>> candidate_names('Dr. Ann Lee founded Acme in March 2019. She wrote "War and Peace".')
    ['Ann Lee', 'Acme', 'War and Peace', 'War', 'Peace']
    """
    runs = capitalised_names(text, extended_titles=True)
    at: dict[int, list[str]] = {}           # a quoted title goes before the run it starts with
    for t in quoted_titles(text):
        first = capitalised_names(t, extended_titles=True)
        if first and first[0] in runs:
            at.setdefault(runs.index(first[0]), []).append(t)
    runs = [n for i, r in enumerate(runs) for n in (*at.get(i, ()), r)]
    names = (" ".join(w for w in n.split() if w.lower().rstrip(".") not in CALENDAR) for n in runs)
    return list(dict.fromkeys(n for n in names if n and is_name(n) and n.rstrip(".").lower() not in TITLES
                              and n.lower() not in FUNCTION_WORDS))


def normalize_name(name: str) -> str:
    """Tidy a surface form: one Unicode spelling (NFC, no invisible characters), collapsed spaces, no
    leading "the", possessive or trailing punctuation.

    >>> normalize_name("Kestrel Motors's"), normalize_name("The  Granite Bank."), normalize_name("Zoe\u0308\u200b")
    ('Kestrel Motors', 'Granite Bank', 'Zoë')
    """
    s = plain_unicode(str(name))
    s = re.sub(r"\s+", " ", s).strip()
    s = s.strip(" \t\"“”‘,;:()[]")
    s = re.sub(r"(?:['’]s|['’])$", "", s).strip()
    s = re.sub(r"^the\s+", "", s, flags=re.IGNORECASE)
    return s.rstrip(".").strip()


def _need_names(names) -> None:
    """Raise TypeError for one string where a list of names is wanted (it would be read letter by letter)."""
    if isinstance(names, str):
        raise TypeError(f"names must be a list of names, not the string {names!r:.40}.")


def lower_words(name: str) -> list[str]:
    """The lowercase words of a text (letters, digits, ``&`` and ``-``)."""
    check_text(name, "the name given to lower_words")
    return re.findall(r"[\w&-]+", name.lower())


def whole_words(phrase: str) -> str:
    """A regular expression matching ``phrase`` (literally) not inside a longer word."""
    return rf"(?<!\w){re.escape(phrase)}(?!\w)"


def find_mentions(text: str, phrases: Iterable[str]) -> list[tuple[int, int, str]]:
    """Where ``phrases`` occur as whole words: ``(start, end, phrase)`` in reading order, longest first.

    >>> find_mentions("Kestrel Motors met Kestrel.", ["Kestrel", "Kestrel Motors"])
    [(0, 14, 'Kestrel Motors'), (19, 26, 'Kestrel')]
    """
    spans: list[tuple[int, int, str]] = []
    for phrase in sorted(set(phrases), key=lambda p: (-len(p), p)):
        for m in re.finditer(whole_words(phrase), text) if phrase else ():
            if not any(a < m.end() and m.start() < b for a, b, _ in spans):
                spans.append((m.start(), m.end(), phrase))
    return sorted(spans)


def mentions(sentence: str, name: str) -> bool:
    """Whether ``sentence`` names ``name``: the full name, or a distinctive word of it.

    A distinctive word has 3+ letters and is not an organisation or function word ("Group" is not).
    """
    check_text(sentence, "the sentence given to mentions")
    name = normalize_name(name)
    if not name:
        return False
    low = sentence.lower()
    if re.search(whole_words(name.lower()), low):
        return True
    words = set(lower_words(low))
    return any(t in words for t in lower_words(name)
               if len(t) >= 3 and t not in ORG_WORDS and t not in FUNCTION_WORDS)


def inside_longer_name(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is written inside a longer name: a capitalised word that is no
    function word or title stands right before or after it.

    >>> text = "Ines Marrowby, Dr. Marrowby"
    >>> inside_longer_name(text, 5, 13), inside_longer_name(text, 19, 27)
    (True, False)
    """
    if len(text.casefold()) != len(text):          # offsets found in the casefolded text would move
        return False
    word = UPPER + r"[\w'\u2019-]*"
    before = re.search(r"(" + word + r")\s+$", text[:start])
    after = re.match(r"\s+(" + word + r")", text[end:])
    return any(m is not None and m.group(1).rstrip(".").casefold() not in FUNCTION_WORDS | ALL_TITLES
               for m in (before, after))


def is_name(name: str) -> bool:
    """Whether ``name`` can name an entity: it has a capital or a digit, is no pronoun, no word of
    :data:`NOT_NAMES` alone, and no organisation word alone ("University", "the Bank": part of a
    longer name, not a name).

    >>> is_name("Lena Marsh"), is_name("she"), is_name("Most"), is_name("The University"), is_name("Trust Fund")
    (True, False, False, False, True)
    """
    check_text(name, "the name given to is_name")
    words = lower_words(name)
    if words[:1] == ["the"]:
        words = words[1:]
    return bool(name) and any(c.isupper() or c.isdigit() for c in name) \
        and name.lower() not in PRONOUNS | NOT_NAMES and not (len(words) <= 1 and set(words) <= ORG_WORDS)


#: A sentence's end mark, a closing quote or bracket, and the spaces after them.
_END_MARK = r"[.!?][\"')\]’”]*\s+"
#: Where a sentence starts: the text's start, or after a sentence's end mark (and a closing quote).
SENTENCE_START = re.compile(rf"(?:^|{_END_MARK})$")
#: What ends a sentence for :func:`common_openers`: an end mark, or a line break (a heading's end).
_SENTENCE_END = re.compile(rf"{_END_MARK}|\n\s*")
_WORD = re.compile(r"[\w'’-]+")


def common_openers(texts: Iterable[str]) -> frozenset[str]:
    """Words the texts capitalise only where a sentence starts, and also write in lowercase:
    common words, not names ("Chief executive Ann Lee said ..." beside "the chief of ...").

    >>> sorted(common_openers(["Pilots at Acme voted. Acme pilots fly. Acme hired Tern.", "Tern flies."]))
    ['Pilots']
    """
    starts_cap: set[str] = set()
    elsewhere_cap: set[str] = set()
    lower: set[str] = set()
    for text in texts:
        starts = {m.end() for m in _SENTENCE_END.finditer(text)} | {len(text) - len(text.lstrip())}
        for m in _WORD.finditer(text):
            w = m.group(0)
            if w[:1].islower():
                lower.add(w)
            elif w[:1].isupper():
                (starts_cap if m.start() in starts else elsewhere_cap).add(w)
    return frozenset(w for w in starts_cap - elsewhere_cap if w.lower() in lower)


def capitalised_in(name: str, text: str) -> bool:
    """Whether a capitalised word of ``name`` is written capitalised in ``text`` (a proper name)."""
    words = {w for w in re.findall(UPPER + r"[\w&-]*", text) if w.lower() not in FUNCTION_WORDS}
    return any(w in words for w in re.findall(UPPER + r"[\w&-]*", name))


def looks_like_org(name: str) -> bool:
    """Whether ``name`` ends in an organisation word (:data:`ORG_WORDS`)."""
    check_text(name, "the name given to looks_like_org")
    toks = lower_words(name)
    return bool(toks) and toks[-1] in ORG_WORDS


def looks_like_person(name: str) -> bool:
    """Whether ``name`` looks like a person's: two or three capitalised words, not an organisation."""
    check_text(name, "the name given to looks_like_person")
    toks = name.split()
    return len(toks) in (2, 3) and all(t[:1].isupper() for t in toks) and not looks_like_org(name)


def strip_title(name: str, *, extended: bool = False) -> str:
    """A person's name without a leading title (:data:`TITLES`): "Dr. Lena Marsh" -> "Lena Marsh".

    ``extended=True`` also drops :data:`ALL_TITLES` when two capitalised words remain, the last no
    organisation word ("General Motors" stays).
    """
    check_text(name, "the name given to strip_title")
    words = name.split()
    while len(words) > 1 and words[0].rstrip(".").lower() in TITLES and words[1][:1].isupper():
        words = words[1:]
    while (extended and len(words) > 2 and words[0].rstrip(".").lower() in ALL_TITLES
           and all(w[:1].isupper() for w in words[1:]) and words[-1].lower() not in ORG_WORDS):
        words = words[1:]
    return " ".join(words)


#: Lowercase words inside one name ("University of Caldermoor"); not "and", which joins two names.
NAME_CONNECTORS = ("of the", "of", "de", "du", "del", "della", "der", "van", "von", "da", "di", "la", "le")
#: A name word: capitalised, or a brand such as "eBay", "iPhone", "7-Eleven" (but "pH" names nothing).
#: An opening single quote ("the rose 'Saffron Wren'") is no apostrophe: a name may start after one
#: that follows no letter ("O'Brien" still starts at the "O").
_CAP = rf"(?<![\w&])(?<![\w&]['‘’])(?:[a-z](?={UPPER}[a-z])|\d+-(?={UPPER}[a-z]))?{UPPER}[\w&'’-]*"
_CONNECT = "|".join([*(c.replace(" ", r"\s+") for c in NAME_CONNECTORS), "&"])   # "Procter & Gamble"
#: A number that ends a name ("Class 7", "Flight 797", "Route 66"): up to three digits, not a year or a decimal.
_NUMBER = r"\d{1,3}[A-Za-z]?\b(?![.,]\d)"
#: Initials or a short abbreviation that open a name ("J. K. Obuya", "St. Aldric's Hospital"): a
#: capital, at most one more letter and a full stop, before a capitalised word that is no function word.
_ABBR = (r"(?<![\w&'’.])" + UPPER + r"[a-z]?\.(?=\s+(?!(?:" + "|".join(sorted(w.capitalize() for w in FUNCTION_WORDS))
         + r")\b)" + UPPER + ")")
#: Up to two connectors in a row ("Tobias van der Berg", "Jean de la Fontaine").
_CONNECTORS = rf"(?:(?:{_CONNECT})\s+){{1,2}}"
_NAME_RUN = re.compile(rf"(?:{_ABBR}\s+)*{_CAP}(?:\s+(?:{_CONNECTORS})?{_CAP})*(?:\s+{_NUMBER})?")
#: Name words after a number inside a name ("Loft 21 Denim", "Pier 9 Market Hall"), on the same line
#: (a heading "Route 66" ends before the next line's name).
_AFTER_NUMBER = re.compile(rf"(?:[ \t]+{_CAP})+")
#: A firm or band named by its members ("Marsh, Pike & Dunn", "Earth, Wind & Fire"): single name
#: words joined by commas, then "&" and a name.
_PARTNERS = re.compile(rf"{_CAP}(?:,\s+{_CAP})+,?\s+&\s+{_CAP}(?:\s+{_CAP})*")
#: A full stop, then a capitalised word: after a title ("Dr. Ann Lee"), the name the title goes with.
_NAME_AFTER_STOP = re.compile(r"\.\s+" + UPPER)
#: A capitalised word just before a run: then a one-letter "initial" ends a sentence ("Vitamin D. Then").
_AFTER_NAME_WORD = re.compile(UPPER + r"[\w&'’-]*\s+$")
_NAME_WORD_CHAR = re.compile(r"[\w&'’-]")


def _word_before(text: str, end: int) -> int:
    """Where the word before the spaces that end at ``end`` begins: where :data:`_AFTER_NAME_WORD`
    can match, so the search need not rescan the text from its start for every run."""
    i = end
    while i > 0 and text[i - 1].isspace():
        i -= 1
    while i > 0 and _NAME_WORD_CHAR.match(text, i - 1):
        i -= 1
    return i


def _opens_sentence(text: str, i: int) -> bool:
    """Whether position ``i`` of ``text`` starts a sentence: the text's start, a line's start, or
    after an end mark and spaces (quotes and brackets between them aside)."""
    j = i
    while j > 0 and (text[j - 1].isspace() or text[j - 1] in "\"'()[]‘’“”"):
        if text[j - 1] == "\n":
            return True
        j -= 1
    return j == 0 or (j < i and text[j - 1] in ".!?")


def capitalised_names(text: str, *, extended_titles: bool = False) -> list[str]:
    """Runs of capitalised words in ``text`` (candidate names, with connectors), each followed by its parts.

    >>> capitalised_names("Dr. Ann Lee joined the University of Caldermoor.")
    ['Ann Lee', 'University of Caldermoor', 'University', 'Caldermoor']
    """
    names = []
    partners = {m.start(): m.group(0) for m in _PARTNERS.finditer(text)}

    def add(run: str) -> None:
        words = normalize_name(run).split()
        # a function word, or a compound adjective ("Oslo-based", "Irish-born"), opens no name
        while words and (words[0].lower() in FUNCTION_WORDS or re.fullmatch(r"\S+-[a-z]+", words[0])):
            words = words[1:]
        # a number names something only after a name word: not "At 20", "In March 5"
        if words and re.fullmatch(_NUMBER, words[-1]) and (len(words) == 1
                                                          or words[-2].rstrip(".").lower() in CALENDAR):
            words = words[:-1]
        name = strip_title(" ".join(words), extended=extended_titles)
        if name and name.rstrip(".").lower() not in TITLES:
            names.append(name)

    resume = 0
    for m in _NAME_RUN.finditer(text):
        if m.start() < resume:
            continue                     # the words after a number, taken into the run before
        run = m.group(0)
        words = run.split()
        if (len(words) >= 2 and re.fullmatch(_NUMBER, words[-1]) and words[-2].rstrip(".").lower()
                not in CALENDAR | FUNCTION_WORDS and (more := _AFTER_NUMBER.match(text, m.end()))):
            run, resume = run + more.group(0), more.end()     # "Loft 21 Denim", not "May 5 Ann Lee"
        if run.split()[-1].lower() in ABBREVIATED_TITLES and _NAME_AFTER_STOP.match(text, m.end()):
            # "Botanist Dr. Orla Pennystone": the run ends in a title before the name; what comes
            # before the title is a role unless a word of it is no title
            words = run.split()[:-1]
            run = " ".join(words) if any(w.lower() not in ALL_TITLES for w in words) else ""
            if not run:
                continue
        first, _, rest = run.partition(" ")
        if rest and first.lower() in CLAUSE_OPENERS and _opens_sentence(text, m.start()):
            run = rest.lstrip()          # "Like Grandmaster Ann Lee, ...": the name is the rest
        if _AFTER_NAME_WORD.search(text, _word_before(text, m.start()), m.start()):
            run = re.sub(rf"^(?:{UPPER}\.\s+)+", "", run)
        if m.start() in partners:
            add(partners[m.start()])
        add(run)
        parts = re.split(rf"\s+{_CONNECTORS}", run)
        if len(parts) > 1:
            for part in parts:
                add(part)
    return names
