"""`sweepgate results sidecar`: write the job sidecar from the job's environment (CONTRACTS section 8).

The benchmark workflow's last step, run ``if: always()`` so a failed script
still leaves one. Reads only the environment: the row (``ROW``, or ``ROW_ID``
in ``MATRIX_FILE``), ``RESULT_DIR``/``RESULT_FILENAME`` (from ``ci row-env``),
``GITHUB_RUN_ID``, ``GITHUB_RUN_ATTEMPT``, ``GITHUB_SHA``, ``GITHUB_REF``,
``RUNNER_NAME``, ``JOB_STARTED``, ``JOB_STATUS`` (``job.status``) and,
when the caller knows it, ``CONFIG_KEY``. The run identity (``core.identity``) hashes the
files in the working directory (the approved commit) and the launchers under ``--tools``.
"""

from __future__ import annotations

import json
import os
import sys

from sweepgate.core.errors import fail

STATUS_ENV, STARTED_ENV, CONFIG_KEY_ENV = "JOB_STATUS", "JOB_STARTED", "CONFIG_KEY"


def add_arguments(parser) -> None:
    parser.add_argument("--rehearsal", action="store_true", help="mark the job as a rehearsal")
    parser.add_argument("--tools", metavar="DIR", default=".",
                        help="checkout the launchers and configs/runners.yaml came from (the benchmark job's "
                             "main checkout, .sweepgate-main); the run identity hashes the files the job ran")


def _identity(row: dict, tools: str) -> str | None:
    """The run identity of the job that just ran (None when the row cannot be resolved)."""
    from sweepgate.core.identity import identities, read_tree
    from sweepgate.core.placement import runners_at

    try:
        return identities([row], runners_at(tools), read_tree(".", tools))[0]
    except (KeyError, TypeError):
        return None


def _row() -> dict:
    text, row_id = os.environ.get("ROW", ""), os.environ.get("ROW_ID", "")
    if text:
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise fail("ROW", exc.lineno, f"row is not valid JSON: {exc.msg}", "pass toJSON(matrix.row)") from None
    if row_id and os.environ.get("MATRIX_FILE"):
        from sweepgate.workflow.fanout import row_for_id

        path = os.environ["MATRIX_FILE"]
        with open(path, encoding="utf-8") as f:
            return row_for_id(json.load(f), row_id, path)
    raise fail("ROW", 0, "no matrix row given", "set ROW, or ROW_ID and MATRIX_FILE")


def _status() -> str:
    from sweepgate.core import jobfile

    status = os.environ.get(STATUS_ENV, "").lower()
    return status if status in jobfile.STATUSES else "failure"


def run(args) -> int:
    from sweepgate.core import fields, jobfile

    env = os.environ
    name, folder = env.get(fields.RESULT_FILENAME_ENV), env.get(fields.RESULT_DIR_ENV)
    if not name or not folder:
        raise fail(fields.RESULT_FILENAME_ENV, 0, "RESULT_DIR/RESULT_FILENAME are not set",
                   "run `sweepgate ci row-env` first")
    try:
        attempt = int(env.get("GITHUB_RUN_ATTEMPT") or 1)
    except ValueError:
        attempt = 1
    row = _row()
    doc = jobfile.build(row, run_id=env.get("GITHUB_RUN_ID") or "local", attempt=attempt, status=_status(),
                        config_key=env.get(CONFIG_KEY_ENV) or None, commit=env.get("GITHUB_SHA") or None,
                        ref=env.get("GITHUB_REF") or None, runner_name=env.get(fields.RUNNER_NAME_ENV) or None,
                        started=env.get(STARTED_ENV) or None, finished=jobfile.now(), rehearsal=args.rehearsal,
                        run_identity=_identity(row, args.tools))
    os.makedirs(folder, exist_ok=True)
    path = jobfile.path_for(folder, name)
    jobfile.write(path, doc)
    print(f"sweepgate results sidecar: {path} ({doc[jobfile.JOB][jobfile.STATUS]})", file=sys.stderr)
    return 0
