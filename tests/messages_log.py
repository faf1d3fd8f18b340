"""What a variant's check said, kept for the closing table of known mistakes."""

import json
import os


def note_message(side: str, variant: str, task: str, message: str) -> None:
    """With ``MESSAGES_LOG`` set (a file's path), append what a variant's check said (one JSON
    line: the side, "notebook" or "autograder", the variant, its task and the message), so
    that one run of the suite tables the first line a learner reads for each mistake."""
    if os.environ.get("MESSAGES_LOG"):
        with open(os.environ["MESSAGES_LOG"], "a", encoding="utf-8") as file:
            file.write(json.dumps({"side": side, "variant": variant, "task": task, "message": message}) + "\n")
