"""Buggy variants that make one mistake of the library of known mistakes
(grader/checks/mistakes/), each named by its phrase "known mistake: <name>", and
``NAMED``: for every variant of the project (tests/grader/variants*.py and
tests/release/mistakes.py), the known mistake its message must name, if any. A message may
name no other: the tests hold both directions (tests/grader/test_checks.py for the hidden
checks, tests/release/test_messages.py and test_known_mistakes.py for the visible ones).
"""

BUGGY = [
    ("tanh without the square", ("ops_unary.py", "return grad * (1 - out * out)", "return grad * (1 - out)"), "3.1",
     "known mistake: square missing"),
    ("sqrt by operator precedence", ("ops_unary.py", "return grad / (2 * out)", "return grad / 2 * out"), "3.1",
     "known mistake: operator precedence"),
    ("sigmoid without 1 - out", ("ops_unary.py", "return grad * out * (1 - out)", "return grad * out"), "3.1",
     "known mistake: factor missing"),
    ("exp derivative from the input", ("ops_unary.py", "        (out,) = ctx.saved\n        # Task 3.1: Exp.backward",
                                       "        (out,) = ctx.saved\n        out = np.log(out)  # the input\n"
                                       "        # Task 3.1: Exp.backward"), "3.1", "known mistake: derivative from the input"),
    ("sin with a minus sign", ("ops_unary.py", "return grad * np.cos(x)", "return -grad * np.cos(x)"), "3.1",
     "known mistake: sign added"),
    ("tensor mul gradients swapped", ("ops_binary.py", "return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)",
                               "return unbroadcast(grad * a, a.shape), unbroadcast(grad * b, b.shape)"), "2.3",
     "known mistake: gradients swapped"),
    ("sub negates a instead of b", ("ops_binary.py", "return unbroadcast(grad, a_shape), unbroadcast(-grad, b_shape)",
                                    "return unbroadcast(-grad, a_shape), unbroadcast(grad, b_shape)"), "2.3",
     "known mistake: sign on the wrong input"),
    ("div does not square b", ("ops_binary.py", "unbroadcast(-grad * a / (b * b), b.shape)",
                               "unbroadcast(-grad * a / b, b.shape)"), "2.3", "known mistake: b not squared"),
    ("tensor pow keeps the exponent", ("ops_binary.py", "np.where(b == 0, 0, b * a ** (b - 1))", "np.where(b == 0, 0, b * a ** b)"),
     "2.3", "known mistake: exponent not lowered"),
    ("sum divides by the count", ("ops_reduce.py", "        return np.broadcast_to(_lined_up(grad, ctx, \"Sum\"), ctx.shape)",
                                  "        return np.broadcast_to(_lined_up(grad, ctx, \"Sum\"), ctx.shape) / "
                                  "math.prod(ctx.shape[a] for a in ctx.axes)"), "3.2", "known mistake: divided by the count"),
    ("max counts ties over the whole array", ("ops_reduce.py", "ties = np.sum(hit, axis=ctx.axes, keepdims=True).astype(grad.dtype)",
                                              "ties = np.sum(hit).astype(grad.dtype)"), "3.3",
     "known mistake: ties counted over everything"),
    ("cat splits at the sizes", ("ops_index.py", "np.split(grad, np.cumsum(ctx.sizes)[:-1], axis=ctx.axis)",
                                 "np.split(grad, list(ctx.sizes[:-1]), axis=ctx.axis)"), "4.3", "known mistake: split at the sizes"),
    ("gelu subtracts the product term", ("ops_activation.py", "return grad * (cdf + x * normal_pdf(x))",
                                         "return grad * (cdf - x * normal_pdf(x))"), "5.2",
     "known mistake: sign of the product term"),
    ("gelu tanh form without the square", ("ops_activation.py", "return grad * (cdf + 2 * x * cdf * (1 - cdf) * du)",
                                           "return grad * (cdf + 0.5 * x * (1 - (2 * cdf - 1)) * du)"), "5.2",
     "known mistake: square missing"),
    ("logsumexp backward with exp of x", ("ops_softmax.py", "return grad * np.exp(x - out)", "return grad * np.exp(x)"),
     "5.3", "known mistake: exp of the input"),
    ("div multiplies a's gradient by b", ("ops_binary.py", "unbroadcast(grad / b, a.shape)", "unbroadcast(grad * b, a.shape)"),
     "2.3", "known mistake: a's gradient times b"),
    ("maximum gives b the whole tie", ("ops_binary.py", "    to_b = grad - to_a  # where b won, or the other half of a tie",
                                       "    to_b = grad * ~a_wins"), "2.3", "known mistake: ties counted twice"),
    ("pow without the log", ("ops_binary.py", "(out * log_a).astype(grad.dtype, copy=False)", "out.astype(grad.dtype, copy=False)"),
     "2.3", "known mistake: log missing"),
    ("broadcast_to returns the gradient as is", ("ops_shape.py", "        return unbroadcast(grad, ctx.shape)",
                                                 "        return grad"), "4.1", "known mistake: not summed back"),
    ("squeeze backward returns the gradient as is", ("ops_shape.py",
        "        # Task 4.1: Squeeze.backward\n        ### BEGIN SOLUTION\n        return grad.reshape(ctx.shape)",
        "        # Task 4.1: Squeeze.backward\n        ### BEGIN SOLUTION\n        return grad"), "4.1",
     "known mistake: axis not put back"),
    ("softmax backward without the sum", ("ops_softmax.py",
                                          "return out * (grad - np.sum(grad * out, axis=ctx.axis, keepdims=True))",
                                          "return out * grad"), "5.3", "known mistake: sum term missing"),
]

