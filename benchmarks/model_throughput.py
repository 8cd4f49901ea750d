"""How fast is the local model? Prompt and generation tokens per second, and extraction time per document.

Two sources, reported side by side:

1. live: a few real, uncached calls through ``gaba.llm.call_llm(..., use_cache=False)`` -
   a long prompt with a one-token answer (prompt processing rate), a short prompt with a long
   answer (generation rate, after subtracting the prompt's share), and the extraction of one news
   document with the book's extraction prompt and schema (``--extractions``);
2. observed (``--observe SECONDS``, with a shared server): the server's own progress counters
   while it answers other clients - prompt and generation rates with no call of ours, for a
   server that is never idle;
3. recorded: every entry of the book's response cache (``assets/llm-cache``) carries the tokens
   and seconds of the call that produced it; the entries whose purpose mentions extraction give
   the extraction time per document as the book experienced it.

Calls go to the configured backend (set ``GABA_LOCAL_URL`` to share a running local server; the
script then waits until that server is idle before each call, so the queue is not timed). Other
work on the machine still slows the model: the 1-minute load average is printed beside each
call, and the best of the repetitions is the least disturbed.

Usage::

    python benchmarks/model_throughput.py               # 2 repetitions of each live call
    python benchmarks/model_throughput.py --no-live     # recorded entries only (no model calls)
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import time
import urllib.request

import _common
from _common import print_table, write_csv

#: Fixed text of the prompt-processing probe (about 1,000 prompt tokens; never changes).
PROMPT_PROBE = "\n".join(
    f"Fact {i}: Company {i} supplies parts to Company {i + 1}, based in city {i % 7}." for i in range(60)
) + "\nReply with the single word: ok."
GEN_PROBE = "Write the numbers from one to three hundred in words, separated by commas."


def slots_url() -> str | None:
    """The ``/slots`` endpoint of the shared llama.cpp server (``GABA_LOCAL_URL``), if one is set."""
    from gaba.config import get_settings

    url = get_settings().local_url
    return url.rstrip("/").removesuffix("/v1") + "/slots" if url else None


def read_slots(url: str) -> list[dict]:
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)


def wait_until_idle(max_wait: float = 900.0) -> float:
    """With a shared local server (``GABA_LOCAL_URL``), wait until it is not answering anyone else.

    The server answers one request at a time, so a call made while it is busy would time the
    queue, not the model. Returns the seconds waited (0 for other backends).
    """
    slots = slots_url()
    if not slots:
        return 0.0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < max_wait:
        try:
            busy = any(s.get("is_processing") for s in read_slots(slots))
        except (OSError, ValueError):
            return time.perf_counter() - t0     # no /slots endpoint: nothing to wait for
        if not busy:
            break
        time.sleep(1.0)
    return time.perf_counter() - t0


MAX_WAIT = 900.0


def observe_server(seconds: float, interval: float = 0.25) -> dict | None:
    """Watch a shared llama.cpp server (``GABA_LOCAL_URL``) work on other clients' requests.

    Samples the server's ``/slots`` progress counters every ``interval`` seconds: a request
    seen from its start gives a prompt phase (its prompt tokens over the time to its first
    generated token), and every interval in which a request's generated-token counter grows
    gives generation time. Makes no model call, so it works when the server is never idle;
    the rates are those of the same model under the machine's current load. Returns None
    without a shared server.
    """
    slots = slots_url()
    if not slots:
        return None
    tasks: dict = {}
    t_end = time.perf_counter() + seconds
    first = True
    while time.perf_counter() < t_end:
        now = time.perf_counter()
        try:
            slot = read_slots(slots)[0]
        except (OSError, ValueError, IndexError, KeyError):
            return None
        if slot.get("is_processing"):
            decoded = (slot.get("next_token") or [{}])[0].get("n_decoded", 0)
            tid = slot.get("id_task")
            t = tasks.get(tid)
            if t is None:
                seen_start = decoded == 0 and slot.get("n_prompt_tokens_processed", 0) == 0 and not first
                t = tasks[tid] = {"start": now if seen_start else None, "first_token": None,
                                  "prompt_tokens": 0, "last": (now, decoded), "gen_tokens": 0, "gen_s": 0.0}
            if decoded > 0 and t["first_token"] is None:
                t["first_token"] = now
                t["prompt_tokens"] = slot.get("n_prompt_tokens_processed", 0)
            last_t, last_d = t["last"]
            if decoded > last_d and last_d > 0:
                t["gen_tokens"] += decoded - last_d
                t["gen_s"] += now - last_t
            if decoded != last_d or last_d == 0:
                t["last"] = (now, decoded)
        first = False
        time.sleep(interval)
    prompts = [t for t in tasks.values() if t["start"] and t["first_token"] and t["prompt_tokens"]]
    p_tok = sum(t["prompt_tokens"] for t in prompts)
    p_s = sum(t["first_token"] - t["start"] for t in prompts)
    g_tok = sum(t["gen_tokens"] for t in tasks.values())
    g_s = sum(t["gen_s"] for t in tasks.values())
    return {"seconds": seconds, "requests": len(tasks), "prompts_seen": len(prompts),
            "prompt_tokens": p_tok, "prompt_tok_s": p_tok / p_s if p_s else None,
            "gen_tokens": g_tok, "gen_tok_s": g_tok / g_s if g_s else None}


def live_rates(repeat: int, gen_tokens: int) -> list[dict]:
    """Measure prompt and generation rates with uncached calls through call_llm."""
    from gaba.llm import call_llm

    rows = []
    for i in range(repeat):
        waited = wait_until_idle(MAX_WAIT)
        r = call_llm(PROMPT_PROBE, max_tokens=1, use_cache=False, purpose="benchmark: prompt rate")
        rows.append({"probe": "prompt", "run": i + 1, "prompt_tokens": r.usage.get("prompt_tokens", 0),
                     "completion_tokens": r.usage.get("completion_tokens", 0), "seconds": r.seconds,
                     "waited_s": waited, "load_avg": os.getloadavg()[0]})
    prompt_rate = max(r["prompt_tokens"] / r["seconds"] for r in rows)
    for r in rows:
        r["prompt_tok_s"] = r["prompt_tokens"] / r["seconds"]
    for i in range(repeat):
        waited = wait_until_idle(MAX_WAIT)
        r = call_llm(GEN_PROBE, max_tokens=gen_tokens, use_cache=False, purpose="benchmark: generation rate")
        pt, ct = r.usage.get("prompt_tokens", 0), r.usage.get("completion_tokens", 0)
        gen_s = max(r.seconds - pt / prompt_rate, 1e-6)
        rows.append({"probe": "generation", "run": i + 1, "prompt_tokens": pt, "completion_tokens": ct,
                     "seconds": r.seconds, "gen_tok_s": ct / gen_s, "waited_s": waited,
                     "load_avg": os.getloadavg()[0]})
    return rows


def live_extraction(n_docs: int) -> list[dict]:
    """Extract triples from the first news documents with uncached calls (the book's own prompt)."""
    from gaba.data.news import load_documents
    from gaba.errors import LLMOutputError
    from gaba.prompts import EXTRACTION_SYSTEM
    from gaba.request import EXTRACTION_MAX_TOKENS, extraction_prompt, extraction_schema
    from gaba.llm import call_llm

    rows = []
    for doc in load_documents()[:n_docs]:
        waited = wait_until_idle(MAX_WAIT)
        row = {"document": doc["id"], "words": len(doc["text"].split()), "waited_s": waited}
        try:
            r = call_llm(extraction_prompt(doc["text"]), system=EXTRACTION_SYSTEM, schema=extraction_schema(),
                         schema_name="facts", max_tokens=EXTRACTION_MAX_TOKENS, use_cache=False,
                         purpose=f"benchmark: extraction of {doc['id']}")
            facts = r.data.get("facts", []) if isinstance(r.data, dict) else r.data
            row.update(prompt_tokens=r.usage.get("prompt_tokens", 0),
                       completion_tokens=r.usage.get("completion_tokens", 0), seconds=r.seconds,
                       facts=len(facts or []), load_avg=os.getloadavg()[0])
        except LLMOutputError as exc:
            row.update(error=str(exc)[:120])
        rows.append(row)
    return rows


def recorded(cache_dir=None) -> tuple[list[dict], list[dict]]:
    """Summaries of the recorded calls: all of them by purpose group, and extraction per document."""
    from gaba.costs import cache_entries

    entries = [e for e in cache_entries(cache_dir=cache_dir) if e["seconds"] > 0]
    groups: dict[str, list[dict]] = {}
    for e in entries:
        name = "extraction" if "extract" in e["purpose"].lower() else \
            e["purpose"].split(":")[0].split("(")[0].strip() or "?"
        groups.setdefault(name, []).append(e)
    summary = []
    for name, es in sorted(groups.items()):
        summary.append({"group": name, "calls": len(es),
                        "prompt_tokens": statistics.mean(e["prompt_tokens"] for e in es),
                        "completion_tokens": statistics.mean(e["completion_tokens"] for e in es),
                        "median_s": statistics.median(e["seconds"] for e in es),
                        "answer_tok_s": sum(e["completion_tokens"] for e in es) / sum(e["seconds"] for e in es)})
    # extraction: one document per purpose text, retries folded into their document
    docs: dict[str, dict] = {}
    for e in entries:
        if "extract" not in e["purpose"].lower():
            continue
        doc = e["purpose"].split(" (retry")[0]
        d = docs.setdefault(doc, {"document": doc, "calls": 0, "seconds": 0.0, "prompt_tokens": 0,
                                  "completion_tokens": 0})
        d["calls"] += 1
        d["seconds"] += e["seconds"]
        d["prompt_tokens"] += e["prompt_tokens"]
        d["completion_tokens"] += e["completion_tokens"]
    return summary, sorted(docs.values(), key=lambda d: d["document"])


def main(argv: list[str] | None = None) -> int:
    p = _common.parser(__doc__)
    p.add_argument("--no-live", action="store_true", help="make no model calls; recorded entries only")
    p.add_argument("--repeat", type=int, default=2, help="repetitions of each live probe (default 2)")
    p.add_argument("--gen-tokens", type=int, default=96, help="answer length of the generation probe")
    p.add_argument("--extractions", type=int, default=1,
                   help="news documents to extract live, uncached (default 1; 0 for none)")
    p.add_argument("--observe", type=float, default=0.0,
                   help="also watch a shared server (GABA_LOCAL_URL) for this many seconds and report "
                        "the rates of the requests it serves (no model call; default 0: off)")
    p.add_argument("--max-wait", type=float, default=MAX_WAIT,
                   help="seconds to wait for a busy shared server before each call (default 900)")
    p.add_argument("--cache-dir", default=None, help="response cache to read (default: the configured one)")
    args = p.parse_args(argv)
    if args.repeat < 1 or args.gen_tokens < 8:
        p.error("--repeat must be >= 1 and --gen-tokens >= 8")
    out = args.out
    globals()["MAX_WAIT"] = args.max_wait
    from gaba.config import describe
    from gaba.errors import BackendUnavailable

    print(describe())
    rows_out = []
    failed = None
    if not args.no_live:
        try:
            live = live_rates(args.repeat, args.gen_tokens)
            print_table(live, ["probe", "run", "prompt_tokens", "completion_tokens", "seconds",
                               "prompt_tok_s", "gen_tok_s", "waited_s", "load_avg"],
                        "live calls (uncached)")
            rows_out.append({"source": "live", "metric": "load average during the calls (1 min)",
                             "value": statistics.mean(r["load_avg"] for r in live), "n": len(live)})
            prompt_rates = [r["prompt_tok_s"] for r in live if r["probe"] == "prompt"]
            gen_rates = [r["gen_tok_s"] for r in live if r["probe"] == "generation"]
            rows_out += [{"source": "live", "metric": f"{probe} tokens/s ({stat})", "value": f(rates), "n": len(rates)}
                         for probe, rates in (("prompt", prompt_rates), ("generation", gen_rates))
                         for stat, f in (("best", max), ("median", statistics.median))]
            write_csv(live, out / "model_throughput_live.csv")
            if args.extractions > 0:
                ex = live_extraction(args.extractions)
                print_table(ex, ["document", "words", "prompt_tokens", "completion_tokens", "seconds", "facts",
                                 "waited_s", "load_avg", "error"], "live extraction (uncached)")
                ok = [r["seconds"] for r in ex if "seconds" in r]
                if ok:
                    rows_out.append({"source": "live", "metric": "extraction seconds per document, live (median)",
                                     "value": statistics.median(ok), "n": len(ok)})
                write_csv(ex, out / "model_extraction_live.csv")
        except BackendUnavailable as exc:
            failed = f"the live calls failed ({exc}); only the recorded calls are summarised"
            print(f"\n{failed}", flush=True)
    if args.observe > 0:
        obs = observe_server(args.observe)
        if obs is None:
            print("\n(--observe needs GABA_LOCAL_URL pointing at a running `python -m gaba serve`)")
        else:
            obs["load_avg"] = os.getloadavg()[0]
            print_table([obs], ["seconds", "requests", "prompts_seen", "prompt_tokens", "prompt_tok_s",
                                "gen_tokens", "gen_tok_s", "load_avg"],
                        "observed on the shared server (other clients' requests)")
            for key, metric, n in (("prompt_tok_s", "prompt tokens/s (observed)", obs["prompts_seen"]),
                                   ("gen_tok_s", "generation tokens/s (observed)", obs["gen_tokens"])):
                if obs[key]:
                    rows_out.append({"source": "observed", "metric": metric, "value": obs[key], "n": n})
            rows_out.append({"source": "observed", "metric": "load average while observing (1 min)",
                             "value": obs["load_avg"], "n": 1})
            write_csv([obs], out / "model_observed.csv")
    summary, docs = recorded(args.cache_dir)
    if summary:
        print_table(summary, ["group", "calls", "prompt_tokens", "completion_tokens", "median_s", "answer_tok_s"],
                    "recorded calls in the response cache, by purpose")
        allc = sum(s["calls"] for s in summary)
        rows_out.append({"source": "recorded", "metric": "recorded calls", "value": allc, "n": allc})
    else:
        print("\n(no recorded calls in the response cache)")
    if docs:
        print_table(docs, ["document", "calls", "prompt_tokens", "completion_tokens", "seconds"],
                    "recorded extraction calls, per document")
        secs = [d["seconds"] for d in docs]
        rows_out += [{"source": "recorded", "metric": "extraction seconds per document (median)",
                      "value": statistics.median(secs), "n": len(secs)},
                     {"source": "recorded", "metric": "extraction seconds per document (max)",
                      "value": max(secs), "n": len(secs)}]
        write_csv(docs, out / "model_extraction.csv")
    else:
        print("\n(no recorded extraction calls yet)")
    print_table(rows_out, ["source", "metric", "value", "n"], "model throughput summary")
    write_csv(rows_out, out / "model_throughput.csv")
    write_csv(summary, out / "model_recorded.csv")
    print(f"\nwrote {out}/model_throughput.csv")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
