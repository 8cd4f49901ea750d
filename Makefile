# The book's commands. `make book` sets everything up and builds the book; `make test` runs every test.
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup book test lab lab-settings bench bench-full clean chromium strip

# Create .venv and install the pinned requirements and gaba itself (editable, so every kernel sees it).
setup: $(STAMP)
$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps -e .
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 --display-name "Python 3 (gaba)" >/dev/null
	$(BIN)/python -m gaba prepare
	$(MAKE) --no-print-directory lab-settings
	touch $(STAMP)

# JupyterLab settings of this environment (assets/jupyterlab/README.md): widget state is saved with
# the notebook, so a chapter saved after running shows its hop explorer when reopened.
LAB_SETTINGS := $(VENV)/share/jupyter/lab/settings/overrides.json
lab-settings: $(LAB_SETTINGS)
$(LAB_SETTINGS): assets/jupyterlab/overrides.json
	install -D -m 644 $< $@

# Execute every chapter and build the HTML book into _build/html (warnings are errors).
book: setup
	$(BIN)/jupyter-book build . --path-output . -W --keep-going
	@echo "Open the book: $(BIN)/python -m http.server -d _build/html 8000  (then http://localhost:8000)"

# Headless Chromium for the browser test (Debian package; needs root). Skipped quietly otherwise.
chromium:
	@command -v chromium >/dev/null || { [ "$$(id -u)" = 0 ] && (apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || echo "chromium not installed: the browser test will be skipped"; }

# Unit tests, the built book's browser test, and every notebook under nbval (model calls from the cache only).
test: setup chromium
	$(BIN)/python -m gaba check-notebooks
	$(MAKE) --no-print-directory book
	GABA_OFFLINE=1 $(BIN)/python -m pytest --nbval-lax --nbval-cell-timeout=1800 -p no:cacheprovider

# JupyterLab in the project's environment, opened on the chapters.
lab: setup lab-settings
	$(BIN)/jupyter lab chapters/ $$([ "$$(id -u)" = 0 ] && echo --allow-root)

bench: setup
	$(BIN)/python benchmarks/run_all.py

bench-full: setup
	$(BIN)/python benchmarks/run_all.py --full

# Remove outputs from every notebook (run before committing).
strip: setup
	$(BIN)/python -m gaba strip-notebooks

clean:
	rm -rf _build .jupyter_cache
