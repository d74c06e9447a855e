"""4.1 weighted-average: the storyboard (scene) and its tables and boards (parts).
"""
