"""Camera images read from files (:func:`load_image`), refused before decoding when too large.

A 1 MB PNG can say 20000 x 20000 pixels and take gigabytes once decoded. Every
place that reads an image file (``locate``, ``calibrate``, ``track`` and ``serve
--images`` folders) calls :func:`too_large` on the file's bytes first: the width
and height come from the header (PNG, JPEG, BMP, GIF, WebP, TIFF), and an image over
:data:`MAX_PIXELS` (or a side over :data:`MAX_SIDE`, or a file over
:data:`MAX_FILE_BYTES`) is refused with a message saying the limit.

Examples
--------
>>> import struct, zlib
>>> png = (b"\\x89PNG\\r\\n\\x1a\\n" + struct.pack(">I", 13) + b"IHDR" + struct.pack(">II", 20000, 20000)
...        + b"\\x08\\x02\\x00\\x00\\x00")
>>> header_size(png)
(20000, 20000)
>>> print(too_large(png, "huge.png").text)  # doctest: +NORMALIZE_WHITESPACE
huge.png: the image is 20000 x 20000 pixels (400 megapixels); the limit is 50 megapixels
and 20000 pixels a side: use a smaller picture
>>> too_large(png[:10], "cut.png") is None
True
>>> big = too_large(png, "huge.png")
>>> big.msg_id, big.params["megapixels"], big.params["limit_side"]
('image.too_many_pixels', '400', '20000')
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MAX_PIXELS = 50_000_000  # a 8K camera frame is 33 megapixels
MAX_SIDE = 20_000
MAX_FILE_BYTES = 100 * 1024 * 1024
HEADER_BYTES = 256 * 1024  # a JPEG's size comes after its EXIF and thumbnail segments

# OpenCV's own ceiling for formats whose header is not read here (set before its first decode).
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(MAX_PIXELS))

import cv2  # noqa: E402  (after the ceiling above)
import numpy as np  # noqa: E402
from numpy.typing import NDArray  # noqa: E402

from calibration.errors import CalibrationError  # noqa: E402


def header_size(data: bytes) -> tuple[int, int] | None:
    """Return ``(width, height)`` from an image file's header, or ``None`` when the format is not known."""
    head = bytes(data[:64])
    if head.startswith(b"\x89PNG\r\n\x1a\n") and len(head) >= 24 and head[12:16] == b"IHDR":
        w, h = struct.unpack(">II", head[16:24])
        return int(w), int(h)
    if head[:6] in (b"GIF87a", b"GIF89a") and len(head) >= 10:
        w, h = struct.unpack("<HH", head[6:10])
        return int(w), int(h)
    if head.startswith(b"BM") and len(head) >= 26:
        w, h = struct.unpack("<ii", head[18:26])
        return abs(int(w)), abs(int(h))
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP" and len(head) >= 30:
        return _webp_size(head)
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return _tiff_size(bytes(data[:65536]))
    if head.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    return None


def _webp_size(head: bytes) -> tuple[int, int] | None:
    kind = head[12:16]
    if kind == b"VP8X":
        w = int.from_bytes(head[24:27], "little") + 1
        h = int.from_bytes(head[27:30], "little") + 1
        return w, h
    if kind == b"VP8L" and len(head) >= 25:
        bits = int.from_bytes(head[21:25], "little")
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if kind == b"VP8 " and len(head) >= 30:
        w, h = struct.unpack("<HH", head[26:30])
        return w & 0x3FFF, h & 0x3FFF
    return None


def _jpeg_size(data: bytes) -> tuple[int, int] | None:
    i, n = 2, len(data)
    while i + 9 < n:
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            i += 2
            continue
        length = (data[i + 2] << 8) | data[i + 3]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            h = (data[i + 5] << 8) | data[i + 6]
            w = (data[i + 7] << 8) | data[i + 8]
            return w, h
        if length < 2:
            return None
        i += 2 + length
    return None


def _tiff_size(data: bytes) -> tuple[int, int] | None:
    endian = "<" if data[:2] == b"II" else ">"
    try:
        (offset,) = struct.unpack(endian + "I", data[4:8])
        (count,) = struct.unpack(endian + "H", data[offset:offset + 2])
        w = h = None
        for k in range(count):
            entry = data[offset + 2 + 12 * k: offset + 14 + 12 * k]
            tag, kind = struct.unpack(endian + "HH", entry[:4])
            value = struct.unpack(endian + ("H" if kind == 3 else "I"), entry[8:10] if kind == 3 else entry[8:12])[0]
            if tag == 256:
                w = value
            elif tag == 257:
                h = value
        return (int(w), int(h)) if w is not None and h is not None else None
    except struct.error:
        return None


@dataclass(frozen=True)
class TooLarge:
    """Why an image file is refused: the English sentence, and its message id and parameters for the others.

    The figures are parameters (written as the English sentence writes them), so every language
    says the same sizes and limits (the messages ``image.*`` of ``tabletracker/locale``).
    """

    text: str
    msg_id: str
    params: dict[str, str]


def too_large(data: Any, name: str) -> TooLarge | None:
    """Return why the image file ``data`` (bytes, or a numpy byte array; named ``name`` in the message)
    is too large to decode, or ``None``."""
    total = len(data)
    if total > MAX_FILE_BYTES:
        mib = 1024 * 1024
        params = {"path": name, "size_mb": str(total // mib), "limit_mb": str(MAX_FILE_BYTES // mib)}
        return TooLarge(f"{name}: the file is {params['size_mb']} MB; the limit for an image is "
                        f"{params['limit_mb']} MB: use a smaller picture", "image.file_too_large", params)
    size = header_size(bytes(memoryview(data)[:HEADER_BYTES]))
    if size is None:
        return None  # an unknown or cut header: the decoder says what is wrong
    w, h = size
    if w * h > MAX_PIXELS or max(w, h) > MAX_SIDE:
        params = {"path": name, "width": str(w), "height": str(h), "megapixels": f"{w * h / 1e6:.0f}",
                  "limit_mp": f"{MAX_PIXELS / 1e6:.0f}", "limit_side": str(MAX_SIDE)}
        return TooLarge(f"{name}: the image is {w} x {h} pixels ({params['megapixels']} megapixels); the limit is "
                        f"{params['limit_mp']} megapixels and {MAX_SIDE} pixels a side: use a smaller picture",
                        "image.too_many_pixels", params)
    return None



def load_image(path: str | Path) -> NDArray[np.uint8]:
    """Read a camera image (BGR, 8-bit) or say why it cannot be read.

    Raises
    ------
    CalibrationError
        For a missing file, a directory, or a file that is not an image OpenCV can decode.
    """
    path = Path(path)
    if not path.exists():
        raise CalibrationError(f"{path}: no such image file", msg_id="image.missing", params={"path": str(path)})
    if path.is_dir():
        raise CalibrationError(f"{path}: is a directory, not an image file", msg_id="image.directory",
                               params={"path": str(path)})
    try:
        data = np.fromfile(path, dtype=np.uint8)
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot read the image ({exc.strerror or exc})", msg_id="image.unreadable",
                               params={"path": str(path), "reason": str(exc.strerror or exc)}) from None
    if (big := too_large(data, str(path))) is not None:  # size from the header, before decoding
        raise CalibrationError(big.text, msg_id=big.msg_id, params=big.params)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise CalibrationError(f"{path}: not an image OpenCV can read (is it a complete JPEG or PNG file?)",
                               msg_id="image.not_an_image", params={"path": str(path)})
    return np.asarray(image, dtype=np.uint8)
