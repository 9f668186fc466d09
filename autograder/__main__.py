"""``python -m autograder`` is the ``autograder`` console script."""
from autograder.cli import main

if __name__ == "__main__":  # multiprocessing's children import this module under another name
    raise SystemExit(main())
