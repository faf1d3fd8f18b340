"""What crosses the boundary between the grader and a learner's process: plain data only.

A message is a length-prefixed frame holding a JSON tree and the NumPy arrays it refers
to, each as its raw bytes with its dtype (plain kinds only: numbers, booleans, strings,
times) and shape in the tree. Nothing is ever unpickled or evaluated, frames and nesting
are bounded, and whatever does not decode is ``Garbled``: a learner's process can send
wrong answers, but nothing that acts.

Values: None, bool, int, float, str, and tuples, lists and str-keyed dicts of values, and
ndarrays (NumPy scalars travel as 0-d arrays and come back as NumPy scalars).
"""

from __future__ import annotations

import json
import math
import os
import re
import select
import struct
import time
from typing import Any

import numpy as np

MAX_FRAME = 64 * 2**20  # far above any answer a probe sends (a stage-7 model is under 1 MiB)
MAX_HEAD = 8 * 2**20  # the JSON tree: arrays travel beside it, so a real answer's tree is small
MAX_ARRAYS = 10_000
MAX_DEPTH = 32
MAX_DIMENSIONS = 32
# the dtypes that travel: numbers, booleans, strings and times, each with its byte order
PLAIN = re.compile(r"[<>|][biufcSU][0-9]{1,9}|[<>][mM]8(\[[0-9]{0,4}[a-zA-Z]{1,2}\])?")


MAX_VALUE = 16 * 2**20   # one array or string of an answer; bounded() replaces a larger one
MAX_ANSWER = 32 * 2**20  # all of an answer's arrays and strings together
MAX_ITEMS = 100_000      # the numbers, strings and None of an answer, outside arrays


class Garbled(ValueError):
    """A frame that does not decode into values."""


def bounded(value: Any) -> Any:
    """``value`` ready to be sent, each part judged on its own: an array or string over
    ``MAX_VALUE`` (or past ``MAX_ANSWER`` for them all), a list past ``MAX_ITEMS`` values,
    nesting past ``MAX_DEPTH`` and anything that cannot travel become small markers
    (``{"oversized": {...}}``, ``{"unsupported": name}``) in their place, so that one
    oversized part of an answer (a gradient of gigabytes) costs only itself."""
    room = [MAX_ANSWER, MAX_ITEMS, MAX_ARRAYS - 1]   # bytes, plain values, arrays (one kept for the frame)

    def fit(v: Any, depth: int) -> Any:
        if depth > MAX_DEPTH - 3:  # room for the marker itself, and for the answer around the value
            return {"unsupported": "nested too deeply"}
        if isinstance(v, (np.ndarray, np.generic)):
            if v.dtype.hasobject:
                return {"unsupported": "array of Python objects"}
            if not PLAIN.fullmatch(v.dtype.str):
                return {"unsupported": f"array of dtype {v.dtype}"[:200]}
            if v.nbytes > min(MAX_VALUE, room[0]):
                return {"oversized": {"shape": list(np.shape(v)), "dtype": str(v.dtype), "bytes": int(v.nbytes)}}
            if room[2] <= 0:
                return {"oversized": {"arrays": "too many"}}
            room[0], room[2] = room[0] - v.nbytes, room[2] - 1
            return v
        room[1] -= 1
        if room[1] < 0:
            return {"oversized": {"values": "too many"}}
        if v is None or isinstance(v, (bool, float)):
            return v
        if isinstance(v, int):
            return v if v.bit_length() <= 64 else {"oversized": {"bits": v.bit_length()}}
        if isinstance(v, str):
            if len(v) > min(MAX_VALUE, room[0]):
                return {"oversized": {"characters": len(v)}}
            room[0] -= len(v)
            return v
        if isinstance(v, (tuple, list)):
            if len(v) > room[1]:
                return {"oversized": {"length": len(v)}}
            items = [fit(x, depth + 1) for x in v]
            return tuple(items) if isinstance(v, tuple) else items
        if isinstance(v, dict):
            return {str(k)[:1000]: fit(x, depth + 1) for k, x in list(v.items())[:MAX_ITEMS]}
        return {"unsupported": type(v).__name__}

    return fit(value, 0)


def oversized(value: Any) -> str | None:
    """What ``bounded`` left in place of a value too large to send, in words; None for any
    other value."""
    if not (isinstance(value, dict) and isinstance(value.get("oversized"), dict)):
        return None
    seen = value["oversized"]
    if "bytes" in seen:
        return f"an array of shape {tuple(seen.get('shape', ()))} and dtype {seen.get('dtype')} " \
               f"({int(seen['bytes']) / 2**20:,.0f} MiB)"
    return "a value too large to send back (" + ", ".join(f"{k} {v}" for k, v in seen.items()) + ")"


