"""A second scaling generator (chapter "Retrieval that stays sharp at scale"): a commodity trade
wire written apart from the company news, with other relation names and wording and planted near
misses, in the shape of :mod:`gaba.data.synthetic`."""
from __future__ import annotations

import datetime as _dt
import random
from collections import defaultdict
from collections.abc import Iterator

from .synthetic import ScalingCorpus, _assemble, _chain, _check_args, _numbered
from .synthetic_world import Pool, first_word_aliases
from .triple import Triple

__all__ = ["make_trade_corpus", "COMMODITIES", "QUESTION_KINDS"]

#: Commodity -> (word in predicates, phrase in text). A supplier ships exactly one commodity.
COMMODITIES = {
    "cocoa": ("cocoa", "cocoa"), "sugar": ("sugar", "cane sugar"), "vanilla": ("vanilla", "vanilla pods"),
    "hazelnuts": ("hazelnuts", "hazelnuts"), "milk": ("milk_powder", "milk powder"),
    "flour": ("flour", "wheat flour"), "jars": ("jars", "glass jars"), "cartons": ("cartons", "cardboard cartons"),
    "cans": ("cans", "aluminium cans"), "hops": ("hops", "hops"), "coffee": ("coffee", "green coffee"),
    "yeast": ("yeast", "baker's yeast"),
}

_SYL_A = """Bri Mar Tol Quen Vel Dor Lin Ost Pel Rav Sor Tam Ul Wex Yor Zan Fen Gal Hol Iv Jas Kel
Lom Nor Per Ros Sal Tir Ver Cal Dun Esk Hav Mel Pim Rud Sten Thal Aud Bex Cor Dray Elm Fal Gor
Hes""".split()
_SYL_B = """wick more dale ton ford ley by stone field mouth combe haven gate hurst bury well thorpe
den leigh wyn""".split()
_MAKER = ("Confections", "Bakeries", "Beverages", "Brewing", "Kitchens", "Snacks", "Creamery", "Provisions")
_SUPPLIER = ("Farms", "Estates", "Trading", "Agri", "Growers", "Mills", "Packers", "Cooperative", "Produce")
_FUND = ("Trust", "Fund", "Bancorp", "Endowment")
_INSURER = ("Mutual", "Assurance")
_GIVEN = """Ilse Anouk Bartek Cosmin Dagny Eero Fenna Gustav Hedda Ismo Jarl Kaija Lieke Mads Noor
Oskar Pieta Rune Sigrid Teun Ulla Valter Wiebe Ylva Aart Bodil Carsten Ditte Elof Frida Greet
Hilde Joost Ketil Linnea Maarit Niels Orla Pekka Ragna""".split()
_FAMILY = """Aalto Berger Claes Dahl Ekholm Friis Gunnarsen Hagen Ibsen Juhl Kask Lund Moen Nyman
Ostby Paasi Qvist Rask Strand Toivo Urbanek Vik Wahl Ylonen Zorn Brekke Sundqvist Halme Ruud
Tammela Aho Bakke Dyrberg Engstrom Foss Grieg Heikkila Isaksen Jokela Kivi""".split()
_PLACES = ("Port Ellis", "Carrow Sound", "the Vell delta", "Upper Mardale", "the Tollan coast", "Ostbury")

# Evidence sentences per predicate family: {a} subject, {b} object, {c} commodity phrase.
_SAY = {
    "ships": ("{a} began shipping {c} to {b} this season, a spokesperson said.",
              "{b} now sources its {c} from {a}, according to customs filings.",
              "Under a {n}-year agreement, {a} is the {c} provider for {b}."),
    "rivals": ("{a} and {b} are fighting over the same buyers in {place}.",
               "{b} has emerged as the main challenger to {a}.",
               "{a} is locked in a price war with {b}."),
    "bankrolled": ("{a} bankrolled the expansion of {b}.",
                   "{b} closed a financing round led by {a}.",
                   "Money from {a} paid for new warehouses at {b}."),
    "managed_by": ("{a} is managed by {b}.",
                   "{b} has been the managing director of {a} since {year}.",
                   "{b} runs day-to-day operations at {a}."),
    "advises": ("{a} also advises {b} on strategy.",
                "{b} has retained {a} as an adviser."),
    "took_over": ("{a} took over {b} in a share swap.",
                  "{b} was absorbed by {a} after months of talks.",
                  "{a} now owns {b} outright."),
    "co_develops_with": ("{a} and {b} are co-developing a new range of products.",
                         "{a} is working with {b} on a shared processing line."),
    "insures": ("{a} insures the warehouses of {b}.",
                "{b} renewed its cover with {a}."),
}
_HEADLINE = {"ships": "{C} trade: {a} and {b}", "rivals": "Competition in {place}",
             "bankrolled": "Financing: {b}", "managed_by": "People: {a}", "advises": "People: {a}",
             "took_over": "Deals: {a} and {b}", "co_develops_with": "Joint work: {a} and {b}",
             "insures": "Cover: {b}"}
