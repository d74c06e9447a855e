"""The lab: a local web page per clip (server, lab.html), its stills and renders (jobs, worker,
videos), requests and their rules (request), and the narration recorder (record, record.html,
takes). The top of the pipeline: it may import every pipeline package.
"""
