"""Entity linking (chapter "Retrieval that stays sharp at scale"): which nodes of the graph a question
talks about, and how sure the match is."""
from __future__ import annotations

import dataclasses
import re
import warnings
from collections import defaultdict

import numpy as np
from rapidfuzz import fuzz, process

from . import embed
from .checks import check_positive_int, check_question
from .entities import check_graph
from .nameindex import NameIndex, name_index
from .words import NAME_STOP, strip_diacritics, token_spans, word_stems

__all__ = ["Match", "Links", "LinkingCapped", "link_entities", "METHODS", "COMMON_WORDS"]

#: Linking methods: the deepest tier used (``"full"`` is an alias of ``"embedding"``).
METHODS = ("exact", "fuzzy", "embedding", "full")

#: Ordinary English words that are also plausible one-word names; such a name needs context.
COMMON_WORDS = frozenset("""
january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday spring summer autumn fall winter
apple orange lemon lime cherry berry peach plum pear banana mango olive grape melon
red blue green black white grey gray gold silver amber jade ruby pearl coral ivory
amazon shell target gap oracle visa delta mercury apollo atlas titan orbit summit harbor
harbour bridge river lake forest ocean island mountain valley canyon meadow garden field
north south east west central pacific atlantic global united national general standard
first second third one two three alpha beta gamma omega nova star sun moon sky cloud
rock stone iron steel copper glass paper fire water wind storm rain snow ice
eagle falcon hawk raven fox wolf bear lion tiger jaguar puma mustang bull horse dove swan
tesla ford lincoln may will grace hope joy faith mark bill rose lily iris daisy ivy
key core edge peak apex zenith vertex spark pulse wave signal bolt arrow shield anchor
home house office bank capital square circle point line group company partners
""".split())

_QUESTION_STOP = frozenset("""a an the of to in on at for with by from and or is are was were be
been who whom whose which what when where why how does do did has have had that this these those
its it his her their s other also than as into about over under between both same either any
many much more most less least""".split())
_QWORDS = frozenset("""who whom whose which what when where why how is are was were do does did
can could would should will has have had on in at for of by from according name list tell give
find show if between among""".split())
_CONNECTORS = NAME_STOP | {"&", "i", "ii", "iii"}


class LinkingCapped(UserWarning):
    """A question matched more candidate nodes than ``max_candidates``; only the best were scored."""


@dataclasses.dataclass(frozen=True)
class Match:
    """One linked entity: node ``name``, question text ``surface``, tier ``method``, ``score`` in [0, 1]."""

    name: str
    surface: str
    method: str
    score: float


class Links(list):
    """A ``list`` of :class:`Match` in question order, with ``candidates``, ``capped`` and ``notes``."""

    def __init__(self, matches=(), *, candidates: int = 0, capped: bool = False, notes=()):
        super().__init__(matches)
        self.candidates = candidates
        self.capped = capped
        self.notes = list(notes)

    @property
    def names(self) -> list[str]:
        """The node names, in question order."""
        return [m.name for m in self]


def _one_word_needs_context(surface: str) -> bool:
    """A one-word surface is ambiguous when it is a common word or written in lower case."""
    words = re.findall(r"\w+", surface)
    if len(words) != 1:
        return False
    w = words[0]
    return w.casefold() in COMMON_WORDS or not w[:1].isupper()


def _has_context(idx: NameIndex, node: str, question: str, others: set[str]) -> bool:
    """Whether the question also names a neighbour of ``node`` or one of its relations."""
    if idx.neighbours(node) & others:
        return True
    asked = set(word_stems(question)) - set(word_stems(node))
    return any(asked & set(word_stems(rel.replace("_", " "))) for rel in idx.relations(node))


def _exact_tier(question, toks, idx, taken):
    """Names and aliases as whole phrases, longest first."""
    words = [t for t, _, _ in toks]
    n = len(words)
    spans = [(L, i) for i in range(n) for L in range(min(idx.max_len, n - i), 0, -1)
             if tuple(words[i:i + L]) in idx.surfaces]
    found = []
    for L, i in sorted(spans, key=lambda x: (-x[0], x[1])):
        if not any(taken[i:i + L]):
            for node, kind in idx.surfaces[tuple(words[i:i + L])][:1]:
                found.append((i, i + L, Match(node, question[toks[i][1]:toks[i + L - 1][2]], kind, 1.0)))
            taken[i:i + L] = [True] * L
    return found


