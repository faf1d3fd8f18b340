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
    # ---- stage 6: modules, optimizers, the training loop
    ("parameters skips sub-modules", ("nn/modules.py", "            elif isinstance(value, Module):\n"
                                      "                for p in value.parameters():\n"
                                      "                    found.setdefault(id(p), p)\n", ""), "6.1",
     "known mistake: sub-modules not searched"),
    ("linear multiplies by the weight untransposed", ("nn/modules.py", "out = x @ self.weight.T", "out = x @ self.weight"),
     "6.1", "known mistake: weight not transposed"),
    ("linear leaves the bias out", ("nn/modules.py", "return out if self.bias is None else out + self.bias", "return out"),
     "6.1", "known mistake: bias missing"),
    ("linear adds the bias before the matmul", ("nn/modules.py",
        "        out = x @ self.weight.T\n        return out if self.bias is None else out + self.bias",
        "        x = x if self.bias is None else x + self.bias\n        return x @ self.weight.T"), "6.1",
     "known mistake: bias added before the matmul"),
    ("mlp without the activation", ("nn/modules.py", "            x = act(layer(x))\n        return self.layers[-1](x)",
                                    "            x = layer(x)\n        return self.layers[-1](x)"), "6.1",
     "known mistake: no activation"),
    ("mlp activation before each layer", ("nn/modules.py",
        "        for layer in self.layers[:-1]:\n            x = act(layer(x))\n        return self.layers[-1](x)",
        "        for layer in self.layers:\n            x = layer(act(x))\n        return x"), "6.1",
     "known mistake: activation before each layer"),
    ("adam counts one step ahead", ("optim.py", 't = state["step"] = state.get("step", 0) + 1',
                                    't = state["step"] = state.get("step", 1) + 1'), "6.3", "known mistake: t one ahead"),
    ("adam leaves m uncorrected", ("optim.py", "p.data -= (self.lr / (1 - beta1 ** t)) * m / denom",
                                   "p.data -= self.lr * m / denom"), "6.3", "known mistake: m not corrected"),
    ("adam adds eps under the root before the correction", ("optim.py",
        "denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + self.eps", "denom = np.sqrt(v + self.eps) / math.sqrt(1 - beta2 ** t)"),
     "6.3", "known mistake: eps under the root before the correction"),
    ("training loop steps once per epoch", ("training.py",
        "        optimizer.step()\n        total += loss.item() * len(batch)\n        ### END SOLUTION\n    return total / len(x)",
        "        total += loss.item() * len(batch)\n        ### END SOLUTION\n    optimizer.step()\n    return total / len(x)"),
     "6.4", "known mistake: one step per epoch"),
    ("training loop sets the total", ("training.py", "total += loss.item() * len(batch)", "total = loss.item() * len(batch)"),
     "6.4", "known mistake: total overwritten"),
    ("training loop weights every batch as full", ("training.py", "total += loss.item() * len(batch)",
                                                   "total += loss.item() * batch_size"), "6.4",
     "known mistake: every batch weighted as full"),
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
    # tests/release/mistakes.py
    "unbroadcast drops the size-1 axes": "size-1 axes dropped", "unbroadcast averages": "mean instead of sum",
    "sub loses the minus sign": "sign lost on b", "cos loses its minus sign": "sign lost",
    "abs forgets the sign of x": "sign of x missing", "max gives every tie the whole gradient": "ties not shared",
    "transpose backward repeats the permutation": "forward permutation reused",
    "gelu forgets the inner derivative": "inner derivative missing", "softmax backward loses its sign": "sign flipped",
    **{name: phrase.removeprefix("known mistake: ") for name, _, _, phrase in BUGGY},
}
NAMED.update({  # ---- stage 6: tests/grader/variants.py, variants_edges.py and tests/release/mistakes.py
    "parameters misses lists": "lists and dicts not searched",
    "parameters lists a shared module twice": "shared parameter counted twice",
    "parameters takes any Tensor": "plain Tensor taken", "parameters sorted by attribute name": "sorted by name",
    "mlp activation after the last layer": "activation after the last layer",
    "sgd momentum dampened": "momentum dampened", "sgd weight decay subtracted": "weight decay subtracted",
    "sgd updates parameters without a gradient": "updated without a gradient",
    "adam without bias correction": "bias correction missing", "adam epsilon inside the correction": "eps before the correction",
    "adam epsilon under the square root": "eps inside the root",
    "adam step counter shared between parameters": "step count shared",
    "adam second moment without the square": "v of |g|", "adam decoupled weight decay": "weight decay decoupled",
    "adam updates parameters without a gradient": "updated without a gradient",
    "training loop averages the batch losses unweighted": "mean of the batch means",
    "training loop forgets zero_grad": "zero_grad missing",
    "training loop zeroes after backward": "zero_grad between backward and step",
    "training loop steps before backward": "step before backward", "training loop averages batch means": "batch sizes left out",
    "sgd momentum with the learning rate inside the buffer": "lr inside the buffer",
    "sgd adds weight decay after the momentum": "weight decay after the momentum",
    "adam corrects m only": "v not corrected", "adam counts the steps from 0": "t from 0",
    "adam bias correction multiplies by t": "correction as a product", "adam keeps the corrected m in its state": "corrected m kept",
    "linear forgets the transpose": "weight not transposed", "adam without the bias correction of m": "m not corrected",
    "adam with eps inside the square root": "eps under the root before the correction",
    "train_epoch never clears the gradients": "zero_grad missing",
})

# Variants whose visible check first meets another of their faults (so it names no mistake
# there, and never a wrong one): the float32 case of Task 3.1 runs before its x = 0 case.
FIRST_FAILS_ELSEWHERE_IN_THE_NOTEBOOK = {"abs derivative 1 at zero"}
# the learner's own step raises in the notebook (its exception is shown, a value's site names none): stage 6
FIRST_FAILS_ELSEWHERE_IN_THE_NOTEBOOK |= {"adam counts the steps from 0", "adam bias correction multiplies by t"}


def named_in_notebook(name: str) -> set[str]:
    """What the visible check of a variant must name: the same as the hidden checks, unless it fails first elsewhere."""
    return {NAMED[name]} if name in NAMED and name not in FIRST_FAILS_ELSEWHERE_IN_THE_NOTEBOOK else set()