def encode(value: Any) -> bytes:
    arrays: list[bytes] = []

    def tree(v: Any, depth: int) -> Any:
        if depth > MAX_DEPTH:
            raise ValueError("nested too deeply")
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, (int, float)) and not isinstance(v, np.generic):
            return v
        if isinstance(v, (np.ndarray, np.generic)):
            a = np.asarray(v)
            if a.dtype.hasobject or not PLAIN.fullmatch(a.dtype.str):
                raise ValueError(f"cannot send an array of dtype {a.dtype}")
            fortran = a.ndim > 1 and a.flags.f_contiguous and not a.flags.c_contiguous  # a transpose stays one
            arrays.append((a.T if fortran else np.ascontiguousarray(a)).tobytes())
            return ["s" if isinstance(v, np.generic) else "a", [len(arrays) - 1, a.dtype.str, list(a.shape), fortran]]
        if isinstance(v, (tuple, list)):
            return ["t" if isinstance(v, tuple) else "l", [tree(x, depth + 1) for x in v]]
        if isinstance(v, dict):
            return ["d", [[str(k), tree(x, depth + 1)] for k, x in v.items()]]
        raise TypeError(f"cannot send a {type(v).__name__}")

    head = json.dumps(tree(value, 0)).encode()
    parts = [struct.pack("<QQ", len(head), len(arrays)), head]
    for data in arrays:
        parts += [struct.pack("<Q", len(data)), data]
    return b"".join(parts)


def decode(frame: bytes) -> Any:
    """The value a frame holds. Its sizes are checked before anything is built, so that a
    frame cannot make this (the grader's) process allocate more than the frame itself."""
    try:
        size, count = struct.unpack_from("<QQ", frame, 0)
        if size > MAX_HEAD or count > MAX_ARRAYS:
            raise ValueError(f"a tree of {size} bytes with {count} arrays")
        offset = 16 + size
        head = json.loads(frame[16:offset])
        arrays = []
        for _ in range(count):
            (length,) = struct.unpack_from("<Q", frame, offset)
            if offset + 8 + length > len(frame):
                raise ValueError(f"an array of {length} bytes past the frame's end")
            arrays.append(memoryview(frame)[offset + 8:offset + 8 + length])
            offset += 8 + length
        return _build(head, arrays, 0)
    except (ValueError, TypeError, KeyError, IndexError, RecursionError, struct.error, OSError, EOFError,
            MemoryError, OverflowError) as error:
        raise Garbled(f"{type(error).__name__}: {error}"[:200]) from None


def _array(data: bytes | memoryview, descr: Any, shape: Any, fortran: Any) -> np.ndarray:
    """One array from its bytes (in Fortran's order, a transpose's, when ``fortran``), after
    checking that its dtype is plain and that its shape asks for exactly the bytes that came
    with it."""
    if not (isinstance(descr, str) and PLAIN.fullmatch(descr)):
        raise ValueError(f"an array of dtype {str(descr)[:40]!r}")
    if not (isinstance(shape, list) and len(shape) <= MAX_DIMENSIONS
            and all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in shape)):
        raise ValueError(f"an array of shape {str(shape)[:80]}")
    dtype = np.dtype(descr)
    if math.prod(shape) * dtype.itemsize != len(data):
        raise ValueError(f"an array header for shape {tuple(shape)} of {dtype} with {len(data)} bytes")
    if dtype.itemsize == 0 or not data:
        return np.zeros(shape, dtype)
    if fortran is True:
        return np.frombuffer(bytearray(data), dtype).reshape(shape[::-1]).T
    return np.frombuffer(bytearray(data), dtype).reshape(shape)


def _build(node: Any, arrays: list[memoryview], depth: int) -> Any:
    if depth > MAX_DEPTH:
        raise ValueError("nested too deeply")
    if not isinstance(node, list):
        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        raise ValueError("unexpected node")
    tag, body = node
    if tag in ("a", "s"):
        index, descr, shape, fortran = body
        array = _array(arrays[index], descr, shape, fortran)
        return array[()] if tag == "s" else array
    if tag in ("t", "l"):
        items = [_build(x, arrays, depth + 1) for x in body]
        return tuple(items) if tag == "t" else items
    if tag == "d":
        return {str(k): _build(v, arrays, depth + 1) for k, v in body}
    raise ValueError(f"unknown tag {tag!r}")


def send(fd: int, value: Any, deadline: float | None = None) -> None:
    send_frame(fd, encode(value), deadline)


def send_frame(fd: int, data: bytes, deadline: float | None = None) -> None:
    """Write one frame; on a non-blocking ``fd`` (the grader's end of a learner's requests),
    TimeoutError once ``deadline`` passes while the other side does not read."""
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        try:
            view = view[os.write(fd, view):]
            continue
        except BlockingIOError:
            pass
        wait = None if deadline is None else deadline - time.monotonic()
        if wait is not None and (wait <= 0 or not select.select([], [fd], [], wait)[1]):
            raise TimeoutError("the other side does not read")
        if wait is None:
            select.select([], [fd], [])


def read_exactly(fd: int, count: int, deadline: float | None = None) -> bytes:
    """``count`` bytes from ``fd``; TimeoutError once ``deadline`` (time.monotonic) passes."""
    chunks, left = [], count
    while left:
        if deadline is not None:
            wait = deadline - time.monotonic()
            if wait <= 0 or not select.select([fd], [], [], wait)[0]:
                raise TimeoutError("no answer in time")
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            raise EOFError("the other side closed the channel")
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def receive(fd: int, deadline: float | None = None) -> Any:
    (length,) = struct.unpack("<Q", read_exactly(fd, 8, deadline))
    if length > MAX_FRAME:
        raise Garbled(f"a frame of {length} bytes")
    return decode(read_exactly(fd, length, deadline))
