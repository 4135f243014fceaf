"""Every field name, default and environment-variable name, in one place.

Row fields are the reference's (InferenceX) matrix keys; downstream workflows
and dashboards read them verbatim.
"""

from __future__ import annotations

import re

# --- master config: top level -------------------------------------------------
IMAGE = "image"
MODEL = "model"
MODEL_PREFIX = "model-prefix"
PRECISION = "precision"
FRAMEWORK = "framework"
RUNNER = "runner"
MULTINODE = "multinode"
DISAGG = "disagg"
SCENARIOS = "scenarios"
ROUTER = "router"
KV_P2P_TRANSFER = "kv-p2p-transfer"
RESULTS = "results"            # optional: how `results compare` judges the config
SERVER_READY_TIMEOUT = "server-ready-timeout"  # optional seconds; rows carry it only when set
RESULTS_THRESHOLD = "threshold"
RESULTS_THRESHOLDS = "thresholds"  # metric -> relative change

# --- scenarios ----------------------------------------------------------------
FIXED_SEQ_LEN = "fixed-seq-len"
AGENTIC_CODING = "agentic-coding"
SCENARIO_TYPES = (FIXED_SEQ_LEN, AGENTIC_CODING)  # canonical order
ISL = "isl"
OSL = "osl"
SEARCH_SPACE = "search-space"
DRAM_UTILIZATION = "dram-utilization"

# --- search-space points --------------------------------------------------------
TP = "tp"
PP = "pp"
DCP_SIZE = "dcp-size"
PCP_SIZE = "pcp-size"
EP = "ep"
DP_ATTN = "dp-attn"
SPEC_DECODING = "spec-decoding"
CONC_START = "conc-start"
CONC_END = "conc-end"
CONC_LIST = "conc-list"
KV_OFFLOADING = "kv-offloading"
KV_OFFLOAD_BACKEND = "kv-offload-backend"
# KV-offload backends benchmark_lib.sh has an arm for (_SG_KV_ARMS in
# benchmarks/lib/kv_offload_arms.sh; tests/test_new_user.py checks they agree), each
# with whether its arm installs the backend at kv-offload-backend.version.
KV_OFFLOAD_BACKENDS = {"vllm-simple": False, "lmcache": True, "mooncake": True}
# Optional kv-offload-backend.settings (LMCache server), each -> the variable the arm reads;
# defaults when unset are documented in benchmarks/README.md and set in kv_offload_arms.sh.
KV_OFFLOAD_SETTINGS = "settings"
KV_OFFLOAD_SETTINGS_ENV = {"max-workers": "LMCACHE_MAX_WORKERS",
                           "l1-read-ttl-seconds": "LMCACHE_L1_READ_TTL_SECONDS",
                           "separate-object-groups": "LMCACHE_SEPARATE_OBJECT_GROUPS"}
PREFILL = "prefill"
DECODE = "decode"
NUM_WORKER = "num-worker"
ADDITIONAL_SETTINGS = "additional-settings"
HARDWARE = "hardware"

# --- runners.yaml -------------------------------------------------------------
LABELS = "labels"
AVAILABLE_CPU_DRAM_MIB = "available-cpu-dram-mib"
GPUS_PER_NODE = "gpus-per-node"
ACCELERATOR_RUNTIME = "accelerator-runtime"  # cuda | rocm: picks each KV-offload backend's build
RDMA_DEVICES = "rdma-devices"                # a node's RDMA NICs (Mooncake's device_name)
SCALE_UP_GPUS = "scale-up-gpus"              # GPUs one NVLink/xGMI domain joins (multi-node placement)
POOL_NODES = "nodes"                         # nodes in the pool: a fit check, never a row's or a job's value
CLUSTER_PREFIX = "cluster:"
# A row whose KV-offload arm installs its backend on a runner stating no accelerator-runtime (plan, ci row-env).
NO_RUNTIME_RULE = "no-accelerator-runtime"
# The fact those rows need, as a fix names it (its values: runners.schema.json's enum).
RUNTIME_FACT = f"{ACCELERATOR_RUNTIME} (cuda or rocm)"

