# cardroom: the everyday commands. `make run` and `make test` are the two the README opens with.
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PROTO_SRC := $(shell find protos/cardroom -name '*.proto')
GENERATED := cardroom/.generated

.PHONY: run test lint protos install bench selfplay conformance clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

# Python modules, gRPC stubs and type stubs from protos/ (generated, not committed).
$(GENERATED): $(PROTO_SRC) $(VENV)/.installed
	$(PY) -m shared.protogen
	touch $@

protos: $(GENERATED)

run: $(GENERATED)
	$(PY) -m services.local

lint: $(GENERATED)
	cd protos && npx --yes @bufbuild/buf lint
	$(PY) -m mypy

test: lint
	$(PY) -m pytest -q

conformance: $(GENERATED)
	$(PY) -m shared.conformance tests/conformance/scenarios

bench: $(GENERATED)
	$(PY) -m tests.bench.run

# Robot-only matches: rounds per match and how often a call succeeds (seed 000's figures).
GAME ?= four_down
MATCHES ?= 2000
SEATS ?= 2
OPTIONS ?= {}
selfplay: $(VENV)/.installed
	$(PY) -m tests.bench.selfplay --game $(GAME) --matches $(MATCHES) --seats $(SEATS) --options '$(OPTIONS)'

clean:
	rm -rf cardroom build *.egg-info
