#!/usr/bin/env bash
#
# Shared logic of benchmarks/runners/launch_*.sh. Sourced, never executed.
#
# A launcher runs one matrix row on its cluster. The job environment
# (CONTRACTS section 6) is already set by `sweepgate ci row-env`. Every launcher
# takes --dry-run, which prints the resolved script and the exact cluster
# commands instead of running them.

# Launcher name for messages.
LAUNCH_NAME="$(basename "${0}")"
# Set by launch::parse_args.
DRY_RUN=false
# Slurm --time when SWEEPGATE_SLURM_TIME is unset: the timeout-minutes defaults
# of benchmark-tmpl.yml and benchmark-multinode-tmpl.yml (which pass their
# actual timeout as SWEEPGATE_SLURM_TIME).
LAUNCH_DEFAULT_MINUTES=360
LAUNCH_DEFAULT_MULTINODE_MINUTES=720

#######################################
# Print an error and exit 1.
# Arguments:
#   Message.
#######################################
launch::die() {
  echo "${LAUNCH_NAME}: $*" >&2
  exit 1
}

#######################################
# Parse the launcher's command line.
# Globals:
#   DRY_RUN
# Arguments:
#   The launcher's arguments.
#######################################
launch::parse_args() {
  while (($#)); do
    case "$1" in
      --dry-run) DRY_RUN=true ;;
      -h | --help)
        echo "usage: ${LAUNCH_NAME} [--dry-run]"
        exit 0
        ;;
      *) launch::die "unknown argument '$1'; usage: ${LAUNCH_NAME} [--dry-run]" ;;
    esac
    shift
  done
}