# --- matrix rows ----------------------------------------------------------------
CONC = "conc"
MAX_MODEL_LEN = "max-model-len"
EXP_NAME = "exp-name"
RECIPE_FINGERPRINT = "recipe-fingerprint"
SCENARIO_TYPE = "scenario-type"
TOTAL_CPU_DRAM_GB = "total-cpu-dram-gb"
DURATION = "duration"
RUN_EVAL = "run-eval"
EVAL_ONLY = "eval-only"
EVAL_CONC = "eval-conc"
EVAL_ALL_CONCS = "eval-all-concs"

# --- the matrix's top level: benchmark rows by node type (objects of buckets), eval rows by kind (lists) --------
SINGLE_NODE, MULTI_NODE = "single_node", "multi_node"
EVALS, AGENTIC_EVALS = "evals", "agentic_evals"
MULTINODE_EVALS, MULTINODE_AGENTIC_EVALS = "multinode_evals", "multinode_agentic_evals"
NODE_BUCKETS = (SINGLE_NODE, MULTI_NODE)
EVAL_BUCKETS = (EVALS, AGENTIC_EVALS, MULTINODE_EVALS, MULTINODE_AGENTIC_EVALS)
BUCKET_KEYS = NODE_BUCKETS + EVAL_BUCKETS
CHANGELOG_METADATA = "changelog_metadata"  # what the matrix was built from: {base_ref, head_ref, entries}
BASE_REF, HEAD_REF, ENTRIES = "base_ref", "head_ref", "entries"
MATRIX_KEYS = BUCKET_KEYS + (CHANGELOG_METADATA,)

# --- the plan's JSON (`sweepgate plan --json`, CONTRACTS section 4): what it costs ------------------------------
# Of the whole plan, and of each runner label (by_runner) and matrix bucket (by_bucket): benchmark jobs and their
# GPU-hours (of which estimated from minutes per job, not from an agentic row's duration), eval jobs apart, and
# whether the hours are a lower bound (a multi-node job counted by the GPUs it uses, not the nodes it holds).
JOBS, GPU_HOURS, GPU_HOURS_ESTIMATED, ESTIMATED = "jobs", "gpu_hours", "gpu_hours_estimated", "estimated"
EVAL_JOBS, EVAL_GPU_HOURS = "eval_jobs", "eval_gpu_hours"
LOWER_BOUND, EVAL_LOWER_BOUND = "lower_bound", "eval_lower_bound"
TOTAL_JOBS, TOTAL_GPU_HOURS = "total_jobs", "total_gpu_hours"
BY_RUNNER, BY_BUCKET = "by_runner", "by_bucket"
# The minutes per job the estimates used, and where they came from.
ESTIMATES, ESTIMATES_SOURCE, MINUTES_PER_JOB = "estimates", "source", "minutes_per_job"

# --- changelog entries ------------------------------------------------------------
CONFIG_KEYS = "config-keys"
DESCRIPTION = "description"
PR_LINK = "pr-link"
ENTRY_SCENARIO_TYPE = "scenario-type"
EVALS_ONLY = "evals-only"
ALL_EVALS = "all-evals"
APPEND_ONLY = "append-only"
EVAL_MIN_PREFILL_EP = "eval-min-prefill-ep"

