"""Drawing beside encoding: a section's segments encoded one after another while the next plays
are drawn, joined at the section's end instead of at each play's end.

Manim 0.22 encodes every play (a segment: one mp4 of the play's frames) on a thread of its own,
fed through a bounded queue, and with `max_inflight_encoders = 1` (its default) it joins that
thread when the play ends: the drawing waits for the queue to drain and x264 to flush (its
look-ahead, ~10 frames at veryfast), and for a hold (a segment of its own) for the 12 encoded
frames and the copies' check (scenes/pipeline/video/holds.py). A third of a one-clip render was
that wait (cProfile, bench/README.md).

Here the drawing goes on into the next play: each segment's job waits for the one before it to
end before it encodes (one x264 at a time, in order, as before), its frames waiting in its own
bounded queue (Manim's, `encoder_queue_size` frames); at most LANE segments are in flight (the
writer joins the oldest past that, as Manim does past its limit), and every one is joined when
a section (a step) ends, and at the scene's end. Each segment is encoded by the same encoder
from the same frames, so every segment, step video and clip is byte for byte what it was
(tests/pipeline/test_overlap.py). OVERLAP=off in the environment: Manim's way (the bench's
"before").

Ctrl-C: a job is Manim's _PartialMovieEncodeJob (its thread named partial-movie-encoder-N), so
holds.release_encoders finds it; a job waits only on jobs opened and sealed before it, which
end on their own, so an aborted job always gets to its queue's end.
"""
from __future__ import annotations

import os
from typing import Any

from manim.scene.scene_file_writer import _PartialMovieEncodeJob

# Segments in flight at once (the one being encoded and those waiting): each holds at most
# encoder_queue_size frames (8; 8 MB each at 1080p), so at most ~200 MB of frames wait.
LANE = 3


def enabled() -> bool:
    chosen = os.environ.get("OVERLAP", "on")
    if chosen not in ("on", "off"):
        raise ValueError(f"OVERLAP={chosen}: give on or off")
    return chosen == "on"


class ChainedJob(_PartialMovieEncodeJob):
    """Manim's segment job whose thread first waits for the previous segment's to end."""

    def __init__(self, *, previous: _PartialMovieEncodeJob | None, **kwargs: Any) -> None:
        self.previous = previous
        super().__init__(**kwargs)

    def _listen_and_write(self) -> None:
        before = self.previous
        if before is not None:
            before.thread.join()
        self.previous = None            # no chain of finished jobs kept alive
        super()._listen_and_write()


class Overlapped:
    """A SceneFileWriter mix-in: segments chained, at most LANE in flight, joined at a section's end."""

    def overlap_settings(self, settings: Any) -> Any:
        """The writer's settings with LANE segments allowed in flight (unchanged when off)."""
        import dataclasses
        if not enabled():
            return settings
        return dataclasses.replace(settings, max_inflight_encoders=max(LANE, settings.max_inflight_encoders))

    def open_partial_movie_stream(self, *, animation_index: int, file_path: Any = None) -> None:
        if not enabled():
            return super().open_partial_movie_stream(animation_index=animation_index,  # type: ignore[misc]
                                                     file_path=file_path)
        from pathlib import Path
        writer: Any = self
        if writer._current_encode_job is not None:
            raise RuntimeError("Cannot open a video segment while another segment is still open.")
        if file_path is None:
            file_path = writer.partial_movie_files[animation_index]
            if file_path is None:
                raise RuntimeError("open_partial_movie_stream() called for a play that has no partial movie file path.")
        file_path = Path(file_path)
        file_path.parent.mkdir(parents=True, exist_ok=True)
        if str(file_path) in writer._inflight_by_path:
            writer._join_job_and_drain_on_failure(writer._inflight_by_path[str(file_path)])
        encoder = writer._create_segment_encoder(file_path)
        previous = writer._inflight_encode_jobs[-1] if writer._inflight_encode_jobs else None
        writer._current_encode_job = ChainedJob(previous=previous, animation_index=animation_index,
                                                encoder=encoder, frame_queue_size=writer.settings.encoder_queue_size)

    def next_section(self, name: str, type_: str, skip_animations: bool) -> None:
        if enabled():
            self.join_all_encode_jobs()             # type: ignore[attr-defined]
        super().next_section(name, type_, skip_animations)  # type: ignore[misc]
