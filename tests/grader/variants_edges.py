"""Buggy and alternative versions of the reference for the edges: return types and 0-d
results, modules' starting values, optimizer state under a changing learning rate, and
numerics where exps overflow or probabilities underflow (the same format as variants.py).
Each buggy variant is written as a learner would write it; its explanation names the
concept to fix."""

BUGGY = [
    # ---- return types and 0-d results
    ("broadcast_shapes returns a list", ("shapes.py", "        result.append(sizes.pop() if sizes else 1)\n    return tuple(result)",
                                         "        result.append(sizes.pop() if sizes else 1)\n    return result"),
     "2.1", "the API gives a tuple"),
    ("unbroadcast returns a Python float for a 0-d shape", ("shapes.py",
        "    extra = grad.ndim - len(shape)  # leading axes the input did not have\n",
        "    if len(shape) == 0:\n        return float(grad.sum())\n"
        "    extra = grad.ndim - len(shape)  # leading axes the input did not have\n"), "2.2", "0-d array"),
    ("stack backward returns a generator", ("ops_index.py",
        "return tuple(np.take(grad, i, axis=ctx.axis) for i in range(ctx.count))",
        "return (np.take(grad, i, axis=ctx.axis) for i in range(ctx.count))"), "4.3", "generator expression"),
    # ---- numerics at the edges
    ("logsumexp backward divides exp(x) by exp(out)", ("ops_softmax.py", "        return grad * np.exp(x - out)",
                                                      "        return grad * np.exp(x) / np.exp(out)"),
     "5.3", "exp(x - out)"),
    ("stable_logsumexp subtracts the maximum of the whole array", ("ops_softmax.py",
        "    m = x.max(axis=axes, keepdims=True)\n", "    m = x.max()\n"), "5.3", "own maximum"),
    ("stable_logsumexp shifted by the mean", ("ops_softmax.py", "    m = x.max(axis=axes, keepdims=True)\n",
                                              "    m = x.mean(axis=axes, keepdims=True)\n"), "5.3", "not the mean"),
    ("cross-entropy takes the log of the probabilities", ("losses.py", "losses = -log_p[np.arange(n), target]",
                                                         "losses = -np.log(np.exp(log_p)[np.arange(n), target])"),
     "5.4", "np.log(np.exp(log_p))"),
]

ALTERNATIVES = [
    ("broadcast_shapes by padding with ones, a tuple of Python ints", [("shapes.py",
        "    shapes = [tuple(int(n) for n in shape) for shape in shapes]\n"
        "    ndim = max((len(shape) for shape in shapes), default=0)",
        "    ndim = max((len(s) for s in shapes), default=0)\n"
        "    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]\n"
        "    out = [max(column, default=1) for column in zip(*padded)]\n"
        "    for column, size in zip(zip(*padded), out):\n"
        "        if any(n not in (1, size) for n in column):\n"
        "            raise ValueError(f\"shapes {shapes} do not broadcast\")\n"
        "    return tuple(int(n) for n in out)\n"
        "    shapes = [tuple(int(n) for n in shape) for shape in shapes]\n"
        "    ndim = max((len(shape) for shape in shapes), default=0)")]),
    ("unbroadcast with np.sum over a tuple of axes then np.reshape, a NumPy scalar for shape ()", [("shapes.py",
        "    return grad.sum(axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
        "    summed = np.sum(grad, axis=tuple(range(extra)))\n"
        "    if not shape:\n        return summed  # a NumPy scalar of grad's dtype: a 0-d array to NumPy\n"
        "    return np.sum(summed, axis=tuple(i for i in range(len(shape)) if shape[i] == 1), keepdims=True)")]),
    ("stack backward as a tuple of index expressions", [("ops_index.py",
        "return tuple(np.take(grad, i, axis=ctx.axis) for i in range(ctx.count))",
        "return tuple([grad[(slice(None),) * ctx.axis + (i,)] for i in range(ctx.count)])")]),
    ("logsumexp backward through a softmax shifted by its own maximum", [("ops_softmax.py",
        "        return grad * np.exp(x - out)",
        "        p = np.exp(x - x.max(axis=ctx.axes, keepdims=True))\n"
        "        return grad * (p / p.sum(axis=ctx.axes, keepdims=True))")]),
    ("stable_logsumexp with the maximum's infinities cleared in place", [("ops_softmax.py",
        "    m = x.max(axis=axes, keepdims=True)\n    m = np.where(np.isfinite(m), m, 0)  # all -inf (or inf) along an axis: leave as is\n",
        "    m = np.amax(x, axis=axes, keepdims=True)\n    m[~np.isfinite(m)] = 0\n")]),
    ("cross-entropy losses picked with take_along_axis", [("losses.py", "losses = -log_p[np.arange(n), target]",
        "losses = -np.take_along_axis(log_p, target.reshape(-1, 1), axis=1).reshape(-1)")]),
]
