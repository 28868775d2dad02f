# make run: install and serve on the embedded default (SQLite, template engine).
# make test: the whole suite (add TEST_DATABASE_URL to run the database tests on Postgres too).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
HOST ?= 127.0.0.1
PORT ?= 8000
WAITRESS_THREADS ?= 16
# Slow clients hold a connection, not a thread; allow many (poll() has no 1,024-descriptor ceiling)
# and close one idle for 30 s. See the README's "Isolation and abuse".
WAITRESS_CONNECTION_LIMIT ?= 1000
WAITRESS_CHANNEL_TIMEOUT ?= 30
# app.serving is waitress-serve with a graceful stop on SIGTERM (see its docstring and the README).
SERVE := $(BIN)/python -m app.serving --listen=$(HOST):$(PORT) --threads=$(WAITRESS_THREADS) \
	--connection-limit=$(WAITRESS_CONNECTION_LIMIT) --channel-timeout=$(WAITRESS_CHANNEL_TIMEOUT) --asyncore-use-poll \
	wsgi:app

.PHONY: install install-test run serve test lint bench soak report-sample lock check-locks clean

# Installs repeat: the exact versions and hashes in requirements/runtime.txt (what serving needs) and
# requirements/test.txt (runtime plus the test tools), made from setup.cfg's ranges by `make lock`.
RUNTIME_LOCK := requirements/runtime.txt
TEST_LOCK := requirements/test.txt
TEST_STAMP := $(VENV)/.installed-test

# The PDF fonts no PyPI package carries (Tibetan, Thaana, Syriac, ...), pinned in requirements/fonts.json, go
# into the venv too (app/embed/printing.py reads them there).
FONT_DIR := $(VENV)/share/compliance-reports/fonts

$(STAMP): setup.cfg pyproject.toml $(RUNTIME_LOCK) requirements/fonts.json
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --require-hashes -r $(RUNTIME_LOCK)
	$(BIN)/pip install --quiet --no-deps -e .
	$(BIN)/python requirements/fetch_fonts.py $(FONT_DIR)
	touch $(STAMP)

$(TEST_STAMP): $(STAMP) $(TEST_LOCK)
	$(BIN)/pip install --quiet --require-hashes -r $(TEST_LOCK)
	touch $(TEST_STAMP)

install: $(STAMP)

install-test: $(TEST_STAMP)

# Rewrite the locks from setup.cfg at today's newest versions within its ranges (from PyPI itself, ignoring any
# local index or wheel folder this machine's pip is set up with), then commit requirements/*.txt.
lock: $(STAMP)
	$(BIN)/pip install --quiet "pip-tools>=7.4,<8"
	env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null $(BIN)/pip-compile --quiet --upgrade --generate-hashes \
		--strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links -o $(RUNTIME_LOCK) setup.cfg
	env -u PIP_FIND_LINKS PIP_CONFIG_FILE=/dev/null $(BIN)/pip-compile --quiet --upgrade --generate-hashes \
		--strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links --extra test -c $(RUNTIME_LOCK) \
		-o $(TEST_LOCK) setup.cfg

# Fails when a lock no longer satisfies setup.cfg (.ci/run runs it before the suite).
check-locks: $(STAMP)
	$(BIN)/python requirements/check_locks.py

run: $(STAMP)
	@$(BIN)/python -c "import weasyprint" >/dev/null 2>&1 || { echo "make run: WeasyPrint, which prints the PDFs," \
		"cannot load Pango 1.44 or newer from the system: install it (Debian/Ubuntu: sudo apt install" \
		"libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0; macOS: brew install pango) and run make run again." >&2; \
		exit 1; }
	$(BIN)/flask --app wsgi db upgrade
	$(BIN)/flask --app wsgi keys ensure-demo --base-url http://$(HOST):$(PORT)
	@echo "Serving on http://$(HOST):$(PORT) with $(WAITRESS_THREADS) threads"
	exec $(SERVE)

# Serve an installed, migrated instance, with the same settings as `make run`.
serve: $(STAMP)
	exec $(SERVE)

# Two workers (pytest-xdist), each with a database of its own (tests/conftest.py); TEST_WORKERS=0 runs in one process.
TEST_WORKERS ?= 2
test: $(TEST_STAMP)
	$(BIN)/pytest -n $(TEST_WORKERS)

lint: $(TEST_STAMP)
	$(BIN)/ruff check app tests bench wsgi.py

bench: $(TEST_STAMP)
	$(BIN)/python -m bench

# Mixed load with faults (kill -9, a Postgres restart, a receiver outage, SIGTERM) on two processes, then the
# reconciliation. Not in CI: it restarts this machine's Postgres. SOAK_SECONDS and SOAK_RATE tune it.
soak: $(TEST_STAMP)
	$(BIN)/python -m bench.soak

# The 25 reports of every sample assessment (app/content/samples), as Markdown and JSON, to read.
REPORT_SAMPLE_DIR ?= report-sample
report-sample: $(STAMP)
	$(BIN)/python -m app.generation.samples $(REPORT_SAMPLE_DIR)

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
