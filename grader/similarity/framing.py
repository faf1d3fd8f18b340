"""How a kept file of the copying check (cache.py's reads, details.py's pairs) is framed:
``MAGIC``, the hash of the rest, how many parts and each one's compressed length, then the
parts, each compressed on its own, so that a reader unpacks only the parts it needs. A file
damaged, cut short or of another version is read as none; one is written to a temporary
file and renamed into place, whole or not at all."""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import struct
import tempfile
import zlib

from grader.files import SIMILARITY_READS as FOLDER

MAGIC = b"minitorch similarity read 3\n"
AT_MOST = 64 << 20           # bytes of a kept file, as stored and each part unpacked: a larger one is not taken


def unpack(path: pathlib.Path):
    """The JSON value a kept file of one part holds, or None: none there, or one damaged or cut short."""
    parts = parts_of(path, count=1)
    return None if parts is None else json.loads(parts[0])


def pack(out: pathlib.Path, name: str, text: str) -> None:
    """Keep ``text`` compressed under ``name``, whole or not at all (``pack_parts``)."""
    pack_parts(out, name, [text.encode()])


def framed(parts: list[bytes]) -> bytes:
    """A kept file's bytes: ``MAGIC``, the hash of the rest, then how many parts and each
    one's compressed length, then the parts, each compressed on its own (a part is unpacked
    only when it is read)."""
    packed = [zlib.compress(part, 1) for part in parts]
    body = struct.pack(f"<{1 + len(packed)}Q", len(packed), *map(len, packed)) + b"".join(packed)
    return MAGIC + hashlib.sha256(body).hexdigest().encode() + b"\n" + body


def parts_of(path: pathlib.Path, count: int, packed: tuple[int, ...] = ()) -> list[bytes] | None:
    """The ``count`` parts a kept file holds, unpacked but for the parts ``packed``
    (``unpacked`` unpacks one later), or None: none there, another number of parts, or one
    damaged, cut short, or larger than ``AT_MOST`` unpacked (all the parts unpacked here)."""
    if not path.is_file() or path.stat().st_size > AT_MOST:
        return None
    data = path.read_bytes()
    if not data.startswith(MAGIC):
        return None
    digest, body = data[len(MAGIC):len(MAGIC) + 64], data[len(MAGIC) + 65:]
    head = 8 * (1 + count)
    if len(body) < head or hashlib.sha256(body).hexdigest().encode() != digest \
            or struct.unpack_from("<Q", body)[0] != count:
        return None
    sizes, at, parts, room = struct.unpack_from(f"<{count}Q", body, 8), head, [], AT_MOST
    if sum(sizes) != len(body) - head:
        return None
    for n, size in enumerate(sizes):
        part = body[at:at + size]
        try:
            parts.append(part if n in packed else unpacked(part, room))
        except ValueError:
            return None
        room -= 0 if n in packed else len(parts[-1])
        at += size
    return parts


def unpacked(part: bytes, most: int = AT_MOST) -> bytes:
    """A part as written; ``ValueError`` if it does not unpack whole within ``most`` bytes."""
    unpack = zlib.decompressobj()
    try:
        whole = unpack.decompress(part, most)
    except zlib.error as error:
        raise ValueError(f"a part that does not unpack ({error})") from None
    if unpack.unconsumed_tail or not unpack.eof:
        raise ValueError("a part cut short or too large")
    return whole


def pack_parts(out: pathlib.Path, name: str, parts: list[bytes]) -> None:
    """Keep ``parts`` under ``name``, whole or not at all: written to a temporary file and
    renamed into place. Any failure to write costs only the next run's time."""
    folder = out / FOLDER
    if sum(map(len, parts)) > AT_MOST:   # it could not be taken back: not kept (the hand-in is read each run)
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, part = tempfile.mkstemp(prefix=".", suffix=".part", dir=folder)
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(framed(parts))
            os.replace(part, folder / name)
        except BaseException:
            pathlib.Path(part).unlink(missing_ok=True)
            raise
    except Exception:  # noqa: BLE001 - a reading not kept costs only the next run's time
        return
