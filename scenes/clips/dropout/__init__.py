"""4.6 dropout: the storyboard (scene), its tables and bars (parts) and the texts the data
chooses (words).
"""
