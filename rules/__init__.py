"""The rules core: the table plan, geometry, dice and the five rule sets.

Pure functions over immutable data; no cv2, no flask, no file I/O outside the
edge loaders (``load_game``). Imports only ``calibration.units`` and
``calibration.fields`` (standard library) from the other packages.
"""
