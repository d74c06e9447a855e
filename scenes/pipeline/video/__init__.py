"""A clip's video and sound: the H.264 encoder of held frames (h264, holds), joining step videos
and chapters (join), title cards and narration (voice). Imports pipeline.jobs.
"""
