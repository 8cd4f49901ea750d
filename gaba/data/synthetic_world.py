"""The company news's cast and wording for :mod:`gaba.data.synthetic` and
:mod:`gaba.data.tradewire`: names, sectors, people, popularity, templates and fillers. A
:class:`World` follows from a seed and shares no name with the news corpus."""
from __future__ import annotations

import dataclasses
import datetime as _dt
import itertools
import random
from collections import Counter, defaultdict

from .triple import Triple

__all__ = ["World", "Company", "SUPPLIER_SECTORS", "Pool", "first_word_aliases", "write_document",
           "possessive"]

# Company names are "<first part><second part> <sector suffix>", e.g. "Alderbrook Motors".
_NAME_FIRST = """Alder Amber Ash Bell Birch Black Bramble Bright Brook Calder Cedar Clear Cobalt
Cold Copper Coral Crest Cypress Dawn Deep Drift Dun East Elm Ember Fair Fern Flint Fox Frost
Gale Garnet Glen Gold Grey Hart Haw Heron High Holly Iron Ivy Jasper Lark Linden Maple Marsh
Mill Moss North Oak Onyx Pine Quarry Raven Red Ridge River Rock Rowan Sable Sand Shale Silver
Slate Sparrow Star Stone Sun Thorn Timber Tern West Willow Wind Wren Yarrow""".split()
_NAME_SECOND = """brook field gate haven hill holt mere moor ridge stead wick wood ford line mark
port vale well worth crest dale fen shore""".split()
# How many name prefixes the world uses (each names 1 to 4 companies).
_N_PREFIXES = 1200

#: Supplier sector -> (name suffixes, product phrase used in text, product word used in questions).
SUPPLIER_SECTORS = {
    "battery": (("Cell Works", "Energy Storage", "Battery Systems"), "battery cells", "battery cell"),
    "chips": (("Semiconductors", "Microsystems", "Silicon"), "chips", "chip"),
    "sensors": (("Sensing", "Instruments"), "sensors", "sensor"),
    "software": (("Software", "Analytics"), "fleet software", "software"),
    "steel": (("Metals", "Alloys", "Steelworks"), "steel", "steel"),
    "tyres": (("Tyre Company", "Rubber Works"), "tyres", "tyre"),
    "glass": (("Glassworks", "Optics"), "optical glass", "glass"),
    "logistics": (("Logistics", "Freight"), "freight services", "freight"),
    "displays": (("Displays", "Screens"), "display panels", "display"),
}
_CUSTOMER_SECTORS = {
    "vehicles": ("Motors", "Mobility", "Automotive"),
    "robots": ("Robotics", "Automation"),
    "grid": ("Grid", "Power"),
    "aero": ("Aerospace", "Aviation"),
    "retail": ("Retail Group", "Foods"),
}
_INVESTOR_SUFFIXES = ("Capital", "Ventures", "Partners", "Holdings")

_FIRST = """Ada Bram Celia Darius Elena Farid Greta Hugo Ines Jonah Kira Lars Mina Nikolai Odette
Pavel Quinn Rosa Soren Talia Umar Vera Wendell Xenia Yusuf Zara Amara Bastian Cyrus Delphine
Emil Fiona Gideon Hana Ivo Johanna Kofi Lena Marek Nadia Otto Priya Rafael Sana Tobias Una Viktor
Wilma Yara Anders Beatrix Caspar Dalia Ezra Freya Goran Helka Isak Jorun""".split()
_LAST = """Abernathy Brandt Castellan Draper Eriksen Falk Grell Haddad Ilves Jansen Kowal Lindqvist
Moreau Nakamura Okonjo Pereira Quist Rahimi Sandoval Thorne Ueda Varga Whitcombe Xu Yilmaz Zelenko
Achterberg Bisset Carrow Delacroix Eklund Fenwick Garrido Holloway Ibarra Jovanovic Kessler Lomax
Mbeki Norberg Ostrowski Pham Quiroga Renner Stavros Tamura Ulloa Vasquez Wolcott Yardeni Zubiri
Arden Bexley Corrigan Dunleavy Estrada""".split()

_REGIONS = ("the north", "the coastal region", "the river valley", "the capital", "the east",
            "the southern corridor", "the lake district", "the western plains")