# --- defaults ---------------------------------------------------------------------
DEFAULT_SPEC_DECODING = "none"
DEFAULT_KV_OFFLOADING = "none"
DEFAULT_PARALLEL = 1  # pp, dcp-size, pcp-size, ep
DEFAULT_AGENTIC_DURATION_S = 3600
MAX_MODEL_LEN_MARGIN = 256  # max-model-len = isl + osl + margin
CONC_STEP = 2
MIN_EVAL_CONC = 16
EVAL_SEQ_LEN = (8192, 1024)
# 3 TB (decimal) cap on a node's host DRAM before utilization scaling, in MiB.
MAX_AGENTIC_AVAILABLE_CPU_DRAM_MIB = 2_861_022
SEQ_LEN_NAMES = {(1024, 1024): "1k1k", (8192, 1024): "8k1k"}

# --- repository layout --------------------------------------------------------------
CONFIG_DIR = "configs"
MASTER_GLOB = "*-master.yaml"
MASTER_EXAMPLES = ("configs/nvidia-master.yaml", "configs/amd-master.yaml")  # master configs a flag's example names
RUNNERS_FILE = "configs/runners.yaml"
# the title of a runner label or name that configs/runners.yaml does not list where it must
UNKNOWN_RUNNER_RULE = "unknown-runner"
# the title of a file a command needs that is not there, or is a folder
MISSING_FILE_RULE = "missing-file"
# the title of a file that is not UTF-8 text (the changelog, a config, a changelog being edited)
ENCODING_RULE = "encoding"
# the title of a line of the changelog's history edited
HISTORY_EDITED_RULE = "history-edited"
# the title of a line of the changelog's history deleted
HISTORY_DELETED_RULE = "history-deleted"
# the title of entries inserted among the changelog's history instead of appended
INSERTED_IN_HISTORY_RULE = "inserted-in-history"
# the title of a pr-link correction of history made with appended entries (``history.mixed_corrections``)
CORRECTION_MIXED_RULE = "correction-mixed"
# the title of an append-only entry mixed with regular entries or eval flags
APPEND_ONLY_MIXED_RULE = "append-only-mixed"
# the title of a changelog entry its schema refuses
SCHEMA_CHANGELOG_RULE = "schema-changelog"
# the title of a merge-conflict marker left in the changelog
CONFLICT_MARKER_RULE = "conflict-marker"
# the title of a ref git cannot resolve or relate (no such commit, no common ancestor)
GIT_REF_RULE = "git-ref"
# the title of a base with commits the head is not based on
BASE_MOVED_RULE = "base-moved"
# the title of a key written twice in one YAML mapping
DUPLICATE_KEY_RULE = "duplicate-key"
# the title of a tab character in the changelog
TAB_RULE = "tab"
# the title of a row's topology that does not fit its runner's node
TOPOLOGY_RULE = "topology-fits-node"
# the title of a step summary that could not be written
STEP_SUMMARY_RULE = "step-summary"
CHANGELOG_FILE = "perf-changelog.yaml"
OWN_DIR = ".sweepgate"  # sweepgate's own folder at a repository's top: the results store, an example's rehearsals
SCHEMA_DIR = "configs/schema"
BENCHMARKS_DIR = "benchmarks"  # a repository's benchmark scripts and their library (CONTRACTS section 7)
BENCHMARK_LIB = f"{BENCHMARKS_DIR}/benchmark_lib.sh"
# The parts benchmark_lib.sh sources, in its order; a change to any of them is a change
# to the library (tests/test_benchmark_lib.py checks this list against its `source` lines).
BENCHMARK_LIB_PARTS = tuple(f"benchmarks/lib/{name}.sh" for name in (
    "core", "units", "args", "processes", "lifecycle", "readiness", "environment",
    "gpu_monitor", "clients", "evals", "kv_offload_arms"))
