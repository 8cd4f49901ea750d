"""A generator of fictional company news with planted two-hop chains starting at hub companies, for
chapter "Retrieval that stays sharp at scale". Template documents (no model call), so the gold
triples are exact; the cast is :mod:`gaba.data.synthetic_world`."""
from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter
from collections.abc import Callable, Iterator

import networkx as nx

from .synthetic_world import SUPPLIER_SECTORS, World, possessive, write_document
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
    """A generated corpus: ``documents`` (by date), gold ``triples`` per document id, ``questions``, ``aliases``."""

    documents: list[dict]
    triples: dict[str, list[Triple]]
    questions: list[ChainQuestion]
    aliases: dict[str, list[str]]
    seed: int

    def all_triples(self) -> list[Triple]:
        """Every gold triple, in document order."""
        return [t for d in self.documents for t in self.triples[d["id"]]]

    def to_graph(self):
        """The gold triples as a ``networkx.MultiDiGraph``: one edge per distinct fact, first document's evidence."""
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


# --- the engine both generators share -----------------------------------------------------------

#: A planted question with its documents: ``(question, [(document, its triples), ...])``.
Planted = tuple[ChainQuestion, list[tuple[dict, list[Triple]]]]


def _check_args(n_docs, n_questions, seed) -> None:
    for name, value, low in (("n_docs", n_docs, 2), ("n_questions", n_questions, 1), ("seed", seed, None)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{name} must be an int, not {type(value).__name__}")
        if low is not None and value < low:
            raise ValueError(f"{name} must be at least {low}, got {value}; "
                             + ("a corpus needs room for a two-document chain." if name == "n_docs"
                                else "ask for one or more planted questions."))


def _chain(prefix: str, seed: int, q: dict, hops: list[tuple], write: Callable) -> Planted:
    """The question ``q`` (:class:`ChainQuestion` fields but ``facts``) and one document per hop."""
    made = [write(doc_id, random.Random(f"{seed}-{doc_id}"), *hop)
            for doc_id, hop in ((f"{prefix}-{q['id']}-{h}", hop) for h, hop in enumerate(hops, 1))]
    return ChainQuestion(**q, facts=tuple(ts[0] for _, ts in made)), made


def _numbered(prefix: str, make: Callable, start: int = 0) -> Iterator[tuple[dict, list[Triple]]]:
    """An endless stream of distractors ``make(doc_id)``, ids ``<prefix>-d00000`` up; a None is drawn again."""
    i = start
    while True:
        made = make(f"{prefix}-d{i:05d}")
        if made is not None:
            i += 1
            yield made


def _assemble(planted: list[Planted], stream: Iterator, n_docs: int, n_questions: int,
              aliases: dict[str, list[str]], seed: int) -> ScalingCorpus:
    """The documents of the questions that fit, then distractors from ``stream`` up to ``n_docs``."""
    kept = planted[: min(n_questions, n_docs // 2)]
    made = [m for _, chain in kept for m in chain]
    made += itertools.islice(stream, n_docs - len(made))
    triples = {d["id"]: ts for d, ts in made}
    names = {x for ts in triples.values() for t in ts for x in (t.subject, t.object)}
    return ScalingCorpus(documents=sorted((d for d, _ in made), key=lambda d: (d["date"], d["id"])),
                         triples=triples, questions=[q for q, _ in kept],
                         aliases={n: list(a) for n, a in aliases.items() if n in names}, seed=seed)


# --- the company news ---------------------------------------------------------------------------

# Planted question kinds: (kind, question template), planted in turn.
_QUESTION_KINDS = (
    ("supplier_competitor", "Who competes with {x_s} {w} supplier?"),
    ("supplier_ceo", "Who is the chief executive of the company that supplies {x} with {p}?"),
    ("supplier_investor", "Which investor backs {x_s} {w} supplier?"),
    ("supplier_acquirer", "Which company acquired {x_s} {w} supplier?"),
    ("ceo_board", "On which other company's board does the CEO of {x} sit?"),
)
# Distractor kinds and how often each is drawn (None: news about one company, no fact).
_DISTRACTOR_MIX = {"SUPPLIES_TO": 0.34, "COMPETES_WITH": 0.13, "INVESTS_IN": 0.11, "BOARD_MEMBER_OF": 0.1,
                   "CEO_OF": 0.05, "ACQUIRED": 0.05, "PARTNERS_WITH": 0.08, "FOUNDED": 0.04, None: 0.1}


class _Builder:
    """Plants the questions and draws the distractors, keeping every planted answer unique."""

    def __init__(self, world: World, seed: int):
        self.w = world
        self.seed = seed
        self.reserved: set[tuple] = set()  # keys distractors must not touch
        self.ceo: dict[str, str] = {}      # company -> its CEO (one each)

    def plant(self, n_questions: int) -> list[Planted]:
        rng = random.Random(f"gaba-synthetic-questions-{self.seed}")
        w, planted = self.w, []
        used_pairs: set[tuple[str, str]] = set()
        taken_people: set[str] = set()
        taken_bridges: set[str] = set()
        n_hubs = max(10, min(len(w.hubs), 25))
        for attempt in itertools.count(1):
            if len(planted) == n_questions:
                return planted
            if attempt > 100 * (n_questions + 10):
                raise RuntimeError("could not plant enough questions; lower n_questions")
            kind, template = _QUESTION_KINDS[len(planted) % len(_QUESTION_KINDS)]
            x = w.hubs[rng.randrange(n_hubs)].name
            if kind == "ceo_board":
                if ("CEO_OF", x) in self.reserved:
                    continue
                p = w.fresh_person(rng, taken_people)
                y = w.company(rng, role="customer").name
                if y == x:
                    continue
                self.reserved |= {("CEO_OF", x), ("BOARD_MEMBER_OF", p), ("person", p)}
                self.ceo[x] = p
                hops = [("CEO_OF", p, x, ""), ("BOARD_MEMBER_OF", p, y, "")]
                question, answer, bridge = template.format(x=x), y, p
            else:
                sector = rng.choice(sorted(SUPPLIER_SECTORS))
                _, product, word = SUPPLIER_SECTORS[sector]
                if (x, sector) in used_pairs:
                    continue
                candidates = [c for c in w.by_sector[sector] if c.name not in taken_bridges]
                # bridges: not from the most popular third of the sector
                candidates = sorted(candidates, key=lambda c: -c.weight)[len(candidates) // 3:]
                if not candidates:
                    continue
                s = rng.choice(candidates).name
                taken_bridges.add(s)
                used_pairs.add((x, sector))
                self.reserved.add(("SUPPLIES_TO", x, sector))
                if kind == "supplier_competitor":
                    answer = rng.choice([c for c in w.by_sector[sector] if c.name not in (s, x)
                                         and c.name not in taken_bridges]).name
                    rel = "COMPETES_WITH"
                elif kind == "supplier_ceo":
                    answer = w.fresh_person(rng, taken_people)
                    self.reserved.add(("person", answer))
                    self.ceo[s] = answer
                    rel = "CEO_OF"
                elif kind == "supplier_investor":
                    answer, rel = rng.choice(w.by_role["investor"]).name, "INVESTS_IN"
                else:  # supplier_acquirer
                    answer, rel = w.company(rng, role="customer").name, "ACQUIRED"
                    answer = w.hubs[-1].name if answer == x else answer
                self.reserved.add((rel, s))
                hops = [("SUPPLIES_TO", s, x, product), (rel, answer, s, "")]
                question, bridge = template.format(x=x, x_s=possessive(x), w=word, p=product), s
            q = dict(id=f"q{len(planted):03d}", question=question, answer=answer, start=x, bridge=bridge, kind=kind)
            planted.append(_chain("syn", self.seed, q, hops, write_document))

    def distractors(self) -> Iterator[tuple[dict, list[Triple]]]:
        """An endless, deterministic stream of distractor documents (a prefix of it is used)."""
        rng = random.Random(f"gaba-synthetic-stream-{self.seed}")
        kinds, weights = list(_DISTRACTOR_MIX), list(_DISTRACTOR_MIX.values())
        return _numbered("syn", lambda doc_id: self._distractor(rng, rng.choices(kinds, weights=weights)[0], doc_id))

    def _distractor(self, rng: random.Random, kind: str | None, doc_id: str):
        R = self.reserved
        doc_rng = random.Random(f"{self.seed}-{doc_id}-{rng.random()}")
        if kind is None:
            return write_document(doc_id, doc_rng, None, self.w.company(rng).name, "")
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

    Deterministic; for one ``seed`` and ``n_questions`` a smaller corpus is a subset of a larger one.
    No document states both facts of a question. ValueError for ``n_docs < 2`` or ``n_questions < 1``.
    """
    _check_args(n_docs, n_questions, seed)
    world = World(seed)
    builder = _Builder(world, seed)
    planted = builder.plant(n_questions)       # all of them: reservations do not depend on n_docs
    return _assemble(planted, builder.distractors(), n_docs, n_questions, world.aliases, seed)
