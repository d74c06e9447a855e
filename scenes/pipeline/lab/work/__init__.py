"""The lab's work for a class: warm still workers (worker.py), a pool of them on this machine
(pool.py) or on a dask cluster (cluster.py), the queue that serves every page in turn (queue.py),
and the video renders (videos.py)."""
