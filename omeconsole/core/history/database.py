"""The history database file: private to its user, in WAL mode, with a versioned schema.

The directory is created 0700 and the file 0600 before SQLite opens it (SQLite gives its `-wal` and
`-shm` files the database's own mode), and an existing file readable by others is tightened: the
store holds which streams a server carries and who watched them, which is nobody else's business.

Times are seconds since the epoch (REAL). A node is (server, depth, vhost, app, stream) with '' for
the parts a vhost or an app does not have: names the engine polls are never empty.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SCHEMA_VERSION = 2

_SCHEMA_V1 = """
CREATE TABLE servers (
    id INTEGER PRIMARY KEY,
    key TEXT NOT NULL UNIQUE,
    profile TEXT,
    api_url TEXT
);
CREATE TABLE series (
    id INTEGER PRIMARY KEY,
    server_id INTEGER NOT NULL REFERENCES servers(id),
    depth INTEGER NOT NULL,
    vhost TEXT NOT NULL,
    app TEXT NOT NULL,
    stream TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seen REAL NOT NULL,
    samples INTEGER NOT NULL DEFAULT 0,
    bytes_in INTEGER NOT NULL DEFAULT 0,
    bytes_out INTEGER NOT NULL DEFAULT 0,
    bytes_in_before INTEGER NOT NULL DEFAULT 0,
    bytes_out_before INTEGER NOT NULL DEFAULT 0,
    peak_viewers INTEGER,
    peak_viewers_at REAL,
    peak_rate_in REAL,
    peak_rate_out REAL,
    life_created REAL,
    life_started REAL NOT NULL,
    closed_lives_seconds REAL NOT NULL DEFAULT 0,
    lives INTEGER NOT NULL DEFAULT 1,
    last_total_in INTEGER,
    last_total_out INTEGER,
    ended_at REAL,
    UNIQUE (server_id, depth, vhost, app, stream)
);
CREATE INDEX series_last_seen ON series(last_seen);
CREATE TABLE samples (
    series_id INTEGER NOT NULL,
    at REAL NOT NULL,
    viewers INTEGER,
    rate_in REAL,
    rate_out REAL,
    total_in INTEGER,
    total_out INTEGER,
    delta_in INTEGER NOT NULL,
    delta_out INTEGER NOT NULL,
    span REAL NOT NULL,
    detail TEXT,
    PRIMARY KEY (series_id, at)
) WITHOUT ROWID;
CREATE INDEX samples_at ON samples(at);
CREATE TABLE buckets (
    series_id INTEGER NOT NULL,
    step INTEGER NOT NULL,
    start INTEGER NOT NULL,
    samples INTEGER NOT NULL,
    span REAL NOT NULL,
    delta_in INTEGER NOT NULL,
    delta_out INTEGER NOT NULL,
    last_at REAL NOT NULL,
    viewers INTEGER,
    viewers_min INTEGER,
    viewers_max INTEGER,
    viewers_max_at REAL,
    rate_in_min REAL,
    rate_in_max REAL,
    rate_out_min REAL,
    rate_out_max REAL,
    total_in INTEGER,
    total_out INTEGER,
    PRIMARY KEY (series_id, step, start)
) WITHOUT ROWID;
CREATE INDEX buckets_age ON buckets(step, start);
CREATE TABLE lifecycle (
    series_id INTEGER NOT NULL,
    at REAL NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('live', 'ended')),
    PRIMARY KEY (series_id, at, kind)
) WITHOUT ROWID;
CREATE INDEX lifecycle_at ON lifecycle(at);
CREATE TABLE stream_info (
    series_id INTEGER NOT NULL,
    at REAL NOT NULL,
    info TEXT NOT NULL,
    PRIMARY KEY (series_id, at)
) WITHOUT ROWID;
"""

_SCHEMA_V2 = """
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    server_id INTEGER NOT NULL REFERENCES servers(id),
    span TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('ad break', 'alert')),
    depth INTEGER NOT NULL,
    vhost TEXT NOT NULL,
    app TEXT NOT NULL,
    stream TEXT NOT NULL,
    began REAL NOT NULL,
    ended REAL,
    label TEXT NOT NULL,
    severity TEXT NOT NULL,
    origin TEXT NOT NULL,
    UNIQUE (server_id, span)
);
CREATE INDEX events_began ON events(server_id, began);
CREATE INDEX events_last ON events(coalesce(ended, began));
CREATE TABLE events_since (at REAL);
INSERT INTO events_since SELECT max(last_seen) FROM series
"""
"""Spans of ad breaks and alerts, as the console's charts drew them. `span` names one span within its server
(the recording console's own name for it), so a span corrected or ended later updates its row. The node is as in
`series`, with depth -1 for the whole server (an alert of no node); `ended` is NULL while the span goes on (or
when the recording stopped first). `origin`: a break's ("sent", "playlist", "audit"), "" for alerts.
`events_since` holds the latest reading a database had when it was upgraded to this version (NULL for a new one):
up to that moment nothing recorded ad breaks or alerts."""

MIGRATIONS: tuple[tuple[int, str, str], ...] = (
    (1, "samples at full resolution, tier buckets, per-node summaries, lifecycle, stream info", _SCHEMA_V1),
    (2, "ad breaks and alerts as spans (events)", _SCHEMA_V2),
)
"""(version, what it does, SQL), applied in order to a database whose version is below theirs."""

BUSY_TIMEOUT_MS = 5000


class HistoryError(Exception):
    """The history database cannot be used; the message says which file and why."""


def _private_directory(directory: Path) -> None:
    missing: list[Path] = []
    for parent in (directory, *directory.parents):
        if parent.exists():
            break
        missing.append(parent)
    for created in reversed(missing):
        created.mkdir(mode=0o700)
        os.chmod(created, 0o700)  # the umask may have taken bits away, never added: make it exact


def _private_file(path: Path) -> None:
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        mode = os.fstat(descriptor).st_mode
        if mode & (stat.S_IRWXG | stat.S_IRWXO):
            os.fchmod(descriptor, 0o600)
    finally:
        os.close(descriptor)
    for suffix in ("-wal", "-shm"):
        companion = path.with_name(path.name + suffix)
        if companion.exists() and companion.stat().st_mode & (stat.S_IRWXG | stat.S_IRWXO):
            os.chmod(companion, 0o600)


def schema_version(connection: sqlite3.Connection) -> int:
    connection.execute("CREATE TABLE IF NOT EXISTS schema_migrations ("
                       "version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at REAL NOT NULL)")
    row = connection.execute("SELECT max(version) FROM schema_migrations").fetchone()
    return int(row[0] or 0)


def _migrate(connection: sqlite3.Connection, path: Path) -> None:
    current = schema_version(connection)
    if current > SCHEMA_VERSION:
        raise HistoryError(f"{path}: written by a newer omeconsole (schema {current}; this one reads up to "
                           f"{SCHEMA_VERSION})")
    for version, description, sql in MIGRATIONS:
        if version <= current:
            continue
        with transaction(connection):
            # Another connection (a reader, `record` beside the console) may have migrated since the version
            # was read: read it again under the write lock, so two openings of a new file never both create it.
            if schema_version(connection) >= version:
                continue
            for statement in (s for s in sql.split(";") if s.strip()):
                connection.execute(statement)
            connection.execute("INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)",
                                (version, description, time.time()))


@contextmanager
def transaction(connection: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolled back on any error (the connection is in autocommit mode)."""
    connection.execute("BEGIN IMMEDIATE")
    try:
        yield connection
    except BaseException:
        connection.execute("ROLLBACK")
        raise
    connection.execute("COMMIT")


def open_database(path: Path, *, create: bool = True) -> sqlite3.Connection:
    """A connection to the store at `path`, migrated to the current schema.

    `create=False` is for readers: a missing file is a HistoryError ("nothing recorded yet"), not a new
    empty database. The connection is in autocommit mode; write through `transaction`.

    Two programs opening a new file at once (the console's writer and its reader, the console and
    `record`) can find it locked in a way SQLite does not wait out (two connections each wanting the
    other's lock): the opening is then tried again, for up to the busy timeout.
    """
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    attempt = 0
    while True:
        try:
            return _open(path, create)
        except _Contended:
            attempt += 1
            if time.monotonic() >= deadline:
                raise HistoryError(f"{path}: not a usable history database: database is locked") from None
            time.sleep(min(0.2, 0.01 * attempt))


class _Contended(Exception):
    """Another connection held the lock this opening needed, and SQLite would not wait for it."""


def _open(path: Path, create: bool) -> sqlite3.Connection:
    try:
        if create:
            _private_directory(path.parent)
            _private_file(path)
        elif not path.is_file():
            raise HistoryError(f"no history recorded yet: {path} does not exist")
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=True,
                                     timeout=BUSY_TIMEOUT_MS / 1000)
    except OSError as error:
        raise HistoryError(f"{path}: cannot open: {error.strerror or error}") from None
    except sqlite3.Error as error:
        raise HistoryError(f"{path}: cannot open: {error}") from None
    try:
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        fresh = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0] == 0
        if fresh and create:
            # Only a database without tables can change this: deleted pages go back to the file system.
            connection.execute("PRAGMA auto_vacuum = INCREMENTAL")
        if create:
            connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA synchronous = FULL")  # a committed batch survives a power cut too
        _migrate(connection, path)
    except sqlite3.OperationalError as error:
        connection.close()
        if "locked" in str(error) or "busy" in str(error):
            raise _Contended from None
        raise HistoryError(f"{path}: not a usable history database: {error}") from None
    except sqlite3.DatabaseError as error:
        connection.close()
        raise HistoryError(f"{path}: not a usable history database: {error}") from None
    except HistoryError:
        connection.close()
        raise
    if not create:
        connection.execute("PRAGMA query_only = ON")
    return connection


def used_bytes(connection: sqlite3.Connection) -> int:
    """Bytes the data takes in the file (pages in use; free pages are reused before the file grows)."""
    page_size = connection.execute("PRAGMA page_size").fetchone()[0]
    pages = connection.execute("PRAGMA page_count").fetchone()[0]
    free = connection.execute("PRAGMA freelist_count").fetchone()[0]
    return int((pages - free) * page_size)
