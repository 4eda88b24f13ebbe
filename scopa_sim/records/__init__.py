"""Game records (``scopa-record/1``): writing, checking and replaying them, and the review
of recorded decisions (text, JSON and HTML)."""
