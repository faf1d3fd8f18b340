"""Buggy and alternative versions of the reference package, each a small patch.

A patch is (file in solutions/minitorch, text to find, text to put instead). A buggy
variant names the task that must lose points and words its explanation must contain.
"""

BUGGY = [
    # name, patch, task that fails, phrase of the explanation
    ("central difference one-sided", ("numerical.py", "return (f(*up) - f(*down)) / (2.0 * eps)",
                                      "return (f(*up) - f(*values)) / eps"), "1.1", "one-sided"),
    ("mul backward swapped", ("scalar.py", "return g * b.data, g * a.data", "return g * a.data, g * b.data"),
     "1.2", "a * b"),
    ("sin derivative sign", ("scalar.py", "return (g * math.cos(a.data),)", "return (-g * math.cos(a.data),)"),
     "1.2", "a.sin()"),
    ("topological order reversed", ("autodiff.py", "    finished.reverse()\n    return finished", "    return finished"),
     "1.3", "before its parents"),
    ("backpropagate overwrites", ("autodiff.py",
                                  "pending[key] = parent_grad if key not in pending else pending[key] + parent_grad",
                                  "pending[key] = parent_grad"), "1.4", "sum of its contributions"),
    ("broadcast_shapes ignores clashes", ("shapes.py", "        if len(sizes) > 1:\n            listed",
                                          "        if False:\n            listed"), "2.1", "must raise ValueError"),
    ("broadcast_shapes aligns from the left", ("shapes.py", "        sizes = {shape[axis] for shape in shapes if len(shape) >= -axis} - {1}",
                                               "        sizes = {shape[ndim + axis] for shape in shapes if len(shape) > ndim + axis} - {1}"),
     "2.1", "broadcast_shapes"),
    ("unbroadcast forgets leading axes", ("shapes.py", "axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
                                          "axis=tuple(stretched), keepdims=True)"), "2.2", "shape"),
    ("unbroadcast loses keepdims", ("shapes.py", "axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
                                    "axis=(*range(extra), *stretched))"), "2.2", "keepdims"),
    ("mul forgets to unbroadcast", ("ops_binary.py", "return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)",
                                    "return grad * b, grad * a"), "2.3", "broadcast axes"),
    ("sub wrong sign", ("ops_binary.py", "return unbroadcast(grad, a_shape), unbroadcast(-grad, b_shape)",
                        "return unbroadcast(grad, a_shape), unbroadcast(grad, b_shape)"), "2.3", "wrong sign"),
    ("div off by factor", ("ops_binary.py", "unbroadcast(-grad * a / (b * b), b.shape)",
                           "unbroadcast(-2 * grad * a / (b * b), b.shape)"), "2.3", "constant factor"),
    ("maximum ties to a only", ("ops_binary.py", "return _split_by_winner(grad, a > b, a == b, a.shape, b.shape)",
                                "return _split_by_winner(grad, a >= b, a != a, a.shape, b.shape)"), "2.3", "tie"),
    ("mul writes into upstream", ("ops_binary.py", "return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)",
                                  "grad_b = unbroadcast(grad * a, b.shape)\n        grad *= b\n        return unbroadcast(grad, a.shape), grad_b"),
     "2.3", "changed the upstream gradient"),
    ("sigmoid float64 drift", ("ops_unary.py", "return grad * out * (1 - out)",
                               "return grad * out * (np.float64(1.0) - out.astype(np.float64))"), "3.1", "dtype"),
    ("log derivative inverted", ("ops_unary.py", "return grad / x", "return grad * x"), "3.1", "Log"),
    ("mean forgets the count", ("ops_reduce.py", "return np.broadcast_to(_with_reduced_axes(grad, ctx) / count, ctx.shape)",
                                "return np.broadcast_to(_with_reduced_axes(grad, ctx), ctx.shape)"), "3.2", "constant factor"),
    ("sum loses keepdims", ("ops_reduce.py", "return grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)",
                            "return grad"), "3.2", "Sum"),
    ("max gives every tie the full gradient", ("ops_reduce.py", "    return hit * (grad / ties)", "    return hit * grad"),
     "3.3", "ties"),
    ("max count in float64", ("ops_reduce.py", "ties = np.sum(hit, axis=ctx.axes, keepdims=True).astype(grad.dtype)",
                              "ties = np.sum(hit, axis=ctx.axes, keepdims=True)"), "3.3", "float32"),
    ("transpose without inverse", ("ops_shape.py", "return grad.transpose([ctx.axes.index(i) for i in range(len(ctx.axes))])",
                                   "return grad.transpose(ctx.axes)"), "4.1", "Transpose"),
    ("getitem loses repeats", ("ops_index.py", "np.add.at(full, ctx.index, grad)  # unlike full[index] += grad, repeats add up",
                               "full[ctx.index] += grad"), "4.2", "picked three times"),
    ("cat splits at the wrong place", ("ops_index.py", "np.split(grad, np.cumsum(ctx.sizes)[:-1], axis=ctx.axis)",
                                       "np.array_split(grad, len(ctx.sizes), axis=ctx.axis)"), "4.3", "Cat"),
    ("matmul transposed gradient", ("ops_linalg.py", "grad_a = unbroadcast(grad2 @ np.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)",
                                    "grad_a = unbroadcast(grad2 @ b2, a2.shape).reshape(a.shape)"), "5.1", "MatMul"),
    ("gelu tanh derivative drops a term", ("ops_activation.py", "return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du)",
                                           "return grad * (0.5 * (1 + t))"), "5.2", "tanh"),
    ("unstable logsumexp", ("ops_softmax.py", "return m + np.log(np.exp(x - m).sum(axis=axes, keepdims=True))",
                            "return np.log(np.exp(x).sum(axis=axes, keepdims=True))"), "5.3", "overflow"),
    ("cross-entropy forgets the mean", ("losses.py", "    return grad / n if reduction == \"mean\" else grad",
                                        "    return grad"), "5.4", "CrossEntropy"),
    ("parameters misses lists", ("nn.py", "        for value in _walk(vars(self).values()):",
                                 "        for value in vars(self).values():"), "6.1", "lists"),
    ("sgd momentum dampened", ("optim.py", "g = np.array(g) if buffer is None else self.momentum * buffer + g",
                               "g = np.array(g) if buffer is None else self.momentum * buffer + (1 - self.momentum) * g"),
     "6.2", "SGD"),
    ("adam without bias correction", ("optim.py", "p.data -= (self.lr / (1 - beta1 ** t)) * m / denom",
                                      "p.data -= self.lr * m / (np.sqrt(v) + self.eps)"), "6.3", "bias correction"),
    ("training loop forgets zero_grad", ("training.py", "        optimizer.zero_grad()\n", ""), "6.4", "zero_grad"),
]