BENCHMARK_LIB_FILES = (BENCHMARK_LIB, *BENCHMARK_LIB_PARTS)
# The GPU sweep's workflow, by its file name under .github/workflows/: `ci dispatch` (sweep-dispatch.yml)
# dispatches it and lists its runs, `results compare --baseline-artifacts` reads its runs' artifacts, `ci audit`
# admits it to the runner group, and the benchmark templates' callers are checked by it. A copy in another
# repository keeps this name (README "The workflows in another repository").
SWEEP_WORKFLOW = "run-sweep.yml"
WORKFLOWS_FOLDER = ".github/workflows"  # where GitHub reads a repository's workflow files from
# The branch sweeps run on (pushes to it, dispatches from it) and so the baseline results are compared with.
MAIN_BRANCH = "main"
MAIN_REF = f"refs/heads/{MAIN_BRANCH}"
# The reusable workflows a sweep's jobs run in (the matrix's single-node and multi-node rows), beside it.
BENCHMARK_TEMPLATE, MULTINODE_TEMPLATE = "benchmark-tmpl.yml", "benchmark-multinode-tmpl.yml"
# The workflow files a benchmark repository copies from sweepgate's .github/ (README "The workflows in another
# repository"), each under its own name, and the zizmor configuration beside them; and the one file of the
# repository that names the sweepgate every install step of theirs installs (a pip requirements file).
COPIED_WORKFLOWS = ("pr-sweep.yml", SWEEP_WORKFLOW, BENCHMARK_TEMPLATE, MULTINODE_TEMPLATE, "sweep-dispatch.yml",
                    "cache-warm.yml")
ZIZMOR_CONFIG = ".github/zizmor.yml"
SWEEPGATE_REQUIREMENT = ".github/sweepgate-requirements.txt"
# The matrix artifact's digest (sha256 of matrix.json and job-context.json as `ci split` wrote them,
# workflow.fanout.matrix_digest): run-sweep.yml's setup job publishes it as a job output (`ci split` writes
# it), every job that calls a benchmark template passes it as an input, and the template gives it to `ci
# row-env`, which refuses a downloaded artifact whose digest differs (one replaced after setup uploaded it).
MATRIX_DIGEST_OUTPUT, MATRIX_DIGEST_INPUT, MATRIX_DIGEST_ENV = "matrix_digest", "matrix-digest", "MATRIX_DIGEST"
# The matrix entry point. An append-only base must have it: a revision without a
# matrix generator never published a matrix to append to.
MATRIX_ENTRY_POINT = "utils/process_changelog.py"

