"""The store's newest-per-point queries (SQL window functions) on SQLite and PostgreSQL:
the time is finished, else started; ties on the time go to the later run id, then attempt, as
`results compare` orders records (timeless27: they went to the later-inserted row, so a store and
files holding the same records could pick different runs), then the later-inserted row; NULL
point fields group together, jobless outputs are each their own point, newest first."""

from __future__ import annotations

import pytest

from sweepgate.results import record as R
from sweepgate.results import store

MAIN = "refs/heads/main"


def rec(run: str, name: str | None = None, *, attempt: int = 1, finished: str | None = None, started: str | None = None,
        key: str | None = "k1", conc: int = 4, isl: int | None = 1024, topology: str | None = "tp8",
        ref: str = MAIN) -> dict:
    name = name or f"c{conc}-{isl}-{topology}"  # one job, one file, one point
    return {R.RUN_ID: run, R.ATTEMPT: attempt, R.RESULT_FILENAME: name, R.CONFIG_KEY: key, R.HARDWARE: "b300",
            R.SCENARIO: "fixed-seq-len", R.ISL: isl, R.OSL: 1024, R.CONC: conc, R.TOPOLOGY: topology,
            R.FINISHED: finished, R.STARTED: started, R.REF: ref, R.REHEARSAL: False, R.METRICS: {}}


# Inserted in this order (ids ascending); the comments name each point's newest record.
RECORDS = [
    rec("r1", finished="2026-01-01T00:00:00+00:00"),
    rec("r2", finished="2026-01-03T00:00:00+00:00"),                 # conc 4: newest
    rec("r3", finished="2026-01-02T00:00:00+00:00"),
    rec("r9", finished="2026-01-05T00:00:00+00:00", conc=8),
    rec("r5", finished="2026-01-05T00:00:00+00:00", conc=8),         # conc 8: tie, r9 the later run id
    rec("r6", finished="2026-01-15T00:00:00+00:00", conc=16),
    rec("r7", started="2026-02-01T00:00:00+00:00", conc=16),          # conc 16: started counts
    rec("r1", finished="2026-01-01T00:00:00+00:00", topology=None),
    rec("r4", finished="2026-01-04T00:00:00+00:00", topology=None),  # topology NULL: its own point
    rec("r2", finished="2026-01-03T00:00:00+00:00", isl=None),       # isl NULL: newest of two
    rec("r3", finished="2026-01-02T00:00:00+00:00", isl=None),
    rec("j1", "a", key=None, finished="2026-01-01T00:00:00+00:00"),  # jobless: one per (name, run)
    rec("j1", "b", key=None, finished="2026-01-01T00:00:00+00:00"),
    rec("j2", "a", key=None, finished="2026-01-02T00:00:00+00:00"),
    rec("j2", "a", key=None, attempt=2, finished="2026-01-03T00:00:00+00:00"),
    rec("j2", "a", key=None, attempt=3, finished="2026-01-03T00:00:00+00:00"),
    rec("k2", key="k2", finished="2026-03-01T00:00:00+00:00"),
]


def python_latest_per_point(records: list[dict]) -> list[dict]:
    """The former Python filter over newest-first records: the reference."""
    out, seen = [], set()
    for r in records:
        key = tuple(str(r.get(f)) for f in R.POINT_IDENTITY)
        if r.get(R.CONFIG_KEY) is None:
            key += (r.get(R.RESULT_FILENAME), r.get(R.RUN_ID))
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def ids(records: list[dict]) -> list[tuple]:
    return [(r[R.RUN_ID], r[R.RESULT_FILENAME], r[R.ATTEMPT]) for r in records]


@pytest.fixture(params=["sqlite", "postgresql"])
def st(request, tmp_path):
    url = f"sqlite:///{tmp_path / 'q.db'}" if request.param == "sqlite" else request.getfixturevalue("pg_url")
    with store.open_store(url) as opened:
        for r in RECORDS:  # one transaction each: ids in list order
            assert opened.add([r]) == 1
        yield opened