_FILLERS = (
    "Financial terms were not disclosed.",
    "The agreement runs for {years} years.",
    "Shares of {a} rose {pct} percent on the news.",
    "Analysts said the move strengthens {a_s} position in {region}.",
    "The announcement came at an industry conference in {region}.",
    "{a} said more details would follow in its next quarterly report.",
    "The companies did not comment further.",
    "Industry observers called the step overdue.",
)

# Templates: (title, fact sentence). {a} is the subject, {b} the object, {p} a product phrase.
_TEMPLATES: dict[str, tuple[tuple[str, str], ...]] = {
    "SUPPLIES_TO": (
        ("{a} wins {p} contract from {b}", "{a} will supply {p} to {b} under a new contract."),
        ("{b} picks {a} for {p}", "{b} has chosen {a} as its supplier of {p}."),
        ("{a} to ship {p} to {b}", "{a} signed a deal to deliver {p} to {b} from next quarter."),
    ),
    "COMPETES_WITH": (
        ("{a} takes on {b}", "{a} competes with {b} for the same customers."),
        ("Rivalry heats up between {a} and {b}", "{a} and {b} are now direct rivals in {region}."),
        ("{a} undercuts {b} on price", "{a} cut its prices to win business from its competitor {b}."),
    ),
    "INVESTS_IN": (
        ("{a} leads funding round in {b}", "{a} led a new funding round in {b}."),
        ("{b} raises money from {a}", "{b} raised fresh capital from {a}."),
        ("{a} takes a stake in {b}", "{a} bought a minority stake in {b}."),
    ),
    "BOARD_MEMBER_OF": (
        ("{a} joins the board of {b}", "{a} has joined the board of directors of {b}."),
        ("{b} adds {a} to its board", "{b} appointed {a} to its board."),
    ),
    "CEO_OF": (
        ("{b} names {a} chief executive", "{b} named {a} as its chief executive officer."),
        ("{a} to lead {b}", "{a} takes over as CEO of {b} next month."),
    ),
    "ACQUIRED": (
        ("{a} acquires {b}", "{a} has acquired {b} in an all-cash deal."),
        ("{a} buys {b}", "{a} completed its purchase of {b}."),
    ),
    "PARTNERS_WITH": (
        ("{a} and {b} form partnership", "{a} formed a research partnership with {b}."),
        ("{a} teams up with {b}", "{a} and {b} agreed to develop products together."),
    ),
    "FOUNDED": (
        ("Profile: the founder of {b}", "{a} founded {b} a decade ago."),
        ("{a} recalls starting {b}", "{a}, who founded {b}, spoke about its early years."),
    ),
}
_PLAIN_NEWS = (
    ("{a} reports record quarter", "{a} reported record revenue for the quarter."),
    ("{a} opens new plant", "{a} opened a new plant in {region}."),
    ("{a} cuts jobs", "{a} announced it will cut two hundred jobs."),
    ("{a} unveils new product line", "{a} unveiled a new product line at its annual event."),
)


def possessive(name: str) -> str:
    """``"Kestrel Motors"`` -> ``"Kestrel Motors'"``, ``"Alderbrook"`` -> ``"Alderbrook's"``."""
    return name + ("'" if name.endswith("s") else "'s")


def write_document(doc_id: str, rng: random.Random, relation: str | None, a: str, b: str,
                   product: str = "", extra: list[tuple[str, str, str, str]] | None = None
                   ) -> tuple[dict, list[Triple]]:
    """A news item stating ``a -[relation]-> b`` (news about ``a`` if no relation), and its triples.

    >>> import random
    >>> doc, triples = write_document("d1", random.Random(0), "ACQUIRED", "Alderbrook", "Fenwick")
    >>> triples[0].as_tuple()
    ('Alderbrook', 'ACQUIRED', 'Fenwick')
    """
    region = rng.choice(_REGIONS)
    title, sent = rng.choice(_TEMPLATES[relation] if relation else _PLAIN_NEWS)
    title, sent = title.format(a=a, b=b, p=product), sent.format(a=a, b=b, p=product, region=region)
    facts = ([(relation, a, b, sent)] if relation else []) + (extra or [])
    company = b if relation in ("CEO_OF", "BOARD_MEMBER_OF", "FOUNDED") else a
    filler = rng.choice(_FILLERS).format(a=company, a_s=possessive(company), years=rng.randint(2, 7),
                                         pct=rng.randint(2, 14), region=rng.choice(_REGIONS))
    day = _dt.date(2021, 1, 1) + _dt.timedelta(days=rng.randrange(5 * 365))
    doc = {"id": doc_id, "title": title[0].upper() + title[1:], "date": day.isoformat(),
           "text": " ".join([sent] + [f[3] for f in extra or []] + [filler])}
    return doc, [Triple(s, r, o, doc_id, ev) for r, s, o, ev in facts]


