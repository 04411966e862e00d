"""Launch shapes (operators/shape.py): every kernel has one, whether a load balancer wrote it or
not, and a load balancer is only a technique: none refuses its interface (issue 21 item 1)."""

from __future__ import annotations

import pytest

from frontier import Frontier, generators
from frontier.target import resolve_target
from operators import LoadBalancer, available_balancers, get_balancer
from operators.balancers import BALANCERS, AutoBalancer, BlockMapped
from operators.codegen import KernelIO, KernelSpec
from operators.compute import compute_plan
from operators.filter import filter_plan
from operators.shape import LaunchShape, per_element
from operators.small_frontier import BLOCK_LOCAL, block_shape


def keep(v, marks):
    return marks[v] == 0


@pytest.mark.parametrize("name", sorted(BALANCERS))
@pytest.mark.parametrize("kind", ["sparse", "dense"])
def test_every_balancer_writes_an_advance_and_has_a_shape(name, kind):
    g = generators.grid2d(4, 4)
    target = resolve_target("cpu")
    bound = get_balancer(name).bind(g, target)
    spec = KernelSpec("advance", kind, "sparse", io=KernelIO.STEP)
    assert "col_indices" in bound.advance_body(spec)
    shape = bound.shape(target)
    assert shape.slug == bound.slug and shape.technique == bound
    assert 1 <= shape.threads_per_block <= target.max_threads_per_block


def test_auto_is_a_choice_not_a_load_balancer():
    assert not isinstance(get_balancer("auto"), LoadBalancer)
    assert isinstance(get_balancer("auto"), AutoBalancer)
    assert "auto" not in available_balancers()


def test_kernels_without_a_balancer_launch_with_a_per_element_shape():
    g = generators.path(6)
    f = Frontier.from_vertices(g, [0, 1, 2], target="cpu")
    target = resolve_target("cpu")
    (kernel, _), = filter_plan(g, f, keep, 1, None, False).kernels
    assert kernel.shape == per_element(target)
    kernel = compute_plan(g, "vertices", keep, 1, "cpu")[0]
    assert kernel.shape == per_element(target) and kernel.name.startswith("compute_thread_")


def test_the_small_frontier_mode_has_a_shape_of_its_own():
    target = resolve_target("cpu")
    shape = block_shape(target)
    assert shape.slug == BLOCK_LOCAL and shape.threads_per_block == target.max_threads_per_block


def test_a_shape_grids_one_element_per_thread_or_per_block():
    target = resolve_target("cpu")
    per_thread = LaunchShape("thread", 4)
    per_block = LaunchShape("block", 4, items_per_block=1)
    most = target.resident_blocks(4)
    assert per_thread.blocks(target, 9) == min(3, most)
    assert per_block.blocks(target, 3) == min(3, most)
    assert per_thread.blocks(target, 0) == per_block.blocks(target, 0) == 1


def test_the_block_balancer_takes_a_block_per_element():
    target = resolve_target("cpu")
    assert BlockMapped(64).shape(target).items_per_block == 1


def test_two_kernels_of_one_name_and_different_text_are_two_shapes():
    from operators.balancers import DynamicWarp

    target = resolve_target("cpu")
    default, other = DynamicWarp(threshold=256), DynamicWarp(threshold=64)
    assert default.slug == other.slug
    assert default.shape(target) != other.shape(target)
