"""Narration, pacing and voice: each step holds long enough to be read, --voice DIR takes one
recording per step (tones of known lengths here), --voice espeak speaks offline; the audio
rides in the mp4, its sections and the chapter, and the srt follows the new timing."""
import json
import math
import wave

import av
import numpy as np
import pytest

from conftest import build, cli, inputs_for, parse_srt
from support.shared_builds import shared_build
from scenes.kit.text.style import VOICE_TAIL
from scenes.pipeline.jobs.registry import specs

CLIP = "multihead"          # a short clip: six steps
FRAME = 1 / 5               # tiny renders are 5 fps


def reading_rule(caption, new_numbers, factor=1.0):
    """The guide's rule (docs/guide.md, Pacing), written again here: 1 s + 1/5 s per CJK character + 1/15 s per other
    character (spaces not counted) + 0.3 s per number the step brings (at most 8 s)."""
    cjk = sum(1 for c in caption if "\u3000" <= c <= "\u9fff" or "\uff00" <= c <= "\uffef")
    other = len(caption.replace(" ", "")) - cjk
    return (1.0 + cjk / 5 + other / 15 + min(0.3 * new_numbers, 8.0)) * factor


def tone(path, seconds, rate=16000):
    """A 440 Hz tone of a known length, as a wav file."""
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        t = np.arange(int(seconds * rate)) / rate
        w.writeframes((8000 * np.sin(2 * math.pi * 440 * t)).astype("<i2").tobytes())


@pytest.mark.parametrize("clip", list(specs()))
def test_every_step_holds_long_enough_to_read(clip):
    built = shared_build(clip, inputs_for(clip))          # the session's (tests/support/shared_builds.py)
    for n, (start, end, caption) in enumerate(built.scene.captions, 1):
        new = sum(1 for r in built.numbers if r["step"] == n)
        assert end - start >= reading_rule(caption, new) - 1e-6, (clip, n, caption)


def test_pace_changes_the_holds_not_the_animations():
    spans = {}
    for pace in ("fast", "normal", "slow"):
        built = build(CLIP, inputs_for(CLIP), pace=pace)
        spans[pace] = [b - a for a, b, _ in built.scene.captions]
    assert all(f <= n <= s for f, n, s in zip(spans["fast"], spans["normal"], spans["slow"]))
    assert sum(spans["slow"]) > sum(spans["normal"]) > sum(spans["fast"])


def steps_of(out, clip=CLIP):
    return json.loads((out / f"{clip}.numbers.json").read_text("utf-8"))["steps"]


