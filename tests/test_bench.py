"""Tests of gaba.bench (timing, benchmark graphs, sampling, backends), the benchmarks' memory readings,
gaba.costs and gaba.scaling's plot and linking."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gaba import bench, costs, scaling


def test_time_queries_reports_median_p90_and_sizes():
    calls = []
    r = bench.time_queries(lambda q: calls.append(q) or [0] * q, [1, 2, 3], repeat=2, warmup=1, size=len)
    assert r["n_queries"] == 3 and r["sizes"] == [1, 2, 3]
    assert 0 <= r["median_ms"] <= r["p90_ms"]
    assert len(calls) == 3 * (1 + 2)


def test_time_queries_rejects_bad_options():
    with pytest.raises(ValueError, match="at least one query"):
        bench.time_queries(len, [])
    with pytest.raises(ValueError, match="repeat"):
        bench.time_queries(len, ["x"], repeat=0)


def test_memory_readings_are_positive_and_peak_tracks_growth():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import _common

    assert _common.rss_mb() > 1
    with _common.PeakRSS() as m:
        block = bytearray(50_000_000)
        block[::4096] = b"x" * len(block[::4096])      # touch every page so it is resident
    assert m.peak_mb[0] >= m.start_mb[0] + 40 and m.end_mb[0] > 1
    assert _common.peak_rss_mb() >= _common.rss_mb() - 1


def test_scale_free_graph_is_exact_directed_and_deterministic():
    G = bench.scale_free_graph(1000, seed=3)
    H = bench.scale_free_graph(1000, seed=3)
    assert G.number_of_edges() == 1000 and G.is_directed() and G.is_multigraph()
    assert sorted(G.edges(keys=True)) == sorted(H.edges(keys=True))
    assert {d["relation"] for *_, d in G.edges(data=True)} <= set(bench.SCALE_FREE_RELATIONS)
    degrees = sorted((d for _, d in G.degree()), reverse=True)
    assert degrees[0] > 10 * degrees[len(degrees) // 2]      # hubs: the point of a scale-free graph


def test_family_graph_has_exact_size_and_family_relations():
    G = bench.family_graph(2000)
    assert G.number_of_edges() == 2000
    rels = {d["relation"] for *_, d in G.edges(data=True)}
    assert {"FATHER_OF", "MOTHER_OF", "SIBLING_OF"} <= rels
    assert max(d for _, d in G.degree()) < 60


@pytest.mark.parametrize("bad", [0, 5, 10.5, True, "100"])
def test_graph_generators_reject_bad_sizes(bad):
    with pytest.raises(ValueError, match="n_edges"):
        bench.scale_free_graph(bad)


def test_sampled_pairs_are_at_the_requested_distance():
    import networkx as nx

    G = bench.scale_free_graph(500)
    U = G.to_undirected(as_view=True)
    pairs = bench.sample_pairs(G, 5, distance=3, seed=1)
    assert len(pairs) == 5 and pairs == bench.sample_pairs(G, 5, distance=3, seed=1)
    assert all(nx.shortest_path_length(U, a, b) == 3 for a, b in pairs)
    with pytest.raises(ValueError, match="distance"):
        bench.sample_pairs(G, 1, distance=0)


def test_compare_backends_with_networkx_only():
    G = bench.family_graph(400)
    rows = bench.compare_backends({"networkx": G}, starts=bench.sample_starts(G, 3),
                                  pairs=bench.sample_pairs(G, 2), repeat=1)
    assert [r["operation"] for r in rows] == ["facts 2-hop", "neighbors 3-hop", "paths <=4 hops (limit 100)"]
    assert all(r["ratio"] == 1.0 and r["same_result"] and r["timed_out"] == 0 for r in rows)
    with pytest.raises(ValueError, match="reference"):
        bench.compare_backends({"other": G}, starts=[], pairs=[])


def test_store_facts_equal_networkx_facts():
    from gaba.graph import gather_facts
    from gaba.store import FalkorStore

    G = bench.family_graph(300)
    starts = bench.sample_starts(G, 4, seed=2)
    with FalkorStore.start(graph="benchtest", label="Entity") as store:
        store.load_networkx(G, progress=False)
        for s in starts:
            for hops in (1, 2, 3):
                assert bench.store_gather_facts(store, [s], hops) == gather_facts(G, [s], hops)
        rows = bench.compare_backends({"networkx": G, "falkordb": store}, starts=starts,
                                      pairs=bench.sample_pairs(G, 2), repeat=1)
    assert all(r["same_result"] for r in rows)
    with pytest.raises(ValueError, match="hops"):
        bench.store_gather_facts(None, ["x"], 0)


def test_cache_entries_and_cost(tmp_path):
    d = tmp_path / "ab"
    d.mkdir()
    entry = {"key": "ab12", "purpose": "extract triples from doc n01", "recorded_at": "2026-11-01T00:00:00Z",
             "request": {"backend": "local", "model": "m"},
             "response": {"text": "{}", "model": "m", "seconds": 2.5,
                          "usage": {"prompt_tokens": 100, "completion_tokens": 20}}}
    (d / "ab12.json").write_text(json.dumps(entry))
    (d / "broken.json").write_text("{not json")
    rows = costs.cache_entries(cache_dir=tmp_path)
    assert len(rows) == 1 and rows[0]["prompt_tokens"] == 100 and rows[0]["seconds"] == 2.5
    assert costs.cache_entries(purpose="EXTRACT", cache_dir=tmp_path) == rows
    assert costs.cache_entries(purpose="answer", cache_dir=tmp_path) == []
    assert costs.cost_per_1k(1_000_000, 0, 0.15, 0.60) == pytest.approx(150.0)
    with pytest.raises(ValueError):
        costs.cost_per_1k(-1, 0, 1, 1)
    assert costs.PRICES_DATED and all(len(v) == 2 for v in costs.ASSUMED_PRICES.values())


def test_plot_scaling_draws_one_line_per_series():
    import matplotlib

    matplotlib.use("Agg")
    rows = [{"n": n, "ms": n / 10, "b": b} for n in (10, 100, 1000) for b in ("x", "y")]
    rows.append({"n": 5, "ms": float("nan"), "b": "x"})
    ax = scaling.plot_scaling(rows, x="n", y="ms", series="b", title="t")
    assert len(ax.lines) == 2 and ax.get_xscale() == "log"
    assert len(ax.lines[0].get_xdata()) == 3


@pytest.mark.live
def test_linking_recall_on_the_shipped_2wiki_sample():
    from gaba.data.benchmarks import load_public

    rows = scaling.linking_recall(load_public("2wiki", limit=25))
    assert [r["system"] for r in rows] == list(scaling.LINKING_SYSTEMS)
    assert all(r["n"] == 25 and 0 <= r["all_evidence"] <= 1 and r["low"] <= r["all_evidence"] <= r["high"]
               for r in rows)
    assert rows[2]["no_entity"] <= rows[0]["no_entity"]          # linking finds more start entities
    assert rows[3]["all_evidence"] >= rows[0]["all_evidence"]
    with pytest.raises(ValueError, match="evidence"):
        scaling.linking_recall(load_public("hotpotqa", limit=3))


def test_model_rates_reads_the_committed_benchmark_run():
    rates = costs.model_rates()
    assert rates["prompt_tok_s"] > rates["gen_tok_s"] > 0 and rates["n"] >= 3
    assert rates["extraction_s"] > 0 and rates["load_avg"] > 0


def test_model_rates_rejects_a_missing_file_and_a_run_without_live_calls(tmp_path):
    with pytest.raises(FileNotFoundError, match="model_throughput.py"):
        costs.model_rates(tmp_path / "none.csv")
    p = tmp_path / "model_throughput.csv"
    p.write_text("source,metric,value,n\nrecorded,recorded calls,3,3\n", encoding="utf-8")
    with pytest.raises(ValueError, match="no-live"):
        costs.model_rates(p)


def test_the_readme_quotes_the_committed_model_benchmark():
    """The README's model rates are the benchmark run's, rounded as printed."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    rates = costs.model_rates()
    m = re.search(r"measured (\d+) prompt tokens and ([\d.]+) answer tokens per second", readme)
    assert m, "the README names the benchmark's prompt and answer rates"
    assert int(m[1]) == round(rates["prompt_tok_s"]) and float(m[2]) == round(rates["gen_tok_s"], 1)
    m = re.search(r"(\d+) s to extract one news document", readme)
    assert m and int(m[1]) == round(rates["extraction_s"])
    m = re.search(r"about (\d+) s for a Graph\s+RAG answer \(about (\d+) prompt tokens and (\d+) answer", readme)
    assert m and int(m[1]) == round(int(m[2]) / rates["prompt_tok_s"] + int(m[3]) / rates["gen_tok_s"])


