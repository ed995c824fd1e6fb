"""Frames -> detections -> tracks -> plan: every model on the table, in table millimetres.

- :mod:`tracker.markers`: base markers (ids >= 4) to base centres and facings, rejections.
- :mod:`tracker.refine`, :mod:`tracker.decode`: sub-pixel edges of small markers, reading
  a square's cells.
- :mod:`tracker.bases`: bare round bases by rim colour (centre, diameter, side).
- :mod:`tracker.onbase`: markers the contour detector missed, read on the bases found.
- :mod:`tracker.locate`: everything in one image (``tabletracker locate``).
- :mod:`tracker.sources`: webcam, video, image folder, one image, the sample sequence.
- :mod:`tracker.tracking`, :mod:`tracker.state`: identity, stillness, hidden models, moves.
- :mod:`tracker.pipeline`: the frame loop (``tabletracker track``, the web overlay).
"""
