"""Two connections opening a new history file at once (the console's writer and its chart reader, or the
console and `omeconsole record`) both get a usable store: neither sees the other's half-made schema."""

from __future__ import annotations

import threading
from pathlib import Path

from omeconsole.core.history.database import open_database, schema_version

ROUNDS = 40


def test_a_new_store_opened_by_two_connections_at_once_is_created_once(tmp_path: Path) -> None:
    for round_ in range(ROUNDS):
        path = tmp_path / f"history-{round_}.sqlite3"
        path.touch(mode=0o600)  # the writer has created the file, not yet its tables
        start = threading.Barrier(2)
        problems: list[BaseException] = []

        def open_it(create: bool, path: Path = path, start: threading.Barrier = start,
                    problems: list[BaseException] = problems) -> None:
            start.wait()
            try:
                open_database(path, create=create).close()
            except BaseException as error:  # said by the assertion below
                problems.append(error)

        threads = [threading.Thread(target=open_it, args=(create,)) for create in (True, False)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert problems == []
        connection = open_database(path, create=False)
        assert schema_version(connection) >= 1
        connection.close()
