#!/usr/bin/env bash
#
# Part of benchmarks/benchmark_lib.sh (source that file, not this one):
# the one conversion of the DRAM budget into what the backends read.
#
# TOTAL_CPU_DRAM_GB is the node's KV-offload budget in decimal gigabytes
# (1 GB = 10^9 bytes), as configs/runners.yaml states it. vLLM
# (--kv-offloading-size), LMCache (--l1-size-gb) and Mooncake ("NGB" sizes)
# read gibibytes (1 GiB = 2^30 bytes), so passing the number through unchanged
# would hand them 7.4% more memory than the budget (1889 -> 2028 GB). Every
# arm converts here instead:
#   bytes = GB * 10^9
#   GiB   = bytes / 2^30, written as its exact decimal expansion (finite,
#           since 2^30 divides 10^30), so that a backend computing
#           GiB * 2^30 gets back exactly the same bytes.
# The seed row's 1889 GB is 1889000000000 bytes = 1759.268343448638916015625
# GiB.

readonly _SG_GIB=1073741824

# Print the bytes of GB decimal gigabytes (a positive integer).
_sg_gb_to_bytes() {
  _sg_is_posint "$1" || return 1
  printf '%d\n' "$(($1 * 1000000000))"
}

# Print BYTES as an exact decimal number of GiB (no trailing zeros).
_sg_bytes_to_gib() {
  local bytes="$1" whole rest digits=""
  _sg_is_uint "${bytes}" || return 1
  whole=$((bytes / _SG_GIB))
  rest=$((bytes % _SG_GIB))
  while ((rest > 0)); do
    rest=$((rest * 10))
    digits+="$((rest / _SG_GIB))"
    rest=$((rest % _SG_GIB))
  done
  printf '%s%s\n' "${whole}" "${digits:+.${digits}}"
}

# Print GB decimal gigabytes as exact GiB.
_sg_gb_to_gib() {
  local bytes
  bytes="$(_sg_gb_to_bytes "$1")" || return 1
  _sg_bytes_to_gib "${bytes}"
}
