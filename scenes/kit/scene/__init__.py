"""The scene a clip subclasses (base.ClipScene), a clip's declaration (clip.Clip, Option) and the
input rules (inputs: number, matrix, tokens, presets). The top of the kit: it may import every
kit package; nothing in the kit imports it but itself.
"""
