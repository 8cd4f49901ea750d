"""The family graph of the great houses of a fantasy saga (chapter *Multi-hop queries in a graph
database*), and a generator of larger genealogies. Parent relations point from the parent;
symmetric relations (``SIBLING_OF``, ...) are stored once (traverse with ``direction="both"``)."""
from __future__ import annotations

import csv
import random
from dataclasses import dataclass
from pathlib import Path

import networkx as nx

from ..config import ASSETS

#: Folder of the family graph's files.
WESTEROS_DIR = ASSETS / "data" / "westeros"


@dataclass(frozen=True)
class Relation:
    """One relation type of the family graph."""

    name: str          # the edge type, as stored in NetworkX and in FalkorDB
    symmetric: bool    # stored once; means the same read in either direction
    phrase: str        # "source <phrase> target" is an English sentence
    kind: str          # "kin" (blood and marriage), "bond" (fostering, love, betrothal), "weak"
    weight: float      # in gaba.paths.score_path: family ties near 1, weak ties 0.1


#: The relation vocabulary, kin first.
RELATIONS: dict[str, Relation] = {r.name: r for r in [
    Relation("FATHER_OF", False, "is the father of", "kin", 1.0),
    Relation("MOTHER_OF", False, "is the mother of", "kin", 1.0),
    Relation("SIBLING_OF", True, "is a sibling of", "kin", 0.8),
    Relation("MARRIED_TO", True, "married", "kin", 0.9),
    Relation("LOVER_OF", True, "was the lover of", "bond", 0.7),
    Relation("FOSTERED", False, "raised as a foster child", "bond", 0.6),
    Relation("BETROTHED_TO", True, "was betrothed to", "bond", 0.5),
    Relation("SERVED", False, "served", "weak", 0.1),
    Relation("WORKED_WITH", True, "worked alongside", "weak", 0.1),
    Relation("MET_ONCE", True, "met once", "weak", 0.1),
]}

_SYMMETRIC = frozenset(r.name for r in RELATIONS.values() if r.symmetric)

#: Relations that lead from a parent to a child (walk them backwards for ancestors).
PARENT_RELATIONS = ("FATHER_OF", "MOTHER_OF")

#: Weight of each relation type in :func:`gaba.paths.score_path` (family ties near 1, weak ties 0.1).
EDGE_WEIGHTS: dict[str, float] = {r.name: r.weight for r in RELATIONS.values()}


def is_symmetric(rel: str) -> bool:
    """True for a relation stored once that reads the same both ways (``SIBLING_OF``, ...)."""
    return rel in _SYMMETRIC


