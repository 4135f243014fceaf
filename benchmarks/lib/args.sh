#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# the one option parser every public function uses.

#######################################
# Parse long options into the caller's local variables.
# SPEC is one list of words (spaces or newlines): "--name=var" takes a value
# into var, "--name!var" is a flag that sets var to true, and a lone "--"
# lets the caller take the words after "--" as an argv. Any other word is
# an error.
# Globals:
#   _SG_ARGC (set: how many words were consumed, "--" included)
# Arguments:
#   WHO (for messages), SPEC, then the words to parse.
# Returns:
#   0; 1 with a message on an unknown option or a missing value.
#######################################
_sg_parse_opts() {
  local _sg_who="$1" _sg_spec="$2" _sg_word _sg_var _sg_kind
  local -a _sg_words=()
  read -r -d "" -a _sg_words <<<"${_sg_spec}"
  shift 2
  _SG_ARGC=0
  while (($# > 0)); do
    if [[ "$1" == "--" && " ${_sg_spec} " == *" -- "* ]]; then
      _SG_ARGC=$((_SG_ARGC + 1))
      return 0
    fi
    _sg_kind="" _sg_var=""
    for _sg_word in "${_sg_words[@]}"; do
      case "${_sg_word}" in
        "$1="*) _sg_kind=value _sg_var="${_sg_word#*=}" ;;
        "$1!"*) _sg_kind=flag _sg_var="${_sg_word#*!}" ;;
      esac
    done
    case "${_sg_kind}" in
      value)
        if (($# < 2)); then
          _sg_err "${_sg_who}: option '$1' needs a value"
          return 1
        fi
        printf -v "${_sg_var}" '%s' "$2"
        shift 2
        _SG_ARGC=$((_SG_ARGC + 2))
        ;;
      flag)
        printf -v "${_sg_var}" '%s' true
        shift
        _SG_ARGC=$((_SG_ARGC + 1))
        ;;
      *)
        _sg_err "${_sg_who}: unknown option '$1'"
        return 1
        ;;
    esac
  done
  return 0
}

#######################################
# Fail, naming the option, when any of the caller's variables is empty.
# Arguments:
#   WHO, SPEC (as for _sg_parse_opts), then variable names.
# Returns:
#   0; 1 with a message naming the first missing option.
#######################################
_sg_require_opts() {
  local _sg_who="$1" _sg_spec="$2" _sg_name _sg_word
  local -a _sg_words=()
  read -r -d "" -a _sg_words <<<"${_sg_spec}"
  shift 2
  for _sg_name in "$@"; do
    [[ -z "${!_sg_name}" ]] || continue
    for _sg_word in "${_sg_words[@]}"; do
      if [[ "${_sg_word}" == *"=${_sg_name}" ]]; then
        _sg_err "${_sg_who}: ${_sg_word%%=*} is required"
        return 1
      fi
    done
    _sg_err "${_sg_who}: ${_sg_name} is required"
    return 1
  done
  return 0
}
