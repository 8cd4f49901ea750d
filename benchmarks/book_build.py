"""How long does the book take to build, and does a warm rebuild call the model? (It must not.)

Executes each chapter notebook with ``nbclient`` in a fresh kernel, with ``GABA_OFFLINE=1``: every
model call must come from the recorded response cache, and a call that is not recorded raises
``CacheMiss`` and fails the notebook. Two cells are added in memory (the files are not changed):
one before the chapter that counts response-cache lookups, model calls and embedded texts, and
one after it that reports the counts.

- warm: the measured wall time of executing the notebook with the committed caches;
- cold (estimated): warm time + the model time of the calls the notebook made + its embedded
  texts at the embedding rate measured here. The model time is the calls' recorded token counts
  at the prompt and generation rates measured by ``model_throughput.py`` (read from its CSV in
  ``--out``); without that file, the seconds recorded in the cache entries are used, which
  include any queueing while the book was written. ``--cold-live`` measures a real cold run instead (empty temporary caches,
  every call goes to the model: slow, tens of minutes per chapter on 2 cores).

Usage::

    python benchmarks/book_build.py                          # every chapter in _toc.yml
    python benchmarks/book_build.py --notebooks preface      # some chapters
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

import _common
from _common import ROOT, print_table, write_csv

MARK = "@@GABA-BENCH@@"

INSTRUMENT = r'''
import gaba.cache as _bc, gaba.llm as _bl, gaba.embed as _be
_bench = {"lookups": [], "hits": 0, "model_calls": 0, "embed_requested": set(), "embed_live": 0}
_bench_read0, _bench_call0, _bench_embed0, _bench_local0 = _bc.read_entry, _bl._call_model, _be.embed_texts, _be._embed_local
def _bench_read(key):
    entry = _bench_read0(key)
    _bench["lookups"].append(key)
    _bench["hits"] += entry is not None
    return entry
def _bench_call(request):
    _bench["model_calls"] += 1
    return _bench_call0(request)
def _bench_embed(texts, **kw):
    if not isinstance(texts, str):
        _bench["embed_requested"].update((kw.get("kind", "passage"), t) for t in texts if isinstance(t, str))
    return _bench_embed0(texts, **kw)
def _bench_local(texts, kind):
    _bench["embed_live"] += len(texts)
    return _bench_local0(texts, kind)
_bc.read_entry, _bl._call_model, _be.embed_texts, _be._embed_local = _bench_read, _bench_call, _bench_embed, _bench_local
'''

REPORT = r'''
import json as _bjson
print("MARK" + _bjson.dumps({"lookups": sorted(set(_bench["lookups"])), "n_lookups": len(_bench["lookups"]),
      "hits": _bench["hits"], "model_calls": _bench["model_calls"],
      "embed_requested": len(_bench["embed_requested"]), "embed_live": _bench["embed_live"]}))
'''.replace("MARK", MARK)


def toc_notebooks() -> list[Path]:
    """Notebooks in the order of ``_toc.yml`` (then any other chapter notebook)."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files: list[str] = []

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                files.append(node["file"])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(toc)
    found = [ROOT / f"{f}.ipynb" for f in files if (ROOT / f"{f}.ipynb").is_file()]
    others = sorted(p for p in (ROOT / "chapters").glob("*.ipynb") if p not in found)
    return found + others