ALTERNATIVES = [
    # name, patches: correct solutions written differently must keep full marks
    ("unbroadcast by repeated sums", [("shapes.py",
        "    extra = grad.ndim - len(shape)  # leading axes the input did not have\n"
        "    stretched = [extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1]\n"
        "    return grad.sum(axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
        "    while grad.ndim > len(shape):\n        grad = grad.sum(axis=0)\n"
        "    for i, n in enumerate(shape):\n        if n == 1 and grad.shape[i] != 1:\n"
        "            grad = grad.sum(axis=i, keepdims=True)\n    return grad")]),
    ("relu with where and float32 care", [("ops_unary.py", "        return grad * (x > 0)",
        "        return np.where(x > 0, grad, np.zeros((), dtype=grad.dtype))")]),
    ("getitem with a python loop over repeats", [("ops_index.py",
        "        np.add.at(full, ctx.index, grad)  # unlike full[index] += grad, repeats add up",
        "        positions = np.arange(full.size).reshape(full.shape)[ctx.index]\n"
        "        flat = full.reshape(-1)\n"
        "        for p, g in zip(np.ravel(positions), np.ravel(np.broadcast_to(grad, positions.shape))):\n"
        "            flat[p] += g")]),
    ("logsumexp trying the direct formula first, with NumPy RuntimeWarnings", [("ops_softmax.py",
        "        return m + np.log(np.exp(x - m).sum(axis=axes, keepdims=True))",
        "        stable = m + np.log(np.exp(x - m).sum(axis=axes, keepdims=True))\n"
        "    direct = np.log(np.exp(x).sum(axis=axes, keepdims=True))  # overflows, warns, is not used\n"
        "    return np.where(np.abs(m) < 300, direct, stable)")]),
    ("max backward with a mask and division in float64 then cast back", [("ops_reduce.py",
        "    return hit * (grad / ties)",
        "    return (hit * (grad.astype(np.float64) / ties.astype(np.float64))).astype(grad.dtype)")]),
]