_PLAIN = ("{a} posted a rise in quarterly volumes.", "{a} opened a second depot near {place}.",
          "Heavy rain delayed deliveries to {a} for a week.", "{a} is hiring forty seasonal workers.")
_TAILS = ("Terms were not made public.", "Trade in {place} has been brisk this year.",
          "The parties declined to comment.", "Market watchers expect prices to firm.")

_QUESTIONS = {
    "source_rival": "{x} gets its {w} from a single supplier. Which firm is that supplier's fiercest rival?",
    "source_backer": "Which financier put money into the business that provides {x} with {w}?",
    "source_manager": "Who is in charge of the outfit that {x} buys its {w} from?",
    "source_owner": "Which business ended up owning the {w} provider of {x}?",
    "manager_advises": "The person who manages {x} advises one other company on the side. Which one?",
}
#: Planted question kinds, in planting order.
QUESTION_KINDS = tuple(_QUESTIONS)
# Distractor families and how often each is drawn (None: market notes, no fact).
_DISTRACTOR_MIX = {"ships": 0.36, "rivals": 0.12, "bankrolled": 0.09, "managed_by": 0.07, "advises": 0.05,
                   "took_over": 0.05, "co_develops_with": 0.08, "insures": 0.08, None: 0.1}
_HOP2 = {"source_rival": "rivals", "source_backer": "bankrolled", "source_manager": "managed_by",
         "source_owner": "took_over"}


class _World:
    """The cast of one seed: makers (popular), suppliers, funds, insurers, people."""

    def __init__(self, seed: int):
        rng = random.Random(f"gaba-tradewire-world-{seed}")
        bases = [a + b for a in _SYL_A for b in _SYL_B]
        rng.shuffle(bases)
        self.makers = [f"{b} {rng.choice(_MAKER)}" for b in bases[:400]]
        self.funds = [f"{b} {rng.choice(_FUND)}" for b in bases[400:440]]
        self.insurers = [f"{b} {rng.choice(_INSURER)}" for b in bases[440:460]]
        self.suppliers = rng.sample([f"{b} {s}" for b in bases[460:] for s in _SUPPLIER], 3000)
        kinds = sorted(COMMODITIES)
        self.commodity = {s: kinds[i % len(kinds)] for i, s in enumerate(self.suppliers)}
        self.by_commodity: dict[str, list[str]] = defaultdict(list)
        for s in self.suppliers:
            self.by_commodity[self.commodity[s]].append(s)
        people = [f"{g} {f}" for g in _GIVEN for f in _FAMILY]
        rng.shuffle(people)
        self.people = people
        # popularity: makers steep (they become the hubs), everyone else flat
        self._makers = Pool(self.makers, (4.0 / (r + 4) for r in range(len(self.makers))))
        self._flat = {name: Pool(items, (1.0 / (r + 40) ** 0.3 for r in range(len(items))))
                      for name, items in (("suppliers", self.suppliers), ("people", self.people),
                                          ("funds", self.funds))}
        self.companies = self.makers + self.suppliers
        self.aliases = first_word_aliases(self.makers, self.companies + self.funds + self.insurers)

    def maker(self, rng):
        return self._makers.draw(rng)

    def pick(self, rng, pool: str):
        return self._flat[pool].draw(rng)


