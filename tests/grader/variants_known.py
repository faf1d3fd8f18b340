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

BUGGY += [  # ---- stage 1 and Task 2.1
    ("central difference nudges every argument", ("numerical.py", "    up[arg] = values[arg] + eps\n    down[arg] = values[arg] - eps",
                                                  "    up = [v + eps for v in values]\n    down = [v - eps for v in values]"),
     "1.1", "known mistake: every argument nudged"),
    ("central difference one-sided to the left", ("numerical.py", "return (f(*up) - f(*down)) / (2.0 * eps)",
                                                  "return (f(*values) - f(*down)) / eps"), "1.1",
     "known mistake: one-sided difference"),
    ("scalar cos loses its minus sign", ("scalar.py", "return (-g * math.sin(a.data),)", "return (g * math.sin(a.data),)"),
     "1.2", "known mistake: sign lost"),
    ("scalar sigmoid without 1 - out", ("scalar.py", "return (g * out * (1.0 - out),)", "return (g * out,)"), "1.2",
     "known mistake: factor missing"),
    ("scalar log times x", ("scalar.py", "return (g / a.data,)", "return (g * a.data,)"), "1.2", "known mistake: times x"),
    ("scalar tanh without the square", ("scalar.py", "return (g * (1.0 - out * out),)", "return (g * (1.0 - out),)"), "1.2",
     "known mistake: square missing"),
    ("topological order leaves out the leaves", ("autodiff.py", "        if parents_done:\n            finished.append(node)\n",
                                                 "        if parents_done:\n            if node.parents:\n"
                                                 "                finished.append(node)\n"), "1.3", "known mistake: leaves left out"),
    ("topological order leaves out the root", ("autodiff.py", "    finished.reverse()\n    return finished",
                                               "    finished.reverse()\n    return finished[1:]"), "1.3",
     "known mistake: root left out"),
    ("backpropagate passes the seed on", ("autodiff.py", "node.chain_rule(node_grad)", "node.chain_rule(grad)"), "1.4",
     "known mistake: the seed passed on everywhere"),
    ("backpropagate walks leaves first", ("autodiff.py", "    for node in topological_order(root):",
                                          "    for node in reversed(topological_order(root)):"), "1.4",
     "known mistake: walked leaves first"),
    ("backpropagate accumulates only the leaves", ("autodiff.py", "        node.accumulate(node_grad)\n",
                                                   "        if not node.parents:\n            node.accumulate(node_grad)\n"),
     "1.4", "known mistake: only leaves accumulated"),
    ("backpropagate never accumulates", ("autodiff.py", "        node.accumulate(node_grad)\n", ""), "1.4",
     "known mistake: never accumulated"),
    ("broadcast_shapes zips to the shortest shape", ("shapes.py", "ndim = max((len(shape) for shape in shapes), default=0)",
                                                     "ndim = min((len(shape) for shape in shapes), default=0)"), "2.1",
     "known mistake: shortest shape only"),
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
    # ---- stage 1 and Task 2.1 (tests/grader/variants.py, variants_edges.py, tests/release/mistakes.py)
    "central difference one-sided": "one-sided difference", "central difference forgets the 2": "divided by eps",
    "central difference always nudges the first argument": "arg ignored",
    "central difference aliases up and down": "one list for both points",
    "mul backward swapped": "gradients swapped", "sin derivative sign": "sign added", "sub gives b the same sign": "sign lost on b",
    "div forgets to square b": "b not squared", "pow forgets the zero exponent": "0 ** -1 for c = 0",
    "pow keeps the exponent": "exponent not lowered", "scalar tanh derivative from the input": "derivative from the input",
    "scalar relu derivative 1 at zero": "1 at the kink", "exp derivative uses the input": "derivative from the input",
    "topological order reversed": "reversed", "topological order without a visited set": "no visited set",
    "topological order breadth-first": "breadth-first", "backpropagate overwrites": "overwrites instead of summing",
    "backpropagate ignores the seed": "seed ignored", "broadcast_shapes ignores clashes": "no clash error",
    "broadcast_shapes aligns from the left": "aligned from the left",
    "broadcast_shapes treats size 1 as a clash": "size 1 treated as a clash",
    "broadcast_shapes compares only two shapes": "no clash error", "broadcast_shapes returns a list": "list, not a tuple",
    "sin derivative loses its sign": "sign added", "mul gradients swapped": "gradients swapped",
    "pow at 0.0 ** -1": "0 ** -1 for c = 0",
    **{name: phrase.removeprefix("known mistake: ") for name, _, _, phrase in BUGGY},
}

# Variants whose visible check first meets another of their faults (so it names no mistake
# there, and never a wrong one): the float32 case of Task 3.1 runs before its x = 0 case.
FIRST_FAILS_ELSEWHERE_IN_THE_NOTEBOOK = {"abs derivative 1 at zero"}


def named_in_notebook(name: str) -> set[str]:
    """What the visible check of a variant must name: the same as the hidden checks, unless it fails first elsewhere."""
    return {NAMED[name]} if name in NAMED and name not in FIRST_FAILS_ELSEWHERE_IN_THE_NOTEBOOK else set()

