"""The page engine: a step's page is an area with named blocks (page); blocks and how they relate
(blocks, marked), declared choices (options), zooms of big grids (zoom) and tensor views (tensors).
plan() tries the ways and keeps the layout contract. Imports kit.text and kit.draw.
"""
