"""What a render is: the clip registry, checked inputs, the job value (job.RenderJob), files written
atomically (files), leftovers of dead renders and the stamps that make a render reusable.
The lowest layer of the pipeline: it imports compute and the kit only.
"""