# ---- stage 7: attention (7.2), the Block and the GPT (7.3), training and sampling (7.4)
_SPLIT = ("        q = self.query(x).reshape(B, T, H, d).transpose(0, 2, 1, 3)   # (B, H, T, d)\n"
          "        k = self.key(x).reshape(B, T, H, d).transpose(0, 2, 3, 1)     # (B, H, d, T)\n"
          "        v = self.value(x).reshape(B, T, H, d).transpose(0, 2, 1, 3)   # (B, H, T, d)\n")
_BLOCK = ("        x = x + self.attn(self.ln1(x))\n"
          '        return x + self.down(gelu(self.up(self.ln2(x)), approximate="tanh"))\n')
_STEP = "        optimizer.zero_grad()\n        loss = loss_on(model, x, y)\n        loss.backward()\n        optimizer.step()\n"
BUGGY += [
    ("mask one short", ("nn/transformer.py", "causal = np.tril(np.ones((T, T), dtype=bool))",
                        "causal = np.tril(np.ones((T, T), dtype=bool), k=-1)"), "7.2", "known mistake: mask one short"),
    ("heads split by a reshape alone", ("nn/transformer.py", _SPLIT,
        "        q = self.query(x).reshape(B, H, T, d)\n        k = self.key(x).reshape(B, H, T, d).transpose(0, 1, 3, 2)\n"
        "        v = self.value(x).reshape(B, H, T, d)\n"), "7.2", "known mistake: heads split without the transpose"),
    ("attention softmax over the queries", ("nn/transformer.py", "weights = softmax(where(causal, scores, -1e9), axis=-1)",
                                            "weights = softmax(where(causal, scores, -1e9), axis=-2)"), "7.2",
     "known mistake: softmax over the queries"),
    ("block is post-norm", ("nn/transformer.py", _BLOCK,
        "        x = self.ln1(x + self.attn(x))\n"
        '        return self.ln2(x + self.down(gelu(self.up(x), approximate="tanh")))\n'), "7.3", "known mistake: post-norm"),
    ("block swaps ln1 and ln2", ("nn/transformer.py", _BLOCK,
        "        x = x + self.attn(self.ln2(x))\n"
        '        return x + self.down(gelu(self.up(self.ln1(x)), approximate="tanh"))\n'), "7.3",
     "known mistake: ln1 and ln2 swapped"),
    ("block without GELU", ("nn/transformer.py", 'gelu(self.up(self.ln2(x)), approximate="tanh")', "self.up(self.ln2(x))"),
     "7.3", "known mistake: GELU missing"),
    ("gpt looks the positions up by token", ("nn/transformer.py", "self.position(np.arange(idx.shape[1]))",
                                             "self.position(idx)"), "7.3", "known mistake: positions indexed by the tokens"),
    ("greedy takes the argmin", ("language.py", "chosen = logits.argmax(axis=-1)", "chosen = logits.argmin(axis=-1)"),
     "7.4", "known mistake: argmin, not argmax"),
    ("greedy returns the largest logit", ("language.py", "chosen = logits.argmax(axis=-1)", "chosen = logits.max(axis=-1)"),
     "7.4", "known mistake: the largest logit, not its position"),
    ("greedy returns the largest probability", ("language.py", "chosen = logits.argmax(axis=-1)",
        "p = np.exp(logits - logits.max(axis=-1, keepdims=True))\n        chosen = (p / p.sum(axis=-1, keepdims=True)).max(axis=-1)"),
     "7.4", "known mistake: the largest probability, not its token"),
    ("sampling multiplies by the temperature", ("language.py", "z = logits / temperature", "z = logits * temperature"),
     "7.4", "known mistake: temperature multiplies"),
    ("training step clears the gradients before the step", ("language.py", _STEP,
        "        loss = loss_on(model, x, y)\n        loss.backward()\n        optimizer.zero_grad()\n        optimizer.step()\n"),
     "7.4", "known mistake: gradients cleared before the step"),
    ("training step never steps", ("language.py", _STEP,
        "        optimizer.zero_grad()\n        loss = loss_on(model, x, y)\n        loss.backward()\n"), "7.4",
     "known mistake: step missing"),
]