def test_the_readme_quotes_the_committed_indexing_benchmark():
    """The README's indexing advice is the committed run of benchmarks/indexing_throughput.py."""
    import csv
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme = " ".join((root / "README.md").read_text(encoding="utf-8").split())
    with open(root / "assets" / "data" / "bench" / "indexing_throughput.csv", newline="", encoding="utf-8") as f:
        local = [r for r in csv.DictReader(f) if r["part"] == "local"]
    seq = next(r for r in local if r["setting"] == "1 slot, prefix reuse off")
    fast = next(r for r in local if r["setting"] == "2 slots, prefix reuse on, rows")
    m = re.search(r"about (\d+) s per short document", readme)
    assert m and int(m[1]) == round(float(seq["seconds"]) / int(seq["documents"]))
    m = re.search(r"GABA_EXTRACT_FORMAT=rows GABA_LOCAL_PARALLEL=2 GABA_LOCAL_CACHE_PROMPT=1` in front of "
                  r"`build-graph` was ([\d.]+) times as fast", readme)
    assert m and float(m[1]) == round(float(fast["speedup"]), 1)
    # "at the same extraction F1": within 0.02 of the sequential run, the bar
    assert abs(float(fast["f1_pairs"]) - float(seq["f1_pairs"])) <= 0.02
