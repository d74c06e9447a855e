"""Manim's bounding boxes, found faster.

Every edge or centre Manim asks for (arrange, next_to, get_center, …) starts from
VMobject.get_points_defining_boundary, which lists the anchors point by point in Python:
a fifth of a clip's build. The same points in the same order, taken by numpy slices,
give the same boxes bit for bit.
"""
import numpy as np
from manim import VMobject

_manims_own = VMobject.get_points_defining_boundary


def _anchors(points, n):
    """VMobject.get_anchors as one array: start and end anchors interleaved."""
    if points.shape[0] == 1:
        return points
    starts, ends = points[0::n], points[n - 1::n]
    out = np.empty((2 * len(starts), points.shape[1]))
    out[0::2], out[1::2] = starts, ends
    return out


def points_defining_boundary(self):
    family = self.get_family()
    if any(len(m.points) % m.n_points_per_cubic_curve and len(m.points) != 1 for m in family):
        return _manims_own(self)             # a partial curve: Manim's own rule (it raises)
    parts = [_anchors(m.points, m.n_points_per_cubic_curve) for m in family if len(m.points)]
    return np.concatenate(parts) if parts else np.array(())


VMobject.get_points_defining_boundary = points_defining_boundary