def run_notebook(path: Path, *, timeout: int, env: dict[str, str]) -> dict:
    """Execute one notebook with the counting cells; return timings and counts."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(INSTRUMENT))
    nb.cells.append(nbformat.v4.new_code_cell(REPORT))
    error = None
    t0 = time.perf_counter()
    with mock.patch.dict(os.environ, env):           # the kernel inherits them
        try:
            NotebookClient(nb, timeout=timeout, kernel_name="python3",
                           resources={"metadata": {"path": str(path.parent)}}).execute()
        except CellExecutionError as exc:
            error = (getattr(exc, "ename", "") or "error") + ": " + str(getattr(exc, "evalue", exc))[:200]
    seconds = time.perf_counter() - t0
    report = {}
    for out in nb.cells[-1].get("outputs", []):
        text = out.get("text", "")
        if MARK in text:
            report = json.loads(text.split(MARK, 1)[1].strip().splitlines()[0])
    return {"seconds": seconds, "error": error, **report}


def recorded_totals(keys: list[str], entries: dict[str, dict]) -> tuple[float, int, int]:
    """Recorded model seconds, prompt tokens and completion tokens of the given cache entries
    (``entries``: key -> :func:`gaba.costs.cache_entries` row)."""
    rows = [entries[k] for k in keys if k in entries]
    return (sum(r["seconds"] for r in rows), sum(r["prompt_tokens"] for r in rows),
            sum(r["completion_tokens"] for r in rows))


def measured_rates(out: Path) -> tuple[float, float] | None:
    """(prompt, generation) tokens/s from ``model_throughput.csv`` in ``out``, if it was run."""
    import csv

    f = out / "model_throughput.csv"
    if not f.is_file():
        return None
    with open(f, encoding="utf-8") as fh:
        vals = {r["metric"]: float(r["value"]) for r in csv.DictReader(fh)}
    try:
        return vals["prompt tokens/s (best)"], vals["generation tokens/s (best)"]
    except KeyError:
        return None


def embedding_rate(n: int = 32) -> float:
    """Texts per second of the embedding model on short fixed texts, uncached."""
    from gaba.embed import embed_texts

    texts = [f"Company {i} supplies parts to company {i + 1} from its plant in city {i % 5}." for i in range(n)]
    embed_texts(texts[:2], use_cache=False)          # load the model
    t0 = time.perf_counter()
    embed_texts(texts, use_cache=False)
    return n / (time.perf_counter() - t0)


def main(argv: list[str] | None = None) -> int:
    p = _common.parser(__doc__)
    p.add_argument("--notebooks", default=None,
                   help="comma-separated chapter names (default: every chapter in _toc.yml)")
    p.add_argument("--timeout", type=int, default=1800, help="seconds per cell (default 1800)")
    p.add_argument("--cold-live", action="store_true",
                   help="also run each notebook with empty temporary caches (real model calls; very slow)")
    args = p.parse_args(argv)
    notebooks = toc_notebooks()
    if args.notebooks:
        wanted = [w.strip().removesuffix(".ipynb") for w in args.notebooks.split(",") if w.strip()]
        by_name = {nb.stem: nb for nb in notebooks}
        missing = [w for w in wanted if w not in by_name]
        if missing:
            p.error(f"no chapter notebook named {', '.join(missing)}; known: {', '.join(sorted(by_name))}")
        notebooks = [by_name[w] for w in wanted]
    from gaba.costs import cache_entries

    entries = {e["key"]: e for e in cache_entries()}       # the committed cache, read once
    rate = embedding_rate()
    print(f"embedding rate here: {rate:.1f} short texts/s")
    rates = measured_rates(args.out)
    print("model time of a cold build: " + (f"token counts at {rates[0]:.0f} prompt and {rates[1]:.1f} "
          "generation tokens/s (model_throughput.csv)" if rates else "seconds recorded in the cache entries"))
    rows = []
    for nb in notebooks:
        r = run_notebook(nb, timeout=args.timeout, env={"GABA_OFFLINE": "1"})
        rec_s, pt, ct = recorded_totals(r.get("lookups", []), entries)
        model_s = pt / rates[0] + ct / rates[1] if rates else rec_s
        row = {"notebook": nb.stem, "warm_s": r["seconds"], "llm_calls": r.get("n_lookups"),
               "from_cache": r.get("hits"), "model_calls": r.get("model_calls"),
               "prompt_tokens": pt, "completion_tokens": ct,
               "recorded_model_s": rec_s, "model_s_est": model_s, "embedded_texts": r.get("embed_requested"),
               "embedded_live": r.get("embed_live"),
               "cold_est_s": r["seconds"] + model_s + (r.get("embed_requested") or 0) / rate,
               "error": r["error"] or ""}
        if args.cold_live:
            with tempfile.TemporaryDirectory() as tmp:
                c = run_notebook(nb, timeout=args.timeout,
                                 env={"GABA_OFFLINE": "0", "GABA_CACHE_DIR": f"{tmp}/llm",
                                      "GABA_EMBED_CACHE": f"{tmp}/embed"})
            row["cold_live_s"] = c["seconds"]
        rows.append(row)
        print(f"  {nb.stem}: {row['warm_s']:.1f} s warm, {row['llm_calls']} calls, "
              f"{row['model_calls']} to the model{', ' + row['error'] if row['error'] else ''}", flush=True)
    total = {"notebook": "TOTAL", **{k: sum((r.get(k) or 0) for r in rows)
                                    for k in ("warm_s", "llm_calls", "from_cache", "model_calls",
                                              "prompt_tokens", "completion_tokens", "recorded_model_s",
                                              "model_s_est", "embedded_texts", "embedded_live",
                                              "cold_est_s")},
             "error": f"{sum(1 for r in rows if r['error'])} failed"}
    if args.cold_live:
        total["cold_live_s"] = sum(r.get("cold_live_s", 0) for r in rows)
    cols = ["notebook", "warm_s", "cold_est_s", "llm_calls", "from_cache", "model_calls",
            "prompt_tokens", "completion_tokens", "recorded_model_s", "model_s_est",
            "embedded_texts", "embedded_live"] + (["cold_live_s"] if args.cold_live else []) + ["error"]
    print_table(rows + [total], cols, "book build: warm (measured, GABA_OFFLINE=1) vs cold (estimated)")
    write_csv(rows + [total], args.out / "book_build.csv")
    _plot(rows, args.out / "bench_book_build.png")
    print(f"\nwrote {args.out}/book_build.csv")
    ok = total["model_calls"] == 0 and not any(r["error"] for r in rows)
    print("warm rebuild made 0 model calls" if total["model_calls"] == 0
          else f"warm rebuild made {total['model_calls']} model calls: the cache is incomplete")
    return 0 if ok else 1


def _plot(rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["notebook"] for r in rows]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.5))
    y = range(len(rows))
    ax.barh([i + 0.2 for i in y], [r["cold_est_s"] / 60 for r in rows], height=0.4, label="cold (estimated)")
    ax.barh([i - 0.2 for i in y], [r["warm_s"] / 60 for r in rows], height=0.4, label="warm (measured)")
    ax.set_yticks(list(y), names)
    ax.invert_yaxis()
    ax.set_xlabel("minutes to execute the chapter")
    ax.legend()
    ax.grid(True, axis="x", alpha=0.3)
    _common.save_figure(fig, path)


if __name__ == "__main__":
    sys.exit(main())
