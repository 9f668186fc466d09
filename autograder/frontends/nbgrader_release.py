"""`nbgrader release_feedback` (and formgrader's Release Feedback) in a course where some notebooks were placed by hand.

nbgrader releases a student's feedback page under a name made from the secret that `nbgrader submit` wrote
beside the submission (``submission_secret.txt``, with ``timestamp.txt``); `nbgrader fetch_feedback` finds it
with the copy of that secret the student's own machine kept. A notebook copied into ``submitted/`` by hand (the
kit's example class, a course made by `autograder course init`, work sent by e-mail) has neither file, and
nbgrader's release stops the whole command at the first such student (FileNotFoundError for timestamp.txt).
``ReleaseFeedback`` (``c.ExchangeFactory.release_feedback`` in the course's ``nbgrader_config.py``) releases
every page that can be fetched and names each one that cannot, with its path to hand over instead: its student
never submitted through the exchange, so no name it could be released under would ever be fetched.
"""
from __future__ import annotations

import glob
import os

from nbgrader.exchange.default.release_feedback import ExchangeReleaseFeedback

FROM_SUBMIT = ("timestamp.txt", "submission_secret.txt")  # what `nbgrader submit` leaves beside a submission


class ReleaseFeedback(ExchangeReleaseFeedback):
    """nbgrader's release of feedback, folder by folder, leaving out (with a warning) those placed by hand."""

    def copy_files(self):
        pattern = self.src_path  # feedback/<student, or *>/<assignment>
        try:
            for folder in sorted(glob.glob(pattern)):
                if not glob.glob(os.path.join(glob.escape(folder), "*.html")):
                    continue
                missing = [name for name in FROM_SUBMIT if not os.path.isfile(os.path.join(folder, name))]
                if missing:
                    student = os.path.basename(os.path.dirname(folder))
                    self.log.warning(
                        "Not releasing the feedback in %s: %s's notebook was placed in %s/ by hand, not submitted "
                        "with `nbgrader submit` (no %s), so %s could not fetch it; hand over %s yourself",
                        folder, student, self.coursedir.submitted_directory, " or ".join(missing), student,
                        os.path.join(folder, "*.html"))
                    continue
                self.src_path = glob.escape(folder)
                super().copy_files()
        finally:
            self.src_path = pattern
