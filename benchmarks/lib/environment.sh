#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# the job environment, command records, the model path and the row's
# parallelism.

#######################################
# Check that every named variable is set and non-empty.
# Arguments:
#   Variable names.
# Returns:
#   0 when all are present; 1, naming every missing one, otherwise.
#######################################
check_env_vars() {
  _sg_guarded _sg_check_env_vars "$@"
}

_sg_check_env_vars() {
  local name
  local -a missing=()
  for name in "$@"; do
    if [[ ! "${name}" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
      missing+=("${name} (not a variable name)")
    elif [[ -z "${!name:-}" ]]; then
      missing+=("${name}")
    fi
  done
  if ((${#missing[@]} > 0)); then
    _sg_err "Error: required environment variables are not set:" \
      "${missing[*]}"
    for name in "${missing[@]}"; do
      _sg_err "  - ${name}"
    done
    return 1
  fi
  return 0
}

# MODE (">" or ">>") FILE ARGV...: one line, each word quoted with printf %q.
_sg_record_command() {
  local mode="$1" file="$2" line
  shift 2
  if (($# == 0)); then
    _sg_err "write_command/append_command: no command to record"
    return 1
  fi
  line="$(printf '%q ' "$@")"
  line="${line% }"
  mkdir -p "$(dirname "${file}")" || return 1
  if [[ "${mode}" == ">" ]]; then
    printf '%s\n' "${line}" >"${file}" || return 1
  else
    printf '%s\n' "${line}" >>"${file}" || return 1
  fi
}

#######################################
# Record ARGV in FILE (replacing it) so it can be replayed; each word is
# quoted with printf %q.
# Arguments:
#   FILE, ARGV...
# Returns:
#   0, or 1 when there is nothing to record or FILE is not writable.
#######################################
write_command() {
  _sg_guarded _sg_record_command ">" "$@"
}

#######################################
# As write_command, appending a line to FILE.
#######################################
append_command() {
  _sg_guarded _sg_record_command ">>" "$@"
}

#######################################
# Resolve MODEL_PATH: a non-empty local directory is used as is; otherwise
# MODEL is downloaded into the HF cache and MODEL_PATH becomes MODEL.
# Globals:
#   MODEL (read), MODEL_PATH (set and exported)
# Returns:
#   0, or 1 when the download fails.
#######################################
prepare_model_path() {
  _sg_guarded _sg_prepare_model_path
}

_sg_prepare_model_path() {
  if [[ -z "${MODEL:-}" ]]; then
    _sg_err "prepare_model_path: MODEL is not set"
    return 1
  fi
  if [[ -n "${MODEL_PATH:-}" && -d "${MODEL_PATH}" ]] &&
    [[ -n "$(ls -A "${MODEL_PATH}" 2>/dev/null)" ]]; then
    echo "Using local model directory ${MODEL_PATH}"
    return 0
  fi
  if [[ -n "${MODEL_PATH:-}" ]]; then
    hf download "${MODEL}" --local-dir "${MODEL_PATH}" || return 1
  else
    hf download "${MODEL}" || return 1
    MODEL_PATH="${MODEL}"
  fi
  export MODEL_PATH
}

#######################################
# Fail clearly when a row asks for evals: lm-eval is not wired into these
# scripts, and a silently skipped eval would look like a passed one.
# Globals:
#   RUN_EVAL, EVAL_ONLY
# Returns:
#   0 when no eval is requested; 1 otherwise.
#######################################
require_no_evals() {
  _sg_guarded _sg_require_no_evals
}

_sg_require_no_evals() {
  if [[ "${RUN_EVAL:-false}" == "true" ||
    "${EVAL_ONLY:-false}" == "true" ]]; then
    _sg_err "Error: this row requests evals (RUN_EVAL=${RUN_EVAL:-}," \
      "EVAL_ONLY=${EVAL_ONLY:-}), but evals are not wired into ${0##*/};" \
      "run it without evals or add an eval step"
    return 1
  fi
  return 0
}

#######################################
# `vllm serve` parallelism flags for the row: attention data-parallel with
# expert parallelism when DP_ATTENTION=true, else tensor parallel (plus
# expert parallel when EP_SIZE > 1).
# Globals:
#   TP, EP_SIZE, DP_ATTENTION (read); VLLM_PARALLEL_ARGS (set)
# Returns:
#   0; 1 when TP is not a positive integer.
#######################################
vllm_parallel_args() {
  _sg_guarded _sg_vllm_parallel_args
}

_sg_vllm_parallel_args() {
  VLLM_PARALLEL_ARGS=()
  if ! _sg_is_posint "${TP:-}"; then
    _sg_err "vllm_parallel_args: TP must be a positive integer," \
      "got '${TP:-}'"
    return 1
  fi
  if [[ "${DP_ATTENTION:-false}" == "true" ]]; then
    VLLM_PARALLEL_ARGS=(--data-parallel-size "${TP}" --tensor-parallel-size 1
      --enable-expert-parallel)
  else
    VLLM_PARALLEL_ARGS=(--tensor-parallel-size "${TP}")
    if [[ "${EP_SIZE:-1}" != "1" ]]; then
      VLLM_PARALLEL_ARGS+=(--enable-expert-parallel)
    fi
  fi
}