# --- benchmark job environment (CONTRACTS section 6) ----------------------------------
# row field -> environment variable read by benchmark scripts
ROW_ENV = {
    EXP_NAME: "EXP_NAME",
    RECIPE_FINGERPRINT: "RECIPE_FINGERPRINT",
    IMAGE: "IMAGE",
    MODEL: "MODEL",
    MODEL_PREFIX: "MODEL_PREFIX",
    PRECISION: "PRECISION",
    FRAMEWORK: "FRAMEWORK",
    TP: "TP",
    PP: "PP_SIZE",
    DCP_SIZE: "DCP_SIZE",
    PCP_SIZE: "PCP_SIZE",
    EP: "EP_SIZE",
    DP_ATTN: "DP_ATTENTION",
    CONC: "CONC",
    ISL: "ISL",
    OSL: "OSL",
    MAX_MODEL_LEN: "MAX_MODEL_LEN",
    SPEC_DECODING: "SPEC_DECODING",
    SCENARIO_TYPE: "SCENARIO_TYPE",
    DURATION: "DURATION",
    KV_OFFLOADING: "KV_OFFLOADING",
    TOTAL_CPU_DRAM_GB: "TOTAL_CPU_DRAM_GB",
    RUN_EVAL: "RUN_EVAL",
    EVAL_ONLY: "EVAL_ONLY",
    SERVER_READY_TIMEOUT: "SERVER_READY_TIMEOUT",
    DISAGG: "DISAGG",
    RUNNER: "RUNNER_TYPE",  # the runner label the job was sent to (RUNNER_NAME is the machine)
}
# Set for every job whatever its row, as the reference's benchmark workflow sets them: the random dataset's length
# spread around ISL and OSL (±80 %), which every reference fixed-seq-len script requires (`check_env_vars ...
# RANDOM_RANGE_RATIO`) and passes to its client as `--random-range-ratio`.
JOB_CONSTANT_ENV = {"RANDOM_RANGE_RATIO": "0.8"}
# kv-offload-backend is an object; its parts get their own variables.
KV_OFFLOAD_BACKEND_ENV = "KV_OFFLOAD_BACKEND"
KV_OFFLOAD_BACKEND_VERSION_ENV = "KV_OFFLOAD_BACKEND_VERSION"
RUNNER_NAME_ENV = "RUNNER_NAME"
RESULT_DIR_ENV = "RESULT_DIR"
# A job's RESULT_DIR (`ci row-env`'s default), from the workspace's top, where its script starts: the uploads'
# folder, and in a rehearsal's view of the checkout (rehearsal/confine.py) a link to the rehearsal's own.
JOB_RESULT_DIR = "results"
RESULT_FILENAME_ENV = "RESULT_FILENAME"
# The job's run identity, taken by `ci row-env` before the benchmark runs (the container it starts
# mounts the workspace read-write and could change the files the identity hashes by the end).
RUN_IDENTITY_ENV = "SWEEPGATE_RUN_IDENTITY"
# Its value when `ci row-env --tools` took none (a blind spot): `results sidecar` then records none, never
# one hashed from the files the container left (a non-empty word, as the runner may drop an empty variable).
NO_RUN_IDENTITY = "none"
# Set (in $GITHUB_ENV) by `results sidecar` when a symbolic link among the uploads could not be
# removed: the templates' upload steps run only while it is empty.
UPLOAD_HELD_ENV = "SWEEPGATE_UPLOAD_HELD"
# runners.yaml hardware fact -> job environment variable (lists comma-joined), for
# every row on a runner that states it (core.jobenv.hardware_env).
HARDWARE_ENV = {ACCELERATOR_RUNTIME: "SWEEPGATE_ACCELERATOR_RUNTIME", RDMA_DEVICES: "SWEEPGATE_RDMA_DEVICES"}
JOB_ENV_NAMES = (
    *ROW_ENV.values(),
    *JOB_CONSTANT_ENV,
    *KV_OFFLOAD_SETTINGS_ENV.values(),
    *HARDWARE_ENV.values(),
    KV_OFFLOAD_BACKEND_ENV,
    KV_OFFLOAD_BACKEND_VERSION_ENV,
    RESULT_DIR_ENV,
    RESULT_FILENAME_ENV,
    RUNNER_NAME_ENV,
)


# --- the engines' Python modules, as a script runs them (`python3 -m MODULE`) -----------------
VLLM_SERVER_MODULE = "vllm.entrypoints.openai.api_server"  # vLLM's API server (as `vllm serve`)
SGLANG_SERVER_MODULE = "sglang.launch_server"  # an SGLang server (a multi-node row's workers)
SGLANG_ROUTER_MODULE = "sglang_router.launch_router"  # a multi-node row's router
SGLANG_CLIENT_MODULE = "sglang.bench_serving"  # SGLang's benchmark client

# --- commits ------------------------------------------------------------------
# A commit's full object name, as git rev-parse prints it and GitHub gives it (GITHUB_SHA; a job
# sidecar's commit), SHA-1 or SHA-256, lower case. Here, not in core.jobfile beside the sidecar's
# keys: the matrix step and the gate name commits too, and load no results module for it.
COMMIT_SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
COMMIT_SHA_SAID = "40 hex digits, 64 in a SHA-256 repository"  # what COMMIT_SHA admits, in words
NULL_SHA_SAID = "is git's null object id, no commit"  # of a COMMIT_SHA all zeros (GitHub's `before` of a first push)


def null_sha(text: str) -> bool:
    """Whether ``text`` is git's null object id (a ``COMMIT_SHA`` all zeros), which names no commit: a push event's
    `before` of a branch's first push and `after` of its deletion, never a commit a job checked out (GITHUB_SHA)."""
    return bool(COMMIT_SHA.fullmatch(text)) and not text.strip("0")
