"""Write the fictional samples of HotpotQA, 2WikiMultihopQA and MuSiQue in this folder.

Run ``python assets/data/benchmark_samples/make_samples.py`` from the repository root. Templates
about a world that does not exist, a fixed seed and no model call; the files it writes are
committed, and :func:`gaba.data.benchmarks.load_sample` reads them. It lives beside its output, not
in ``gaba``, because only this folder's files need it (tests/test_benchmarks_data.py checks that a
fresh run writes the committed bytes).
"""
from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from pathlib import Path

from gaba.data.benchmarks import SAMPLE_DIR, SAMPLE_FILES, SAMPLE_TRIPLES_FILE

_FIRST = ["Ilse", "Bastian", "Odile", "Teodor", "Marit", "Casimir", "Leontine", "Ansel", "Noor",
          "Emeric", "Saskia", "Lorcan", "Fenna", "Dorian", "Agathe", "Jurre", "Mirela", "Osric",
          "Valda", "Tobiah", "Ysolde", "Piers", "Katrin", "Remy"]
_SURNAME_A = ["Vel", "Harn", "Ost", "Brem", "Kall", "Dun", "Sar", "Wend", "Mor", "Tess", "Quill",
              "Rav", "Fenw", "Lom", "Gard", "Ehr"]
_SURNAME_B = ["ander", "sky", "enko", "ová", "rick", "ens", "holm", "etti", "ard", "ovic", "berg"]
_TOWN_A = ["Ast", "Brem", "Cor", "Dal", "Elm", "Fal", "Gor", "Hav", "Isk", "Jor", "Kel", "Lund",
           "Mar", "Nor", "Ost", "Pell", "Quar", "Ros", "Sel", "Tarn", "Ulv", "Varn", "Wes", "Yar"]
_TOWN_B = ["holt", "mere", "bridge", "ford", "wick", "stead", "by", "haven", "moor", "dale"]
_PROVINCES = ["Kessary", "Lower Vantmark", "Ostrelia Coast", "Brannoch", "Highmere Reach",
              "Duvain"]
_ADJ = ["Silent", "Copper", "Hollow", "Last", "Northern", "Paper", "Winter", "Crimson", "Quiet",
        "Broken", "Glass", "Distant", "Salt", "Iron", "Lantern", "Amber"]
_NOUN = ["Harbour", "Ferry", "Garden", "Archive", "Comet", "Bell", "Compass", "Lighthouse",
         "Violin", "Frontier", "Tide", "Mirror", "Orbit", "Meadow", "Signal", "Quarry"]
_STUDIO_A = ["Lumen", "Bright", "Halcyon", "Kettle", "Ninefold", "Saffron", "Tallow", "Wren"]
_STUDIO_B = ["Pictures", "Film Works", "Studios", "Motion Company"]
_GENRES = ["drama", "comedy", "thriller", "musical", "documentary", "western"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]
_OCCUPATIONS = ["film director", "novelist", "architect", "composer", "painter"]


def _unique(make, n: int, taken: set[str]) -> list[str]:
    """``n`` names from ``make()`` that are not in ``taken`` (added to it)."""
    out = []
    while len(out) < n:
        name = make()
        if name not in taken:
            taken.add(name)
            out.append(name)
    return out


def _world(seed: int) -> dict:
    """A fictional world: towns, people, studios and films, with their attributes."""
    rng = random.Random(seed)
    taken: set[str] = set()
    towns = _unique(lambda: rng.choice(_TOWN_A) + rng.choice(_TOWN_B), 24, taken)
    people = _unique(lambda: f"{rng.choice(_FIRST)} {rng.choice(_SURNAME_A)}{rng.choice(_SURNAME_B)}",
                     40, taken)
    studios = _unique(lambda: f"{rng.choice(_STUDIO_A)} {rng.choice(_STUDIO_B)}", 8, taken)
    films = _unique(lambda: rng.choice([f"The {rng.choice(_ADJ)} {rng.choice(_NOUN)}",
                                        f"{rng.choice(_NOUN)} of {rng.choice(towns)}"]),
                    36, taken)
    entities: dict[str, dict] = {}
    for t in towns:
        entities[t] = {"type": "town", "province": rng.choice(_PROVINCES),
                       "population": rng.randrange(2, 90) * 1000 + rng.randrange(0, 1000, 10)}
    directors = people[:24]
    for i, p in enumerate(people):
        year = rng.randrange(1901, 1976)
        entities[p] = {"type": "person", "birthplace": rng.choice(towns),
                       "born": f"{rng.randrange(1, 29)} {rng.choice(_MONTHS)} {year}", "year": year,
                       "occupation": "film director" if p in directors else rng.choice(_OCCUPATIONS[1:])}
    for s in studios:
        entities[s] = {"type": "studio", "hq": rng.choice(towns), "founder": rng.choice(people[24:]),
                       "founded": rng.randrange(1920, 1990)}
    for f in films:
        d = rng.choice(directors)
        year = max(entities[d]["year"] + 22, rng.randrange(1935, 2015))
        entities[f] = {"type": "film", "director": d, "year": min(year, 2019),
                       "studio": rng.choice(studios), "genre": rng.choice(_GENRES)}
    return {"towns": towns, "people": people, "directors": directors, "studios": studios,
            "films": films, "e": entities}


