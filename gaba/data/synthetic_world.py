"""The cast of the scaling corpus: company names, sectors and products, people, popularity.

Used by :mod:`gaba.data.synthetic`. A :class:`World` follows from a seed; it shares no name with
the news corpus.

Examples
--------
>>> w = World(0)
>>> len(w.people), w.hubs[0].role
(3000, 'customer')
"""
from __future__ import annotations

import dataclasses
import itertools
import random
from collections import Counter, defaultdict

__all__ = ["World", "Company", "SUPPLIER_SECTORS"]

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


@dataclasses.dataclass
class Company:
    """A company of the world: its sector, its role and its popularity weight."""

    name: str
    sector: str
    role: str          # "supplier", "customer" or "investor"
    weight: float


class _Pool:
    """Items with fixed weights, drawn with precomputed cumulative weights (fast for big pools)."""

    def __init__(self, items: list, weights: list[float]):
        self.items = items
        self.cum = list(itertools.accumulate(weights))

    def draw(self, rng: random.Random):
        return rng.choices(self.items, cum_weights=self.cum, k=1)[0]


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
        # Popularity: customers follow a steep Zipf law (they become the hubs), suppliers and
        # investors a flat one (a hub's neighbours are ordinary companies).
        rank: dict[str, int] = defaultdict(int)
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
        self.person_weight = [1.0 / (r + 50) ** 0.5 for r in range(len(self.people))]
        # aliases: the first word of the name, when only one company uses it
        count = Counter(c.name.split(" ", 1)[0] for c in companies)
        self.aliases = {c.name: [c.name.split(" ", 1)[0]] for c in companies
                        if count[c.name.split(" ", 1)[0]] == 1}
        self.hubs = sorted(self.by_role["customer"], key=lambda c: -c.weight)
        self._pools: dict[tuple, _Pool] = {}

    def company(self, rng: random.Random, role: str | None = None, sector: str | None = None) -> Company:
        key = ("sector", sector) if sector else ("role", role)
        if key not in self._pools:
            items = (self.by_sector[sector] if sector else
                     self.by_role[role] if role else self.companies)
            self._pools[key] = _Pool(items, [c.weight for c in items])
        return self._pools[key].draw(rng)

    def person(self, rng: random.Random) -> str:
        if ("people", None) not in self._pools:
            self._pools[("people", None)] = _Pool(self.people, self.person_weight)
        return self._pools[("people", None)].draw(rng)

    def fresh_person(self, rng: random.Random, taken: set[str]) -> str:
        """A person not in ``taken`` (added to it), from the unpopular half: few other facts."""
        tail = self.people[len(self.people) // 2:]
        while True:
            p = rng.choice(tail)
            if p not in taken:
                taken.add(p)
                return p
