"""A generator of fictional company news with planted two-hop chains, for scaling experiments.

Taught in chapter "Retrieval that stays sharp at scale". Documents come from templates (no model
call), so the gold triples are exact; the chains start at hub companies (Zipf popularity), which is
what makes a naive context budget fail at scale. Cast: :mod:`gaba.data.synthetic_world`; wording:
:mod:`gaba.data.synthetic_text`.
"""
from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterator

from .synthetic_text import possessive, write_document
from .synthetic_world import SUPPLIER_SECTORS, World
from .triple import Triple

__all__ = ["ChainQuestion", "ScalingCorpus", "make_scaling_corpus", "RELATIONS"]

#: The relation vocabulary of the synthetic corpus (the same names as the news corpus uses).
RELATIONS = ("SUPPLIES_TO", "COMPETES_WITH", "INVESTS_IN", "BOARD_MEMBER_OF", "CEO_OF",
             "ACQUIRED", "FOUNDED", "PARTNERS_WITH")


@dataclasses.dataclass(frozen=True)
class ChainQuestion:
    """A planted multi-hop question and its gold facts (one per hop, each in its own document)."""

    id: str                       # "q000", "q001", ...
    question: str
    answer: str                   # the answer entity (a node name)
    start: str                    # the entity the question names
    bridge: str                   # the entity the first hop reaches
    kind: str                     # template name, e.g. "supplier_competitor"
    facts: tuple[Triple, ...]     # in hop order

    @property
    def doc_ids(self) -> tuple[str, ...]:
        """Ids of the documents that hold the gold facts (all are needed)."""
        return tuple(t.doc_id for t in self.facts)


@dataclasses.dataclass
class ScalingCorpus:
    """A generated corpus: documents, their exact gold triples, planted questions and aliases.

    ``documents`` (``{"id", "title", "date", "text"}``) are sorted by date then id; ``triples``
    maps a document id to the :class:`Triple` records it states (possibly none); ``aliases`` maps
    an entity to the short names that name only it (``"Alderbrook"``).
    """

    documents: list[dict]
    triples: dict[str, list[Triple]]
    questions: list[ChainQuestion]
    aliases: dict[str, list[str]]
    seed: int

    def all_triples(self) -> list[Triple]:
        """Every gold triple, in document order."""
        return [t for d in self.documents for t in self.triples[d["id"]]]

    def to_graph(self):
        """The gold triples as a graph in the book's format (a ``networkx.MultiDiGraph``).

        One edge per distinct ``(subject, relation, object)``, keyed by relation, with the
        ``doc_id`` and ``evidence`` of the first document that states it.

        Examples
        --------
        >>> G = make_scaling_corpus(14, n_questions=2).to_graph()
        >>> G.number_of_edges() >= 4
        True
        """
        import networkx as nx

        G = nx.MultiDiGraph()
        for t in self.all_triples():
            if not G.has_edge(t.subject, t.object, key=t.relation):
                G.add_edge(t.subject, t.object, key=t.relation, relation=t.relation,
                           doc_id=t.doc_id, evidence=t.evidence)
        for node in G.nodes:
            G.nodes[node]["aliases"] = list(self.aliases.get(node, []))
        return G

    def summary(self) -> dict:
        """Counts: documents, triples, questions, entities, and the largest entity degree."""
        triples = self.all_triples()
        deg = Counter(x for t in triples for x in (t.subject, t.object))
        return {"documents": len(self.documents), "triples": len(triples),
                "questions": len(self.questions), "entities": len(deg),
                "max_degree": max(deg.values(), default=0)}


# Planted question kinds: (kind, question template), planted in turn.
_QUESTION_KINDS = (
    ("supplier_competitor", "Who competes with {x_s} {w} supplier?"),
    ("supplier_ceo", "Who is the chief executive of the company that supplies {x} with {p}?"),
    ("supplier_investor", "Which investor backs {x_s} {w} supplier?"),
    ("supplier_acquirer", "Which company acquired {x_s} {w} supplier?"),
    ("ceo_board", "On which other company's board does the CEO of {x} sit?"),
)