def test_latest_per_point(st):
    got = st.latest_per_point()
    assert ids(got) == [("k2", "c4-1024-tp8", 1), ("r7", "c16-1024-tp8", 1), ("r9", "c8-1024-tp8", 1),
                        ("r4", "c4-1024-None", 1), ("r2", "c4-None-tp8", 1), ("r2", "c4-1024-tp8", 1),
                        ("j2", "a", 3), ("j1", "b", 1), ("j1", "a", 1)]  # same time: later run, then later-inserted
    assert got == python_latest_per_point(st.records())
    assert ids(st.latest_per_point("k2")) == [("k2", "c4-1024-tp8", 1)]
    assert st.latest_per_point("k1") == python_latest_per_point(st.records(config_key="k1"))
    assert st.latest_per_point("none") == []


def test_last_runs(st):
    point = {R.CONFIG_KEY: "k1", R.CONC: 4}  # both topologies and both isl: the newest row of each run
    assert [r[R.RUN_ID] for r in st.last_runs(MAIN, point, n=5)] == ["r4", "r2", "r3", "r1"]
    assert [r[R.TOPOLOGY] for r in st.last_runs(MAIN, point, n=5)] == [None, "tp8", "tp8", None]
    assert [r[R.RUN_ID] for r in st.last_runs(MAIN, point, n=2)] == ["r4", "r2"]
    tie = {R.CONFIG_KEY: "k1", R.CONC: 8}
    assert [r[R.RUN_ID] for r in st.last_runs(MAIN, tie, n=5)] == ["r9", "r5"]
    assert [r[R.RUN_ID] for r in st.last_runs(MAIN, tie, n=1)] == ["r9"]  # the later run id, as compare has it
    assert st.last_runs("refs/heads/other", point) == []


def test_last_runs_of_points_is_last_runs_of_each(st):
    points = [{f: r.get(f) for f in R.POINT_IDENTITY} for r in RECORDS if r[R.CONFIG_KEY]]
    unique = list({tuple(p.items()): p for p in points}.values())
    for n in (1, 2, 5):
        got = st.last_runs_of_points(MAIN, unique[1:], n)  # the first point not asked for
        want = [r for p in unique[1:] for r in st.last_runs(MAIN, p, n)]
        assert sorted(ids(got)) == sorted(ids(want)) and got
        assert not any(r[R.RESULT_FILENAME] == "c4-1024-tp8" and r[R.CONFIG_KEY] == "k1" for r in got)
    assert ids(st.last_runs_of_points(MAIN, unique[:1], 2)) == [("r2", "c4-1024-tp8", 1), ("r3", "c4-1024-tp8", 1)]


def test_last_runs_of_points_after_a_time_are_the_first_runs_from_then(st):
    """``after``: each point's FIRST n runs at or after the time (a PR run's baseline of a point main
    measured only after it), still newest first; a tie on the time goes to the earlier run id."""
    def runs(conc: int, n: int, after: str) -> list[str]:
        point = {f: None for f in R.POINT_IDENTITY} | {R.CONFIG_KEY: "k1", R.HARDWARE: "b300",
                                                       R.SCENARIO: "fixed-seq-len", R.ISL: 1024, R.OSL: 1024,
                                                       R.CONC: conc, R.TOPOLOGY: "tp8"}
        return [r[R.RUN_ID] for r in st.last_runs_of_points(MAIN, [point], n, after=after)]

    assert runs(4, 1, "2026-01-01T00:00:00+00:00") == ["r1"]  # r1, r3, r2 by time
    assert runs(4, 2, "2026-01-01T00:00:00+00:00") == ["r3", "r1"]
    assert runs(4, 1, "2026-01-01T12:00:00+00:00") == ["r3"]  # r1 is before the time
    assert runs(4, 5, "2026-01-01T12:00:00+00:00") == ["r2", "r3"]
    assert runs(4, 1, "2026-01-02T00:00:00+00:00") == ["r3"]  # at the time counts
    assert runs(8, 1, "2026-01-01T00:00:00+00:00") == ["r5"]
    assert runs(16, 1, "2026-01-10T00:00:00+00:00") == ["r6"]  # r7's started (2026-02-01) is later
    assert runs(16, 1, "2026-01-20T00:00:00+00:00") == ["r7"]
