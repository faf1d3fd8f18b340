"""What runs inside the learner's process: ``worker.py`` (confines itself, imports the
package, answers requests) and the probes it calls. Nothing here imports the checks or the
pipeline; a structure test holds that."""
