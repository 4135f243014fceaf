"""The results store's schema: its one table (typed columns beside each whole record), the statements'
IN lists cut to size (``_chunks``), and its Alembic migrations (shipped in the package), run by one opener at a
time; a database that is no store, another program's, a newer sweepgate's, or one whose version record is lost,
is refused, never changed."""

from __future__ import annotations

import shlex

import sqlalchemy as sa

from sweepgate.results import record as R
from sweepgate.results.store_failures import _lost_race
from sweepgate.results.store_url import StoreError, _sqlite_file, display_url, parse_url, url_fail

KEY = (R.RUN_ID, R.ATTEMPT, R.RESULT_FILENAME)
# Typed columns: identity and provenance (strings / integers) and the main metrics.
STRING_FIELDS = (R.RECIPE_FINGERPRINT, R.CONFIG_KEY, R.EXP_NAME, R.MODEL, R.PRECISION, R.FRAMEWORK, R.RUNNER,
                 R.RUNNER_NAME, R.HARDWARE, R.SCENARIO, R.TOPOLOGY, R.SPEC_DECODING, R.KV_OFFLOADING,
                 R.KV_OFFLOAD_BACKEND, R.IMAGE, R.COMMIT, R.REF, R.STARTED, R.FINISHED, R.STATUS, R.CLIENT,
                 R.SOURCE_FORMAT, R.RUN_IDENTITY)
INTEGER_FIELDS = (R.ISL, R.OSL, R.CONC, R.GPUS)
METRIC_FIELDS = (R.OUTPUT_TPUT_PER_GPU, R.INPUT_TPUT_PER_GPU, R.TPUT_PER_GPU, R.INTERACTIVITY, R.SUCCESS_RATE,
                 R.REQUEST_THROUGHPUT, R.OUTPUT_THROUGHPUT, R.TOTAL_TOKEN_THROUGHPUT,
                 *(R.latency_name(lat, "p50") for lat in R.LATENCIES),
                 R.latency_name(R.TTFT, "p99"), R.latency_name(R.TPOT, "p99"), R.latency_name(R.E2EL, "p99"),
                 R.ENERGY_PER_OUTPUT_TOKEN_J)
INGESTED_AT = "ingested_at"
MIGRATION_LOCK = 0x73776770_72657331  # PostgreSQL advisory-lock key of schema migrations
# The first of the two keys of a PostgreSQL advisory lock of one run's writers (``store._write_lock``), the second
# the run id's hash; two-key locks are of another key space than MIGRATION_LOCK's one key
RUN_LOCK = 0x73777275  # "swru"
# The most values one IN list of a statement binds (``_chunks``: a longer list is looked up in several statements).
# SQLite before 3.32, which some distributions' Pythons still ship, refuses a statement that binds more than 999
# values ("too many SQL variables"), PostgreSQL's protocol more than 65535; a statement here holds at most four
# such lists (``_stored_alike``: a value of each ALIKE_BY column a row, and the rows' run ids) and a few values.
IN_CHUNK = 200


# The typed columns ``_stored_alike`` finds its candidates by, each a field of the measurement: the client's
# output throughput, the model and the client's time (an output that states no time, SGLang's JSONL, has no
# other: by model and time alone, every stored row of its model without one was fetched and compared, s30
# review). Indexed in this order (ix_results_alike, migration 0005): the throughput is all but unique to a
# measurement, so a look-up reads a row or two of the index, not the table (a scan per hashed file).
ALIKE_BY = (R.OUTPUT_THROUGHPUT, R.MODEL, R.FINISHED)


def column(field: str) -> str:
    """Record field -> column name: ``config-key`` -> ``config_key``."""
    return field.replace("-", "_")


def _chunks(items, *, once: bool = True) -> list[list]:
    """``items`` in their order (each once, unless not ``once``: rows, which are no set's members), in lists of
    IN_CHUNK at most: the values of one IN list of a statement each (no list when there are no items)."""
    items = list(dict.fromkeys(items)) if once else list(items)
    return [items[at:at + IN_CHUNK] for at in range(0, len(items), IN_CHUNK)]


