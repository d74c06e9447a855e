"""4.5 future-check: the storyboard (scene) and its pictures and derivations (parts).
"""
