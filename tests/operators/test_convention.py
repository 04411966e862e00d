"""The calling convention (operators/convention.py): a kernel's parameters follow the I/O kind
its operator sets in the spec, not the operator's name (issue 21 item 6)."""

from __future__ import annotations

import pytest

from frontier.ring import RING_PARAMS
from operators.codegen import KernelIO, KernelSpec
from operators.convention import FUSED_PARAMS, INPUT_PARAMS, RANGE_PARAMS, kernel_params


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
