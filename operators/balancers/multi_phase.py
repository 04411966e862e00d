"""Multi-phase search (Busato & Bombieri, *Graph Algorithms on GPUs*, §5.4-§5.6): two-phase search
plus coalesced expansion and iterated search.

Partition and prefix sum are those of ``"two_phase"`` (helper kernels, merge-path chunks). Two
changes in the expansion:

* iterated search (§5.6): a chunk is ``threads * items_per_thread * iterations`` merge steps. The
  block loads the extended chunk of the prefix sum into shared memory once, then runs
  ``iterations`` rounds, in each of which every thread binary-searches its start and walks
  ``items_per_thread`` steps: the block barriers (load, reuse) are paid once per chunk rather
  than once per round;
* coalesced expansion (§5.5): a thread's walk only stages its edges in registers (a local array of
  ``items_per_thread`` entries). The lanes of a warp own consecutive edges of the chunk, so each
  lane copies its edges into the warp's own slot of shared memory at its offset from the warp's
  first edge (shuffled from lane 0; the warp's end from lane 31); then the whole warp reads the
  slot back one edge per lane, so the 32 lanes visit 32 consecutive edges (coalesced reads of the
  edge arrays). Warps touch only their own slot, so ``syncwarp`` suffices: no block barrier.
"""

from __future__ import annotations

from operators.balancers import snippets
from operators.balancers.two_phase import TwoPhase, walk
from operators.codegen import KernelSpec, indent, visit_edge


class MultiPhase(TwoPhase):
    """Two-phase search with iterated searches over an extended chunk and warp-coalesced
    expansion through shared memory."""

    name = "multi_phase"
    serves = ()  # named only: two_phase serves the hub steps of "auto"

    def __init__(self, items_per_thread: int = 4, iterations: int = 2,
                 threads: int = 256) -> None:
        super().__init__(items_per_thread, threads)
        if iterations < 1:
            raise ValueError(f"iterations {iterations}; expected >= 1")
        self.iterations = iterations

    @property
    def slug(self) -> str:
        return f"{self.name}{self.items_per_thread}x{self.iterations}"

    @property
    def chunk(self) -> int:
        return self.threads * self.items_per_thread * self.iterations

    def shared_bytes(self) -> int:
        staging = self.threads * self.items_per_thread * (8 + 4)
        return super().shared_bytes() + staging

    def rebound(self, threads: int) -> MultiPhase:
        return MultiPhase(self.items_per_thread, self.iterations, threads)

    def advance_body(self, spec: KernelSpec) -> str:
        k = self.items_per_thread
        slot = 32 * k
        stage = ("staged_e[staged] = e\n"
                 "staged_src[staged] = src\n"
                 "staged += 1\n")
        round_ = (f"diag = min(search_round * {self.threads * k} + cuda.threadIdx.x * {k}, "
                  "(i1 - i0) + (u1 - u0))\n"
                  + walk(spec, k, stage, "first_unit = unit\nstaged = 0\n")
                  + "warp_first = shfl_idx(FULL, first_unit, 0, 32)\n"
                  "warp_end = shfl_idx(FULL, unit, 31, 32)\n"
                  f"at = warp_id * {slot} + (first_unit - warp_first)\n"
                  "for k in range(staged):\n"
                  "    slot_e[at + k] = staged_e[k]\n"
                  "    slot_src[at + k] = staged_src[k]\n"
                  "syncwarp(FULL)\n"
                  "for j in range(lane, warp_end - warp_first, 32):\n"
                  f"    slot_v = slot_src[warp_id * {slot} + j]\n"
                  f"    slot_edge = slot_e[warp_id * {slot} + j]\n"
                  + indent(visit_edge(spec, "slot_v", "slot_edge"))
                  + "syncwarp(FULL)\n")
        expansion = (f"for search_round in range({self.iterations}):\n" + indent(round_))
        return (snippets.warp_ids()
                + f"staged_e = cuda.local.array({k}, int64)\n"
                f"staged_src = cuda.local.array({k}, int32)\n"
                f"slot_e = cuda.shared.array({self.threads * k}, int64)\n"
                f"slot_src = cuda.shared.array({self.threads * k}, int32)\n"
                + self._chunk_loop(spec, expansion))
