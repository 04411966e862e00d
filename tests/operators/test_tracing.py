"""operators.tracing: an operator called while a loop's body runs hands the loop its call with
every argument bound as the operator would see it (defaults applied), and refuses a call that
does not fit its signature as Python would."""

from __future__ import annotations

import inspect
import threading

import pytest

from operators import advance, compute, filter, neighbor_reduce, reduce
from operators.tracing import active, hands_over, receiving

OPERATORS = (advance, filter, compute, reduce, neighbor_reduce)


class Received:
    """A receiver keeping the calls handed to it."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def call(self, operator, args, options):
        self.calls.append((operator, args, options))
        return "handed"


def bound(operator, args, options):
    """What inspect binds the call to, defaults applied."""
    call = inspect.signature(operator).bind(*args, **options)
    call.apply_defaults()
    return call.args, call.kwargs


@pytest.mark.parametrize("operator", OPERATORS, ids=lambda o: o.__name__)
@pytest.mark.parametrize("args, options", [
    (("g", "f", "fn"), {}),
    (("g", "f", "fn", "s0", "s1"), {}),
    (("g", "f", "fn", "s0"), {"target": "cpu"}),
    (("g",), {"fn": "fn", "frontier": "f", "where": "f"}),  # some by name: inspect binds them
])
def test_a_handed_call_binds_its_arguments_as_inspect_does(operator, args, options):
    receiver = Received()
    keywords = {k: v for k, v in options.items()
                if k in inspect.signature(operator).parameters}
    try:
        expected = bound(operator, args, keywords)
    except TypeError:
        expected = None
    with receiving(receiver):
        if expected is None:
            with pytest.raises(TypeError, match=operator.__name__):
                operator(*args, **keywords)
            return
        assert operator(*args, **keywords) == "handed"
    (_, got_args, got_options), = receiver.calls
    assert (got_args, got_options) == expected
    assert list(got_options) == list(expected[1])  # the signature's order


@pytest.mark.parametrize("args, options, message", [
    ((1,), {"must": 0}, "missing a required argument: 'b'"),
    ((1, 2, 3), {"must": 0, "nope": 1}, "unexpected keyword argument 'nope'"),
    ((1, 2, 3), {"must": 0, "b": 5}, "multiple values for argument 'b'"),
    ((1, 2, 3), {}, "missing a required argument: 'must'"),
])
def test_a_handed_call_that_does_not_fit_is_refused_as_python_refuses_it(args, options,
                                                                        message):
    @hands_over
    def operator(a, b, *state, must, option=1):
        return None

    with receiving(Received()), pytest.raises(TypeError, match=f"operator\\(\\): .*{message}"):
        operator(*args, **options)


def test_handed_calls_of_several_threads_bind_their_own_arguments():
    @hands_over
    def operator(a, b, *state, option=0):
        return None

    got: dict[int, list] = {}

    def run(k: int) -> None:
        receiver = Received()
        with receiving(receiver):
            for i in range(200):
                operator(k, i, *range(i % 3), option=k)
        got[k] = receiver.calls

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k, calls in got.items():
        assert [(args, options) for _, args, options in calls] == [
            ((k, i, *range(i % 3)), {"option": k}) for i in range(200)]


def test_a_receiver_is_the_threads_own_and_restored_when_its_block_ends_or_raises():
    outer, inner = Received(), Received()
    assert active() is None
    with receiving(outer):
        with pytest.raises(RuntimeError), receiving(inner):
            assert active() is inner
            raise RuntimeError("the body failed")
        assert active() is outer
        seen = []
        worker = threading.Thread(target=lambda: seen.append(active()))
        worker.start()
        worker.join()
        assert seen == [None]  # another thread's operators run as they always do
    assert active() is None
