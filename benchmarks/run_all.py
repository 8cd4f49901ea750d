"""Run every benchmark and print every table: ``make bench`` (small sizes) or ``make bench-full``.

Each benchmark is a script in this folder that answers one question, prints its tables and
writes CSV files and plots into ``--out`` (default ``_build/benchmarks``):

=========================  ====================================================================
``traversal.py``           NetworkX vs FalkorDB: k-hop facts, neighbourhoods, bounded paths;
                           build/load time and peak memory (10^3-10^5 edges; ``--full`` 10^6)
``retrieval_latency.py``   Graph RAG vs flat RAG retrieval latency per question, no model call
``model_throughput.py``    local model prompt/generation tokens per second (a few real calls),
                           extraction time per document from the recorded calls
``scaling_retrieval.py``   retrieval quality as the corpus grows
``heldout_transfer.py``    Graph RAG vs flat RAG answers on thirteen collections written after
                           the method (recorded responses; a cache miss calls the model)
``book_build.py``          book execution time warm vs cold, model calls on a warm rebuild
                           (only with ``--include-book``: it executes every chapter)
=========================  ====================================================================

The small run finishes in well under 10 minutes on 2 cores. ``--publish`` copies the CSV files to
``assets/data/bench/`` and the plots to ``assets/images/``, where the chapter "Choosing your
stack" reads them (do it after a ``--full`` run).

Set ``GABA_LOCAL_URL`` to a running ``python -m gaba serve`` to share one model server.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import _common
from _common import ROOT, print_table

HERE = Path(__file__).resolve().parent
ORDER = ["traversal", "retrieval_latency", "model_throughput", "scaling_retrieval", "heldout_transfer",
         "book_build"]


def main(argv: list[str] | None = None) -> int:
    p = _common.parser(__doc__)
    p.add_argument("--only", default=None, help=f"comma-separated subset of {', '.join(ORDER)}")
    p.add_argument("--include-book", action="store_true", help="also run book_build.py (slow)")
    p.add_argument("--no-live", action="store_true", help="no model calls (model_throughput reads the cache only)")
    p.add_argument("--publish", action="store_true",
                   help="copy the CSV files to assets/data/bench/ and the plots to assets/images/")
    args = p.parse_args(argv)
    names = ORDER if not args.only else [n.strip().removesuffix(".py") for n in args.only.split(",") if n.strip()]
    unknown = [n for n in names if n not in ORDER]
    if unknown:
        p.error(f"unknown benchmark(s) {unknown}; choose from {ORDER}")
    if not args.only and not args.include_book:
        names = [n for n in names if n != "book_build"]
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    summary = []
    t_all = time.perf_counter()
    for name in names:
        # every script takes _common's --out and --full
        cmd = [sys.executable, str(HERE / f"{name}.py"), "--out", str(out)] + (["--full"] if args.full else [])
        if name == "model_throughput" and args.no_live:
            cmd.append("--no-live")
        print(f"\n##### {name}: {' '.join(Path(c).name if i < 2 else c for i, c in enumerate(cmd))}", flush=True)
        t0 = time.perf_counter()
        rc = subprocess.run(cmd, cwd=ROOT).returncode
        summary.append({"benchmark": name, "seconds": time.perf_counter() - t0,
                        "status": "ok" if rc == 0 else f"FAILED (exit {rc})"})
    print_table(summary, ["benchmark", "seconds", "status"],
                f"benchmarks ({'full' if args.full else 'small'} sizes) in {time.perf_counter() - t_all:.0f} s; "
                f"outputs in {out}")
    if args.publish:
        data, images = ROOT / "assets" / "data" / "bench", ROOT / "assets" / "images"
        data.mkdir(parents=True, exist_ok=True)
        images.mkdir(parents=True, exist_ok=True)
        for f in sorted(out.glob("*.csv")):
            shutil.copy2(f, data / f.name)
        for f in sorted(out.glob("bench_*.png")):
            shutil.copy2(f, images / f.name)
        print(f"published the CSV files to {data.relative_to(ROOT)} and the plots to {images.relative_to(ROOT)}")
    return 0 if all(s["status"] == "ok" for s in summary) else 1


if __name__ == "__main__":
    sys.exit(main())
