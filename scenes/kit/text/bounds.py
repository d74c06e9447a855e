"""Manim's bounding boxes, found faster.

Every edge or centre Manim asks for (arrange, next_to, get_center, …) starts from
VMobject.get_points_defining_boundary, which lists the anchors point by point in Python:
a fifth of a clip's build. The same points in the same order, taken by numpy slices,
give the same boxes bit for bit.

A critical point then takes each dimension's min and max once for the whole box (Manim: one
numpy reduction a dimension and key), and a width or height reduces every point of the family
at once (Manim: Python's max or min over each mobject's points, then over its submobjects').
A min or max picks one of the values, so the result is the same float; only where it is a
zero (whose sign the order of comparison may decide) or NaN does Manim's own reduction run.
"""
import builtins

import numpy as np
from manim import Mobject, VMobject

_manims_own = VMobject.get_points_defining_boundary
_manims_critical_point = Mobject.get_critical_point
_manims_reduce = Mobject.reduce_across_dimension


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


def critical_point(self, direction):
    points = self.get_points_defining_boundary()
    result = np.zeros(self.dim)
    if len(points) == 0:
        return result
    low, high = points.min(axis=0), points.max(axis=0)
    for dim in range(self.dim):
        lo, hi = low[dim], high[dim]
        if lo == 0 or hi == 0 or lo != lo or hi != hi:       # as Manim reduces it
            lo, hi = np.min(points[:, dim]), np.max(points[:, dim])
        key = direction[dim]
        result[dim] = lo if key < 0 else (lo + hi) / 2 if key == 0 else hi
    return result


def extent(mob):
    """(x0, y0, x1, y1): get_corner(DL) and get_corner(UR) in x and y, from one list of boundary
    points (a box asks for both corners: two lists before)."""
    if type(mob).get_critical_point is not critical_point:      # a class with its own rule
        (x0, y0, _), (x1, y1, _) = mob.get_corner(_DL), mob.get_corner(_UR)
        return x0, y0, x1, y1
    points = mob.get_points_defining_boundary()
    if len(points) == 0:
        return 0.0, 0.0, 0.0, 0.0
    low, high = points[:, :2].min(axis=0), points[:, :2].max(axis=0)
    if not (np.all(low) and np.all(high)) or np.isnan(low).any() or np.isnan(high).any():
        (x0, y0, _), (x1, y1, _) = mob.get_corner(_DL), mob.get_corner(_UR)   # a zero or NaN: as Manim
        return x0, y0, x1, y1
    return low[0], low[1], high[0], high[1]


_DL, _UR = np.array([-1.0, -1.0, 0.0]), np.array([1.0, 1.0, 0.0])


def reduce_across_dimension(self, reduce_func, dim):
    if reduce_func is not builtins.max and reduce_func is not builtins.min:
        return _manims_reduce(self, reduce_func, dim)
    columns = [m.points[:, dim] for m in self.get_family() if len(m.points)]
    if not columns:
        return None
    values = np.concatenate(columns) if len(columns) > 1 else columns[0]
    found = values.max() if reduce_func is builtins.max else values.min()
    if found == 0 or found != found:
        return _manims_reduce(self, reduce_func, dim)
    return found


Mobject.get_critical_point = critical_point
Mobject.reduce_across_dimension = reduce_across_dimension
