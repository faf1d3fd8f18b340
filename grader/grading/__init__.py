"""Running the checks against one hand-in: ``stages.py`` one stage's parts against one
package, in the learner's confined process; ``hand_ins.py`` every stage of a hand-in."""