SHORT_SHA = 12  # hex digits a message or report names a commit (or another git object) by

# --- plan: how a config key's recipe changed from base to head (KeyDiff.status; the keys of the plan's `diff`) ---
RECIPE_NEW, RECIPE_CHANGED, RECIPE_REMOVED, RECIPE_UNCHANGED = "new", "changed", "removed", "unchanged"
RECIPE_STATUSES = (RECIPE_NEW, RECIPE_CHANGED, RECIPE_REMOVED, RECIPE_UNCHANGED)  # in the order a plan lists them


def add_hardware(label: str | None, facts, *, on_main: bool = False) -> str:
    """The one fix for a runner label whose hardware facts configs/runners.yaml lacks, whoever finds it (a
    config's expansion, `plan`, `preflight`, the fan-out guard, a placement): ``add gpus-per-node under
    hardware['LABEL'] in configs/runners.yaml`` (``on_main``: the default branch's file, which a PR cannot
    change for the sweep it starts)."""
    under = f"{HARDWARE}['{label}']" if label else f"the runner's {HARDWARE}"
    return f"add {' and '.join(facts)} under {under} in {RUNNERS_FILE}{' on main' if on_main else ''}"


def runner_entry(runners: dict | None, label: str) -> tuple[str, str] | None:
    """Where configs/runners.yaml speaks of ``label`` (a ``locate`` path): its hardware entry, else its labels
    entry; None where it lists neither."""
    data = runners if isinstance(runners, dict) else {}
    return next(((s, label) for s in (HARDWARE, LABELS) if label in (data.get(s) or {})), None)


def runtime_backend(row: dict) -> str | None:
    """The KV-offload backend a row's arm pip-installs (KV_OFFLOAD_BACKENDS: LMCache, Mooncake), whose
    build it picks by the runner's accelerator-runtime (SWEEPGATE_ACCELERATOR_RUNTIME); None for a row
    whose arm installs nothing, which runs without that fact."""
    backend = row.get(KV_OFFLOAD_BACKEND) if isinstance(row, dict) else None
    name = backend.get("name") if isinstance(backend, dict) else None
    return name if isinstance(name, str) and KV_OFFLOAD_BACKENDS.get(name) else None


def short_sha(name: str) -> str:
    """A full object id (``COMMIT_SHA``) as every message and report names it, its first SHORT_SHA
    hex digits; anything else (a branch, 'HEAD', a label) as it is."""
    return name[:SHORT_SHA] if COMMIT_SHA.fullmatch(name) else name


def row_concs(row: dict) -> list:
    """A row's concurrencies: one for a single-node row, the list a multi-node row sweeps."""
    conc = row.get(CONC)
    return list(conc) if isinstance(conc, list) else [conc]


def lowest_conc(row: dict) -> int:
    """A row's lowest concurrency; 0 when it has none."""
    return min((c for c in row_concs(row) if isinstance(c, int)), default=0)