def test_recordings_set_each_steps_length_and_ride_in_the_mp4(tmp_path):
    voice = tmp_path / "voice" / CLIP
    voice.mkdir(parents=True)
    natural = [end - start for start, end, _ in build(CLIP).scene.captions]     # without a voice
    lengths = [round(n + 2.5, 1) if i % 2 == 0 else 1.0 for i, n in enumerate(natural)]
    for n, seconds in enumerate(lengths, 1):
        tone(voice / f"{n:02d}.wav", seconds)
    code, out = cli(CLIP, "--quality", "tiny", "--voice", str(tmp_path / "voice"), "--sections",
                    "--out", str(tmp_path / "out"))
    assert code == 0, out
    steps = steps_of(tmp_path / "out")
    for n, (st, seconds) in enumerate(zip(steps, lengths)):
        assert st["end"] - st["start"] >= seconds          # a step lasts at least its recording
        if seconds > natural[n]:                           # long recordings set the length exactly
            assert abs(st["end"] - st["start"] - (seconds + VOICE_TAIL)) <= FRAME
        else:                                              # short ones leave the step as it was
            assert abs(st["end"] - st["start"] - natural[n]) <= FRAME
    with av.open(str(tmp_path / "out" / f"{CLIP}.mp4")) as box:
        assert box.streams.audio and box.streams.audio[0].codec_context.name == "aac"
        sound = np.concatenate([f.to_ndarray().reshape(-1) for f in box.decode(audio=0)])
        rate = box.streams.audio[0].rate
    loud = np.flatnonzero(np.abs(sound) > 0.05)
    # the third tone starts with the third step's caption
    third = loud[loud > int(steps[2]["start"] * rate) - rate // 10][0] / rate
    assert abs(third - steps[2]["start"]) < 0.5
    srt = parse_srt((tmp_path / "out" / f"{CLIP}.srt").read_text("utf-8"))
    assert [round(a, 2) for a, _, _ in srt] == [round(st["start"], 2) for st in steps]


def test_a_missing_recording_is_bad_input(tmp_path):
    voice = tmp_path / "voice" / CLIP
    voice.mkdir(parents=True)
    tone(voice / "01.wav", 1.0)
    code, out = cli(CLIP, "--quality", "tiny", "--voice", str(tmp_path / "voice"), "--out", str(tmp_path / "o"))
    assert code == 2 and len(out.strip().splitlines()) == 1 and "02.wav" in out and "--voice" in out, out
    assert not (tmp_path / "o").exists()


def test_an_unreadable_recording_is_bad_input(tmp_path):
    voice = tmp_path / "voice" / CLIP
    voice.mkdir(parents=True)
    for n in range(1, 7):
        tone(voice / f"{n:02d}.wav", 0.5)
    (voice / "03.wav").write_bytes(b"not audio at all" * 10)
    code, out = cli(CLIP, "--quality", "tiny", "--voice", str(tmp_path / "voice"), "--out", str(tmp_path / "o"))
    assert code == 2 and len(out.strip().splitlines()) == 1 and "03.wav" in out, out
    assert not (tmp_path / "o").exists()


def test_espeak_speaks_each_step_offline(tmp_path):
    code, out = cli(CLIP, "--quality", "tiny", "--voice", "espeak", "--out", str(tmp_path))
    assert code == 0, out
    with av.open(str(tmp_path / f"{CLIP}.mp4")) as box:
        sound = np.concatenate([f.to_ndarray().reshape(-1) for f in box.decode(audio=0)])
        rate = box.streams.audio[0].rate
    for st in steps_of(tmp_path):           # speech inside every step
        part = sound[int(st["start"] * rate):int(st["end"] * rate)]
        assert np.abs(part).max() > 0.05
    script = (tmp_path / f"{CLIP}.script.md").read_text("utf-8")
    assert all(st["caption"] in script for st in steps_of(tmp_path))


def test_espeak_speaks_english_with_its_english_voice(tmp_path):
    """--lang en speaks the English narration with espeak-ng's en-us voice: read the wav back."""
    from scenes.pipeline.video.voice import ESPEAK_VOICES, audio_seconds, spoken
    assert ESPEAK_VOICES["en"].startswith("en")
    said = spoken({1: "The causal mask hides the future positions."}, tmp_path, "en")
    assert 1.0 < said[1][1] == audio_seconds(said[1][0]) < 8.0
    with av.open(said[1][0]) as box:
        sound = np.concatenate([f.to_ndarray().reshape(-1) for f in box.decode(audio=0)])
    assert np.abs(sound).max() > 0.05


def test_the_chapter_join_carries_the_voice(tmp_path):
    """A clip with a voice joined behind its (silent) title card: one AAC track, the tones
    where the clip's steps are."""
    from scenes.pipeline.video.join import join
    from scenes.pipeline.run.runner import render_title
    voice = tmp_path / "voice" / CLIP
    voice.mkdir(parents=True)
    for n in range(1, 7):
        tone(voice / f"{n:02d}.wav", 3.0)
    assert cli(CLIP, "--quality", "tiny", "--voice", str(tmp_path / "voice"), "--out", str(tmp_path))[0] == 0
    render_title(CLIP, "tiny", tmp_path)
    join(tmp_path, {CLIP: specs()[CLIP]})
    with av.open(str(tmp_path / "chapter04.mp4")) as box:
        sound = np.concatenate([f.to_ndarray().reshape(-1) for f in box.decode(audio=0)])
        rate = box.streams.audio[0].rate
    card = json.loads((tmp_path / "chapter04.chapters.json").read_text("utf-8"))
    first = steps_of(tmp_path)[0]["start"]
    title_len = card[0]["end"] - (steps_of(tmp_path)[-1]["end"])
    assert np.abs(sound[:int(rate * title_len * 0.9)]).max() < 0.01       # the title card is silent
    onset = np.flatnonzero(np.abs(sound) > 0.05)[0] / rate
    assert abs(onset - (title_len + first)) < 0.3
    assert (tmp_path / "chapter04.script.md").read_text("utf-8").startswith("# ")
