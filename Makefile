# The two commands a fresh machine needs: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test quick test-browser test-terminal test-integration test-real-ome lint typecheck suite simulator bench clean lock pictures

# requirements.lock pins every package `.[dev]` installs (the simulator's extra included), as constraints:
# CI and every developer get the same versions. `make lock` writes it anew from a fresh resolution.
$(STAMP): pyproject.toml requirements.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	# setuptools explains editable installs of a flat layout at length on every install; nothing to act on here.
	PYTHONWARNINGS="ignore:Editable installation" $(BIN)/python -m pip install -q -c requirements.lock -e '.[dev]'
	touch $(STAMP)

lock:
	rm -rf .lock-venv
	$(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install -q --upgrade pip
	PYTHONWARNINGS="ignore:Editable installation" .lock-venv/bin/python -m pip install -q -e '.[dev]'
	( echo "# Every package 'pip install -e .[dev]' installs, pinned (make lock writes this file; make test installs with it)."; \
	  .lock-venv/bin/python -m pip freeze --exclude-editable ) > requirements.lock
	rm -rf .lock-venv

demo: $(STAMP)
	$(BIN)/omeconsole demo

simulator: $(STAMP)
	$(BIN)/ome-simulator

lint: $(STAMP)
	$(BIN)/ruff check omeconsole simulator tests bench
	$(BIN)/lint-imports

typecheck: $(STAMP)
	$(BIN)/mypy simulator omeconsole

# Every test folder (tests/unit, sim, tui, media, fuzz, replay) on two workers, the real terminals too (skipped, saying
# why, without Xvfb, xterm or kitty).
suite: $(STAMP)
	# worksteal: idle workers take queued tests from busy ones, so no worker is left with a slow tail.
	$(BIN)/pytest -n 2 --dist worksteal -p no:cacheprovider

test: lint typecheck suite

# tests/unit only (marker `unit`: no simulator, no screen), on two workers: the loop while writing code.
quick: $(STAMP)
	$(BIN)/pytest -n 2 --dist worksteal -p no:cacheprovider tests/unit

# In headless Chromium (needs Chromium: apt-get install chromium): `omeconsole serve` driven by Playwright
# (tests/sim/test_serve_browser.py, marker `browser`; in `test` too where Chromium is installed, skipped elsewhere),
# then hls.js against the simulator (not in `test`).
test-browser: $(STAMP)
	$(BIN)/pytest -p no:cacheprovider -rs -m browser tests/sim/test_serve_browser.py tests/sim/test_serve_browser_copy.py
	$(BIN)/python tests/support/js/browser/browser_check.py

# In real terminals under Xvfb (needs apt-get install xvfb xterm kitty): the stream view's picture drawn with Sixel in
# xterm and what kitty allows, checked on screenshots (tests/sim/test_real_terminals.py, marker `terminal`; about a
# minute a terminal). In `suite` too; this target runs them alone.
test-terminal: $(STAMP)
	$(BIN)/pytest -p no:cacheprovider -rs -m terminal tests/sim/test_real_terminals.py

# A real Prometheus scrapes the exporter (needs Debian's prometheus package: apt-get install -y prometheus;
# skipped, saying why, without it); about 90 s of real time. Not in `test`.
test-integration: $(STAMP)
	OMECONSOLE_INTEGRATION=1 $(BIN)/pytest -p no:cacheprovider -rs -s tests/sim/test_exporter_prometheus.py

# The console's read-only checks against a live server (OME_API_URL, OME_ACCESS_TOKEN, optional OME_PUBLISHER_URL,
# OME_STREAM=vhost/app/stream); OME_ALLOW_SENDS=1 or ARGS=--allow-sends adds one cue-out / cue-in / ID3 round
# trip. Skipped, saying why, without OME_API_URL. Not in `test` (tests/replay/test_real_ome_checks.py runs the same
# checks there against the replayed 0.19.0).
test-real-ome: $(STAMP)
	$(BIN)/python tests/support/real_ome.py $(ARGS)

bench: $(STAMP)
	for script in bench/bench_stats.py bench/bench_media.py bench/bench_polling.py bench/bench_tree.py bench/bench_chart.py \
		bench/bench_tui.py bench/bench_client.py bench/bench_hostile.py bench/bench_exporter.py; do \
		$(BIN)/python $$script || exit 1; done

# The README's pictures (docs/pictures/*.svg): the real console on the demo's simulator, about two minutes.
pictures: $(STAMP)
	$(BIN)/python docs/make_pictures.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache
