"""Borrowed views (arbiter.engine.borrow): the same data, no owner record for numba to count references on."""

from typing import Any

import numpy as np
import pytest
from numba import njit, types
from numba.core.errors import TypingError
from numba.extending import intrinsic
from numba.np.arrayobj import make_array

from arbiter.engine.borrow import borrow


@intrinsic
def _owner(typingctx: Any, array: Any) -> Any:
    """The address of the array's owner record (its meminfo): what numba's reference counting touches."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        return builder.ptrtoint(
            make_array(array)(context, builder, value=args[0]).meminfo, context.get_value_type(types.intp)
        )

    return types.intp(array), codegen


@njit
def _add_through(array, value):  # type: ignore[no-untyped-def]
    for index in np.ndindex(array.shape):
        array[index] += value


@njit
def owners(array):  # type: ignore[no-untyped-def]
    return _owner(array), _owner(borrow(array))


@njit
def write_through_borrowed(array, value):  # type: ignore[no-untyped-def]
    view = borrow(array)
    _add_through(view, value)  # a call that numba does not inline: the view crosses a call boundary
    return view.shape[0], view.ndim


@njit
def write_through_borrowed_tuple(arrays, value):  # type: ignore[no-untyped-def]
    first, second = borrow(arrays)
    _add_through(first, value)
    _add_through(second, value)
    return _owner(first) + _owner(second)


def test_a_borrowed_view_has_no_owner_record_for_numba_to_count() -> None:
    owned, borrowed = owners(np.zeros(4, dtype=np.int64))
    assert owned != 0
    assert borrowed == 0


def test_writes_through_a_borrowed_view_reach_the_array_with_its_shape_and_strides() -> None:
    base = np.arange(24, dtype=np.int64).reshape(4, 6)
    strided = base[:, ::2]  # not contiguous: the view keeps the strides
    assert write_through_borrowed(strided, 100) == (4, 2)
    expected = np.arange(24, dtype=np.int64).reshape(4, 6)
    expected[:, ::2] += 100
    assert np.array_equal(base, expected)


def test_a_tuple_of_arrays_is_borrowed_item_by_item() -> None:
    a, b = np.zeros(3, dtype=np.int64), np.ones((2, 2), dtype=np.float64)
    assert write_through_borrowed_tuple((a, b), 5) == 0
    assert a.tolist() == [5, 5, 5]
    assert b.tolist() == [[6.0, 6.0], [6.0, 6.0]]


@pytest.mark.parametrize("value", [3, (np.zeros(2), 1)])
def test_only_arrays_and_tuples_of_arrays_can_be_borrowed(value: Any) -> None:
    with pytest.raises(TypingError):
        njit(lambda x: borrow(x))(value)
