"""Whole boards composed from blocks and derivations: arrangements (arrange), the named boards
clips share (boards), exercise sheets (sheets) and question cards with their answers (quiz).
Imports every kit package below it (text, draw, page, motion).
"""