metadata = sa.MetaData()
results = sa.Table(
    "results", metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(column(R.RUN_ID), sa.String(200), nullable=False),
    sa.Column(column(R.ATTEMPT), sa.Integer, nullable=False),
    sa.Column(column(R.RESULT_FILENAME), sa.String(500), nullable=False),
    *(sa.Column(column(f), sa.String(500)) for f in STRING_FIELDS),
    sa.Column(INGESTED_AT, sa.String(500)),
    *(sa.Column(column(f), sa.Integer) for f in INTEGER_FIELDS),
    sa.Column(column(R.REHEARSAL), sa.Boolean, nullable=False),
    # R.RUN_CANCELLED: stored from a run cancelled before it finished (migration 0007; rows before it: false)
    sa.Column(column(R.RUN_CANCELLED), sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column(column(R.REQUEST_RATE), sa.String(64)),  # R.rate_key: None when unlimited (migration 0003)
    sa.Column(column(R.OUTPUT_SHA256), sa.String(64)),  # None: a sidecar's alone, or stored before 0006
    *(sa.Column(column(f), sa.Float) for f in METRIC_FIELDS),
    sa.Column("record", sa.JSON, nullable=False),
    sa.UniqueConstraint(*(column(f) for f in KEY), name="uq_results_job"),
    sa.Index("ix_results_run", column(R.RUN_ID)),
    sa.Index("ix_results_point", *(column(f) for f in R.POINT)),
    sa.Index("ix_results_ref", column(R.REF)),
    sa.Index("ix_results_identity", column(R.RUN_IDENTITY)),  # migration 0002
    sa.Index("ix_results_alike", *(column(f) for f in ALIKE_BY)),  # migration 0005
    sa.Index("ix_results_output", column(R.OUTPUT_SHA256)),  # migration 0006
)
SCHEMA_TABLE = "alembic_version"  # Alembic's version table: a store has its schema
STORE_TABLES = {SCHEMA_TABLE, results.name}  # what every revision of the store has


class NotAStore(Exception):
    """A database with no results schema, opened by a command that only reads."""


def _alembic_config():
    """Alembic's configuration of the store's migrations (shipped in the package)."""
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", "sweepgate.results:migrations")
    return cfg


def _migrate(engine: sa.Engine, create: bool = True) -> None:
    """Bring the schema to the newest revision (Alembic, scripts shipped in the package); with
    ``create`` False, a database that has no schema at all is refused (NotAStore), not made one."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    cfg = _alembic_config()
    scripts = ScriptDirectory.from_config(cfg)
    head = scripts.get_current_head()
    with engine.begin() as conn:
        current = MigrationContext.configure(conn).get_current_revision()
        if current is None and conn.dialect.name == "postgresql":
            # Another opener may be making this store: wait for it, then look again. Each PostgreSQL
            # statement sees what was committed before it, so its tables, committed after the revision
            # was read, read as a store whose version record is lost (a concurrent ingest failed so).
            _lock_schema(conn)
            current = MigrationContext.configure(conn).get_current_revision()
        if current == head:
            return
        if current is None:
            _check_version_kept(conn, head)
        if current is None and not create:
            raise NotAStore()
        known = current is None or current in {s.revision for s in scripts.walk_revisions()}
        _check_not_foreign(conn, current, known)
    if not known:
        raise SchemaTooNew(current, head)
    try:
        with engine.begin() as conn:
            _lock_schema(conn)  # a concurrent opener migrates first; this one then finds the schema current
            if MigrationContext.configure(conn).get_current_revision() == head:
                return
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
    except sa.exc.SQLAlchemyError as exc:
        if current is None or _lost_race(exc):  # a new store's failure, or one to retry, is said as it is
            raise
        raise SchemaNotUpgraded(current, head, exc) from None


def _check_not_foreign(conn: sa.Connection, current: str | None, known: bool) -> None:
    """Raise ``ForeignDatabase`` for another program's database: one with no schema revision that
    already holds a table of the store's name (a SQLite file is refused before, by
    ``check_sqlite_target``), or one whose revision is not ours and that holds no results table
    (another program's Alembic revision, not a newer sweepgate's). A PostgreSQL database shared with
    other programs' tables takes the store's beside them, as a team's database is often used."""
    inspector = sa.inspect(conn)
    names = sorted({*inspector.get_table_names(), *inspector.get_view_names()})
    if (current is None and results.name in names) or (not known and results.name not in names):
        raise ForeignDatabase(names)