class _Writer:
    """Writes the documents and remembers what distractors may not touch."""

    def __init__(self, world: _World, seed: int):
        self.w = world
        self.seed = seed
        self.reserved: set[tuple] = set()
        self.manager: dict[str, str] = {}

    def _fact(self, rng, family, a, b, commodity=None) -> tuple[str, str, str, str]:
        c = COMMODITIES[commodity][1] if commodity else ""
        text = rng.choice(_SAY[family]).format(a=a, b=b, c=c, n=rng.randint(2, 6), place=rng.choice(_PLACES),
                                               year=rng.randint(2009, 2022))
        return (a, f"ships_{COMMODITIES[commodity][0]}_to" if family == "ships" else family, b, text)

    def _write(self, doc_id, rng, family, a, b, commodity=None) -> tuple[dict, list[Triple]]:
        """A document stating one fact (a hop of a chain, or a near miss)."""
        return self.doc(doc_id, [self._fact(rng, family, a, b, commodity)], rng)

    def doc(self, doc_id, facts, rng, *, plain_about=None) -> tuple[dict, list[Triple]]:
        place = rng.choice(_PLACES)
        if facts:
            a, rel, b, _ = facts[0]
            family = "ships" if rel.startswith("ships_") else rel
            c = rel.removeprefix("ships_").removesuffix("_to").replace("_", " ").capitalize()
            title = _HEADLINE[family].format(a=a, b=b, C=c, place=place)
        else:
            title = f"Market notes: {plain_about}"
        sentences = [f[3] for f in facts] or [rng.choice(_PLAIN).format(a=plain_about, place=place)]
        sentences.append(rng.choice(_TAILS).format(place=place))
        day = _dt.date(2019, 1, 1) + _dt.timedelta(days=rng.randrange(6 * 365))
        lead = f"{place.removeprefix('the ').upper()} \u2014 "
        doc = {"id": doc_id, "title": title, "date": day.isoformat(), "text": lead + " ".join(sentences)}
        return doc, [Triple(a, r, b, doc_id, ev) for a, r, b, ev in facts]

    def plant(self, n_questions: int):
        rng = random.Random(f"gaba-tradewire-questions-{self.seed}")
        w = self.w
        planted, nearby = [], []
        used: set[str] = set()                          # suppliers already in a planted chain
        pairs: set[tuple[str, str]] = set()
        people = iter(w.people[len(w.people) // 2:])   # planted people come from the quiet half
        hubs = w.makers[:20]
        while len(planted) < n_questions:
            kind = QUESTION_KINDS[len(planted) % len(QUESTION_KINDS)]
            x = hubs[rng.randrange(len(hubs))]
            if kind == "manager_advises":
                if ("managed_by", x) in self.reserved:
                    continue
                p, y = next(people), w.maker(rng)
                if y == x:
                    continue
                hops = [("managed_by", x, p, None), ("advises", p, y, None)]
                self.reserved |= {("managed_by", x), ("advises", p), ("person", p)}
                self.manager[x] = p
                answer, bridge = y, p
                question = _QUESTIONS[kind].format(x=x)
                # near miss: a partner of the start, managed by someone else
                z, p2 = rng.choice([s for s in w.suppliers if s not in used]), next(people)
                used.add(z)
                self.reserved |= {("managed_by", z), ("person", p2)}
                self.manager[z] = p2
                near = [("co_develops_with", x, z, None), ("managed_by", z, p2, None)]
            else:
                c, c2 = rng.sample(sorted(COMMODITIES), 2)
                if (x, c) in pairs or (x, c2) in pairs:
                    continue
                s = rng.choice([s for s in w.by_commodity[c] if s not in used])
                s2 = rng.choice([s for s in w.by_commodity[c2] if s not in used])
                used |= {s, s2}
                pairs |= {(x, c), (x, c2)}
                rel2 = _HOP2[kind]
                self.reserved |= {("ships", x, c), ("ships", x, c2), (rel2, s), (rel2, s2)}
                other, answer = self._second(kind, rng, s, x, people, used)
                other2, _ = self._second(kind, rng, s2, x, people, used)
                hops = [("ships", s, x, c), other]
                near = [("ships", s2, x, c2), other2]
                bridge = s
                question = _QUESTIONS[kind].format(x=x, w=COMMODITIES[c][1])
            q = dict(id=f"q{len(planted):03d}", question=question, answer=answer, start=x, bridge=bridge, kind=kind)
            planted.append(_chain("tw", self.seed, q, hops, self._write))
            nearby += near
        return planted, nearby

    def _second(self, kind, rng, s, x, people, used):
        """The second hop of a chain through supplier ``s``, and the answer it names."""
        w = self.w
        if kind == "source_rival":
            c = rng.choice([r for r in w.by_commodity[w.commodity[s]] if r not in used])
            used.add(c)
            self.reserved.add(("rivals", c))
            return (("rivals", c, s, None) if rng.random() < 0.5 else ("rivals", s, c, None)), c
        if kind == "source_backer":
            fund = rng.choice(w.funds)
            return ("bankrolled", fund, s, None), fund
        if kind == "source_manager":
            p = next(people)
            self.reserved.add(("person", p))
            self.manager[s] = p
            return ("managed_by", s, p, None), p
        owner = w.maker(rng)
        owner = owner if owner != x else w.makers[-1]
        return ("took_over", owner, s, None), owner

    def stream(self, nearby: list[tuple]) -> Iterator[tuple[dict, list[Triple]]]:
        """The near-miss documents first, then an endless deterministic stream of distractors."""
        for i, hop in enumerate(nearby):
            doc_id = f"tw-d{i:05d}"
            yield self._write(doc_id, random.Random(f"{self.seed}-{doc_id}"), *hop)
        rng = random.Random(f"gaba-tradewire-stream-{self.seed}")
        yield from _numbered("tw", lambda doc_id: self._distractor(rng, doc_id), start=len(nearby))

    def _distractor(self, rng, doc_id):
        r = random.Random(f"{self.seed}-{doc_id}-{rng.random()}")
        families, weights = list(_DISTRACTOR_MIX), list(_DISTRACTOR_MIX.values())
        facts = []
        for _ in range(2 if rng.random() < 0.15 else 1):       # some items are round-ups
            fact = self._draw(rng, rng.choices(families, weights=weights)[0], r)
            if fact is not None and all(f[:3] != fact[:3] for f in facts):
                facts.append(fact)
        if not facts and rng.random() < 0.6:
            return None
        return self.doc(doc_id, facts, r, plain_about=self.w.maker(rng))

    def _draw(self, rng, family, r):
        w, R = self.w, self.reserved
        if family is None:
            return None
        if family == "ships":
            s = w.pick(rng, "suppliers")
            x = w.maker(rng) if rng.random() < 0.8 else w.pick(rng, "suppliers")
            c = w.commodity[s]
            if x == s or ("ships", x, c) in R:
                return None
            return self._fact(r, "ships", s, x, c)
        if family in ("rivals", "co_develops_with"):
            if rng.random() < 0.5:
                a, b = w.maker(rng), rng.choice(w.makers)
            else:
                a = w.pick(rng, "suppliers")
                b = rng.choice(w.by_commodity[w.commodity[a]])
            if a == b or (family, a) in R or (family, b) in R:
                return None
            return self._fact(r, family, a, b)
        if family in ("bankrolled", "insures"):
            target = w.pick(rng, "suppliers") if rng.random() < 0.6 else w.maker(rng)
            if (family, target) in R:
                return None
            payer = w.pick(rng, "funds") if family == "bankrolled" else rng.choice(w.insurers)
            return self._fact(r, family, payer, target)
        if family == "took_over":
            target = rng.choice(w.companies)
            owner = w.maker(rng)
            if owner == target or ("took_over", target) in R:
                return None
            R.add(("took_over", target))                             # a company is bought once
            return self._fact(r, family, owner, target)
        p = w.pick(rng, "people")
        if ("person", p) in R:
            return None
        if family == "managed_by":
            company = w.pick(rng, "suppliers") if rng.random() < 0.5 else w.maker(rng)
            if company in self.manager or ("managed_by", company) in R:
                return None
            self.manager[company] = p
            return self._fact(r, family, company, p)
        target = rng.choice(w.companies)                             # advises
        if ("advises", p) in R:
            return None
        return self._fact(r, family, p, target)


def make_trade_corpus(n_docs: int, *, n_questions: int = 50, seed: int = 0) -> ScalingCorpus:
    """Generate ``n_docs`` documents of a commodity trade wire with planted two-hop questions.

    As :func:`gaba.data.synthetic.make_scaling_corpus`, with two near-miss documents per question.
    """
    _check_args(n_docs, n_questions, seed)
    world = _World(seed)
    writer = _Writer(world, seed)
    planted, nearby = writer.plant(n_questions)     # all of them: reservations do not depend on n_docs
    return _assemble(planted, writer.stream(nearby), n_docs, n_questions, world.aliases, seed)
