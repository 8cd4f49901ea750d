"""The chapters in JupyterLab (`make lab`): a notebook saved after running shows its hop explorer
again when reopened.

The explorer is an anywidget widget. JupyterLab shows a widget output from the widget's model;
when the model is neither in a running kernel nor saved in the notebook, it shows "Error
displaying widget: model not found" instead. JupyterLab saves the models in the notebook's
metadata only when the setting ``saveState`` of ``@jupyter-widgets/jupyterlab-manager`` is on (off
by default), so ``make lab`` installs ``assets/jupyterlab/overrides.json``, which turns it on, into
JupyterLab's application settings of the project's environment.
"""
from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OVERRIDES = ROOT / "assets" / "jupyterlab" / "overrides.json"
PLUGIN = "@jupyter-widgets/jupyterlab-manager:plugin"
_TOC = set(re.findall(r"file:\s*(\S+)", (ROOT / "_toc.yml").read_text(encoding="utf-8")))
NOTEBOOKS = sorted(p for p in (ROOT / "chapters").rglob("*.ipynb")
                   if ".ipynb_checkpoints" not in p.parts and str(p.relative_to(ROOT).with_suffix("")) in _TOC)


def _source(cell: dict) -> str:
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def _uses_explorer(path: Path) -> bool:
    nb = json.loads(path.read_text(encoding="utf-8"))
    return any(c["cell_type"] == "code" and "hop_explorer(" in _source(c) for c in nb["cells"])


EXPLORER_NOTEBOOKS = [p for p in NOTEBOOKS if _uses_explorer(p)]


def _save_state_default(app_settings_dir: Path, tmp_path: Path) -> bool:
    """The ``saveState`` JupyterLab starts with, given an application settings directory."""
    from jupyter_core.paths import jupyter_path
    from jupyterlab_server.settings_utils import get_settings

    schemas = Path(sys.prefix) / "share" / "jupyter" / "lab" / "schemas"
    settings, _ = get_settings(str(app_settings_dir), str(schemas), str(tmp_path / "user-settings"),
                               schema_name=PLUGIN, labextensions_path=jupyter_path("labextensions"))
    return settings["schema"]["properties"]["saveState"]["default"]


def test_the_explorer_is_used_where_expected():
    names = {p.relative_to(ROOT).as_posix() for p in EXPLORER_NOTEBOOKS}
    assert "chapters/graph_rag.ipynb" in names, names


def test_jupyterlab_saves_widget_state_with_the_book_settings(tmp_path):
    assert json.loads(OVERRIDES.read_text(encoding="utf-8")) == {PLUGIN: {"saveState": True}}
    assert _save_state_default(tmp_path / "no-settings", tmp_path) is False, "JupyterLab's own default changed"
    assert _save_state_default(OVERRIDES.parent, tmp_path) is True


def test_make_lab_installs_the_settings_where_jupyterlab_reads_them():
    from jupyterlab.commands import get_app_dir

    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    target = re.search(r"^LAB_SETTINGS := \$\(VENV\)/(\S+)$", makefile, re.M)
    assert target and target.group(1) == "share/jupyter/lab/settings/overrides.json", "LAB_SETTINGS moved"
    assert re.search(r"^\$\(LAB_SETTINGS\): assets/jupyterlab/overrides\.json\n\tinstall .*\$< \$@$", makefile, re.M)
    assert re.search(r"^lab: .*\blab-settings\b", makefile, re.M), "`make lab` must install the settings"
    # The environment's JupyterLab application directory is the one the Makefile writes into.
    assert Path(get_app_dir()).resolve() == (Path(sys.prefix) / "share" / "jupyter" / "lab").resolve()