def _fuzzy_score(words, toks, idx, taken, maps, free_pos):
    """(score, first token, last token) of the best reading of a name's words in the question."""
    matched_pos: dict[str, tuple[int, float]] = {}
    for j in free_pos:
        for w, s in maps.get(j, []):
            if w in words and (w not in matched_pos or s > matched_pos[w][1]):
                matched_pos[w] = (j, s)
    if len(matched_pos) < 2:
        return None
    wsum = sum(idx.weight.get(w, 1.0) for w in words)
    cov = sum(idx.weight.get(w, 1.0) for w in matched_pos) / wsum
    if words[0] in matched_pos and words[-1] in matched_pos:
        cov = max(cov, 0.9)     # first and last word present: "Margaret Verney" for "Margaret Maria Verney"
    elif len(matched_pos) < len(words) and set(words[-len(matched_pos):]) == set(matched_pos):
        cov = max(cov, 0.9)     # its last words: "the county survey board" for "Osk County Survey Board"
    at = {j for j, _ in matched_pos.values()}
    lo, hi = min(at), max(at)
    if any(taken[lo:hi + 1]):
        return None             # the span crosses an entity found by an earlier tier
    cov_span = len(at) / max(sum(lo <= j <= hi for j in free_pos), 1)
    spelling = sum(s for _, s in matched_pos.values()) / len(matched_pos)
    return cov * (0.85 + 0.15 * cov_span) * spelling, lo, hi


