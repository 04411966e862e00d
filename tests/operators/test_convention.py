"""The calling convention (operators/convention.py): a kernel's parameters follow the I/O kind
its operator sets in the spec, not the operator's name (issue 21 item 6)."""

from __future__ import annotations

import numpy as np
import pytest

from frontier import generators
from frontier.ring import RING_PARAMS
from frontier.runtime.target import named
from operators.codegen import KernelIO, KernelSpec
from operators.convention import (
    FUSED_PARAMS,
    INPUT_PARAMS,
    RANGE_PARAMS,
    VIEW_PARAMS,
    kernel_arguments,
    kernel_params,
)


@pytest.mark.parametrize("io, expected", [(KernelIO.STEP, RING_PARAMS),
                                          (KernelIO.READ, INPUT_PARAMS),
                                          (KernelIO.RANGE, RANGE_PARAMS),
                                          (KernelIO.RING, FUSED_PARAMS)])
@pytest.mark.parametrize("operator", ["advance", "traverse", "compute", "my_operator"])
def test_the_io_kind_not_the_operator_name_decides_the_parameters(operator, io, expected):
    spec = KernelSpec(operator, "sparse", "none", num_state=1, io=io)
    params = kernel_params(spec, ("extra",))
    assert params[5:5 + len(expected)] == expected
    assert params[-2:] == ("extra", "s0")


def test_a_spec_without_an_io_kind_is_refused():
    with pytest.raises(TypeError, match="io"):
        KernelSpec("advance", "sparse", "sparse")  # type: ignore[call-arg]


@pytest.mark.parametrize("params", [
    (), ("count",), ("s1",), ("count", "s0", "s1"), ("s1", "s0", "count"),
    ("num_vertices", "row_offsets", "s0"), ("col_offsets", "row_indices", "edge_ids", "s0"),
    ("sorted_heads", "sorted_tails", "sorted_arcs"), ("edge_src", "count"),
])
def test_kernel_arguments_give_each_parameter_its_value_in_order(params):
    """Whatever the parameters (their recipe worked out once per tuple): each takes its value,
    in the order named, from the graph, the call's arguments or the state."""
    graph = generators.path(4)
    cpu = named("cpu")
    state = (np.zeros(4), np.ones(4))
    got = kernel_arguments(params, graph, cpu, {"count": 9}, state)
    arrays = graph.device_arrays(cpu)
    csc = graph.device_csc(cpu)
    known = {"count": 9, "s0": state[0], "s1": state[1], "num_vertices": 4,
             "row_offsets": arrays.row_offsets, "col_offsets": csc.col_offsets,
             "row_indices": csc.row_indices, "edge_ids": csc.edge_ids,
             "edge_src": graph.device_edge_sources(cpu),
             **dict(zip(VIEW_PARAMS, graph.device_neighbors(cpu), strict=True))}
    assert len(got) == len(params)
    for name, value in zip(params, got, strict=True):
        assert value is known[name], name


def test_a_parameter_no_value_is_given_for_is_a_bug_named():
    with pytest.raises(AssertionError, match="no value for kernel parameter 's2'"):
        kernel_arguments(("count", "s2"), generators.path(3), named("cpu"), {"count": 1}, ())
