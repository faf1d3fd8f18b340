"""Updating a function or a class in place, so that every reference to it made before an
edit runs the edited code (``minitorch.course.reloader`` calls these after running a file again).

A function keeps its identity and gets the new code, defaults and closure contents. A
class keeps its identity and gets the new methods and attributes; methods that call
``super()`` find their class in a closure cell, which is pointed at the old class.
"""

from __future__ import annotations

import types
from typing import Any

CLASS_SKIP = {"__dict__", "__weakref__", "_abc_impl"}  # the type's own machinery
SLOTS = (types.MemberDescriptorType, types.GetSetDescriptorType)


def update_function(old: types.FunctionType, new: types.FunctionType) -> bool:
    """Give ``old`` the code of ``new``; False when their closures differ in shape."""
    if old.__code__.co_freevars != new.__code__.co_freevars:
        return False
    old.__code__ = new.__code__
    for attr in ("__defaults__", "__kwdefaults__", "__doc__", "__annotations__", "__qualname__"):
        setattr(old, attr, getattr(new, attr))
    old.__dict__.clear()
    old.__dict__.update(new.__dict__)
    for was, now in zip(old.__closure__ or (), new.__closure__ or (), strict=True):  # the same free variables
        try:
            was.cell_contents = now.cell_contents
        except ValueError:  # an empty cell
            pass
    return True


def _functions(value: Any) -> list[types.FunctionType]:
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        return [f for f in (value.fget, value.fset, value.fdel) if isinstance(f, types.FunctionType)]
    return [value] if isinstance(value, types.FunctionType) else []


def update_class(old: type, new: type, classes: dict[int, type]) -> str:
    """Give ``old`` the contents of ``new``; or, when that is not safe, leave it and say why."""
    if tuple(classes.get(id(b), b) for b in new.__bases__) != old.__bases__:
        return "its base classes changed"
    if old.__dict__.get("__slots__") != new.__dict__.get("__slots__") or type(old) is not type(new):
        return "its __slots__ or its metaclass changed"
    for key in [k for k in old.__dict__ if k not in new.__dict__ and k not in CLASS_SKIP]:
        if not isinstance(old.__dict__[key], SLOTS):
            delattr(old, key)
    for key, value in new.__dict__.items():
        if key in CLASS_SKIP or isinstance(value, SLOTS):
            continue
        for function in _functions(value):  # zero-argument super() finds the class in a cell
            if "__class__" in function.__code__.co_freevars:
                cell = function.__closure__[function.__code__.co_freevars.index("__class__")]  # type: ignore[index]
                if cell.cell_contents is new:
                    cell.cell_contents = old
        try:
            setattr(old, key, value)
        except (AttributeError, TypeError):
            pass  # a read-only attribute of the type itself
    return ""
