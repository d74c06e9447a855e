"""4.2-4.3 score-grid: the storyboard (scene) and its role grids, projections and words (parts).
"""