def load_westeros(path: str | Path | None = None):
    """Load the family graph of the great houses as a :class:`networkx.MultiDiGraph`.

    ``path``: a folder with ``characters.csv`` and ``relations.csv`` (default: the book's). Nodes
    carry ``house``, ``gender``, ``role``, ``aliases``. Raises FileNotFoundError or ValueError.

    >>> G = load_westeros()
    >>> [u for u, _, r in G.in_edges("Jon Snow", data="relation") if r == "FATHER_OF"]
    ['Rhaegar Targaryen']
    """
    folder = Path(path) if path is not None else WESTEROS_DIR
    chars, rels = folder / "characters.csv", folder / "relations.csv"
    for f in (chars, rels):
        if not f.is_file():
            raise FileNotFoundError(f"{f} is missing; a family graph folder needs characters.csv and "
                                    "relations.csv (see assets/data/westeros/README.md).")
    people: dict[str, dict] = {}
    with open(chars, newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            name = row["name"].strip()
            if name in people:
                raise ValueError(f"{chars.name}: {name!r} appears twice.")
            people[name] = dict(name=name, house=row["house"], gender=row["gender"], role=row["role"],
                                aliases=[a.strip() for a in (row.get("aliases") or "").split(";") if a.strip()])
    edges: dict[tuple[str, str, str], None] = {}
    with open(rels, newline="", encoding="utf-8") as fh:
        for lineno, row in enumerate(csv.DictReader(fh), start=2):
            s, r, t = row["source"].strip(), row["relation"].strip(), row["target"].strip()
            for n in (s, t):
                if n not in people:
                    raise ValueError(f"{rels.name} line {lineno}: {n!r} is not in {chars.name}.")
            if r not in RELATIONS:
                raise ValueError(f"{rels.name} line {lineno}: unknown relation {r!r}; "
                                 f"known: {', '.join(RELATIONS)}.")
            if (s, r, t) in edges or (RELATIONS[r].symmetric and (t, r, s) in edges):
                raise ValueError(f"{rels.name} line {lineno}: {s} {r} {t} is listed twice.")
            edges[(s, r, t)] = None
    return _family_graph("westeros", people.values(), edges)


def _family_graph(name: str, nodes, edges):
    """A :class:`networkx.MultiDiGraph` of node dicts (keyed by ``name``) and ``(source, relation, target)`` edges."""
    G = nx.MultiDiGraph(name=name, symmetric=_SYMMETRIC, edge_weights=dict(EDGE_WEIGHTS))
    G.add_nodes_from((n["name"], n) for n in nodes)
    G.add_edges_from((s, t, r, {"relation": r}) for s, r, t in edges)
    return G


# --- synthetic genealogies -------------------------------------------------------------------

_SURNAMES = ["Ashford", "Blackmont", "Brightwater", "Caron", "Dustin", "Errol", "Fell", "Grandison",
             "Harte", "Hornwood", "Jordayne", "Kenning", "Lefford", "Mallister", "Norcross", "Oakheart",
             "Piper", "Qorgyle", "Rowan", "Selmy", "Toland", "Uller", "Vance", "Wode", "Yronwood"]


def genealogy_records(n_people: int | None = None, *, n_edges: int | None = None, seed: int = 0,
                      weak_ties: float = 0.5) -> tuple[list[dict], list[tuple[str, str, str]]]:
    """Generate a synthetic genealogy as plain records: node dicts and ``(source, relation, target)``.

    Give exactly one of ``n_people`` and ``n_edges`` (2.3 to 4 edges per person, more in larger
    graphs); ``weak_ties``: expected ``SERVED``/``MET_ONCE`` ties per person.
    """
    if (n_people is None) == (n_edges is None):
        raise ValueError("give exactly one of n_people and n_edges.")
    target = n_people if n_people is not None else n_edges
    if not isinstance(target, int) or isinstance(target, bool) or not 10 <= target <= 10_000_000:
        raise ValueError(f"the size must be an integer between 10 and 10,000,000, not {target!r}.")
    if not 0 <= weak_ties <= 5:
        raise ValueError(f"weak_ties={weak_ties!r} must be between 0 and 5.")
    rng = random.Random(seed)
    n_houses = max(4, (n_people or n_edges // 4) // 120)
    houses = [f"{_SURNAMES[i % len(_SURNAMES)]}{'' if i < len(_SURNAMES) else f' {i // len(_SURNAMES)}'}"
              for i in range(n_houses)]
    nodes: list[dict] = []
    edges: list[tuple[str, str, str]] = []

    def full() -> bool:
        return len(nodes) >= n_people if n_people is not None else len(edges) >= n_edges

    def person(house: str, gender: str, generation: int) -> str:
        name = f"Person {len(nodes)} {house}"
        nodes.append({"name": name, "house": house, "gender": gender, "generation": generation})
        return name

    def tie(a: str, rel: str, b: str) -> None:      # symmetric: stored from the first name
        edges.append((min(a, b), rel, max(a, b)))

    def marry(m: str, f: str, house: str) -> None:  # the children take the husband's house
        tie(m, "MARRIED_TO", f)
        couples.append((m, f, house))

    couples: list[tuple[str, str, str]] = []          # (husband, wife, house of the children)
    for h in houses:                                  # generation 0: one founding couple per house
        if full():
            break
        marry(person(h, "male", 0), person(h, "female", 0), h)
    generation = 0
    older: list[str] = [n["name"] for n in nodes]
    while not full():
        generation += 1
        men: list[tuple[str, str]] = []
        women: list[tuple[str, str]] = []
        for father, mother, house in couples:
            if full():
                break
            kids = []
            for _ in range(rng.choice((1, 2, 2, 3, 3, 4, 5))):
                if full():
                    break
                g = rng.choice(("male", "female"))
                k = person(house, g, generation)
                edges.append((father, "FATHER_OF", k))
                edges.append((mother, "MOTHER_OF", k))
                for sib in kids:
                    tie(sib, "SIBLING_OF", k)
                kids.append(k)
                (men if g == "male" else women).append((k, house))
                for _ in range(int(weak_ties) + (rng.random() < weak_ties % 1)):
                    if rng.random() < 0.6 and older:
                        edges.append((k, "SERVED", rng.choice(older)))
                    else:
                        other = nodes[rng.randrange(len(nodes))]["name"]
                        if other != k:
                            tie(k, "MET_ONCE", other)
        if full():
            break
        rng.shuffle(men)
        rng.shuffle(women)
        couples = []
        for (m, mh), (f, fh) in zip(men, women):
            if mh != fh and rng.random() <= 0.85:
                marry(m, f, mh)
        if not couples:          # a dead end (tiny sizes): found a new couple
            mh, fh = rng.choice(houses), rng.choice(houses)
            marry(person(mh, "male", generation), person(fh, "female", generation), mh)
        older = [k for k, _ in men + women] or older
    unique = list(dict.fromkeys(edges))  # weak ties may repeat by chance
    if n_edges is not None:
        unique = unique[:n_edges]
        names = {s for s, _, _ in unique} | {t for _, _, t in unique}
        nodes = [n for n in nodes if n["name"] in names]
    return nodes, unique


def synthetic_genealogy(n_people: int | None = None, *, n_edges: int | None = None, seed: int = 0,
                        weak_ties: float = 0.5):
    """Grow a synthetic genealogy (:func:`genealogy_records`) as a :class:`networkx.MultiDiGraph`.

    >>> synthetic_genealogy(n_edges=1000, seed=0).number_of_edges()
    1000
    """
    nodes, edges = genealogy_records(n_people, n_edges=n_edges, seed=seed, weak_ties=weak_ties)
    return _family_graph(f"genealogy-{n_people if n_people is not None else f'{n_edges}e'}-{seed}", nodes, edges)