#######################################
# Fail, naming every missing variable, unless all are set and non-empty.
# Arguments:
#   Variable names.
#######################################
launch::require_env() {
  local name
  local -a missing=()
  for name in "$@"; do
    [[ -n "${!name:-}" ]] || missing+=("${name}")
  done
  if ((${#missing[@]})); then
    launch::die "missing environment: ${missing[*]}; run \`sweepgate ci row-env\` first"
  fi
}

#######################################
# Print the benchmark script for the current row (CONTRACTS section 7).
# Globals:
#   MODEL_PREFIX, PRECISION, FRAMEWORK, SPEC_DECODING, SCENARIO_TYPE, MULTINODE
# Arguments:
#   GPU family, e.g. b300.
# Outputs:
#   The first existing candidate, relative to the working directory.
#######################################
launch::resolve_script() {
  local gpu="$1"
  local nodes="single_node"
  local scenario="fixed_seq_len"
  local suffix=""
  [[ "${MULTINODE:-false}" == "true" ]] && nodes="multi_node"
  [[ "${SCENARIO_TYPE:-}" == "agentic-coding" ]] && scenario="agentic"
  [[ "${SPEC_DECODING:-none}" == "mtp" ]] && suffix="_mtp"
  local dir="benchmarks/${nodes}/${scenario}"
  local stem="${MODEL_PREFIX}_${PRECISION}_${gpu}"
  local -a candidates=(
    "${dir}/${stem}_${FRAMEWORK}${suffix}.sh"
    "${dir}/${stem}${suffix}.sh"
  )
  local candidate
  for candidate in "${candidates[@]}"; do
    if [[ -f "${candidate}" ]]; then
      echo "${candidate}"
      return 0
    fi
  done
  local fix="add one of them"
  # The paths are from the working directory: the checkout's top.
  [[ -d benchmarks ]] ||
    fix="${PWD} has no benchmarks/ folder: run the launcher from the checkout's top"
  echo "${LAUNCH_NAME}: no benchmark script for ${EXP_NAME:-this row}; tried:" \
    "${candidates[*]}; ${fix}" >&2
  return 1
}

#######################################
# Print a pyxis --container-image for a docker image reference: a registry
# host is separated from the repository by '#', not '/'.
# Arguments:
#   Image, e.g. nvcr.io/nvidia/pytorch:25.01 or vllm/vllm-openai:v1.
#######################################
launch::pyxis_image() {
  local ref="$1"
  local first="${ref%%/*}"
  if [[ "${ref}" == */* && ("${first}" == *.* || "${first}" == *:* \
    || "${first}" == "localhost") ]]; then
    echo "${first}#${ref#*/}"
  else
    echo "${ref}"
  fi
}

# Slurm refuses a longer job name ("Pathname ... too long"; slurmctld checks
# strlen <= 1024); tests/test_slurm_launchers.py proves both sides of it.
LAUNCH_MAX_JOB_NAME=1024

#######################################
# Print the Slurm job name (and MI355X container name) of this run, attempt
# and row: sweepgate-<run id>-<attempt>-<RESULT_FILENAME>, unique and
# findable by `scancel --name`/`squeue --name` (launch::row_scoped_name).
# Globals:
#   GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT
#######################################
launch::job_name() {
  launch::row_scoped_name \
    "sweepgate-${GITHUB_RUN_ID:-local}-${GITHUB_RUN_ATTEMPT:-1}"
}

#######################################
# Print the name of this run's row, the same for every attempt:
# sweepgate-<run id>-<RESULT_FILENAME> (launch::row_scoped_name). Multi-node
# docker workers carry it as a label to find an earlier attempt's containers.
# Globals:
#   GITHUB_RUN_ID
#######################################
launch::row_name() {
  launch::row_scoped_name "sweepgate-${GITHUB_RUN_ID:-local}"
}

#######################################
# Print PREFIX-<RESULT_FILENAME>. Characters a name list or a docker name
# cannot hold become '-'; then, or past Slurm's limit, the name is cut and
# ends in -<sha256(RESULT_FILENAME)[:12]> so it stays unique.
# Globals:
#   RESULT_FILENAME
# Arguments:
#   Prefix.
#######################################
launch::row_scoped_name() {
  local safe="${RESULT_FILENAME//[^a-zA-Z0-9_.-]/-}"
  local name="$1-${safe}"
  if [[ "${safe}" != "${RESULT_FILENAME}" ]] || ((${#name} > LAUNCH_MAX_JOB_NAME)); then
    local digest
    digest="$(printf '%s' "${RESULT_FILENAME}" | sha256sum)"
    name="${name:0:LAUNCH_MAX_JOB_NAME-13}-${digest:0:12}"
  fi
  echo "${name}"
}

# The container runtimes each cluster's launcher runs its rows in (single-
# and multi-node alike), the default first: the one list
# SWEEPGATE_CONTAINER_RUNTIME is checked against (launch::runtime).
declare -A LAUNCH_RUNTIMES=(
  [b300]="pyxis none"
  [mi355x]="docker none"
)

#######################################
# Check SWEEPGATE_CONTAINER_RUNTIME against the cluster's LAUNCH_RUNTIMES
# (unset: the cluster's default) and export it for the cluster command and
# the benchmark script; refuse any other with one line.
# Globals:
#   LAUNCH_RUNTIMES (read), SWEEPGATE_CONTAINER_RUNTIME (set and exported)
# Arguments:
#   GPU family, e.g. b300.
#######################################
launch::runtime() {
  local -a allowed
  read -r -a allowed <<<"${LAUNCH_RUNTIMES[$1]:-}"
  ((${#allowed[@]})) || launch::die "no container runtimes listed for $1"
  local runtime="${SWEEPGATE_CONTAINER_RUNTIME:-${allowed[0]}}" known
  for known in "${allowed[@]}"; do
    if [[ "${runtime}" == "${known}" ]]; then
      export SWEEPGATE_CONTAINER_RUNTIME="${runtime}"
      return 0
    fi
  done
  launch::die "SWEEPGATE_CONTAINER_RUNTIME=${runtime} is not supported on" \
    "$1; set it to one of: ${allowed[*]} (or unset it for ${allowed[0]})"
}

#######################################
# Print the Slurm allocation prefix shared by every launcher: the row's node
# count (SWEEPGATE_NODES for a multi-node row, from `sweepgate ci row-env`),
# exclusive nodes, the workflow template's time limit and the unique job name.
# Globals:
#   SWEEPGATE_SLURM_PARTITION, SWEEPGATE_SLURM_TIME, SWEEPGATE_NODES, MULTINODE
# Arguments:
#   Default partition.
#######################################
launch::salloc_args() {
  local nodes=1
  local minutes="${SWEEPGATE_SLURM_TIME:-${LAUNCH_DEFAULT_MINUTES}}"
  if launch::is_multinode; then
    nodes="${SWEEPGATE_NODES}"
    minutes="${SWEEPGATE_SLURM_TIME:-${LAUNCH_DEFAULT_MULTINODE_MINUTES}}"
  fi
  printf '%s\0' salloc \
    "--partition=${SWEEPGATE_SLURM_PARTITION:-$1}" \
    "--nodes=${nodes}" \
    --ntasks-per-node=1 \
    --exclusive \
    "--time=${minutes}" \
    "--job-name=$(launch::job_name)"
}

#######################################
# True for a multi-node row (MULTINODE=true from `sweepgate ci row-env`).
#######################################
launch::is_multinode() {
  [[ "${MULTINODE:-false}" == "true" ]]
}

#######################################
# Print the cluster command of a multi-node row: allocate its nodes, then run
# the benchmark script on this host inside the allocation. The script starts
# one `srun` per worker (benchmarks/multi_node/disagg_lib.sh) in the runtime
# SWEEPGATE_CONTAINER_RUNTIME names (launch::main exports it, and
# SWEEPGATE_JOB_NAME, which names the workers' docker containers).
# Globals:
#   SWEEPGATE_NODES, SWEEPGATE_GPUS_PER_NODE
# Arguments:
#   Default partition, script.
#######################################
launch::multinode_command() {
  launch::require_env SWEEPGATE_NODES SWEEPGATE_GPUS_PER_NODE
  launch::salloc_args "$1"
  printf '%s\0' bash "$2"
}

#######################################
# Resolve the row's script, then print (--dry-run) or run the cluster command
# the launcher builds around it. The run's output also goes to
# $RESULT_DIR/logs/$RESULT_FILENAME.log, uploaded with the server logs.
# Globals:
#   DRY_RUN, RESULT_DIR, RESULT_FILENAME, and the section 6 environment;
#   LAUNCH_HELD (set: a cancel held while the command starts).
# Arguments:
#   GPU family, then the name of a function that prints the command (one
#   NUL-terminated argument each) given the script path.
#######################################
launch::main() {
  local gpu="$1"
  local build="$2"
  launch::runtime "${gpu}"
  launch::require_env EXP_NAME IMAGE MODEL_PREFIX PRECISION FRAMEWORK \
    RESULT_DIR RESULT_FILENAME RUNNER_NAME
  local script
  script="$(launch::resolve_script "${gpu}")" || exit 1
  # One NUL-terminated argument each: a value with a newline stays one argument.
  local -a cmd
  mapfile -d '' -t cmd < <("${build}" "${script}")
  wait "$!" || launch::die "could not build the cluster command"
  if [[ "${DRY_RUN}" == "true" ]]; then
    echo "script: ${script}"
    printf '+'
    printf ' %q' "${cmd[@]}"
    printf '\n'
    return 0
  fi
  local log_dir="${RESULT_DIR}/logs"
  mkdir -p "${log_dir}"
  LAUNCH_JOB_NAME="$(launch::job_name)"
  # Multi-node workers' docker containers are named after it on their nodes
  # and labelled with the row, to find an earlier attempt's leftovers there
  # (benchmarks/multi_node/docker_task.sh).
  export SWEEPGATE_JOB_NAME="${LAUNCH_JOB_NAME}"
  SWEEPGATE_ROW_NAME="$(launch::row_name)"
  export SWEEPGATE_ROW_NAME
  # A single-node row's docker container carries the job's name (multi-node
  # workers' containers remove themselves); pyxis needs nothing.
  LAUNCH_DOCKER=false
  if ! launch::is_multinode \
    && [[ "${SWEEPGATE_CONTAINER_RUNTIME}" == "docker" ]]; then
    LAUNCH_DOCKER=true
  fi
  launch::clear_leftovers
  echo "${LAUNCH_NAME}: running ${script} for ${RESULT_FILENAME}" \
    "as Slurm job ${LAUNCH_JOB_NAME}"
  # A cancel while the command starts is held (noted) until it has started and
  # the FIFO's folder is gone: launch::cancel, which exits, left that folder
  # behind and had no command to stop. It then acts as it would have.
  LAUNCH_HELD=""
  trap 'LAUNCH_HELD="${LAUNCH_HELD:-130}"' INT
  trap 'LAUNCH_HELD="${LAUNCH_HELD:-143}"' TERM
  launch::start "${log_dir}/${RESULT_FILENAME}.log" "${cmd[@]}"
  trap 'launch::cancel 130' INT
  trap 'launch::cancel 143' TERM
  if [[ -n "${LAUNCH_HELD}" ]]; then
    launch::cancel "${LAUNCH_HELD}"
  fi
  local rc=0
  wait "${LAUNCH_PID}" || rc=$?
  wait "${LAUNCH_TEE_PID}" || true
  trap - INT TERM
  ((rc == 0)) || launch::stop_containers
  if [[ "$(launch::final_state)" == "TIMEOUT" ]]; then
    echo "${LAUNCH_NAME}: Slurm job ${LAUNCH_JOB_NAME} exceeded its time limit" \
      "(--time=${SWEEPGATE_SLURM_TIME:-default}); raise timeout-minutes" >&2
    ((rc != 0)) || rc=1
  fi
  return "${rc}"
}

#######################################
# Print the Slurm state of this run's job once it has ended (empty when Slurm
# no longer knows it). Waits up to 30 seconds while it is still completing.
# Globals:
#   LAUNCH_JOB_NAME
#######################################
launch::final_state() {
  local state="" tries
  for ((tries = 0; tries < 60; tries++)); do
    state="$(squeue -h --states=all --name="${LAUNCH_JOB_NAME}" -o %T \
      2>/dev/null | tail -n 1)"
    case "${state}" in
      RUNNING | COMPLETING | CONFIGURING | PENDING) sleep 0.5 ;;
      *) break ;;
    esac
  done
  echo "${state}"
}

#######################################
# Start the cluster command in its own process group (salloc, srun and what
# they run locally), its output through tee into the log. The pipe is a FIFO
# so tee has a pid the launcher waits for.
# Globals:
#   LAUNCH_PID, LAUNCH_TEE_PID (set)
# Arguments:
#   Log file, then the command.
#######################################
launch::start() {
  local log="$1"
  shift
  local fifo_dir rw r w
  fifo_dir="$(mktemp -d)"
  mkfifo "${fifo_dir}/out"
  # Open both ends here, before anything forks: a read-write open never
  # blocks, and with it held the plain read and write opens return at once.
  # Children then inherit open descriptors, so removing the name cannot
  # race with them (tee would wait forever for a writer that never came).
  exec {rw}<>"${fifo_dir}/out"
  exec {r}<"${fifo_dir}/out"
  exec {w}>"${fifo_dir}/out"
  exec {rw}>&-
  rm -rf "${fifo_dir}"
  tee -a "${log}" <&"${r}" {w}>&- &
  LAUNCH_TEE_PID=$!
  setsid "$@" >&"${w}" 2>&1 {r}<&- &
  LAUNCH_PID=$!
  # Only the children hold the pipe now: tee sees EOF when the command ends.
  exec {r}<&- {w}>&-
}

#######################################
# Before starting: release jobs of this run and row left by this or an
# earlier attempt (a cancelled job whose cleanup never ran).
# Globals:
#   GITHUB_RUN_ATTEMPT
#######################################
launch::clear_leftovers() {
  if command -v scancel >/dev/null; then
    local attempt
    for ((attempt = 1; attempt <= ${GITHUB_RUN_ATTEMPT:-1}; attempt++)); do
      scancel --name="$(GITHUB_RUN_ATTEMPT="${attempt}" launch::job_name)" \
        --user="$(id -un)" 2>/dev/null || true
    done
  fi
  launch::stop_containers
}

#######################################
# Stop this row's docker containers (`docker rm -f` by name): this attempt's,
# named like its Slurm job, and the same row's of earlier attempts. While the
# job is still allocated (a cancel) it runs on the job's node through
# `srun --overlap`, else on this host. A pyxis container needs none of this:
# it is the Slurm step's own process tree and dies with the step (scancel, the
# time limit or the end of salloc).
# Globals:
#   LAUNCH_DOCKER, LAUNCH_JOB_NAME, GITHUB_RUN_ATTEMPT
#######################################
launch::stop_containers() {
  [[ "${LAUNCH_DOCKER:-false}" == "true" ]] || return 0
  local jobid="" attempt
  local -a on_node=()
  jobid="$(squeue -h --name="${LAUNCH_JOB_NAME}" -o %i 2>/dev/null \
    | head -n 1)" || true
  if [[ -n "${jobid}" ]]; then
    on_node=(timeout 60 srun "--jobid=${jobid}" --overlap --nodes=1 --ntasks=1)
  fi
  for ((attempt = 1; attempt <= ${GITHUB_RUN_ATTEMPT:-1}; attempt++)); do
    "${on_node[@]}" docker rm -f \
      "$(GITHUB_RUN_ATTEMPT="${attempt}" launch::job_name)" >/dev/null 2>&1 || true
  done
}

#######################################
# Cancellation: stop the row's docker container, release the allocation by
# job name (its steps, pyxis containers and every node's processes go with it), forward TERM to the local salloc/srun and
# everything they started, wait for them and for tee (KILL after a grace
# period), and exit.
# Globals:
#   LAUNCH_JOB_NAME, LAUNCH_PID, LAUNCH_TEE_PID
# Arguments:
#   Exit status.
#######################################
launch::cancel() {
  trap '' INT TERM
  echo "${LAUNCH_NAME}: cancelled; releasing Slurm job ${LAUNCH_JOB_NAME}" >&2
  launch::stop_containers
  scancel --name="${LAUNCH_JOB_NAME}" --user="$(id -un)" || true
  kill -TERM -- "-${LAUNCH_PID}" 2>/dev/null || kill -TERM "${LAUNCH_PID}" 2>/dev/null || true
  local tries
  for ((tries = 0; tries < 100; tries++)); do
    kill -0 -- "-${LAUNCH_PID}" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL -- "-${LAUNCH_PID}" 2>/dev/null || true
  wait "${LAUNCH_PID}" 2>/dev/null || true
  wait "${LAUNCH_TEE_PID}" 2>/dev/null || true
  exit "$1"
}
