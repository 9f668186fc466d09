"""The notebooks' public check cells call ``autograder.selfcheck.check``: a stable import path that every
released notebook holds (the code is ``autograder.frontends.selfcheck``)."""
from autograder.frontends.selfcheck import SelfCheckFailed, check

__all__ = ["check", "SelfCheckFailed"]
