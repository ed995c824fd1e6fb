"""The ring pass's local maxima, found block by block, are those of a whole-image dilation."""

import cv2
import numpy as np
import pytest

from tracker.candidates import _local_maxima_over


def _whole_image(values: np.ndarray, size: int, floor: float) -> tuple[np.ndarray, np.ndarray]:
    top = cv2.dilate(values, np.ones((size, size), np.uint8))
    ys, xs = np.nonzero((values >= top) & (values > floor))
    return ys, xs


@pytest.mark.parametrize("shape, size, tile", [((97, 131), 11, 32), ((64, 64), 5, 32), ((40, 203), 13, 16),
                                               ((33, 35), 3, 8)])
def test_same_peaks_as_a_whole_image_dilation(shape, size, tile):
    rng = np.random.default_rng(sum(shape) + size)
    # coarse values: plateaus and ties at the blocks' seams, peaks near the image's border
    values = np.round(rng.normal(20.0, 12.0, shape), 0).astype(np.float32)
    values = cv2.blur(values, (3, 3))
    values[0, 0] = values[-1, -1] = values[0, -1] = 90.0
    got = _local_maxima_over(values, size, 25.0, tile=tile)
    want = _whole_image(values, size, 25.0)
    assert len(want[0]) > 3
    assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_nothing_above_the_floor():
    ys, xs = _local_maxima_over(np.full((50, 70), 10.0, np.float32), 7, 25.0)
    assert len(ys) == 0 and len(xs) == 0
