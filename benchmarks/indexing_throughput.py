"""How fast is indexing? Sequential vs concurrent extraction, side by side, from a cold cache.

Two parts, one table (and one CSV, ``indexing_throughput.csv``):

``local``
    The book's 14 news documents extracted by the embedded local model, each setting in its own
    process (a fresh llama.cpp server with that setting) and with its own empty temporary caches:
    today's sequential build (1 slot, no prompt-prefix reuse), then the settings of
    ``--local-modes``. Reported: documents/minute, prompt and generation tokens/s, extraction F1
    against the gold triples (entity pairs, names reconciled, as in the chapter), the speed-up
    over sequential, and how many documents got the same facts as the sequential run (parallel
    slots and a reused prefix may change the logits slightly; the ``rows`` format,
    ``GABA_EXTRACT_FORMAT=rows``, is another prompt, so its facts are compared, not its text).
    The model's loading time is left out.
``fake``
    The fake OpenAI-compatible endpoint of the tests (``tests/fake_openai.py``: 0.3 s per answer)
    with 1, 4 and 16 calls in flight, and 16 with 10% of requests refused (HTTP 429,
    Retry-After): what concurrency does against a hosted API or a self-hosted server, with no
    model at all (seconds).

Usage::

    python benchmarks/indexing_throughput.py --parts fake              # seconds, no model
    python benchmarks/indexing_throughput.py --publish                 # both parts (local: minutes)
    python benchmarks/indexing_throughput.py --parts local --local-modes 1:1,4:1,1:1:rows --publish

``--local-modes`` lists ``SLOTS:PREFIX_REUSE[:rows]`` settings (calls in flight = slots; ``rows``:
``GABA_EXTRACT_FORMAT=rows``). ``--publish``
writes ``assets/data/bench/indexing_throughput.csv``, keeping the rows of a part not run.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import _common
from _common import ROOT, print_table, write_csv

NAME = "indexing_throughput"
PUBLISHED = ROOT / "assets" / "data" / "bench" / f"{NAME}.csv"
COLUMNS = ["part", "setting", "documents", "in_flight", "slots", "prefix_reuse", "format", "seconds",
           "docs_per_min", "speedup", "prompt_tok_s", "gen_tok_s", "prompt_tokens", "completion_tokens",
           "f1_pairs", "same_as_sequential", "requests", "rate_limited", "max_in_flight", "extracted_once", "failed", "load_avg", "cpus"]


def _modes(text: str) -> list[tuple[int, bool, str]]:
    """``"1:0,4:1:rows"`` -> ``[(1, False, "objects"), (4, True, "rows")]`` (slots, prompt-prefix
    reuse, extraction format)."""
    out = []
    for part in text.split(","):
        slots, _, rest = part.strip().partition(":")
        reuse, _, fmt = rest.partition(":")
        if not slots.isdigit() or int(slots) < 1 or reuse not in {"", "0", "1"} or fmt not in {"", "rows"}:
            raise argparse.ArgumentTypeError(f"{part!r} is not SLOTS:REUSE[:rows] (e.g. 4:1 or 1:1:rows)")
        out.append((int(slots), reuse == "1", fmt or "objects"))
    return out


# --- local model: one child process per setting ----------------------------------------------

def local_child(slots: int) -> dict:
    """Run in the child process: start the server, extract the news corpus once, time it.

    The setting (slots, prefix reuse, format) reaches the server and the extraction through the
    environment the parent sets; ``slots`` is also the number of calls kept in flight."""
    from gaba import llm, localmodel
    from gaba.data.news import load_documents
    from gaba.aliases import apply_aliases, reconcile_entities
    from gaba.extract import extract_corpus
    from gaba.scoring import score_triples

    t0 = time.perf_counter()
    localmodel.server_url()                        # loading the model is not indexing
    load_seconds = time.perf_counter() - t0
    docs = load_documents()
    llm.reset_stats()
    t0 = time.perf_counter()
    ex = extract_corpus(docs, progress=False, concurrency=slots)
    seconds = time.perf_counter() - t0
    st = llm.stats()
    names = sorted({t.subject for t in ex.triples} | {t.object for t in ex.triples})
    triples = apply_aliases(ex.triples, reconcile_entities(names, docs))
    f1 = float(score_triples(triples, match="pair").loc["overall", "f1"])
    return {"documents": len(docs), "seconds": seconds, "load_seconds": load_seconds,
            "prompt_tokens": st.prompt_tokens, "completion_tokens": st.completion_tokens,
            "misses": st.misses, "f1": f1, "failed": len(ex.failed), "raw": ex.raw}


def run_local(modes: list[tuple[int, bool, str]]) -> list[dict]:
    today = (1, False, "objects")                  # today's build is the reference, run first
    modes = [today] + [m for m in modes if m != today]
    rows, reference = [], None
    for slots, reuse, fmt in modes:
        with tempfile.TemporaryDirectory(prefix="gaba-index-bench-") as tmp:
            env = {k: v for k, v in os.environ.items()
                   if not k.startswith(("GABA_", "OPENAI_", "OPENROUTER_"))}
            env.update(GABA_IGNORE_DOTENV="1", GABA_BACKEND="local",
                       GABA_CACHE_DIR=str(Path(tmp) / "llm-cache"),
                       GABA_KG_CACHE=str(Path(tmp) / "kg-cache"),
                       GABA_EMBED_CACHE=str(Path(tmp) / "embed-cache"),
                       GABA_LOCAL_PARALLEL=str(slots), GABA_LOCAL_CACHE_PROMPT="1" if reuse else "0",
                       GABA_EXTRACT_FORMAT=fmt,
                       PYTHONPATH=str(ROOT))
            for var in ("GABA_MODEL_DIR", "GABA_LOCAL_MODEL"):     # where the model is, if set
                if var in os.environ:
                    env[var] = os.environ[var]
            setting = (f"{slots} slot{'s' if slots > 1 else ''}, prefix reuse {'on' if reuse else 'off'}"
                       + (", rows" if fmt == "rows" else ""))
            print(f"local: {setting} ...", flush=True)
            proc = subprocess.run([sys.executable, __file__, "--child", str(slots)],
                                  env=env, capture_output=True, text=True)
            if proc.returncode != 0:
                raise SystemExit(f"error: the local run '{setting}' failed: "
                                 f"{(proc.stderr.strip().splitlines() or ['?'])[-1]}")
            res = json.loads(proc.stdout.strip().splitlines()[-1])
        if reference is None:
            reference = res
        same = sum(res["raw"].get(k) == v for k, v in reference["raw"].items())
        s = res["seconds"]
        rows.append({"part": "local", "setting": setting, "documents": res["documents"],
                     "in_flight": slots, "slots": slots, "prefix_reuse": reuse, "format": fmt, "seconds": s,
                     "docs_per_min": 60 * res["documents"] / s,
                     "speedup": reference["seconds"] / s,
                     "prompt_tok_s": res["prompt_tokens"] / s, "gen_tok_s": res["completion_tokens"] / s,
                     "prompt_tokens": res["prompt_tokens"], "completion_tokens": res["completion_tokens"],
                     "f1_pairs": res["f1"], "same_as_sequential": same, "requests": res["misses"],
                     "failed": res["failed"]})
    return rows


# --- fake endpoint: in this process -----------------------------------------------------------

def run_fake(n_docs: int, latency: float = 0.3) -> list[dict]:
    sys.path.insert(0, str(ROOT / "tests"))
    from fake_openai import FakeOpenAI

    import jsonschema  # noqa: F401 - first imports are not indexing
    import openai  # noqa: F401

    from gaba import backend, config
    from gaba.extract import extract_corpus

    settings = [("1 in flight", 1, 0.0), ("4 in flight", 4, 0.0), ("16 in flight", 16, 0.0),
                ("16 in flight, 10% HTTP 429", 16, 0.10)]
    rows, reference = [], None
    for setting, workers, refuse in settings:
        n = min(n_docs, 40) if workers == 1 else n_docs      # 0.3 s each: keep sequential short
        docs = [{"id": f"d{i:04d}", "text": f"Orrin{i} Works supplies Pellucid{i} Labs."}
                for i in range(n)]
        with tempfile.TemporaryDirectory(prefix="gaba-index-bench-") as tmp, \
                FakeOpenAI(latency=latency, rate_limit=refuse, retry_after=0.2) as fake:
            os.environ.update(GABA_IGNORE_DOTENV="1", GABA_BACKEND="openai", OPENAI_BASE_URL=fake.url,
                              OPENAI_API_KEY="fake", GABA_MODEL="fake-model",
                              GABA_CACHE_DIR=str(Path(tmp) / "llm-cache"))
            for var in ("GABA_OFFLINE", "GABA_CONCURRENCY", "OPENROUTER_API_KEY"):
                os.environ.pop(var, None)
            config.reload()
            backend._clients.clear()
            print(f"fake endpoint: {setting}, {n} documents ...", flush=True)
            t0 = time.perf_counter()
            ex = extract_corpus(docs, cache_dir=Path(tmp) / "kg", progress=False, concurrency=workers)
            s = time.perf_counter() - t0
            once = fake.answered == n and set(fake.prompts.values()) == {1}
            row = {"part": "fake", "setting": setting, "documents": n, "in_flight": workers,
                   "seconds": s, "docs_per_min": 60 * n / s, "requests": fake.requests,
                   "rate_limited": fake.refused, "max_in_flight": fake.max_in_flight,
                   "extracted_once": once, "failed": len(ex.failed)}
        reference = reference or row
        row["speedup"] = row["docs_per_min"] / reference["docs_per_min"]
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    p = _common.parser(__doc__.split("\n\n")[0])
    p.add_argument("--parts", default="local,fake",
                   help="which parts to run: local, fake or both (default local,fake)")
    p.add_argument("--local-modes", type=_modes, default=_modes("1:1,4:1,1:1:rows"),
                   help="SLOTS:PREFIX_REUSE[:rows] settings of the local model besides sequential "
                        "(default 1:1,4:1,1:1:rows; 1:0 is always run first)")
    p.add_argument("--fake-docs", type=int, default=200,
                   help="documents per fake-endpoint run (sequential: at most 40; default 200)")
    p.add_argument("--fake-latency", type=float, default=0.3,
                   help="seconds per answer of the fake endpoint (default 0.3)")
    p.add_argument("--publish", action="store_true",
                   help=f"write the CSV to {PUBLISHED.relative_to(ROOT)} (rows of parts not run are kept)")
    p.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(local_child(int(args.child))))
        return 0
    parts = [x.strip() for x in args.parts.split(",") if x.strip()]
    if not parts or set(parts) - {"local", "fake"}:
        p.error(f"--parts takes local, fake or both, not {args.parts!r}")
    rows = []
    if "local" in parts:
        rows += run_local(args.local_modes)
    if "fake" in parts:
        rows += run_fake(args.fake_docs, args.fake_latency)
    load, cpus = round(os.getloadavg()[0], 2), os.cpu_count()
    for r in rows:
        r.update(load_avg=load, cpus=cpus)
    print_table(rows, ["part", "setting", "documents", "seconds", "docs_per_min", "speedup",
                       "prompt_tok_s", "gen_tok_s", "f1_pairs", "same_as_sequential",
                       "rate_limited", "max_in_flight", "extracted_once", "failed"],
                "indexing throughput (cold cache)")
    rows = [{c: round(r[c], 3) if isinstance(r.get(c), float) else r.get(c) for c in COLUMNS}
            for r in rows]
    out = write_csv(rows, args.out / f"{NAME}.csv")
    print(f"\nwrote {out}")
    if args.publish:
        kept = []
        if PUBLISHED.is_file():
            with open(PUBLISHED, newline="", encoding="utf-8") as f:
                kept = [r for r in csv.DictReader(f) if r.get("part") not in parts]
        write_csv(kept + rows, PUBLISHED)
        print(f"published {PUBLISHED.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
