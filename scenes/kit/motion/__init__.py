"""Motion: derivations (a number made in front of the viewer from its sources: expressions,
derive, derive_cells, made), flows of steps and tables that fill by derivation. Imports
kit.text, kit.draw and kit.page.
"""
