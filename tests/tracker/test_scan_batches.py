"""The whole-image marker scan's batched steps give each candidate what it would get alone."""

from __future__ import annotations

import cv2
import numpy as np

from tracker.candidates import MarkerSizes, _code_distances, _packed, align_squares, known_size_squares


def test_code_distances_count_the_cells_that_differ() -> None:
    rng = np.random.default_rng(7)
    for cells in (16, 36, 64):
        bits = rng.integers(0, 2, (200, cells), dtype=np.uint8)
        codes = rng.integers(0, 2, (40, cells), dtype=np.uint8)
        codes[0] = bits[0]                                   # one reading exactly a code
        want = (bits[:, None, :] != codes[None, :, :]).sum(axis=2)
        got = _code_distances(bits, _packed(codes))
        assert got.dtype == np.int64 and np.array_equal(got, want)
        assert got[0, 0] == 0


def _scene() -> np.ndarray:
    """A light, textured image with dark squares, some joined to a dark bar (a figure's shadow)."""
    rng = np.random.default_rng(11)
    gray = cv2.GaussianBlur(rng.integers(150, 230, (240, 320), dtype=np.uint8), (0, 0), 1.0)
    for x, y, angle, bar in ((40, 40, 10.0, True), (160, 50, 35.0, False), (90, 150, 62.0, True),
                             (230, 160, 80.0, True)):
        box = cv2.boxPoints(((x, y), (24.0, 24.0), angle)).astype(np.int32)
        cv2.fillConvexPoly(gray, box, 30)
        if bar:
            cv2.rectangle(gray, (x + 8, y - 3), (x + 45, y + 6), 40, -1)
    return cv2.GaussianBlur(gray, (0, 0), 0.8)


def test_known_size_squares_of_several_regions_are_each_region_alone() -> None:
    gray = _scene()
    sizes = MarkerSizes(np.array([[160.0, 120.0]]), np.array([[[2.0, 0.1], [-0.1, 2.0]]]), (12.0,))
    n, labels, stats, _ = cv2.connectedComponentsWithStats((gray < 90).astype(np.uint8))
    blobs = []
    for k in range(1, n):
        x, y, w, h = (int(v) for v in stats[k, :4])
        blobs.append(((labels[y:y + h, x:x + w] == k).astype(np.uint8), (x, y)))
    assert len(blobs) == 4
    together = known_size_squares(gray, blobs, sizes)
    alone = [q for blob in blobs for q in known_size_squares(gray, [blob], sizes)]
    assert len(together) == len(alone) >= 16
    assert all(np.array_equal(a, b) for a, b in zip(together, alone))


def test_align_squares_moves_each_square_as_it_would_alone() -> None:
    """Squares that stop moving early are left out of the later rounds: the others' moves are unchanged."""
    gray = _scene()
    rng = np.random.default_rng(2)
    centres = np.array([[40.0, 40.0], [160.0, 50.0], [90.0, 150.0], [230.0, 160.0], [120.0, 100.0]])
    unit = np.array([[-12.0, -12.0], [12.0, -12.0], [12.0, 12.0], [-12.0, 12.0]])
    quads = centres[:, None] + unit[None] + rng.normal(0.0, 1.2, (len(centres), 1, 2))
    together = align_squares(gray, quads, 6)
    alone = np.concatenate([align_squares(gray, q[None], 6) for q in quads])
    assert np.array_equal(together, alone)
    assert not np.array_equal(together, quads)


def test_blurred_codes_asked_by_two_threads_at_once_are_built_once() -> None:
    # locate's bare-base search builds them beside the marker scan, which may ask meanwhile
    import threading

    from tracker import candidates

    ids = (201, 203, 207)                                   # a set of ids no other test builds
    before = candidates._built_blur_models.cache_info().misses
    start = threading.Barrier(2)
    got: list[object] = []

    def ask() -> None:
        start.wait()
        got.append(candidates._blur_models("DICT_4X4_250", ids))

    threads = [threading.Thread(target=ask) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert candidates._built_blur_models.cache_info().misses == before + 1
    assert got[0] is got[1]
