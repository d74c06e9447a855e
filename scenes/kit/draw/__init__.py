"""Drawings: grids with labelled rows and columns (grids, arrays, exact), tables of columns
(columns), bars, planes with arrows, notes, cards and pictures, and the two animations every
drawing appears and leaves with (anim). Imports kit.text only.
"""
