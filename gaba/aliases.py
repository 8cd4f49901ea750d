"""Entity reconciliation: an alias table from the extracted names and the texts, and its grade.

Taught in chapter "From text to a knowledge graph". "Kestrel" and "Kestrel Motors" are one entity.
"""
from __future__ import annotations

import dataclasses
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from .data.news import load_documents, load_gold_aliases
from .data.triple import Triple
from .names import (ORG_WORDS, _need_names, NAME_CONNECTORS, UPPER, capitalised_names, is_name, lower_words,
                    normalize_name, strip_title)


_CONNECTOR_WORDS = frozenset(w for c in NAME_CONNECTORS for w in c.split())


def reconcile_entities(names: Iterable[str], documents: Any = None, *, extended_titles: bool = False,
                       types: Mapping[str, str] | None = None) -> dict[str, str]:
    """Build an alias table: every surface form -> its canonical (longest) name.

    A name that begins (else ends) exactly one longer name is its alias, else an organisation's name
    with middle words left out ("Osk Trust" for "Osk Rowing Trust": first and last word kept, the
    last one of :data:`~gaba.names.ORG_WORDS`); an ambiguous name, or one of only those words, stays
    itself. ``documents`` add their capitalised names
    and the acronyms they define ("the Northern Health Authority (NHA)"). ``types`` (name -> entity
    type, as extracted) keep a place apart from a name of another type or of none: the town
    "Dunmere" is no short form of "Dunmere Trust", nor of "Dunmere School of Art" when no kept fact
    gives the school a type. (Only place against the rest: a small model's other types are too
    unsteady to split on.)

    >>> table = reconcile_entities(["Kestrel", "Kestrel Motors", "Voss", "Mara Voss", "Pacific"])
    >>> table["Kestrel"], table["Voss"], table["Pacific"]
    ('Kestrel Motors', 'Mara Voss', 'Pacific')
    """
    _need_names(names)
    if types is not None and not isinstance(types, Mapping):
        raise TypeError(f"types must map a name to its entity type, not a {type(types).__name__}.")
    names = [n for n in names if isinstance(n, str)]
    docs = load_documents(documents) if documents is not None else []
    doc_names = [n for d in docs for n in capitalised_names(d["text"], extended_titles=extended_titles)]
    # display form of each normalised, case-folded name: the most frequent spelling
    spellings: dict[str, Counter] = defaultdict(Counter)
    for n in names + doc_names:
        norm = normalize_name(n)
        if norm and is_name(norm):
            spellings[norm.lower()][norm] += 1
    display = {k: min(c.items(), key=lambda kv: (-kv[1], kv[0]))[0] for k, c in spellings.items()}
    toks = {k: tuple(lower_words(k)) for k in display}
    # resolve longer names first, so a short name can follow a chain to its final canonical
    order = sorted(display, key=lambda k: (-len(toks[k]), k))
    kind = {normalize_name(n).lower(): ty for n, ty in (types or {}).items() if ty}
    canon: dict[str, str] = {}
    # the longer names resolved so far, by each of their proper first and last words (a lookup, not
    # a scan of every name for every name: 40,000 names took minutes)
    starts: dict[tuple, list[str]] = defaultdict(list)
    ends: dict[tuple, list[str]] = defaultdict(list)
    outer: dict[tuple, list[str]] = defaultdict(list)      # by first and last word: "Osk Rowing Trust"
    for k in order:
        t = toks[k]
        if not t or all(w in ORG_WORDS for w in t):   # "Group" alone names no one
            canon[k] = k
        else:
            def fits(c: str) -> bool:
                # a place is the short form only of a place; a name typed otherwise is none of a place
                if kind.get(k) == "place":
                    return kind.get(c) == "place"
                return not (k in kind and kind.get(c) == "place")

            # "Teodor Raskin's Second Cello Concerto" is not a longer form of "Teodor Raskin"
            longer = [c for c in starts.get(t, ()) if fits(c) and toks[c][len(t)] != "s"]
            # "Kestrel Motors" is not a short form of "CEO of Kestrel Motors": no suffix into a connected name
            suffix = {canon[c] for c in ends.get(t, ()) if fits(c)
                      and not any(w in _CONNECTOR_WORDS for w in toks[c])}
            if suffix:             # "Marlowe" is Edda Marlowe, a partner in "Marlowe & Pryce", not the firm
                longer = [c for c in longer if toks[c][len(t)] not in ("&", "and")]
            prefix = {canon[c] for c in longer}
            only = prefix or suffix                 # a prefix match first, else a suffix match
            # else "Veldhollow Trust" for "Veldhollow Conservation Trust": an organisation's name with
            # words left out of its middle, its first and last word kept
            if not only and len(t) >= 2 and t[-1] in ORG_WORDS:
                only = {canon[c] for c in outer.get((t[0], t[-1]), ()) if len(toks[c]) > len(t) and fits(c)
                        and _in_order(t[1:-1], toks[c][1:-1])}
            canon[k] = only.pop() if len(only) == 1 else k
        for j in range(1, len(t)):
            starts[t[:j]].append(k)
            ends[t[-j:]].append(k)
        if len(t) >= 3:
            outer[(t[0], t[-1])].append(k)
    # "Judge Ann Lee of the Tarrow Court" is Ann Lee, when the model also names her on her own
    extracted = {normalize_name(n).lower() for n in names}
    named = {canon[e] for e in extracted if e in canon}      # entities the model named somewhere
    moved = {}
    for k in display:
        m = _AFFILIATED.match(display[k])
        if m and k in extracted:
            head = normalize_name(strip_title(m.group(1), extended=True)).lower()
            if len(toks.get(head, ())) >= 2 and head in canon and canon[head] != k and canon[head] in named:
                moved[k] = canon[head]
    canon.update(moved)
    canon = {k: moved.get(c, c) for k, c in canon.items()}
    # "NHA" is the short form of the "Northern Health Authority (NHA)" a text defines
    for d in docs:
        for acronym, long in defined_acronyms(d["text"]).items():
            a, n = acronym.lower(), normalize_name(long).lower()
            if a in canon and n in canon and canon[a] == a:
                canon[a] = canon[n]
    used_canon = {canon[k] for k in extracted if k in canon}
    table: dict[str, str] = {}
    for n in sorted(set(names)):
        k = normalize_name(n).lower()
        table[n] = display[canon[k]] if k in canon else normalize_name(n)
    for k in sorted(canon):
        if k in extracted or canon[k] in used_canon:
            table.setdefault(display[k], display[canon[k]])
    return table


