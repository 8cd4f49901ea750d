"""Smoke tests of the scripts in benchmarks/: each runs at a tiny size and writes its CSV and plot."""
from __future__ import annotations

import csv
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gaba import config

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"


def run(script: str, *args: str, timeout: int = 300) -> str:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, str(BENCH / script), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def read_csv(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return list(csv.DictReader(f))


def load_script(name: str):
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_traversal_tiny(tmp_path):
    out = run("traversal.py", "--sizes", "300", "--queries", "3", "--repeat", "1", "--out", str(tmp_path))
    assert "ratio = FalkorDB / NetworkX" in out and "peak_query_mb" in out
    rows = read_csv(tmp_path / "traversal.csv")
    assert {(r["family"], r["backend"]) for r in rows} == {(f, b) for f in ("family", "scale-free")
                                                          for b in ("networkx", "falkordb")}
    assert all(r["same_result"] == "True" for r in rows)
    assert {r["n_edges"] for r in rows} == {"300"}
    mem = read_csv(tmp_path / "traversal_memory.csv")
    assert {r["process"] for r in mem} == {"python", "server", "python client"}
    assert all(float(r["peak_build_mb"]) > 0 for r in mem)
    assert (tmp_path / "bench_traversal.png").stat().st_size > 10_000
    assert (tmp_path / "bench_traversal_memory.png").is_file()


def test_traversal_rejects_bad_options(tmp_path):
    proc = subprocess.run([sys.executable, str(BENCH / "traversal.py"), "--families", "tree", "--out", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "unknown graph family" in proc.stderr
    proc = subprocess.run([sys.executable, str(BENCH / "traversal.py"), "--sizes", "1e3,-5"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "positive whole number" in proc.stderr


@pytest.mark.live
def test_retrieval_latency_tiny(tmp_path):
    out = run("retrieval_latency.py", "--sizes", "14,60", "--queries", "2", "--repeat", "1", "--out", str(tmp_path))
    assert "graph total = link + traverse" in out
    rows = read_csv(tmp_path / "retrieval_latency.csv")
    steps = {(r["pipeline"], r["step"]) for r in rows}
    assert {("graph", "link"), ("graph", "traverse"), ("flat", "embed"), ("flat", "search"),
            ("graph", "total"), ("flat", "total")} <= steps
    assert {r["documents"] for r in rows} == {"14", "60"}
    assert (tmp_path / "bench_retrieval_latency.png").is_file()


def test_model_throughput_reads_recorded_calls(tmp_path):
    cache = tmp_path / "cache" / "ab"
    cache.mkdir(parents=True)
    for i, (purpose, secs) in enumerate([("extract triples from doc n01", 10.0),
                                         ("extract triples from doc n01 (retry 1)", 5.0),
                                         ("extract triples from doc n02", 20.0),
                                         ("graph_rag: who?", 3.0)]):
        entry = {"key": f"ab{i}", "purpose": purpose, "request": {"backend": "local"},
                 "response": {"text": "x", "seconds": secs, "usage": {"prompt_tokens": 100, "completion_tokens": 40}}}
        (cache / f"ab{i}.json").write_text(json.dumps(entry))
    out = run("model_throughput.py", "--no-live", "--cache-dir", str(tmp_path / "cache"), "--out", str(tmp_path / "o"))
    assert "recorded extraction calls, per document" in out
    docs = read_csv(tmp_path / "o" / "model_extraction.csv")
    assert [(d["document"], d["calls"], float(d["seconds"])) for d in docs] == [
        ("extract triples from doc n01", "2", 15.0), ("extract triples from doc n02", "1", 20.0)]
    summary = {r["metric"]: float(r["value"]) for r in read_csv(tmp_path / "o" / "model_throughput.csv")}
    assert summary["extraction seconds per document (median)"] == 17.5


def test_model_throughput_live_path_with_a_scripted_backend(scripted, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("GABA_LOCAL_URL", raising=False)
    config.reload()
    mt = load_script("model_throughput")
    assert mt.wait_until_idle() == 0.0
    fact = {"subject": "A", "relation": "SUPPLIES_TO", "object": "B", "evidence": "A supplies B."}
    scripted.replies.extend(["ok"] * 4 + [json.dumps({"facts": [fact]})])
    assert mt.main(["--repeat", "2", "--gen-tokens", "8", "--out", str(tmp_path)]) == 0
    assert len(scripted.requests) == 5
    assert scripted.requests[0]["max_tokens"] == 1 and scripted.requests[2]["max_tokens"] == 8
    assert scripted.requests[4]["schema"] is not None        # the book's extraction schema
    live = read_csv(tmp_path / "model_throughput_live.csv")
    assert [r["probe"] for r in live] == ["prompt", "prompt", "generation", "generation"]
    ex = read_csv(tmp_path / "model_extraction_live.csv")
    assert len(ex) == 1 and ex[0]["facts"] == "1"
    assert "generation tokens/s (best)" in capsys.readouterr().out


def test_model_throughput_reports_a_failed_live_extraction(scripted, tmp_path, monkeypatch):
    monkeypatch.delenv("GABA_LOCAL_URL", raising=False)
    config.reload()
    mt = load_script("model_throughput")
    scripted.replies.extend(["ok"] * 2 + ["not json"] * 3)      # the extraction never validates
    assert mt.main(["--repeat", "1", "--gen-tokens", "8", "--out", str(tmp_path)]) == 0
    ex = read_csv(tmp_path / "model_extraction_live.csv")
    assert "no usable" in ex[0]["error"] or "schema" in ex[0]["error"]


@pytest.mark.live
def test_book_build_counts_zero_model_calls_on_the_preface(tmp_path):
    out = run("book_build.py", "--notebooks", "preface", "--out", str(tmp_path), timeout=600)
    assert "warm rebuild made 0 model calls" in out
    rows = read_csv(tmp_path / "book_build.csv")
    pre = rows[0]
    assert pre["notebook"] == "preface" and pre["model_calls"] == "0" and not pre["error"]
    assert int(pre["from_cache"]) >= 2 and float(pre["cold_est_s"]) > float(pre["warm_s"])


def test_book_build_rejects_unknown_notebooks(tmp_path):
    proc = subprocess.run([sys.executable, str(BENCH / "book_build.py"), "--notebooks", "nope", "--out", str(tmp_path)],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "no chapter notebook named nope" in proc.stderr


def test_run_all_lists_and_rejects(tmp_path):
    proc = subprocess.run([sys.executable, str(BENCH / "run_all.py"), "--only", "nothing"],
                          capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2 and "unknown benchmark" in proc.stderr
    out = run("run_all.py", "--only", "model_throughput", "--no-live", "--out", str(tmp_path))
    assert "model_throughput" in out and "ok" in out
    assert (tmp_path / "model_throughput.csv").is_file()


def test_model_throughput_survives_an_unreachable_server(scripted, tmp_path, monkeypatch, capsys):
    from gaba.errors import BackendUnavailable

    monkeypatch.delenv("GABA_LOCAL_URL", raising=False)
    config.reload()
    mt = load_script("model_throughput")
    scripted.replies.append(BackendUnavailable("cannot reach the model endpoint"))
    assert mt.main(["--repeat", "1", "--gen-tokens", "8", "--out", str(tmp_path)]) == 1
    assert "the live calls failed" in capsys.readouterr().out
    assert (tmp_path / "model_throughput.csv").is_file()


def test_observing_needs_a_shared_server(tmp_cache, monkeypatch, tmp_path, capsys):
    monkeypatch.delenv("GABA_LOCAL_URL", raising=False)
    config.reload()
    mt = load_script("model_throughput")
    assert mt.observe_server(0.1) is None
    assert mt.main(["--no-live", "--observe", "0.1", "--out", str(tmp_path)]) == 0
    assert "--observe needs GABA_LOCAL_URL" in capsys.readouterr().out


@pytest.mark.live
def test_scaling_retrieval_tiny_on_both_generators(tmp_path):
    from gaba.data.benchmarks import PUBLIC_DIR, PUBLIC_FILES

    wiki = tmp_path / "2wiki.jsonl"
    lines = (PUBLIC_DIR / PUBLIC_FILES["2wiki"]).read_text(encoding="utf-8").splitlines()[:12]
    wiki.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = run("scaling_retrieval.py", "--sizes", "14,30", "--2wiki", str(wiki), "--out", str(tmp_path),
              "--side-cache", str(tmp_path / "side"), timeout=900)
    assert "Trade wire" in out and "every gold triple within 2 hops" in out
    for name in ("scaling_retrieval.csv", "scaling_retrieval_trade.csv"):
        rows = read_csv(tmp_path / name)
        systems = {r["system"] for r in rows}
        assert {"flat top-k", "2-hop, ranked N", "2-hop, ranked N (embedding)", "2-hop, ranked N (lexical)",
                "2-hop, ranked N (relation)", "2-hop, ranked N (ppr)", "2-hop, ranked N (hop)"} <= systems
        assert {r["size"] for r in rows} == {"14", "30"}
    wiki_rows = read_csv(tmp_path / "scaling_retrieval_2wiki.csv")
    assert [r["system"] for r in wiki_rows][0] == "exact names" and wiki_rows[0]["n"] == "12"
    assert (tmp_path / "bench_scaling_retrieval_trade.png").is_file()


def test_scaling_retrieval_reads_the_shipped_2wiki_sample():
    module = load_script("scaling_retrieval")
    path = module.wiki_default()
    assert path.is_file() and path.is_relative_to(ROOT / "assets" / "data" / "benchmarks")
    assert set(module.GENERATORS) == {"company", "trade"}


@pytest.mark.parametrize("flags, csv_name, collections", [
    ([], "heldout_transfer.csv", {"music", "food", "space", "rail", "health", "ports", "courts", "stage", "energy",
                                  "aviation", "museums", "vineyards", "ferries"}),
    (["--fresh"], "heldout_fresh.csv", {"zoos", "textiles", "architecture", "beekeeping", "alpine", "gardens",
                                        "chess", "ceramics", "radio", "forestry"}),
    (["--fresh", "--warm"], "heldout_fresh_warm.csv", {"zoos", "textiles", "architecture", "beekeeping", "alpine",
                                                      "gardens", "chess", "ceramics", "radio", "forestry"}),
])
def test_heldout_transfer_replays_the_published_results(tmp_path, monkeypatch, flags, csv_name, collections):
    # offline: every answer comes from the recorded responses, so the published CSV is what the code gives
    monkeypatch.setenv("GABA_OFFLINE", "1")          # run() hands the script this environment
    out = run("heldout_transfer.py", *flags, "--out", str(tmp_path))
    assert "documents that failed: none" in out
    rows = read_csv(tmp_path / csv_name)
    published = read_csv(ROOT / "assets" / "data" / "bench" / csv_name)
    key = lambda r: (r["collection"], r["type"], r["system"], r["passed"], r["n"])   # noqa: E731
    assert sorted(map(key, rows)) == sorted(map(key, published))
    assert {r["collection"] for r in rows} == collections | {"pooled"}
