#!/usr/bin/env bash
# The BFS configurations compared before and after a change to the operators (each on the same
# H100, same day): default and best balancers, push and direction-optimizing BFS, on the anchor
# graphs, then the test suite. Usage on a CUDA machine, from the repository root:
#   bash bench/device/bfs_anchors.sh OUT_DIR
exec bash "$(dirname "$0")/catalog_and_tests.sh" "${1:-results}" --algorithms bfs,bfs_do \
  --balancers thread,warp,cta_warp_scan,two_phase \
  --graphs rmat21,grid2000,luxembourg_osm,delaunay_n16,star1000000 --runs 5
