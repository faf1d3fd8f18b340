"""What runs inside the learner's process: ``process.py`` (confines itself, imports the
package, answers requests), the probes it calls, and ``stand_ins.py`` (what a check swaps
in for an earlier task: it asks the grader, which computes). Nothing here imports the
checks or the rooms that read and grade hand-ins, and nothing here computes what a task asks; structure tests hold
both."""
