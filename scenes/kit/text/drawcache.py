"""Glyph paths built once per frame size: Cairo's path of a VMobject kept and appended again.

At 1080p60 most of an animated frame's own work is Manim's Camera turning each VMobject's
points into a Cairo path, in Python and numpy (subpath splits, a curve_to per curve),
for every glyph on the moving layer of every frame, though a glyph that fades in or only
changes colour keeps the same points. The path Cairo built from them is kept here, keyed
by the exact bytes of the points, the context's matrix and what else shapes the path (the
points per curve and the point tolerance), and appended to the context in one call when the
same points come again. Cairo stores paths in device fixed point: its copy, appended under
the same matrix, is the same fixed-point path, so fills and strokes are the same pixels.
A mobject without points (Manim leaves the previous path in place for it), another camera
class and DRAW_CACHE=off take Manim's own way.
"""
from __future__ import annotations

import functools
import os
from collections import OrderedDict
from typing import Any

from manim.camera.camera import Camera

LIMIT = 20000                      # paths kept (a glyph's is a few kB)
_paths: OrderedDict[tuple, Any] = OrderedDict()
stats = {"hits": 0, "misses": 0}


def enabled() -> bool:
    return os.environ.get("DRAW_CACHE", "on").lower() not in ("off", "0", "no")


def key(ctx: Any, vmobject: Any) -> tuple:
    """What shapes a path: the exact points, the context's matrix, points per curve, tolerance."""
    points = vmobject.points
    return (points.tobytes(), points.shape, points.dtype.str, tuple(ctx.get_matrix()),
            vmobject.n_points_per_cubic_curve, vmobject.tolerance_for_point_equality)


def clear() -> None:
    _paths.clear()


def _cached(original: Any) -> Any:
    @functools.wraps(original)
    def set_cairo_context_path(self: Any, ctx: Any, vmobject: Any) -> Any:
        points = vmobject.points
        if len(points) == 0 or type(self) is not Camera or not enabled():
            return original(self, ctx, vmobject)
        known = key(ctx, vmobject)
        path = _paths.get(known)
        if path is not None:
            _paths.move_to_end(known)
            stats["hits"] += 1
            ctx.new_path()
            ctx.append_path(path)
            return self
        stats["misses"] += 1
        original(self, ctx, vmobject)
        _paths[known] = ctx.copy_path()
        if len(_paths) > LIMIT:
            _paths.popitem(last=False)
        return self

    set_cairo_context_path.drawcache_original = original      # type: ignore[attr-defined]
    return set_cairo_context_path


def install() -> None:
    """Route Camera.set_cairo_context_path through the cache (once)."""
    if not hasattr(Camera.set_cairo_context_path, "drawcache_original"):
        Camera.set_cairo_context_path = _cached(Camera.set_cairo_context_path)  # type: ignore[method-assign]
