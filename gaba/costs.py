"""What the model's calls cost (chapter "Choosing your stack"): the recorded calls, the local
model's measured speed, assumed prices."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from .config import ASSETS, get_settings


def cache_entries(*, purpose: str | None = None, cache_dir: str | Path | None = None) -> list[dict]:
    """The recorded model calls in the response cache, one dict per readable entry, by key.

    Keys: ``key, purpose, backend, model, prompt_tokens, completion_tokens, seconds, recorded_at``;
    ``purpose`` filters (case-insensitive substring).
    """
    folder = Path(cache_dir) if cache_dir is not None else get_settings().cache_dir
    needle = purpose.lower() if purpose else None
    rows = []
    for path in sorted(folder.glob("*/*.json")):
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            resp, req = entry["response"], entry["request"]
            row = {"key": entry["key"], "purpose": str(entry.get("purpose", "")),
                   "backend": req.get("backend", ""), "model": resp.get("model") or req.get("model", ""),
                   "prompt_tokens": int(resp.get("usage", {}).get("prompt_tokens", 0)),
                   "completion_tokens": int(resp.get("usage", {}).get("completion_tokens", 0)),
                   "seconds": float(resp.get("seconds", 0.0)),
                   "recorded_at": entry.get("recorded_at", "")}
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if needle is None or needle in row["purpose"].lower():
            rows.append(row)
    return rows


#: The committed run of ``benchmarks/model_throughput.py`` that the chapters quote (made on an idle machine).
MODEL_BENCHMARK = ASSETS / "data" / "bench" / "model_throughput.csv"


def model_rates(path: str | Path | None = None) -> dict[str, float]:
    """The local model's measured speed, from the committed benchmark run (:data:`MODEL_BENCHMARK`).

    Returns ``prompt_tok_s``, ``gen_tok_s``, ``extraction_s``, ``load_avg`` and ``n``. Raises
    FileNotFoundError without the file, ValueError when it has no live rows.
    """
    path = Path(path) if path is not None else MODEL_BENCHMARK
    if not path.is_file():
        raise FileNotFoundError(f"no model benchmark at {path}: run `python benchmarks/model_throughput.py` "
                                "and copy _build/benchmarks/model_throughput.csv to assets/data/bench/")
    with path.open(newline="", encoding="utf-8") as fh:
        rows = {(r["source"], r["metric"]): r for r in csv.DictReader(fh)}
    want = {"prompt_tok_s": "prompt tokens/s (median)", "gen_tok_s": "generation tokens/s (median)",
            "extraction_s": "extraction seconds per document, live (median)",
            "load_avg": "load average during the calls (1 min)"}
    missing = [m for m in want.values() if ("live", m) not in rows]
    if missing:
        raise ValueError(f"{path.name} has no live rows ({missing[0]!r} missing): it was made with --no-live")
    out = {k: float(rows[("live", m)]["value"]) for k, m in want.items()}
    out["n"] = float(rows[("live", want["gen_tok_s"])]["n"])
    return out


#: ASSUMED list prices, USD per million tokens (input, output), as of :data:`PRICES_DATED`: check them.
ASSUMED_PRICES = {
    "gpt-4o-mini (OpenAI)": (0.15, 0.60),
    "gpt-4.1-mini (OpenAI)": (0.40, 1.60),
    "gpt-4o (OpenAI)": (2.50, 10.00),
    "claude-3.5-haiku (Anthropic, via OpenRouter)": (0.80, 4.00),
    "llama-3.1-8b-instruct (open weights, via OpenRouter)": (0.02, 0.05),
}
#: When :data:`ASSUMED_PRICES` was written down.
PRICES_DATED = "2026-11"


def cost_per_1k(prompt_tokens: float, completion_tokens: float, price_in: float, price_out: float) -> float:
    """Cost in USD of 1,000 calls of these mean token counts at per-million-token prices.

    >>> round(cost_per_1k(1000, 100, 0.15, 0.60), 4)
    0.21
    """
    if min(prompt_tokens, completion_tokens, price_in, price_out) < 0:
        raise ValueError("token counts and prices must not be negative")
    return 1000 * (prompt_tokens * price_in + completion_tokens * price_out) / 1e6
