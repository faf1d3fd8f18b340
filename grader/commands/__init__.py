"""One module per command of ``python -m grader``, each a plain ``main(*, ...) -> int``."""
