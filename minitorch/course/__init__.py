"""The course's room: the notebooks' and the learner's tools, not the engine.

The visible checks and their messages (``visible``, ``failures``, ``diagnose``,
``heatmaps``), hints (``hints``), progress and the hand-in (``progress``, ``handin``, ``importable``), saved
edits reaching a running kernel (``notebook``, ``reloader``, ``inplace``) and the
pictures (``plotting``). These modules may import the engine; nothing of the engine
imports them (only ``minitorch/__init__.py`` re-exports ``mt.hint`` and ``mt.plotting``).
"""