ALTERNATIVES: list = []

NAMED = {
    # tests/grader/variants.py
    "sub wrong sign": "sign lost on b", "log derivative inverted": "times x", "sqrt forgets the 2": "the 2 missing",
    "cos derivative sign": "sign lost", "mean forgets the count": "count missing",
    "mean divides by every element": "divided by every element",
    "max gives every tie the full gradient": "ties not shared",
    "max forgets to put the reduced axes back": "expand_dims missing", "transpose without inverse": "forward permutation reused",
    "unsqueeze squeezes every size-1 axis": "every size-1 axis squeezed", "cat splits at the wrong place": "split into equal parts",
    "cat splits along axis 0": "split along the wrong axis", "stack keeps the stacked axis": "stacked axis kept",
    "stack unstacks along axis 0": "read along axis 0", "matmul transposed gradient": "operand not transposed",
    "matmul transposes with .T": "operand not transposed",
    "matmul forgets to reshape a 1-D gradient": "1-D operand not reshaped back",
    "matmul without unbroadcast for b": "batch axes not summed", "matmul batch axes not summed": "batch axes not summed",
    "matmul sums b's batch over the first axis only": "batch axes not summed",
    "gelu tanh derivative drops a term": "product term missing",
    "gelu exact forgets x times the density": "product term missing",
    "gelu density without its constant": "density not normalised",
    "gelu tanh forgets the 3 of the cube's derivative": "the cube's 3 missing",
    "logsumexp backward forgets the reduced axes": "expand_dims missing", "log_softmax forgets the sum": "sum missing",
    "softmax sums over every axis": "sum over every axis", "abs derivative 1 at zero": "1 at the kink",
    "relu derivative 1 at zero": "1 at the kink", "mul forgets to unbroadcast": "missing unbroadcast",
    "mul unbroadcasts only the first operand": "missing unbroadcast",
    "maximum ties to a only": "ties not split", "minimum ties to a only": "ties not split",
    "unbroadcast loses keepdims": "size-1 axes dropped", "unbroadcast forgets leading axes": "leading axes kept",
    # tests/grader/variants_stage7.py
    "attention without the scale": "scale missing", "heads merged without the transpose": "heads not moved back",
    "attention scaled by the model width": "scaled by the model width",
    "attention masks the weights after the softmax": "masked after the softmax",
    "block without the residual around attention": "residual missing around attention",
    "block without the residual around the MLP": "residual missing around the MLP",
    "block with ReLU instead of GELU": "ReLU, not GELU", "block applies GELU after the down projection":
    "GELU after the down projection", "gpt forgets the position embeddings": "position embeddings missing",
    "gpt skips the final layer norm": "ln_f missing", "sampling ignores the temperature": "temperature ignored",
    "training step without zero_grad": "zero_grad missing",
    "greedy sampling takes one argmax for the whole batch": "one argmax for the whole batch",
    "attention forgets the scale": "scale missing",  # tests/release/mistakes.py's, as the variant above
    "mask lets a position see the future": "mask missing", "attention without the mask": "mask missing",
    "mask lets a position see the next one": "mask one too far", "mask upside down": "mask upside down",
    # tests/release/mistakes.py
    "unbroadcast drops the size-1 axes": "size-1 axes dropped", "unbroadcast averages": "mean instead of sum",
    "sub loses the minus sign": "sign lost on b", "cos loses its minus sign": "sign lost",
    "abs forgets the sign of x": "sign of x missing", "max gives every tie the whole gradient": "ties not shared",
    "transpose backward repeats the permutation": "forward permutation reused",
    "gelu forgets the inner derivative": "inner derivative missing", "softmax backward loses its sign": "sign flipped",
    **{name: phrase.removeprefix("known mistake: ") for name, _, _, phrase in BUGGY},
}

# Variants whose visible check first meets another of their faults (so it names no mistake
# there, and never a wrong one): the float32 case of Task 3.1 runs before its x = 0 case.
FIRST_FAILS_ELSEWHERE_IN_THE_NOTEBOOK = {"abs derivative 1 at zero"}


def named_in_notebook(name: str) -> set[str]:
    """What the visible check of a variant must name: the same as the hidden checks, unless it fails first elsewhere."""
    return {NAMED[name]} if name in NAMED and name not in FIRST_FAILS_ELSEWHERE_IN_THE_NOTEBOOK else set()