def _paragraph(name: str, w: dict) -> tuple[list[str], list[tuple[str, str, str, int]]]:
    """Sentences about one entity and the triples they state (with the sentence index)."""
    e = w["e"][name]
    if e["type"] == "town":
        return ([f"{name} is a town in the province of {e['province']}.",
                 f"At the last census it had {e['population']:,} inhabitants."],
                [(name, "located in the administrative territorial entity", e["province"], 0)])
    if e["type"] == "person":
        return ([f"{name} (born {e['born']} in {e['birthplace']}) is {_a(e['occupation'])} {e['occupation']}.",
                 f"{name.split()[0]} began working in {e['year'] + _stable_offset(name)}."],
                [(name, "place of birth", e["birthplace"], 0), (name, "date of birth", e["born"], 0),
                 (name, "occupation", e["occupation"], 0)])
    if e["type"] == "studio":
        return ([f"{name} is a film production company based in {e['hq']}.",
                 f"It was founded by {e['founder']} in {e['founded']}."],
                [(name, "headquarters location", e["hq"], 0), (name, "founded by", e["founder"], 1)])
    return ([f"{name} is a {e['year']} {e['genre']} film directed by {e['director']}.",
             f"It was produced by {e['studio']}."],
            [(name, "director", e["director"], 0), (name, "publication date", str(e["year"]), 0),
             (name, "production company", e["studio"], 1)])