@pytest.mark.parametrize("path", EXPLORER_NOTEBOOKS, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_explorer_notebooks_open_on_a_kernel_without_stale_widget_state(path):
    """JupyterLab starts the project's kernel without asking, and the committed notebook carries
    no widget state (state belongs to a reader's run; a committed one would be stale)."""
    meta = json.loads(path.read_text(encoding="utf-8"))["metadata"]
    assert meta.get("kernelspec", {}).get("name") == "python3", f"{path.name}: no python3 kernelspec"
    assert "widgets" not in meta, f"{path.name}: committed widget state; run `make strip`"


def test_the_saved_model_is_enough_to_draw_the_explorer():
    """What JupyterLab saves for the explorer (the synced traits of its model) holds the renderer
    and the data, and the anywidget front end that draws it from them is installed."""
    import networkx as nx
    from jupyter_core.paths import jupyter_path

    from gaba.widgets import hop_explorer

    G = nx.MultiDiGraph()
    G.add_edge("Aurora", "Kestrel", key="SUPPLIES_TO", relation="SUPPLIES_TO", evidence="Aurora supplies Kestrel.")
    G.add_edge("Helio", "Aurora", key="INVESTS_IN", relation="INVESTS_IN", evidence="Helio invests in Aurora.")
    w = hop_explorer(G, "Kestrel", hops=2, live=True)
    state = json.loads(json.dumps(w.get_state()))            # JSON, as it is written to the notebook
    assert state["_model_module"] == "anywidget" and state["_view_module"] == "anywidget"
    assert "function renderHopExplorer" in state["_esm"] and "export default" in state["_esm"]
    assert state["data"]["default_entity"] == "Kestrel" and state["entity"] == "Kestrel" and state["hops"] == 2
    assert ".hop-explorer" in state["_css"]
    installed = [Path(d) / "anywidget" / "package.json" for d in jupyter_path("labextensions")]
    assert any(p.is_file() for p in installed), "the anywidget JupyterLab extension is not installed"


@pytest.mark.browser
def test_jupyterlab_draws_the_explorer_from_a_saved_notebook(tmp_path):
    """A notebook carrying the explorer's output and its saved widget state (what JupyterLab
    writes with saveState on), reopened in JupyterLab in headless Chromium: the explorer is drawn
    from the saved model, with no kernel that ever created it."""
    import shutil
    import socket
    import subprocess
    import time
    import urllib.request

    import nbformat
    import networkx as nx
    from ipywidgets.embed import dependency_state

    from gaba.widgets import hop_explorer

    chromium = shutil.which("chromium")
    if chromium is None:
        pytest.skip("Chromium is not installed (Debian: apt-get install chromium, or `make chromium`)")
    G = nx.MultiDiGraph()
    G.add_edge("Aurora", "Kestrel", key="SUPPLIES_TO", relation="SUPPLIES_TO", evidence="Aurora supplies Kestrel.")
    G.add_edge("Helio", "Aurora", key="INVESTS_IN", relation="INVESTS_IN", evidence="Helio invests in Aurora.")
    w = hop_explorer(G, "Kestrel", hops=2, live=True)
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    cell = nbformat.v4.new_code_cell("hop_explorer(G, 'Kestrel', hops=2)", execution_count=1)
    cell.outputs = [nbformat.v4.new_output("display_data", data={
        "application/vnd.jupyter.widget-view+json": {"version_major": 2, "version_minor": 0, "model_id": w.model_id},
        "text/plain": "HopExplorer()"})]
    nb.cells = [cell]
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {
        "version_major": 2, "version_minor": 0,
        "state": json.loads(json.dumps(dependency_state([w], drop_defaults=False)))}}
    nbformat.write(nb, tmp_path / "saved.ipynb")
    # A reader's own saved notebook is signed (trusted); sign this one with a key kept in tmp_path.
    env = dict(os.environ, JUPYTER_DATA_DIR=str(tmp_path / "data"),
               JUPYTER_CONFIG_DIR=str(tmp_path / "config"))
    subprocess.run([sys.executable, "-m", "jupyter", "trust", str(tmp_path / "saved.ipynb")], env=env,
                   check=True, capture_output=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = open(tmp_path / "lab.log", "w")
    lab = subprocess.Popen([sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
                            f"--ServerApp.port={port}", "--IdentityProvider.token=", "--ServerApp.password=",
                            f"--ServerApp.root_dir={tmp_path}", "--allow-root"],
                           stdout=log, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(240):
            try:
                urllib.request.urlopen(f"{base}/api/status", timeout=2)
                break
            except OSError:
                time.sleep(0.5)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--headless"])
            try:
                pg = b.new_page()
                # JupyterLab starts a kernel for the notebook as it opens it; on a loaded machine its
                # widget manager can render the output before it has read the saved state ("Error
                # displaying widget"), and a reload draws it. One reload is allowed, not more.
                for attempt in range(2):
                    if attempt:
                        pg.reload()
                    else:
                        pg.goto(f"{base}/lab/tree/saved.ipynb")
                    for _ in range(300):
                        if pg.locator(".hop-explorer li.fact").count() or pg.get_by_text("Error displaying widget").count():
                            break
                        pg.wait_for_timeout(1000)
                    if not pg.get_by_text("Error displaying widget").count():
                        break
                assert not pg.get_by_text("Error displaying widget").count(), "JupyterLab did not find the saved model"
                assert pg.locator(".hop-explorer li.fact").count() == 2, pg.locator(".jp-OutputArea-output").all_inner_texts()
                assert pg.locator(".hop-explorer .hop-status").get_attribute("data-hops") == "2"
            finally:
                b.close()
    finally:
        lab.terminate()
        lab.wait(30)
        log.close()
