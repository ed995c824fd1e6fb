"""Camera and table calibration: pixels to table millimetres and back.

Keep this file free of cv2: ``rules`` imports ``calibration.units``.
"""
