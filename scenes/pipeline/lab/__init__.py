"""The lab: a local web page per clip (server, lab.html), its door on a network (door: the class
code, the connections' limits), its files (jobs), the work for a class (work/: the warm workers,
the queue with turns, the videos), requests and their rules (request), and the narration recorder
(record, record.html, takes). The top of the pipeline: it may import every pipeline package.
"""