@dataclasses.dataclass
class Company:
    """A company of the world: its sector, its role and its popularity weight."""

    name: str
    sector: str
    role: str          # "supplier", "customer" or "investor"
    weight: float


class Pool:
    """Items with fixed popularity weights, drawn with precomputed cumulative weights (fast for big pools)."""

    def __init__(self, items: list, weights):
        self.items = items
        self.cum = list(itertools.accumulate(weights))

    def draw(self, rng: random.Random):
        return rng.choices(self.items, cum_weights=self.cum)[0]


def first_word_aliases(names: list[str], among: list[str] | None = None) -> dict[str, list[str]]:
    """``{name: [its first word]}`` for the names whose first word starts no other name of ``among``."""
    count = Counter(n.split()[0] for n in (names if among is None else among))
    return {n: [n.split()[0]] for n in names if count[n.split()[0]] == 1}


class World:
    """The fixed cast of a seed: companies, people, aliases, popularity weights."""

    def __init__(self, seed: int):
        rng = random.Random(f"gaba-synthetic-world-{seed}")
        prefixes = [f + s for f in _NAME_FIRST for s in _NAME_SECOND]
        rng.shuffle(prefixes)
        options = ([("supplier", s, suf) for s, (sufs, _, _) in SUPPLIER_SECTORS.items() for suf in sufs]
                   + [("customer", s, suf) for s, sufs in _CUSTOMER_SECTORS.items() for suf in sufs]
                   + [("investor", "investor", suf) for suf in _INVESTOR_SUFFIXES])
        companies: list[Company] = []
        for prefix in prefixes[:_N_PREFIXES]:
            # each prefix names 1 to 4 companies, in distinct sectors
            want = rng.randint(1, 4)
            seen_sectors: set[str] = set()
            for role, sector, suf in rng.sample(options, len(options)):
                if sector not in seen_sectors:
                    seen_sectors.add(sector)
                    companies.append(Company(f"{prefix} {suf}", sector, role, 0.0))
                    if len(seen_sectors) == want:
                        break
        rng.shuffle(companies)
        # Popularity: customers follow a steep Zipf law (the hubs), suppliers and investors a flat one.
        rank: Counter = Counter()
        for c in companies:
            r = rank[c.role]
            rank[c.role] += 1
            c.weight = (4.0 / (r + 4) ** 1.0) if c.role == "customer" else 0.35 / (r + 30) ** 0.3
        self.companies = companies
        self.by_role: dict[str, list[Company]] = defaultdict(list)
        self.by_sector: dict[str, list[Company]] = defaultdict(list)
        for c in companies:
            self.by_role[c.role].append(c)
            self.by_sector[c.sector].append(c)
        people = [f"{f} {l}" for f in _FIRST for l in _LAST]
        rng.shuffle(people)
        self.people = people[:3000]
        self._people = Pool(self.people, (1.0 / (r + 50) ** 0.5 for r in range(len(self.people))))
        self._pools = {key: Pool(items, [c.weight for c in items]) for key, items in
                       [((None, None), companies)] + [((r, None), cs) for r, cs in self.by_role.items()]
                       + [((None, s), cs) for s, cs in self.by_sector.items()]}
        self.aliases = first_word_aliases([c.name for c in companies])
        self.hubs = sorted(self.by_role["customer"], key=lambda c: -c.weight)

    def company(self, rng: random.Random, role: str | None = None, sector: str | None = None) -> Company:
        """A company drawn by popularity, from one ``sector`` or else one ``role`` (or any)."""
        return self._pools[(None, sector) if sector else (role, None)].draw(rng)

    def person(self, rng: random.Random) -> str:
        return self._people.draw(rng)

    def fresh_person(self, rng: random.Random, taken: set[str]) -> str:
        """A person not in ``taken`` (added to it), from the unpopular half: few other facts."""
        tail = self.people[len(self.people) // 2:]
        while True:
            p = rng.choice(tail)
            if p not in taken:
                taken.add(p)
                return p
