"""Every test's plugins and hooks: the simulator fixtures (support/sim_support.py), and each folder's marker.

tests/support is on sys.path (`pythonpath` in pyproject.toml), so test modules import their helpers by name.
A test is marked with the kind of its folder (`unit`, `sim`, `tui`, `media`, `fuzz`, `replay`, declared in
pyproject.toml), so `-m unit` selects what `make quick` runs and `-m "not tui"` leaves the screens out.
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

pytest_plugins = ["sim_support"]

TESTS = Path(__file__).parent
KINDS = ("unit", "sim", "tui", "media", "fuzz", "replay")

# Hypothesis's defaults judge an example by wall time (a 200 ms deadline, a "too slow" health check): on a
# machine whose cores other programs keep busy, a correct example fails them. The suite judges behaviour,
# never speed (speed is measured in bench/), so neither applies to any property test here.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("suite")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark each test with its folder's kind; a test module outside those folders is an error, not unmarked."""
    for item in items:
        kind = item.path.relative_to(TESTS).parts[0] if item.path.is_relative_to(TESTS) else ""
        if kind not in KINDS:
            raise pytest.UsageError(f"{item.path}: a test belongs in one of tests/{{{','.join(KINDS)}}}/")
        item.add_marker(kind)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """Collect once, then freeze what is left, before an xdist worker reports that it has finished.

    A worker ends with ~500k live objects (mostly Textual's bounded render caches: strips and their
    FIFOCaches), so each full collection takes ~0.4 s, and pytest's unraisable-exception cleanup runs
    five of them at unconfigure. execnet gives a finished worker 5 s before it sends it SIGINT; on a
    loaded machine the collections outlasted that and the interrupt surfaced as a
    PytestUnraisableExceptionWarning (KeyboardInterrupt in hypothesis's gc callback). The one collection
    here still runs under pytest's unraisable hook, so nothing it finds goes unreported.
    """
    gc.collect()
    gc.freeze()
