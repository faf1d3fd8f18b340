"""Buggy variants outside the library of known mistakes that one edit of the repair search's
error model mends (``minitorch/course/mutants.py``): each message must name the learner's
line, in both kinds of check (the phrase is what both say). The same format as variants.py;
tests/grader/test_repair.py holds the search's other promises."""

BUGGY = [
    ("sigmoid's derivative with the sign of one term flipped",
     ("ops_unary.py", "return grad * out * (1 - out)", "return grad * out * (1 + out)"), "3.1",
     "a small edit of line 174 of minitorch/ops_unary.py (Sigmoid.backward)"),
    ("div's square written without its parentheses",
     ("ops_binary.py", "unbroadcast(-grad * a / (b * b), b.shape)", "unbroadcast(-grad * a / b * b, b.shape)"), "2.3",
     "a small edit of line 94 of minitorch/ops_binary.py (Div.backward)"),
    ("log_softmax's sum without keepdims",
     ("ops_softmax.py", "np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)",
      "np.exp(out) * np.sum(grad, axis=ctx.axis)"), "5.3",
     "a small edit of line 112 of minitorch/ops_softmax.py (LogSoftmax.backward)"),
    ("adam's v corrected with beta1",
     ("optim.py", "denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + self.eps",
      "denom = np.sqrt(v) / math.sqrt(1 - beta1 ** t) + self.eps"), "6.3",
     "a small edit of line 87 of minitorch/optim.py (Adam.step)"),
]
