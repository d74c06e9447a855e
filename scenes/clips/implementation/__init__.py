"""4.8 implementation: the storyboard (scene) and its tables and listings (parts).
"""