def _check_version_kept(conn: sa.Connection, head: str) -> None:
    """Raise ``VersionLost`` for a store whose version record is gone: an empty ``alembic_version``, or
    none at all, beside a results table with the store's key and record columns (a hand-made DELETE, a
    partial restore, the results table copied alone), which is no other program's database and no new
    store either."""
    inspector = sa.inspect(conn)
    tables = set(inspector.get_table_names())
    if results.name not in tables:
        return
    lost = _lost_version(head, {c["name"] for c in inspector.get_columns(results.name)}, SCHEMA_TABLE not in tables)
    if lost is not None:
        raise lost


def _lost_version(head: str, columns: set[str], gone: bool) -> "VersionLost | None":
    """The ``VersionLost`` of a store whose results table has ``columns`` and whose version record is
    missing (``gone``: its table too); None when those are not the store's columns (another program's)."""
    if not {column(f) for f in KEY} | {"record"} <= columns:
        return None
    return VersionLost(head if {c.name for c in results.columns} == columns else None, gone)


def _head_revision() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_alembic_config()).get_current_head()


def _lock_schema(conn: sa.Connection) -> None:
    """Hold the database's one writer lock until this transaction ends (waiting for it)."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    elif conn.dialect.name == "postgresql":
        conn.execute(sa.text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})


class ForeignDatabase(Exception):
    """Another program's database (``_check_not_foreign``): no tables are added to it."""

    def __init__(self, names: list[str]):
        super().__init__(names)
        self.names = names


class VersionLost(Exception):
    """A store whose ``alembic_version`` table is empty, or ``gone``; ``revision`` the one its columns are
    (None: unknown)."""

    def __init__(self, revision: str | None, gone: bool = False):
        super().__init__(revision)
        self.revision = revision
        self.gone = gone


class SchemaNotUpgraded(Exception):
    """An older revision's store whose upgrade failed (a read-only store, a user without DDL rights)."""

    def __init__(self, current: str, head: str, exc: Exception):
        super().__init__(current, head)
        self.current, self.head, self.exc = current, head, exc


class SchemaTooNew(Exception):
    """The store's schema revision is one this sweepgate's migrations do not know (a newer one's)."""

    def __init__(self, current: str, head: str):
        super().__init__(current, head)
        self.current, self.head = current, head


def _is_record(rec) -> bool:
    """Whether a stored record column holds a result record (a JSON object with its key's fields)."""
    return isinstance(rec, dict) and all(rec.get(f) is not None for f in KEY)


def version_lost(url: str, exc: VersionLost) -> StoreError:
    """The refusal of a store whose version record is missing (``VersionLost``), read or written alike."""
    return url_fail(display_url(url), f"the store's version record is missing (its {SCHEMA_TABLE} table is "
                    f"{'gone' if exc.gone else 'empty'}): its schema revision is unknown, so it is neither read nor "
                    "changed", _version_hint(url, exc.revision, exc.gone))


def _version_hint(url: str, revision: str | None, gone: bool = False) -> str:
    """How to put back a lost version record (what ``alembic stamp`` would write), its table first when
    it is ``gone``."""
    insert = f"INSERT INTO {SCHEMA_TABLE} (version_num) VALUES ('{revision or 'REVISION'}')"
    if gone:  # as Alembic makes it
        insert = (f"CREATE TABLE {SCHEMA_TABLE} (version_num VARCHAR(32) NOT NULL, CONSTRAINT {SCHEMA_TABLE}_pkc "
                  f"PRIMARY KEY (version_num)); {insert}")
    parsed = parse_url(url)  # (a reader's engine of a read-only file has no path)
    run = f'sqlite3 {shlex.quote(_sqlite_file(parsed))} "{insert}"' if parsed.get_backend_name() == "sqlite" else \
        f'{insert} in psql'
    if revision is None:
        return (f"its results table is not this sweepgate's: run {run}, with the revision of the sweepgate "
                "that wrote it, or restore the store from a backup")
    return f"its results table is this sweepgate's (revision {revision}): run {run}, then the command again"
