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
  echo "${LAUNCH_NAME}: no benchmark script for ${EXP_NAME:-this row}; tried:" \
    "${candidates[*]}; add one of them" >&2
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

#######################################
# Print the Slurm allocation prefix shared by every launcher.
# Globals:
#   SWEEPGATE_SLURM_PARTITION, SWEEPGATE_SLURM_TIME, EXP_NAME
# Arguments:
#   Default partition.
#######################################
launch::salloc_args() {
  printf '%s\n' salloc \
    "--partition=${SWEEPGATE_SLURM_PARTITION:-$1}" \
    --nodes=1 \
    --exclusive \
    "--time=${SWEEPGATE_SLURM_TIME:-300}" \
    "--job-name=sweepgate-${EXP_NAME}"
}

#######################################
# Resolve the row's script, then print (--dry-run) or run the cluster command
# the launcher builds around it. The run's output also goes to
# $RESULT_DIR/logs/$RESULT_FILENAME.log, uploaded with the server logs.
# Globals:
#   DRY_RUN, RESULT_DIR, RESULT_FILENAME, and the section 6 environment.
# Arguments:
#   GPU family, then the name of a function that prints the command (one
#   argument per line) given the script path.
#######################################
launch::main() {
  local gpu="$1"
  local build="$2"
  launch::require_env EXP_NAME IMAGE MODEL_PREFIX PRECISION FRAMEWORK \
    RESULT_DIR RESULT_FILENAME RUNNER_NAME
  local script
  script="$(launch::resolve_script "${gpu}")" || exit 1
  local lines
  lines="$("${build}" "${script}")" \
    || launch::die "could not build the cluster command"
  local -a cmd
  mapfile -t cmd <<<"${lines}"
  if [[ "${DRY_RUN}" == "true" ]]; then
    echo "script: ${script}"
    printf '+'
    printf ' %q' "${cmd[@]}"
    printf '\n'
    return 0
  fi
  local log_dir="${RESULT_DIR}/logs"
  mkdir -p "${log_dir}"
  echo "${LAUNCH_NAME}: running ${script} for ${RESULT_FILENAME}"
  "${cmd[@]}" 2>&1 | tee -a "${log_dir}/${RESULT_FILENAME}.log"
  return "${PIPESTATUS[0]}"
}
