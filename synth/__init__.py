"""Synthetic table images with exact ground truth (issue 2 "Sample images", issue 3 item 6).

No one can photograph a table here, so :mod:`synth` renders them: a camera model
(:mod:`synth.camera`), a scene description (:mod:`synth.scene`), an exact ray-casting
renderer (:mod:`synth.render`), the bundled sample scenes (:mod:`synth.catalog`), the
tracker sequence (:mod:`synth.sequence`) and ChArUco board photos (:mod:`synth.charuco`).
Run ``tabletracker render-samples`` to regenerate ``sample_images/``.
"""
