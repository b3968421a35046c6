"""Borrowed array views for numba kernels: the same data, without numba's reference counting.

numba counts the references to every array it passes to a function it did not inline: an atomic
increment on the way in and a decrement on the way out, per array. A search calls such functions
at every node with several arrays each (the recursion itself, make and unmake, the threat probes),
and those atomics took about a sixth of the gomoku search's time (docs/PERFORMANCE.md). A view made
here has no owner record (``meminfo``), so numba's increments and decrements skip it.

The view does not keep its data alive: make it at the top of a kernel, from the kernel's own
arguments, pass it only down, and never return it or store it anywhere that outlives the call.
"""

from __future__ import annotations

from typing import Any, cast

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import make_array


def _borrowed(context: Any, builder: Any, array_type: types.Array, value: Any) -> Any:
    view = make_array(array_type)(context, builder, value=value)
    view.meminfo = cgutils.get_null_value(view.meminfo.type)
    view.parent = cgutils.get_null_value(view.parent.type)
    return view._getvalue()


@intrinsic
def borrow(typingctx: Any, arrays: Any) -> Any:
    """``arrays`` (an array, or a tuple of arrays) as views numba does not reference-count (see the module)."""
    if isinstance(arrays, types.Array):

        def one(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            return _borrowed(context, builder, arrays, args[0])

        return arrays(arrays), one
    items: list[Any] = list(cast(Any, arrays)) if isinstance(arrays, types.BaseTuple) else []
    if items and all(isinstance(item, types.Array) for item in items):

        def each(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            views = [
                _borrowed(context, builder, item, builder.extract_value(args[0], i)) for i, item in enumerate(items)
            ]
            return context.make_tuple(builder, arrays, views)

        return arrays(arrays), each
    return None
