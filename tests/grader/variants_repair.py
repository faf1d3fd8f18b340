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
    # a fresh learner's own mistakes (issue 45), one edit of a kind added for them; the kind is said
    ("div's gradient for b without its minus (a tuple's second element)",
     ("scalar.py", "return g / b.data, -g * a.data / (b.data * b.data)", "return g / b.data, g * a.data / (b.data * b.data)"),
     "1.2", "a small edit of line 119 of minitorch/scalar.py (Scalar.__truediv__) makes every case of this check right: "
     "look there at the sign of one term."),
    ("sin's derivative of g, not of the input",
     ("scalar.py", "return (g * math.cos(a.data),)", "return (g * math.cos(g),)"), "1.2",
     "a small edit of line 187 of minitorch/scalar.py (Scalar.sin) makes every case of this check right: "
     "look there at which variable is used."),
    ("exp's gradient from exp of the saved output",
     ("ops_unary.py", "return grad * out\n", "return grad * np.exp(out)\n"), "3.1",
     "a small edit of line 52 of minitorch/ops_unary.py (Exp.backward) makes this case and fresh random ones right: "
     "look there at a function applied once too often."),
    ("log's gradient without grad",
     ("ops_unary.py", "return grad / x", "return 1 / x"), "3.1",
     "a small edit of line 69 of minitorch/ops_unary.py (Log.backward) makes this case and fresh random ones right: "
     "look there at a factor missing (a variable to multiply by)."),
    # log_softmax's gradient with out (the log-probabilities) for the softmax is a known mistake now ("log-probabilities
    # as the softmax", variants_known.py), named rather than placed at its line
    ("adam's bias-corrected m stored back into the state",
     ("optim.py", 'm = state["m"] = beta1 * state.get("m", 0) + (1 - beta1) * g',
      'm = state["m"] = (beta1 * state.get("m", 0) + (1 - beta1) * g) / (1 - beta1 ** t)'), "6.3",
     "a small edit of line 85 of minitorch/optim.py (Adam.step) makes every case of this check right: "
     "look there at one factor or divisor too many."),
]