def _fuzzy_tier(question, toks, idx, taken, threshold, max_candidates, links):
    """Names sharing two rare-enough words with the question, scored by coverage and spelling."""
    free = [(j, t) for j, (t, _, _) in enumerate(toks)
            if not taken[j] and t[0].isalnum() and t not in _QUESTION_STOP and t not in NAME_STOP]
    if not free:
        return []
    # question word -> graph name words it may be (exact, or a close spelling)
    maps: dict[int, list[tuple[str, float]]] = {}
    for j, t in free:
        t2 = strip_diacritics(t)
        hits = [(t2, 1.0)] if t2 in idx.by_word else []
        if len(t2) >= 4:
            hits += [(w, score / 100) for w, score, _ in
                     process.extract(t2, idx.vocab, scorer=fuzz.ratio, limit=3, score_cutoff=85) if w != t2]
        if hits:
            maps[j] = hits
    shared: dict[str, set[str]] = defaultdict(set)
    for j, hits in maps.items():
        for w, _ in hits:
            for node in idx.by_word[w]:
                shared[node].add(w)
    # candidates share two words with the question, one of them rare among the graph's names
    rare = max(20, len(idx.names) // 100)
    cands = sorted(n for n, ws in shared.items() if len(ws) >= 2 and any(len(idx.by_word[w]) <= rare for w in ws))
    links.candidates += len(cands)
    if len(cands) > max_candidates:
        cands.sort(key=lambda n: (-sum(idx.weight[w] for w in shared[n]), n))
        links.notes.append(f"fuzzy tier: {len(cands)} candidate nodes share words with the "
                           f"question; only the best {max_candidates} were scored")
        links.capped = True
        cands = cands[:max_candidates]
    scored = []
    free_pos = [j for j, _ in free]
    for node in cands:
        # one-word names are the exact tier's (context rule)
        readings = [_fuzzy_score(words, toks, idx, taken, maps, free_pos)
                    for words in (idx.words[node], idx.heads.get(node)) if words and len(words) >= 2]
        best = max(filter(None, readings), key=lambda g: g[0], default=None)
        if best and best[0] >= threshold:
            scored.append((*best, node))
    out = []
    claimed: list[tuple[int, int, float]] = []
    for score, lo, hi, node in sorted(scored, key=lambda x: (-x[0], x[3])):
        clash = [c for c in claimed if not (hi < c[0] or lo > c[1])]
        if clash and score < max(c[2] for c in clash) - 0.02:
            continue
        claimed.append((lo, hi, score))
        surface = question[toks[lo][1]:toks[hi][2]]
        out.append((lo, hi + 1, Match(node, surface, "fuzzy", round(score, 3))))
    for lo, hi, _ in claimed:
        taken[lo:hi + 1] = [True] * (hi + 1 - lo)
    return out


def _phrases(question, toks, taken):
    """Name-like phrases left in the question: capitalised words and numbers, joined by connectors or ``: - ' ,``."""
    out = []
    j, n = 0, len(toks)
    while j < n:
        t, s, e = toks[j]
        first = question[s:e][:1]
        if taken[j] or not (first.isdigit() or first.isupper() and t not in _QUESTION_STOP and t not in _QWORDS):
            j += 1
            continue
        k = end = j
        while k + 1 < n and not taken[k + 1]:
            nxt = question[toks[k + 1][1]:toks[k + 1][2]]
            if nxt[:1].isupper() or nxt[:1].isdigit():
                k += 1
                end = k
            elif toks[k + 1][0] in _CONNECTORS or nxt in {":", "-", "'", ","}:
                k += 1
            else:
                break
        out.append((j, end + 1, question[toks[j][1]:toks[end][2]]))
        j = end + 1
    return out


def _embedding_tier(question, toks, idx, taken, threshold, max_candidates, links):
    """Name-like phrases against node-name embeddings, above ``threshold`` cosine."""
    phrases = [p for p in _phrases(question, toks, taken) if len(p[2]) >= 3]
    if not phrases:
        return []
    V = idx.vectors()
    Q = embed.embed_texts([p[2] for p in phrases], kind="query")
    out = []
    for (lo, hi, text), q in zip(phrases, Q):
        sims = V @ q
        above = np.flatnonzero(sims >= threshold)
        links.candidates += int(above.size)
        if above.size == 0:
            continue
        if above.size > max_candidates:
            links.capped = True
            links.notes.append(f"embedding tier: {above.size} nodes are within the threshold of "
                               f"{text!r}; only the best {max_candidates} were considered")
        best = int(above[np.argmax(sims[above])])
        out.append((lo, hi, Match(idx.names[best], text, "embedding", round(float(sims[best]), 3))))
        taken[lo:hi] = [True] * (hi - lo)
    return out


def link_entities(question: str, G, *, method: str = "full", fuzzy_threshold: float = 0.85,
                  embed_threshold: float = 0.9, max_candidates: int = 50) -> Links:
    """The graph's entities a question talks about, found by tiers, cheapest and surest first.

    Tiers: ``exact``/``alias``/``surname`` (a person's last name alone, when it is no other node's),
    ``fuzzy`` (shared rare name words), ``embedding`` (name-like phrases, cosine ``embed_threshold``);
    ``method`` is the deepest tier used. A common or lowercase one-word name needs a neighbour or
    relation in the question.

    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_edge("Aurora Cell Works", "Kestrel Motors", key="SUPPLIES_TO", relation="SUPPLIES_TO")
    'SUPPLIES_TO'
    >>> G.nodes["Kestrel Motors"]["aliases"] = ["Kestrel"]
    >>> [(m.name, m.method) for m in link_entities("Who supplies Kestrel?", G, method="exact")]
    [('Kestrel Motors', 'alias')]
    """
    check_graph(G)
    check_question(question, "link_entities", max_chars=None, utf8=False)
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    for name, value in (("fuzzy_threshold", fuzzy_threshold), ("embed_threshold", embed_threshold)):
        if not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}")
    check_positive_int("max_candidates", max_candidates)
    if G.number_of_nodes() == 0:
        return Links()
    idx = name_index(G)
    toks = token_spans(question)
    taken = [False] * len(toks)
    links = Links()                                     # the tiers add their counts and notes
    found = _exact_tier(question, toks, idx, taken)
    if method != "exact":
        found += _fuzzy_tier(question, toks, idx, taken, fuzzy_threshold, max_candidates, links)
    if method in ("embedding", "full"):
        found += _embedding_tier(question, toks, idx, taken, embed_threshold, max_candidates, links)
    firm = {m.name for _, _, m in found if not _one_word_needs_context(m.surface)}
    first: dict[str, Match] = {}                         # each node once, at its first mention
    for _, _, m in sorted(found, key=lambda x: x[0]):
        if m.method in ("exact", "alias", "surname") and _one_word_needs_context(m.surface) \
                and not _has_context(idx, m.name, question, firm - {m.name}):
            links.notes.append(f"{m.surface!r} could be the entity {m.name!r} or an ordinary "
                               "word; not linked (the question names none of its neighbours or relations)")
            continue
        first.setdefault(m.name, m)
    unique = list(first.values())
    if len(unique) > max_candidates:
        links.capped = True
        links.notes.append(f"{len(unique)} entities matched; kept the {max_candidates} "
                           "best-scoring (longest first among exact matches)")
        best = sorted(unique, key=lambda m: (-m.score, -len(m.surface), m.name))[:max_candidates]
        unique = [m for m in unique if m in best]       # in question order; names are distinct
    if links.capped:
        warnings.warn("; ".join(n for n in links.notes if "best" in n), LinkingCapped, stacklevel=2)
    links.extend(unique)
    return links