def _in_order(words: tuple, longer: tuple) -> bool:
    """Whether ``words`` are words of ``longer`` in the same order."""
    it = iter(longer)
    return all(w in it for w in words)


#: A name, "of" or "of the", and a second name: "Judge Ann Lee of the Tarrow Court".
_AFFILIATED = re.compile(r"^(.+?)\s+of(?:\s+the)?\s+(.+)$")
#: A name followed by its acronym in brackets: "the Northern Health Authority (NHA)".
_DEFINED_ACRONYM = re.compile(rf"({UPPER}[\w&'’-]*(?:\s+(?:[a-z]+\s+)?{UPPER}[\w&'’-]*)*)\s+\(({UPPER}{{2,8}})\)")


def defined_acronyms(text: str) -> dict[str, str]:
    """Acronyms a text defines in brackets after a name whose capitalised words they abbreviate.

    >>> defined_acronyms("The Northern Health Authority (NHA) funds Östra Vårdförbundet (ÖV). Bo Lee (XYZ) left.")
    {'NHA': 'Northern Health Authority', 'ÖV': 'Östra Vårdförbundet'}
    """
    out: dict[str, str] = {}
    for m in _DEFINED_ACRONYM.finditer(text):
        words, acronym = m.group(1).split(), m.group(2)
        for i in range(len(words)):            # the shortest tail of the run that the acronym spells
            tail = words[-(i + 1):]
            if "".join(w[0] for w in tail if w[0].isupper()) == acronym:
                out.setdefault(acronym, " ".join(tail))
                break
    return out


def apply_aliases(triples: Iterable[Triple], table: dict[str, str]) -> list[Triple]:
    """Rename subjects and objects to their canonical names; drop triples that became loops."""
    if not isinstance(table, Mapping):
        raise TypeError(f"table must map a name to its canonical name (reconcile_entities), not a "
                        f"{type(table).__name__}.")
    out = []
    for t in triples:
        if not isinstance(t, Triple):
            raise TypeError(f"apply_aliases takes Triple objects, not {t!r:.60}.")
        s = table.get(t.subject, normalize_name(t.subject))
        o = table.get(t.object, normalize_name(t.object))
        if not isinstance(s, str) or not isinstance(o, str):
            raise TypeError(f"the alias table maps {t.subject!r} or {t.object!r} to {s if not isinstance(s, str) else o!r}; "
                            "a canonical name must be a string.")
        if s.lower() != o.lower():
            out.append(dataclasses.replace(t, subject=s, object=o))
    return out


def evaluate_aliases(table: dict[str, str], gold: dict[str, str] | None = None):
    """Compare an alias table with the gold aliases (default: the book's).

    Returns rows ``alias, expected, resolved, correct`` and a summary dict (``recall``,
    ``precision``, ``merges``, ``wrong_merges``, ...).
    """
    import pandas as pd
    if gold is None:
        gold = load_gold_aliases()
    for what, t in (("table", table), ("gold", gold)):
        if not isinstance(t, Mapping) or not all(isinstance(x, str) for kv in t.items() for x in kv):
            raise TypeError(f"{what} must map names to names (strings), not {t!r:.60}.")
    low = {k.lower(): v for k, v in table.items()}
    rows = []
    for alias, expected in sorted(gold.items()):
        got = table.get(alias, low.get(alias.lower()))
        rows.append({"alias": alias, "expected": expected, "resolved": got,
                     "correct": got is not None and got.lower() == expected.lower()})
    df = pd.DataFrame(rows, columns=["alias", "expected", "resolved", "correct"])
    # what a name should resolve to: its gold entity; a gold entity's own name, itself
    target = {v.lower(): v.lower() for v in gold.values()}
    target.update((k.lower(), v.lower()) for k, v in gold.items())
    keys = {k: normalize_name(k).lower() for k in table}
    merges = {k: v for k, v in table.items() if keys[k] != v.lower()}
    wrong = [k for k, v in merges.items() if target.get(keys[k]) != v.lower()]
    summary = {"gold": len(gold), "resolved": int(df["correct"].sum()),
               "recall": float(df["correct"].mean()) if len(df) else float("nan"),
               "merges": len(merges), "wrong_merges": len(wrong),
               "precision": (1 - len(wrong) / len(merges)) if merges else float("nan")}
    return df, summary
