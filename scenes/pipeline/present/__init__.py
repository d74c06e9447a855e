"""What a lecturer presents with: the presenter page (presenter, presenter.html) and the decks
built from a render's steps (deck; pptx, pdf; decks writes them). Imports pipeline.jobs and
pipeline.video.
"""
