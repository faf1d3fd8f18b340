"""Buggy variants outside the library of known mistakes that one edit of the repair search's
error model mends (``minitorch/course/mutants.py``): each message must name the learner's
line, in both kinds of check (the phrase is what both say). The same format as variants.py;
tests/grader/test_repair.py holds the search's other promises."""

BUGGY = [
    ("sigmoid's derivative with the sign of one term flipped",
     ("ops_unary.py", "return grad * out * (1 - out)", "return grad * out * (1 + out)"), "3.1",
     "a small edit of line 174 of minitorch/ops_unary.py (Sigmoid.backward)"),
    ("div's square written without its parentheses",
     ("ops_binary.py", "unbroadcast(-grad * (a / b) / b, b.shape)", "unbroadcast(-grad * a / b * b, b.shape)"), "2.3",
     "a small edit of line 94 of minitorch/ops_binary.py (Div.backward)"),
    ("log_softmax's sum without keepdims",
     ("ops_softmax.py", "np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)",
      "np.exp(out) * np.sum(grad, axis=ctx.axis)"), "5.3",
     "a small edit of line 112 of minitorch/ops_softmax.py (LogSoftmax.backward)"),
    ("adam's v corrected with beta1",
     ("optim.py", "denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + self.eps",
      "denom = np.sqrt(v) / math.sqrt(1 - beta1 ** t) + self.eps"), "6.3",
     "a small edit of line 87 of minitorch/optim.py (Adam.step)"),
    # a fresh learner's own kinds of mistake (issue 45), one edit of a kind added for them each, on an op or a line the
    # library of known mistakes does not know (its names for the very mistakes that learner made, variants_known's
    # "div backward loses b's minus", "exp backward takes exp of the output", "log backward without grad",
    # "log-softmax takes out for exp(out)" and "adam stores the corrected m back", leave the search nothing to do);
    # the kind is said
    ("mul's gradient for b with a minus (a tuple's second element)",
     ("scalar.py", "return g * b.data, g * a.data", "return g * b.data, -g * a.data"),
     "1.2", "a small edit of line 110 of minitorch/scalar.py (Scalar.__mul__) makes every case of this check right: "
     "look there at the sign of one term."),
    ("sin's derivative of g, not of the input",
     ("scalar.py", "return (g * math.cos(a.data),)", "return (g * math.cos(g),)"), "1.2",
     "a small edit of line 190 of minitorch/scalar.py (Scalar.sin) makes every case of this check right: "
     "look there at which variable is used."),
    ("sqrt's gradient from the square root of the saved output",
     ("ops_unary.py", "return grad / (2 * out)", "return grad / (2 * np.sqrt(out))"), "3.1",
     "a small edit of line 87 of minitorch/ops_unary.py (Sqrt.backward) makes this case and fresh random ones right: "
     "look there at a function applied once too often."),
    ("sin's gradient without grad",
     ("ops_unary.py", "return grad * np.cos(x)", "return np.cos(x)"), "3.1",
     "a small edit of line 121 of minitorch/ops_unary.py (Sin.backward) makes this case and fresh random ones right: "
     "look there at a factor missing (a variable or a named constant to multiply by)."),
    ("logsumexp's gradient divided by out, not by exp(out)",
     ("ops_softmax.py", "return grad * np.exp(x - out)", "return grad * np.exp(x) / out"), "5.3",
     "a small edit of line 93 of minitorch/ops_softmax.py (LogSumExp.backward) makes this case and fresh random ones "
     "right: look there at a function missing (such as exp or log)."),
    ("log_softmax's sum along the last axis, not ctx.axis",
     ("ops_softmax.py", "return grad - np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)",
      "return grad - np.exp(out) * np.sum(grad, axis=-1, keepdims=True)"), "5.3",
     "a small edit of line 112 of minitorch/ops_softmax.py (LogSoftmax.backward) makes this case and fresh random ones "
     "right: look there at an axis, keepdims or a transpose."),
    ("adam's m averages g squared (the v line copied)",
     ("optim.py", 'm = state["m"] = beta1 * state.get("m", 0) + (1 - beta1) * g',
      'm = state["m"] = beta1 * state.get("m", 0) + (1 - beta1) * g * g'), "6.3",
     "a small edit of line 85 of minitorch/optim.py (Adam.step) makes every case of this check right: "
     "look there at one factor or divisor too many."),
    # a first step as a known mistake's, later steps not: Adam's m corrected twice in the step (the state kept raw) moves
    # the first step as "corrected m stored back" does; the later steps tell them apart, so that mistake is not named
    ("adam's m corrected twice in the step",
     ("optim.py", "p.data -= (self.lr / (1 - beta1 ** t)) * m / denom",
      "p.data -= (self.lr / (1 - beta1 ** t)) * m / (1 - beta1 ** t) / denom"), "6.3",
     "a small edit of line 88 of minitorch/optim.py (Adam.step) makes every case of this check right: look there at "
     "which variable is used or one factor or divisor too many."),
    # learner 3's mistakes (issue 45) that no edit of the model mended before: a named constant or a factor of one
    # term left out, .T for a batch's transpose; and one the search had the edit for but never ran on (the learner had
    # typed over the "# Task" labels: tests/release/test_repair_notebook.py holds that case)
    ("pow's exponent gradient from log(b), not log(a)",
     ("ops_binary.py", "np.where((a == 0) & (b >= 0), 0, np.log(a))", "np.where((a == 0) & (b >= 0), 0, np.log(b))"),
     "2.3", "a small edit of line 122 of minitorch/ops_binary.py (Pow.backward) makes this case and fresh random ones "
     "right: look there at which variable is used."),
    ("batched matmul's gradient for a with .T, which reverses every axis",
     ("ops_linalg.py", "grad2 @ np.swapaxes(b2, -1, -2)", "grad2 @ b2.T"), "5.1",
     "a small edit of line 45 of minitorch/ops_linalg.py (MatMul.backward) makes this case and fresh random ones "
     "right: look there at a transpose (.T reverses every axis; of a batch of matrices only the last two swap)."),
    ("exact gelu's derivative without the x of x * phi(x)",
     ("ops_activation.py", "return grad * (cdf + x * normal_pdf(x))", "return grad * (cdf + normal_pdf(x))"), "5.2",
     "a small edit of line 114 of minitorch/ops_activation.py (Gelu.backward) makes this case and fresh random ones "
     "right: look there at a factor missing (a variable or a named constant to multiply by)."),
    ("tanh gelu's inner derivative without sqrt(2 / pi)",
     ("ops_activation.py", "du = SQRT_2_OVER_PI * (1 + 3 * TANH_CUBIC * x * x)", "du = 1 + 3 * TANH_CUBIC * x * x"),
     "5.2", "a small edit of line 112 of minitorch/ops_activation.py (Gelu.backward) makes this case and fresh random "
     "ones right: look there at a factor missing (a variable or a named constant to multiply by)."),
    # fb7 (a fresh learner's): a helper of the module's for a value, a 1/2 missing on one term of a sum (written with t, as
    # that learner did), and b for a in pow's log where b's shape is not a's (the result broadcasts to the same shape)
    ("exact gelu's derivative with the cdf where the density belongs",
     ("ops_activation.py", "return grad * (cdf + x * normal_pdf(x))", "return grad * (cdf + x * cdf)"), "5.2",
     "a small edit of line 114 of minitorch/ops_activation.py (Gelu.backward) makes this case and fresh random ones "
     "right: look there at which function or variable is used (a helper's value, such as a density, for another value)."),
    ("tanh gelu's derivative without the 1/2 of d cdf / du",
     ("ops_activation.py", "            return grad * (cdf + 2 * x * cdf * (1 - cdf) * du)",
      "            t = 2 * cdf - 1\n            return grad * (cdf + x * (1 - t * t) * du)"), "5.2",
     "a small edit of line 114 of minitorch/ops_activation.py (Gelu.backward) makes this case and fresh random ones "
     "right: look there at a constant factor on one term (a 1/2 or a 2 missing or too many)."),
    ("pow's exponent gradient from log(b) in one line, b not of a's shape",
     ("ops_binary.py", "                log_a = np.where((a == 0) & (b >= 0), 0, np.log(a))\n"
      "                grad_b = unbroadcast(grad * (out * log_a).astype(grad.dtype, copy=False), b.shape)",
      "                grad_b = unbroadcast(grad * np.where((a == 0) & (b >= 0), np.zeros_like(out), out * np.log(b)), "
      "b.shape)"), "2.3",
     "a small edit of line 122 of minitorch/ops_binary.py (Pow.backward) makes this case and fresh random ones right: "
     "look there at which variable is used."),
    # where a dtype drift begins (issue 45, learner 3): the first line of the learner's code making another dtype
    ("max's ties counted in int64 (a bool mask summed)",
     ("ops_reduce.py", "ties = np.sum(hit, axis=ctx.axes, keepdims=True).astype(grad.dtype)",
      "ties = np.sum(hit, axis=ctx.axes, keepdims=True)"), "3.3",
     "the first value of another dtype than float32 in your code is made at line 122 of minitorch/ops_reduce.py "
     "(_to_extremes): ties is int64 there"),
    # a fresh learner's (fb-s6): the line to change is above the one that raised, which uses a value it made; the
    # model fed all of x (the hidden check's recording model raises nothing: it says where the model is called)
    ("matmul's 1-D b gradient read at the wrong axis, a line above the reshape that raises",
     ("ops_linalg.py",
      "            grad_b = unbroadcast(product_like(np.swapaxes(a2, -1, -2), grad2, b2), b2.shape).reshape(b.shape)",
      "            db = unbroadcast(product_like(np.swapaxes(a2, -1, -2), grad2, b2), b2.shape)\n"
      "            db = db[..., 0, :] if b.ndim == 1 else db\n            grad_b = db.reshape(b.shape)"), "5.1",
     "line 49, your line below it, raised: it uses db, made at line 48."),
    ("train_epoch feeds the model all of x, the loss the batch's targets",
     ("training.py", "        loss = loss_fn(model(Tensor(x[batch])), y[batch])",
      "        pred = model(Tensor(x))\n        loss = loss_fn(pred, y[batch])"), "6.4",
     "the model is called at line 45 of minitorch/training.py (train_epoch)"),
    # a fourth fresh learner's 5.1e (issue 45): a 1-D b's gradient read as row 0 of the (k, 1) column's, shape (1,); the
    # given unbroadcast refuses it two lines below: the line that made it is named
    ("matmul's gradient for a 1-D b read from its first row", ("ops_linalg.py",
        "            grad_b = unbroadcast(product_like(np.swapaxes(a2, -1, -2), grad2, b2), b2.shape).reshape(b.shape)",
        "            grad_b = product_like(np.swapaxes(a2, -1, -2), grad2, b2)\n            if b.ndim == 1:\n"
        "                grad_b = grad_b[..., 0, :]\n            grad_b = unbroadcast(grad_b, b.shape)"), "5.1",
     "grad_b, of shape (1,), which that line passes on, was made at line 49 of minitorch/ops_linalg.py (MatMul.backward)"),
    # fb6 (a real learner's): one thing put for its usual twin, an edit kind each (edit_swaps.py): an operator (b * 2 for
    # b ** 2), a NumPy function (abs for sign), the variable whose shape is read (a.shape copied for b.shape; the hidden
    # check's first case broadcasts both inputs, where that is told apart from a gradient never summed back)
    ("div's square of b written as b * 2",
     ("scalar.py", "-g * a.data / (b.data * b.data)", "-g * a.data / (b.data * 2)"), "1.2",
     "a small edit of line 122 of minitorch/scalar.py (Scalar.__truediv__) makes every case of this check right: "
     "look there at an operator (* for ** and the like: * and /, + and *)."),
    ("abs's gradient from abs, not sign",
     ("ops_unary.py", "return grad * np.sign(x)", "return grad * np.abs(x)"), "3.1",
     "a small edit of line 104 of minitorch/ops_unary.py (Abs.backward) makes this case and fresh random ones right: "
     "look there at which function is applied (such as abs for sign, exp for log, sum for mean)."),
    ("mul's gradient for b summed back to a's shape (a line copied)",
     ("ops_binary.py", "unbroadcast(grad * a, b.shape)", "unbroadcast(grad * a, a.shape)"), "2.3",
     "a small edit of line 76 of minitorch/ops_binary.py (Mul.backward) makes this case and fresh random ones right: "
     "look there at which variable is used."),
    # fb6: where a value went wrong before anything refused it: the first NaN of the learner's own code and how its line
    # makes it (0/0 at a = 0, where b * a ** (b - 1) is finite), and what NumPy's words mean for rng.choice's p with the
    # line that made p (normalised over every row at once)
    ("pow's gradient for a as b * out / a (0/0 at a zero base)",
     ("ops_binary.py", "grad * np.where(b == 0, 0, b * a ** (b - 1)).astype(grad.dtype, copy=False)",
      "grad * b * out / a"), "2.3",
     "the first NaN or inf of your code on this case is made at line 119 of minitorch/ops_binary.py (Pow.backward): "
     "grad_a holds one there; that line divides 0 by 0 (a is 0 on this case)"),
    ("sample_next normalises p over every row at once",
     ("language.py", "p /= p.sum(axis=-1, keepdims=True)", "p = p / p.sum()"), "7.4",
     "the probabilities of one draw (one row) must sum to 1: normalise each row by its own sum (axis=-1, "
     "keepdims=True). p was made at line 112 of minitorch/language.py (sample_next): p = p / p.sum()"),
    # fb7: a shape error raised at the learner's own line, the value of the shape it names made lines above from the
    # state of another parameter (made_at.shapes_made); a plain function's dtype drift located (unbroadcast's
    # float64 sum: the line that makes it, never a cast at the return that only hides it); a 0/0 said to be one
    ("sgd reads the momentum buffer from the first parameter's state",
     ("optim.py", 'buffer = state.get("momentum_buffer")', 'buffer = self.state[0].get("momentum_buffer")'), "6.2",
     "buffer is held in the state of another parameter (self.state[0], of a parameter of shape (3, 2)), not in this "
     "one's (of shape (4,)): read and keep each parameter's values in its own state. Of the values your line reads: "
     "buffer has shape (3,2), made at line 62 of minitorch/optim.py (SGD.step): buffer = self.state[0].get("),
    ("unbroadcast sums in float64",
     ("shapes.py", "    return grad.sum(axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
      "    out = grad.sum(axis=(*range(extra), *stretched), keepdims=True, dtype=np.float64)\n    return out.reshape(shape)"),
     "2.2", "the first value of another dtype than float32 in your code is made at line 68 of minitorch/shapes.py "
     "(unbroadcast): out is float64 there"),
    ("pow's gradient for a as b * out / a in np.where (0/0 at a zero base)",
     ("ops_binary.py", "grad * np.where(b == 0, 0, b * a ** (b - 1))", "grad * np.where(b == 0, np.zeros_like(out), b * out / a)"),
     "2.3", "made at line 119 of minitorch/ops_binary.py (Pow.backward): grad_a holds one there; that line divides 0 by 0 "
     "(a is 0 on this case)"),
]
