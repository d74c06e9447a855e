"""4.4 causal-mask: the storyboard (scene), its grids and words (parts), the five-step table
(five) and the causality check (check).
"""
