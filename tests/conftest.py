"""Every test's plugins and hooks: the simulator fixtures (support/sim_support.py) reach every test from here.

tests/support is on sys.path (`pythonpath` in pyproject.toml), so test modules import their helpers by name.
"""

from __future__ import annotations

import gc

import pytest

pytest_plugins = ["sim_support"]


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