def _a(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def _stable_offset(name: str) -> int:
    """A small number from a name's hash (keeps paragraphs independent of call order)."""
    return 18 + int(hashlib.sha256(name.encode()).hexdigest(), 16) % 9


def _examples(w: dict, n: int, seed: int, *, kinds: Sequence[str]) -> list[dict]:
    """Question records with their gold entities; the format writers add context and ids."""
    rng = random.Random(seed + 1)
    e = w["e"]
    out = []
    films = list(w["films"])
    while len(out) < n:
        kind = kinds[len(out) % len(kinds)]
        f1, f2 = rng.sample(films, 2)
        d1, d2 = e[f1]["director"], e[f2]["director"]
        if kind == "compositional":
            town = e[d1]["birthplace"]
            out.append({"type": kind, "question": f"Where was the director of film {f1} born?",
                        "answer": town, "gold": [f1, d1],
                        "evidences": [[f1, "director", d1], [d1, "place of birth", town]],
                        "steps": [(f"{f1} >> director", d1, f1), ("#1 >> place of birth", town, d1)]})
        elif kind == "three-hop":
            town = e[d1]["birthplace"]
            prov = e[town]["province"]
            out.append({"type": kind,
                        "question": f"In which province was the director of {f1} born?",
                        "answer": prov, "gold": [f1, d1, town],
                        "evidences": [[f1, "director", d1], [d1, "place of birth", town],
                                      [town, "located in the administrative territorial entity", prov]],
                        "steps": [(f"{f1} >> director", d1, f1), ("#1 >> place of birth", town, d1),
                                  ("#2 >> located in the administrative territorial entity", prov, town)]})
        elif kind == "studio":
            studio = e[f1]["studio"]
            hq = e[studio]["hq"]
            out.append({"type": "compositional",
                        "question": f"In which town is the company that produced {f1} based?",
                        "answer": hq, "gold": [f1, studio],
                        "evidences": [[f1, "production company", studio],
                                      [studio, "headquarters location", hq]],
                        "steps": [(f"{f1} >> production company", studio, f1),
                                  ("#1 >> headquarters location", hq, studio)]})
        elif kind == "comparison":
            y1, y2 = e[f1]["year"], e[f2]["year"]
            if y1 == y2:
                continue
            out.append({"type": kind, "question": f"Which film came out first, {f1} or {f2}?",
                        "answer": f1 if y1 < y2 else f2, "gold": [f1, f2],
                        "evidences": [[f1, "publication date", str(y1)],
                                      [f2, "publication date", str(y2)]], "steps": None})
        elif kind == "bridge_comparison":
            if d1 == d2 or e[d1]["born"] == e[d2]["born"]:
                continue
            older = f1 if _birth(e[d1]) < _birth(e[d2]) else f2
            out.append({"type": kind,
                        "question": f"Which film has the director born earlier, {f1} or {f2}?",
                        "answer": older, "gold": [f1, f2, d1, d2],
                        "evidences": [[f1, "director", d1], [f2, "director", d2],
                                      [d1, "date of birth", e[d1]["born"]],
                                      [d2, "date of birth", e[d2]["born"]]], "steps": None})
        else:  # pragma: no cover - internal
            raise ValueError(kind)
    return out


def _birth(person: dict) -> tuple[int, int, int]:
    """(year, month, day) of a person's birth, for comparing dates."""
    day, month, _ = person["born"].split()
    return person["year"], _MONTHS.index(month), int(day)


def _distractors(w: dict, gold: Sequence[str], k: int, rng: random.Random) -> list[str]:
    """Distractor entities of the same types as the gold ones (like the benchmarks' hard distractors)."""
    types = {w["e"][g]["type"] for g in gold}
    pool = sorted(n for n, v in w["e"].items() if v["type"] in types and n not in gold)
    return rng.sample(pool, k)


def make_benchmark_sample(dataset: str, n: int = 30, *, seed: int = 0) -> list[dict]:
    """``n`` fictional records of ``dataset`` (``hotpotqa``, ``2wiki`` or ``musique``), in its format.

    Each paragraph states the facts of one entity; template questions over them are 2-hop
    compositional, 3-hop, comparison and bridge-comparison.

    Examples
    --------
    >>> recs = make_benchmark_sample("2wiki", 4)
    >>> sorted(recs[0])
    ['_id', 'answer', 'context', 'evidences', 'question', 'supporting_facts', 'type']
    >>> make_benchmark_sample("2wiki", 4) == recs
    True
    """
    if dataset not in SAMPLE_FILES:
        raise ValueError(f"dataset must be one of {sorted(SAMPLE_FILES)}, not {dataset!r}")
    if int(n) != n or n < 1:
        raise ValueError(f"n must be a positive integer, got {n!r}")
    w = _world(seed)
    rng = random.Random(seed + 2)
    if dataset == "musique":
        kinds = ["compositional", "three-hop", "studio", "compositional", "three-hop"]
    else:
        kinds = ["compositional", "comparison", "bridge_comparison", "studio", "compositional"]
    records = []
    for i, ex in enumerate(_examples(w, n, seed + {"hotpotqa": 0, "2wiki": 10, "musique": 20}[dataset],
                                     kinds=kinds)):
        size = 20 if dataset == "musique" else 10
        names = list(ex["gold"]) + _distractors(w, ex["gold"], size - len(ex["gold"]), rng)
        rng.shuffle(names)
        paras = {name: _paragraph(name, w) for name in names}
        # supporting facts: the sentence of each gold entity that states an evidence triple
        sf = []
        for s, r, o in ex["evidences"]:
            for ts, tr, to, sent in paras[s][1]:
                if (ts, tr, to) == (s, r, o) and [s, sent] not in sf:
                    sf.append([s, sent])
        uid = hashlib.sha256(f"{dataset}|{seed}|{i}|{ex['question']}".encode()).hexdigest()
        if dataset == "hotpotqa":
            records.append({
                "_id": uid[:24], "answer": ex["answer"], "question": ex["question"],
                "supporting_facts": sf,
                # HotpotQA keeps the space before each later sentence
                "context": [[name, [s if j == 0 else " " + s for j, s in enumerate(paras[name][0])]]
                            for name in names],
                "type": "comparison" if "comparison" in ex["type"] else "bridge", "level": "hard"})
        elif dataset == "2wiki":
            records.append({
                "_id": uid[:32], "type": ex["type"], "question": ex["question"],
                "context": [[name, paras[name][0]] for name in names], "supporting_facts": sf,
                "evidences": ex["evidences"], "answer": ex["answer"]})
        else:
            pidx = {name: j for j, name in enumerate(names)}
            steps = ex["steps"]
            ids = [int(uid[j * 6:(j + 1) * 6], 16) % 900_000 + 100_000 for j in range(len(steps))]
            prefix = {2: "2hop", 3: "3hop1"}[len(steps)]
            records.append({
                "id": f"{prefix}__{'_'.join(map(str, ids))}",
                "paragraphs": [{"idx": j, "title": name, "paragraph_text": " ".join(paras[name][0]),
                                "is_supporting": name in ex["gold"]} for j, name in enumerate(names)],
                "question": ex["question"],
                "question_decomposition": [
                    {"id": sid, "question": q, "answer": a, "paragraph_support_idx": pidx[src]}
                    for sid, (q, a, src) in zip(ids, steps)],
                "answer": ex["answer"], "answer_aliases": [], "answerable": True})
    return records


def sample_triples(seed: int = 0) -> dict[str, list[list]]:
    """Every fact of every entity of the fictional world, keyed by paragraph title."""
    w = _world(seed)
    return {name: [list(t) for t in _paragraph(name, w)[1]] for name in sorted(w["e"])}


def write_samples(folder: str | Path = SAMPLE_DIR, *, n: int = 30, seed: int = 0) -> list[Path]:
    """Write the three samples and their paragraph triples into ``folder``; return the paths.

    Each file is written as its dataset writes it (a JSON array, or JSON Lines for MuSiQue).
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for dataset, name in SAMPLE_FILES.items():
        recs = make_benchmark_sample(dataset, n, seed=seed)
        path = folder / name
        if name.endswith(".jsonl"):
            text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs)
        else:
            text = json.dumps(recs, ensure_ascii=False, indent=1) + "\n"
        path.write_text(text, encoding="utf-8")
        written.append(path)
    path = folder / SAMPLE_TRIPLES_FILE
    path.write_text(json.dumps(sample_triples(seed), ensure_ascii=False, indent=1) + "\n",
                    encoding="utf-8")
    written.append(path)
    return written


if __name__ == "__main__":
    for path in write_samples():
        print(path)