def env_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def row_digest(row: dict) -> str:
    """sha256 of a row's canonical JSON (sorted keys): equal rows, equal digests."""
    import hashlib
    import json

    return hashlib.sha256(json.dumps(row, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def tp_pp_pcp(worker: dict) -> int:
    """The GPUs one worker replica's tp x pp x pcp-size spans, as a config states them (tp required: a
    KeyError or TypeError for a point the schema check refuses)."""
    return worker[TP] * worker.get(PP, DEFAULT_PARALLEL) * worker.get(PCP_SIZE, DEFAULT_PARALLEL)


def worker_gpus(worker: dict) -> int:
    """``tp_pp_pcp`` of a matrix row or worker, each size read as a whole number (tp 1 when it states none)."""
    return int(worker.get(TP, 1)) * int(worker.get(PP, DEFAULT_PARALLEL)) * int(worker.get(PCP_SIZE, DEFAULT_PARALLEL))


def row_gpus(row: dict) -> int:
    """GPUs a matrix row's workers use: ``worker_gpus``, or for a multi-node row (one with a prefill worker,
    as ``expand.is_multinode_row`` tells) the sum over its prefill and decode workers of num-worker x
    ``worker_gpus``. The plan costs rows by it and results record it (``derive.gpus``)."""
    if row.get(PREFILL) is not None:
        return sum(int(row[r].get(NUM_WORKER, 1)) * worker_gpus(row[r]) for r in (PREFILL, DECODE)
                   if isinstance(row.get(r), dict))
    return worker_gpus(row)


def parallel_tag(worker: dict, tp, dp_attention: str) -> str:
    """A worker's parallelism as result file names and record topologies write it:
    ``tp8-pp1-dcp1-pcp1-ep1-dpafalse`` (``tp`` and ``dp_attention`` as the caller says them)."""
    return (f"tp{tp}-pp{worker.get(PP, DEFAULT_PARALLEL)}-dcp{worker.get(DCP_SIZE, DEFAULT_PARALLEL)}"
            f"-pcp{worker.get(PCP_SIZE, DEFAULT_PARALLEL)}-ep{worker.get(EP, DEFAULT_PARALLEL)}-dpa{dp_attention}")


def result_filename(row: dict, runner_name: str) -> str:
    """Unique per job: exp-name, precision, framework, parallelism, conc, runner, fingerprint."""
    conc = row.get(CONC)
    conc_s = "x".join(map(str, conc)) if isinstance(conc, list) else str(conc)
    para = parallel_tag(row, row.get(TP, "na"), env_value(row.get(DP_ATTN, False)))
    # Eval rows carry no fingerprint: two config keys that differ only in image would
    # share a name (and an artifact), so such rows are told apart by their content.
    fp = str(row.get(RECIPE_FINGERPRINT, ""))[:16] or f"nofp{row_digest(row)[:12]}"
    return "_".join([
        str(row[EXP_NAME]), str(row[PRECISION]), str(row[FRAMEWORK]), para,
        f"disagg-{env_value(row.get(DISAGG, False))}",
        f"spec-{row.get(SPEC_DECODING, DEFAULT_SPEC_DECODING)}",
        f"conc{conc_s}", runner_name, fp,
    ])


def row_env(row: dict, runner_name: str, result_dir: str = JOB_RESULT_DIR) -> dict[str, str]:
    """The CONTRACTS section 6 environment for one single-node matrix row."""
    env = {name: env_value(row[field]) for field, name in ROW_ENV.items() if field in row}
    backend = row.get(KV_OFFLOAD_BACKEND) or {}
    env[KV_OFFLOAD_BACKEND_ENV] = str(backend.get("name", ""))
    env[KV_OFFLOAD_BACKEND_VERSION_ENV] = str(backend.get("version", ""))
    for key, value in (backend.get(KV_OFFLOAD_SETTINGS) or {}).items():
        env[KV_OFFLOAD_SETTINGS_ENV[key]] = env_value(value)
    env.setdefault(ROW_ENV[KV_OFFLOADING], DEFAULT_KV_OFFLOADING)
    env.setdefault(ROW_ENV[SPEC_DECODING], DEFAULT_SPEC_DECODING)
    env.setdefault(ROW_ENV[RUN_EVAL], "false")
    env.setdefault(ROW_ENV[EVAL_ONLY], "false")
    env.setdefault(ROW_ENV[DISAGG], "false")  # as the reference sets it for every job
    env.update(JOB_CONSTANT_ENV)
    env[RUNNER_NAME_ENV] = runner_name
    env[RESULT_DIR_ENV] = result_dir
    env[RESULT_FILENAME_ENV] = result_filename(row, runner_name)
    return env
