"""What a lecturer presents with: the presenter page (presenter, presenter.html; its colours in
colours, which the lab's pages share) and the decks built from a render's steps (deck; pptx, pdf;
decks writes them). Imports pipeline.jobs and pipeline.video.
"""
