"""4.9 exercises: the storyboard (scene) and each exercise's answer board (answers).
"""
