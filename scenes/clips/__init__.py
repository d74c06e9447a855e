"""One place per clip: a module (multihead.py) or a package of its parts (NAME/scene.py holds the
storyboard; its words are assets/lang/zh/NAME.json). Clips import compute and the kit, never one
another or the pipeline; the registry finds every ClipScene with a `spec` here.
"""
