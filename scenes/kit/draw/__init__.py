"""Drawings: grids with labelled rows and columns (grids, arrays, exact), tables of columns
(columns), bars, planes with arrows, notes, cards and pictures, the two animations every
drawing appears and leaves with (anim), and the ways of things that move at once (paths).
Imports kit.text only.
"""
