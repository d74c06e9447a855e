"""After a scene: everything that turns clips into files, in layers that import only downwards:
jobs (registry, inputs, the job, files, stamps) <- video (encoding, holds, joins, title cards,
voice) <- present (presenter page, decks) <- run (runner, executors, the chapter) <- lab (the
local web page). The pipeline imports compute, the kit and the clips; only render.py imports it.
"""