class _Builder:
    """Plants the questions and draws the distractors, keeping every planted answer unique."""

    def __init__(self, world: World, seed: int):
        self.w = world
        self.seed = seed
        self.reserved: set[tuple] = set()  # keys distractors must not touch
        self.ceo: dict[str, str] = {}      # company -> its CEO (one each)

    def plant(self, n_questions: int) -> list[tuple[ChainQuestion, list[dict], list[list[Triple]]]]:
        rng = random.Random(f"gaba-synthetic-questions-{self.seed}")
        planted = []
        used_pairs: set[tuple[str, str]] = set()
        taken_people: set[str] = set()
        taken_bridges: set[str] = set()
        n_hubs = max(10, min(len(self.w.hubs), 25))
        i = 0
        attempts = 0
        while len(planted) < n_questions:
            attempts += 1
            if attempts > 100 * (n_questions + 10):
                raise RuntimeError("could not plant enough questions; lower n_questions")
            kind, template = _QUESTION_KINDS[i % len(_QUESTION_KINDS)]
            hub = self.w.hubs[rng.randrange(n_hubs)]
            x = hub.name
            qid = f"q{len(planted):03d}"
            if kind == "ceo_board":
                if ("CEO_OF", x) in self.reserved:
                    continue
                p = self.w.fresh_person(rng, taken_people)
                y = self.w.company(rng, role="customer").name
                if y == x:
                    continue
                self.reserved |= {("CEO_OF", x), ("BOARD_MEMBER_OF", p), ("person", p)}
                self.ceo[x] = p
                hops = [("CEO_OF", p, x, ""), ("BOARD_MEMBER_OF", p, y, "")]
                question = template.format(x=x)
                answer, bridge = y, p
            else:
                sector = rng.choice(sorted(SUPPLIER_SECTORS))
                _, product, word = SUPPLIER_SECTORS[sector]
                if (x, sector) in used_pairs:
                    continue
                candidates = [c for c in self.w.by_sector[sector] if c.name not in taken_bridges]
                # bridges: not from the most popular third of the sector
                candidates = sorted(candidates, key=lambda c: -c.weight)[len(candidates) // 3:]
                if not candidates:
                    continue
                s = rng.choice(candidates).name
                taken_bridges.add(s)
                used_pairs.add((x, sector))
                self.reserved |= {("SUPPLIES_TO", x, sector)}
                if kind == "supplier_competitor":
                    rivals = [c for c in self.w.by_sector[sector] if c.name not in (s, x)
                              and c.name not in taken_bridges]
                    c = rng.choice(rivals).name
                    self.reserved.add(("COMPETES_WITH", s))
                    hop2 = ("COMPETES_WITH", c, s, "")
                    answer = c
                elif kind == "supplier_ceo":
                    p = self.w.fresh_person(rng, taken_people)
                    self.reserved |= {("CEO_OF", s), ("person", p)}
                    self.ceo[s] = p
                    hop2 = ("CEO_OF", p, s, "")
                    answer = p
                elif kind == "supplier_investor":
                    inv = rng.choice(self.w.by_role["investor"]).name
                    self.reserved.add(("INVESTS_IN", s))
                    hop2 = ("INVESTS_IN", inv, s, "")
                    answer = inv
                else:  # supplier_acquirer
                    acq = self.w.company(rng, role="customer").name
                    if acq == x:
                        acq = self.w.hubs[-1].name
                    self.reserved.add(("ACQUIRED", s))
                    hop2 = ("ACQUIRED", acq, s, "")
                    answer = acq
                hops = [("SUPPLIES_TO", s, x, product), hop2]
                question = template.format(x=x, x_s=possessive(x), w=word, p=product)
                bridge = s
            docs, doc_triples = [], []
            for h, (rel, a, b, prod) in enumerate(hops):
                doc_id = f"syn-{qid}-{h + 1}"
                d, ts = write_document(doc_id, random.Random(f"{self.seed}-{doc_id}"), rel, a, b, prod)
                docs.append(d)
                doc_triples.append(ts)
            facts = tuple(ts[0] for ts in doc_triples)
            planted.append((ChainQuestion(qid, question, answer, x, bridge, kind, facts),
                            docs, doc_triples))
            i += 1
        return planted

    def distractors(self) -> Iterator[tuple[dict, list[Triple]]]:
        """An endless, deterministic stream of distractor documents (a prefix of it is used)."""
        rng = random.Random(f"gaba-synthetic-stream-{self.seed}")
        kinds = ("SUPPLIES_TO", "COMPETES_WITH", "INVESTS_IN", "BOARD_MEMBER_OF", "CEO_OF",
                 "ACQUIRED", "PARTNERS_WITH", "FOUNDED", None)
        weights = (0.34, 0.13, 0.11, 0.1, 0.05, 0.05, 0.08, 0.04, 0.1)
        i = 0
        while True:
            kind = rng.choices(kinds, weights=weights, k=1)[0]
            doc_id = f"syn-d{i:05d}"
            made = self._distractor(rng, kind, doc_id)
            if made is None:
                continue  # the draw touched a reserved key: draw again
            i += 1
            yield made

    def _distractor(self, rng: random.Random, kind: str | None, doc_id: str):
        R = self.reserved
        doc_rng = random.Random(f"{self.seed}-{doc_id}-{rng.random()}")
        if kind is None:
            a = self.w.company(rng).name
            return write_document(doc_id, doc_rng, None, a, "")
        if kind == "SUPPLIES_TO":
            s = self.w.company(rng, role="supplier")
            x = self.w.company(rng, role="customer" if rng.random() < 0.8 else None)
            if x.name == s.name or ("SUPPLIES_TO", x.name, s.sector) in R:
                return None
            return write_document(doc_id, doc_rng, kind, s.name, x.name, SUPPLIER_SECTORS[s.sector][1])
        if kind in ("COMPETES_WITH", "PARTNERS_WITH"):
            a = self.w.company(rng)
            b = self.w.company(rng, sector=a.sector)
            if a.name == b.name or (kind, a.name) in R or (kind, b.name) in R:
                return None
            return write_document(doc_id, doc_rng, kind, a.name, b.name)
        if kind == "INVESTS_IN":
            inv = self.w.company(rng, role="investor")
            x = self.w.company(rng)
            if x.role == "investor" or ("INVESTS_IN", x.name) in R:
                return None
            return write_document(doc_id, doc_rng, kind, inv.name, x.name)
        if kind == "ACQUIRED":
            a = self.w.company(rng)
            pool = self.w.companies
            b = pool[rng.randrange(len(pool))]   # targets are uniform: mostly small companies
            if a.name == b.name or ("ACQUIRED", b.name) in R:
                return None
            return write_document(doc_id, doc_rng, kind, a.name, b.name)
        p = self.w.person(rng)
        if ("person", p) in R:
            return None
        x = self.w.company(rng)
        if kind in ("BOARD_MEMBER_OF", "FOUNDED"):
            return write_document(doc_id, doc_rng, kind, p, x.name)
        # CEO_OF: one chief executive per company; sometimes a second fact (a board seat)
        if x.name in self.ceo or ("CEO_OF", x.name) in R:
            return None
        self.ceo[x.name] = p
        extra = []
        if rng.random() < 0.4:
            y = self.w.company(rng)
            if y.name != x.name:
                extra.append(("BOARD_MEMBER_OF", p, y.name, f"{p} also sits on the board of {y.name}."))
        return write_document(doc_id, doc_rng, kind, p, x.name, extra=extra)


def make_scaling_corpus(n_docs: int, *, n_questions: int = 50, seed: int = 0) -> ScalingCorpus:
    """Generate ``n_docs`` documents of fictional company news with planted two-hop questions.

    The chain documents (two per question) come first, then distractors; a corpus too small for
    ``n_questions`` keeps the first ``n_docs // 2`` (14 documents carry 7). The same arguments give
    the same corpus, byte for byte, and for one ``seed`` and ``n_questions`` a smaller corpus is a
    subset of a larger one (so embeddings are reused across sizes). Each planted answer is unique,
    and no document states both of its facts. Raises ``ValueError`` if ``n_docs < 2`` or
    ``n_questions < 1`` (or either is not an int).

    Examples
    --------
    >>> c = make_scaling_corpus(140, n_questions=10)
    >>> len(c.documents), len(c.questions)
    (140, 10)
    """
    for name, value, low in (("n_docs", n_docs, 2), ("n_questions", n_questions, 1)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an int, not {type(value).__name__}")
        if value < low:
            raise ValueError(f"{name} must be at least {low}, got {value}; "
                             + ("a corpus needs room for a two-document chain." if name == "n_docs"
                                else "ask for one or more planted questions."))
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an int, not {type(seed).__name__}")
    world = World(seed)
    builder = _Builder(world, seed)
    planted = builder.plant(n_questions)       # all of them: reservations do not depend on n_docs
    return _assemble(planted, builder.distractors(), n_docs, n_questions, world.aliases, seed)


def _assemble(planted: list, stream: Iterator, n_docs: int, n_questions: int,
              aliases: dict[str, list[str]], seed: int) -> ScalingCorpus:
    """The documents of the questions that fit, then distractors from ``stream`` up to ``n_docs``."""
    kept = planted[: min(n_questions, n_docs // 2)]
    documents: list[dict] = []
    triples: dict[str, list[Triple]] = {}
    for _, docs, doc_triples in kept:
        for d, ts in zip(docs, doc_triples):
            documents.append(d)
            triples[d["id"]] = ts
    while len(documents) < n_docs:
        d, ts = next(stream)
        documents.append(d)
        triples[d["id"]] = ts
    documents.sort(key=lambda d: (d["date"], d["id"]))
    names = {x for ts in triples.values() for t in ts for x in (t.subject, t.object)}
    return ScalingCorpus(documents=documents, triples=triples, questions=[q for q, _, _ in kept],
                         aliases={n: list(a) for n, a in aliases.items() if n in names}, seed=seed)
