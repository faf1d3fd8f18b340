"""The grader's commands, one module each: a plain ``main(*, ...)`` with typed keyword
arguments; ``grader/__main__.py`` only parses the command line and calls them."""
