"""The grades in the forms learning-management systems import: ``registry.py`` lists the
LMSs and writes their files; each LMS is one module (``canvas.py``, ``moodle.py``,
``blackboard.py``) holding its ``EXPORTS``, made of ``export.py``'s parts."""
