"""A drawn frame's PyAV frame is used again once nothing holds it (holds.FramePool): a render
makes a handful of frames, not one a drawn frame (at 1080p a new 8 MB frame each, made in the
drawing thread and freed in an encoder's, grew dropout's render from 0.68 GB to 4.3 GB), and its
mp4 is the same bytes as with a new frame each time. Planted: a pool that takes a frame the
encoder's queue still holds is caught."""
import numpy as np

from conftest import inputs_for
from scenes.pipeline.run.runner import render_clip
from scenes.pipeline.video import holds, overlap
from scenes.pipeline.video.convert import rgba_array

CLIP = "dropout"


def pixels(value, height=144, width=256):
    out = np.full((height, width, 4), value, np.uint8)
    out[..., 3] = 255
    return out


def test_a_frame_still_held_is_never_given_again():
    pool = holds.FramePool()
    queued = [pool.frame(pixels(1))]                  # as the encoder's queue holds it
    assert pool.frame(pixels(2)) is not queued[0]
    assert np.array_equal(rgba_array(queued[0]), pixels(1))
    queued.clear()                                    # encoded: only the pool holds the two
    again = pool.frame(pixels(3))
    assert pool.made == 2 and rgba_array(again)[0, 0, 0] == 3


def test_planted_a_pool_that_counts_a_holder_as_free_is_caught(monkeypatch):
    monkeypatch.setattr(holds.FramePool, "FREE", 4)
    pool = holds.FramePool()
    queued = [pool.frame(pixels(1))]
    assert pool.frame(pixels(2)) is queued[0]        # drawn over while it waits to be encoded
    assert not np.array_equal(rgba_array(queued[0]), pixels(1))


def test_a_render_makes_a_few_frames_and_the_same_video(monkeypatch, tmp_path):
    pools = []
    made = holds.FramePool.__init__

    def counted(self):
        made(self)
        pools.append(self)
    monkeypatch.setattr(holds.FramePool, "__init__", counted)
    videos = {}
    for most in (0, holds.FramePool.MOST):           # 0: a new frame every time, as before the pool
        monkeypatch.setattr(holds.FramePool, "MOST", most)
        render_clip(CLIP, inputs_for(CLIP), "tiny", "mp4", tmp_path / str(most))
        videos[most] = (tmp_path / str(most) / f"{CLIP}.mp4").read_bytes()
    fresh, pooled = pools[0].made, pools[-1].made
    assert fresh > 150 and pooled <= overlap.LANE * 8 + 8, (fresh, pooled)   # the queues of 8 in flight, and a few
    assert videos[0] == videos[holds.FramePool.MOST]
