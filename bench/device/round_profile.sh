#!/usr/bin/env bash
# One GPU session that says where the round-based algorithms of the catalog spend their time:
# each kernel of k-core, triangles, MIS, colouring and SCC timed on the road graph and on rmat21
# (kernel_times), the structure suite's goals on rmat21 (triangles, MIS, colouring) and SCC of
# rmat21_directed, Borůvka / k-truss against one core (forest_truss), a user's fused loop against
# the hand-fused traversal (loops), and the cpu target on the host's cores (rmat21, 1 thread
# against all, scipy beside), each step bounded in time.
# Usage on a CUDA machine, from the repository root:  bash bench/device/round_profile.sh OUT [STEPS]
# STEPS: comma-separated subset of kernels,kernels21,structure,forest,loops,cores (default: all).
set -uo pipefail
out=${1:-results}; steps=${2:-kernels,kernels21,structure,forest,loops,cores}
. "$(dirname "$0")/env.sh"
step kernels "${KERNELS_S:-150}" python3 -m bench kernel_times --target cuda --runs 5 --out "$out" \
  --graphs luxembourg_osm --algorithms kcore,triangles,mis,coloring,scc
step kernels21 "${KERNELS_S:-150}" python3 -m bench kernel_times --target cuda --runs 5 --out "$out/rmat21" \
  --graphs rmat21 --algorithms triangles,mis,coloring,kcore
step structure "${STRUCTURE_S:-150}" python3 -m bench structure --target cuda --runs 5 --out "$out" \
  --graphs luxembourg_osm,rmat21 --algorithms triangles,mis,coloring
step forest "${FOREST_S:-120}" python3 -m bench forest_truss --target cuda --runs 5 --out "$out"
step loops "${LOOPS_S:-60}" python3 -m bench loops --target cuda --runs 5 --out "$out"
step cores "${CORES_S:-150}" python3 -m bench cores --runs 5 --out "$out" --graphs rmat21,luxembourg_osm
exit $status
