"""Buggy and alternative versions of the reference package, each a small patch.

A patch is (file in solutions/minitorch, text to find, text to put instead). A buggy
variant names the task that must lose points and words its explanation must contain;
an alternative is a correct solution written differently, as a learner might, and must
keep full marks.
"""

BUGGY = [
    # name, patch, task that fails, phrase of the explanation
    # ---- 1.1 central_difference
    ("central difference one-sided", ("numerical.py", "return (f(*up) - f(*down)) / (2.0 * eps)",
                                      "return (f(*up) - f(*values)) / eps"), "1.1", "one-sided"),
    ("central difference forgets the 2", ("numerical.py", "return (f(*up) - f(*down)) / (2.0 * eps)",
                                          "return (f(*up) - f(*down)) / eps"), "1.1", "central_difference"),
    ("central difference always nudges the first argument", ("numerical.py",
        "    up[arg] = values[arg] + eps\n    down[arg] = values[arg] - eps",
        "    up[0] = values[0] + eps\n    down[0] = values[0] - eps"), "1.1", "arg=1"),
    ("central difference aliases up and down", ("numerical.py", "    up = list(values)\n    down = list(values)",
                                                "    up = down = list(values)"), "1.1", "central_difference"),
    ("central difference with a step of its own", ("numerical.py",   # not "one list for both points": 2e-05 is no 0
        "    up[arg] = values[arg] + eps\n    down[arg] = values[arg] - eps",
        "    up[arg] = values[arg] + 1e-6\n    down[arg] = values[arg] - 1e-6"), "1.1", "it is 2e-05, expected 2"),
    # ---- 1.2 the scalar ops' local derivatives
    ("mul backward swapped", ("scalar.py", "return g * b.data, g * a.data", "return g * a.data, g * b.data"),
     "1.2", "a * b"),
    ("sin derivative sign", ("scalar.py", "return (g * math.cos(a.data),)", "return (-g * math.cos(a.data),)"),
     "1.2", "a.sin()"),
    ("sub gives b the same sign", ("scalar.py", "return g, -g", "return g, g"), "1.2", "a - b"),
    ("div forgets to square b", ("scalar.py", "return g / b.data, -g * a.data / (b.data * b.data)",
                                 "return g / b.data, -g * a.data / b.data"), "1.2", "a / b"),
    ("pow forgets the zero exponent", ("scalar.py", "return (0.0 if c == 0.0 else g * c * a.data ** (c - 1.0),)",
                                       "return (g * c * a.data ** (c - 1.0),)"), "1.2", "a ** 0"),
    ("pow keeps the exponent", ("scalar.py", "return (0.0 if c == 0.0 else g * c * a.data ** (c - 1.0),)",
                                "return (0.0 if c == 0.0 else g * c * a.data ** c,)"), "1.2", "a ** 3"),
    ("scalar tanh derivative from the input", ("scalar.py", "return (g * (1.0 - out * out),)",
                                        "return (g * (1.0 - a.data * a.data),)"), "1.2", "a.tanh()"),
    ("scalar relu derivative 1 at zero", ("scalar.py", "return (g if a.data > 0.0 else 0.0,)",
                                   "return (g if a.data >= 0.0 else 0.0,)"), "1.2", "a.relu() at [0.0]"),
    ("exp derivative uses the input", ("scalar.py", "return (g * out,)", "return (g * a.data,)"), "1.2", "a.exp()"),
    # ---- 1.3 topological order
    ("topological order reversed", ("autodiff.py", "    finished.reverse()\n    return finished", "    return finished"),
     "1.3", "before its parents"),
    ("topological order by recursion", ("autodiff.py",
        "    finished: list[Node] = []\n    seen: set[int] = set()\n    stack: list[tuple[Node, bool]] = [(root, False)]",
        "    finished: list[Node] = []\n    seen: set[int] = set()\n    stack: list[tuple[Node, bool]] = []\n\n"
        "    def visit(node):\n        if id(node) in seen:\n            return\n        seen.add(id(node))\n"
        "        for parent in node.parents:\n            visit(parent)\n        finished.append(node)\n    visit(root)"),
     "1.3", "recursion"),
    # ---- a third fresh learner's (issue 45: m13, m15, m30, m69): named by what the answer shows, no known mistake
    ("scalar log returns a bare number", ("scalar.py", "return (g / a.data,)", "return g / a.data"), "1.2",
     "not a tuple of one gradient per input"),
    ("topological order expands a node each time it pops", ("autodiff.py",
        "        if id(node) in seen:\n            continue\n        seen.add", "        seen.add"), "1.3", "more than once"),
    ("broadcast_shapes raises Exception", ("shapes.py", "            raise ValueError(f\"shapes {listed}",
                                           "            raise Exception(f\"shapes {listed}"), "2.1",
     "where the task asks for a ValueError"),
    ("cat splits at the end too", ("ops_index.py", "np.cumsum(ctx.sizes)[:-1]", "np.cumsum(ctx.sizes)"), "4.3",
     "the last of them empty"),
    ("topological order without a visited set", ("autodiff.py",
        "        if id(node) in seen:\n            continue\n        seen.add(id(node))\n", ""), "1.3", "twice"),
    ("topological order breadth-first", ("autodiff.py",
        "    finished: list[Node] = []\n    seen: set[int] = set()\n    stack: list[tuple[Node, bool]] = [(root, False)]",
        "    order, seen, queue = [root], {id(root)}, [root]\n    while queue:\n        node = queue.pop(0)\n"
        "        for parent in node.parents:\n            if id(parent) not in seen:\n                seen.add(id(parent))\n"
        "                order.append(parent)\n                queue.append(parent)\n    return order\n"
        "    finished: list[Node] = []\n    seen: set[int] = set()\n    stack: list[tuple[Node, bool]] = [(root, False)]"),
     "1.3", "before its parents"),
    # ---- 1.4 backpropagation
    ("backpropagate overwrites", ("autodiff.py",
                                  "pending[key] = parent_grad if key not in pending else pending[key] + parent_grad",
                                  "pending[key] = parent_grad"), "1.4", "sum of its contributions"),
    ("backpropagate ignores the seed", ("autodiff.py", "pending: dict[int, Any] = {id(root): grad}",
                                        "pending: dict[int, Any] = {id(root): 1.0}"), "1.4", "seed"),
    ("backpropagate accumulates every contribution", ("autodiff.py",
        "        node.accumulate(node_grad)\n        for parent, parent_grad in node.chain_rule(node_grad):\n",
        "        if node is root:\n            node.accumulate(node_grad)\n"
        "        for parent, parent_grad in node.chain_rule(node_grad):\n            parent.accumulate(parent_grad)\n"),
     "1.4", "once per node"),
    ("backpropagate adds in place", ("autodiff.py",
        "            pending[key] = parent_grad if key not in pending else pending[key] + parent_grad",
        "            if key in pending:\n                pending[key] += parent_grad\n"
        "            else:\n                pending[key] = parent_grad"), "1.4", "changed the gradient"),
    # ---- 2.1 broadcast_shapes
    ("broadcast_shapes ignores clashes", ("shapes.py", "        if len(sizes) > 1:\n            listed",
                                          "        if False:\n            listed"), "2.1", "must raise ValueError"),
    ("broadcast_shapes aligns from the left", ("shapes.py", "        sizes = {shape[axis] for shape in shapes if len(shape) >= -axis} - {1}",
                                               "        sizes = {shape[ndim + axis] for shape in shapes if len(shape) > ndim + axis} - {1}"),
     "2.1", "broadcast_shapes"),
    ("broadcast_shapes treats size 1 as a clash", ("shapes.py",
        "        sizes = {shape[axis] for shape in shapes if len(shape) >= -axis} - {1}",
        "        sizes = {shape[axis] for shape in shapes if len(shape) >= -axis}"), "2.1", "size-1"),
    ("broadcast_shapes error without the shapes", ("shapes.py",  # walk 7's k2.1e
        "raise ValueError(f\"shapes {listed} cannot be broadcast together: axis {axis} \"\n"
        "                             f\"has sizes {sorted(sizes)} (each must be equal or 1)\")",
        "raise ValueError(\"shapes cannot be broadcast\")"), "2.1", "does not name the shapes (2, 3) and (4,)"),
    ("broadcast_shapes of no shapes", ("shapes.py", "ndim = max((len(shape) for shape in shapes), default=0)",
                                       "ndim = max(len(shape) for shape in shapes)"), "2.1", "broadcast_shapes()"),
    ("broadcast_shapes compares only two shapes", ("shapes.py",
        "        sizes = {shape[axis] for shape in shapes if len(shape) >= -axis} - {1}",
        "        sizes = {shape[axis] for shape in shapes[:2] if len(shape) >= -axis} - {1}"), "2.1", "must raise ValueError"),
    # ---- 2.2 unbroadcast
    ("unbroadcast forgets leading axes", ("shapes.py", "axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
                                          "axis=tuple(stretched), keepdims=True)"), "2.2", "shape"),
    ("unbroadcast loses keepdims", ("shapes.py", "axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
                                    "axis=(*range(extra), *stretched))"), "2.2", "keepdims"),
    ("unbroadcast forgets the offset of the leading axes", ("shapes.py",
        "stretched = [extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1]",
        "stretched = [i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1]"), "2.2", "(1, 4)"),
    ("unbroadcast in float64", ("shapes.py", "axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
                                "axis=(*range(extra), *stretched), keepdims=True).reshape(shape).astype(float)"),
     "2.2", "float32"),
    # ---- 2.3 the binary ops
    ("mul forgets to unbroadcast", ("ops_binary.py", "return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)",
                                    "return grad * b, grad * a"), "2.3", "unbroadcast"),
    ("mul unbroadcasts only the first operand", ("ops_binary.py",
        "return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)",
        "return unbroadcast(grad * b, a.shape), grad * a"), "2.3", "gradient for input 1"),
    ("sub wrong sign", ("ops_binary.py", "return unbroadcast(grad, a_shape), unbroadcast(-grad, b_shape)",
                        "return unbroadcast(grad, a_shape), unbroadcast(grad, b_shape)"), "2.3", "wrong sign"),
    ("div off by factor", ("ops_binary.py", "unbroadcast(-grad * (a / b) / b, b.shape)",
                           "unbroadcast(-2 * grad * a / (b * b), b.shape)"), "2.3", "constant factor"),
    ("div squares b, which overflows float32", ("ops_binary.py", "unbroadcast(-grad * (a / b) / b, b.shape)",  # k2.3c
                                                "unbroadcast(-grad * a / (b * b), b.shape)"), "2.3",
     "b * b overflowed float32"),
    ("div forgets to unbroadcast b", ("ops_binary.py", "unbroadcast(-grad * (a / b) / b, b.shape)",
                                      "-grad * a / (b * b)"), "2.3", "Div"),
    ("pow without the zero-exponent case", ("ops_binary.py",
        "grad_a = grad * np.where(b == 0, 0, b * a ** (b - 1)).astype(grad.dtype, copy=False)",
        "grad_a = grad * (b * a ** (b - 1)).astype(grad.dtype, copy=False)"), "2.3", "zero"),
    ("pow log of a zero base", ("ops_binary.py", "log_a = np.where((a == 0) & (b >= 0), 0, np.log(a))",
                                "log_a = np.log(a)"), "2.3", "Pow"),
    ("maximum ties to a only", ("ops_binary.py", "return _split_by_winner(grad, a > b, a == b, a.shape, b.shape)",
                                "return _split_by_winner(grad, a >= b, a != a, a.shape, b.shape)"), "2.3", "tie"),
    ("minimum ties to a only", ("ops_binary.py", "return _split_by_winner(grad, a < b, a == b, a.shape, b.shape)",
                                "return _split_by_winner(grad, a <= b, a != a, a.shape, b.shape)"), "2.3", "Minimum"),
    ("mul writes into upstream", ("ops_binary.py", "return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)",
                                  "grad_b = unbroadcast(grad * a, b.shape)\n        grad *= b\n        return unbroadcast(grad, a.shape), grad_b"),
     "2.3", "changed the upstream gradient"),
    # ---- 3.1 the unary ops
    ("sigmoid float64 drift", ("ops_unary.py", "return grad * out * (1 - out)",
                               "return grad * out * (np.float64(1.0) - out.astype(np.float64))"), "3.1", "dtype"),
    ("log derivative inverted", ("ops_unary.py", "return grad / x", "return grad * x"), "3.1", "Log"),
    ("sqrt forgets the 2", ("ops_unary.py", "return grad / (2 * out)", "return grad / out"), "3.1", "constant factor"),
    ("abs derivative 1 at zero", ("ops_unary.py", "return grad * np.sign(x)",
                                  "return grad * np.where(x >= 0, 1.0, -1.0)"), "3.1", "x = 0"),
    ("relu derivative 1 at zero", ("ops_unary.py", "return grad * (x > 0)", "return grad * (x >= 0)"), "3.1", "x = 0"),
    ("cos derivative sign", ("ops_unary.py", "return -grad * np.sin(x)", "return grad * np.sin(x)"), "3.1", "wrong sign"),
    ("tanh derivative from the input", ("ops_unary.py", "return grad * (1 - out * out)", "return grad * (1 - x * x)"),
     "3.1", "Tanh"),
    ("exp multiplies in place", ("ops_unary.py", "return grad * out\n", "grad *= out\n        return grad\n"),
     "3.1", "changed the upstream gradient"),
    ("sin float64 drift", ("ops_unary.py", "return grad * np.cos(x)", "return grad * np.cos(x.astype(np.float64))"),
     "3.1", "float32"),
    # ---- 3.2 sum and mean
    ("mean forgets the count", ("ops_reduce.py", "return np.broadcast_to(_lined_up(grad, ctx, \"Mean\") / count, ctx.shape)",
                                "return np.broadcast_to(_lined_up(grad, ctx, \"Mean\"), ctx.shape)"), "3.2", "constant factor"),
    ("sum loses keepdims", ("ops_reduce.py", "return grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)",
                            "return grad"), "3.2", "Sum"),
    ("mean divides by every element", ("ops_reduce.py", "count = math.prod(ctx.shape[a] for a in ctx.axes)",
                                       "count = math.prod(ctx.shape)"), "3.2", "Mean(axis=1"),
    ("sum expands the axes in reverse", ("ops_reduce.py",
        "    return grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)",
        "    if not ctx.keepdims:\n        for a in reversed(ctx.axes):\n            grad = np.expand_dims(grad, a)\n    return grad"),
     "3.2", "raised AxisError"),
    ("sum times float64 ones", ("ops_reduce.py", "return np.broadcast_to(_lined_up(grad, ctx, \"Sum\"), ctx.shape)",
                                "return np.ones(ctx.shape) * _lined_up(grad, ctx, \"Sum\")"), "3.2", "float32"),
    # ---- 3.3 max and min
    ("max gives every tie the full gradient", ("ops_reduce.py", "    return hit * (grad / ties)", "    return hit * grad"),
     "3.3", "ties"),
    ("max count in float64", ("ops_reduce.py", "ties = np.sum(hit, axis=ctx.axes, keepdims=True).astype(grad.dtype)",
                              "ties = np.sum(hit, axis=ctx.axes, keepdims=True)"), "3.3", "float32"),
    ("max forgets to put the reduced axes back", ("ops_reduce.py",
        "    if not ctx.keepdims:\n        grad = np.expand_dims(grad, ctx.axes)\n    hit = x == out", "    hit = x == out"),
     "3.3", "keepdims=False"),
    # ---- 4.1 movement ops
    ("transpose without inverse", ("ops_shape.py", "return grad.transpose([ctx.axes.index(i) for i in range(len(ctx.axes))])",
                                   "return grad.transpose(ctx.axes)"), "4.1", "Transpose"),
    ("reshape returns the gradient as is", ("ops_shape.py",
        "        # Task 4.1: Reshape.backward\n        ### BEGIN SOLUTION\n        return grad.reshape(ctx.shape)",
        "        # Task 4.1: Reshape.backward\n        ### BEGIN SOLUTION\n        return grad"), "4.1",
     "the gradient has the output's shape"),
    ("transpose backward returns the gradient as is", ("ops_shape.py",
        "        return grad.transpose([ctx.axes.index(i) for i in range(len(ctx.axes))])", "        return grad"), "4.1",
     "the gradient has the output's shape"),
    ("broadcast_to sums the first axis only", ("ops_shape.py", "        return unbroadcast(grad, ctx.shape)",
        "        return grad.sum(axis=0) if grad.ndim > len(ctx.shape) else grad"), "4.1", "BroadcastTo"),
    ("squeeze puts the axis back at the end", ("ops_shape.py",
        "        # Task 4.1: Squeeze.backward\n        ### BEGIN SOLUTION\n        return grad.reshape(ctx.shape)",
        "        # Task 4.1: Squeeze.backward\n        ### BEGIN SOLUTION\n        return np.expand_dims(grad, -1)"),
     "4.1", "Squeeze"),
    ("unsqueeze squeezes every size-1 axis", ("ops_shape.py",
        "        # Task 4.1: Unsqueeze.backward\n        ### BEGIN SOLUTION\n        return grad.reshape(ctx.shape)",
        "        # Task 4.1: Unsqueeze.backward\n        ### BEGIN SOLUTION\n        return np.squeeze(grad)"),
     "4.1", "Unsqueeze"),
    ("reshape backward reads the gradient in memory order", ("ops_shape.py",
        "# Task 4.1: Reshape.backward\n        ### BEGIN SOLUTION\n        return grad.reshape(ctx.shape)",
        "# Task 4.1: Reshape.backward\n        ### BEGIN SOLUTION\n        return np.ravel(grad, order='K').reshape(ctx.shape)"),
     "4.1", "memory order"),
    # ---- 4.2 indexing
    ("getitem loses repeats", ("ops_index.py", "np.add.at(full, ctx.index, grad)  # unlike full[index] += grad, repeats add up",
                               "full[ctx.index] += grad"), "4.2", "picked three times"),
    ("getitem assigns instead of adding", ("ops_index.py",
        "np.add.at(full, ctx.index, grad)  # unlike full[index] += grad, repeats add up", "full[ctx.index] = grad"),
     "4.2", "picked three times"),
    ("getitem zeros in float64", ("ops_index.py", "full = np.zeros(ctx.shape, dtype=ctx.dtype)", "full = np.zeros(ctx.shape)"),
     "4.2", "float32"),
    ("getitem turns the index into a tuple", ("ops_index.py",
        "np.add.at(full, ctx.index, grad)  # unlike full[index] += grad, repeats add up",
        "np.add.at(full, ctx.index if isinstance(ctx.index, tuple) else tuple(ctx.index), grad)"), "4.2", "GetItem"),
    # ---- 4.3 cat and stack
    ("cat splits at the wrong place", ("ops_index.py", "np.split(grad, np.cumsum(ctx.sizes)[:-1], axis=ctx.axis)",
                                       "np.array_split(grad, len(ctx.sizes), axis=ctx.axis)"), "4.3", "Cat"),
    ("cat splits along axis 0", ("ops_index.py", "np.split(grad, np.cumsum(ctx.sizes)[:-1], axis=ctx.axis)",
                                 "np.split(grad, np.cumsum(ctx.sizes)[:-1])"), "4.3", "Cat(axis=1)"),
    ("stack keeps the stacked axis", ("ops_index.py", "return tuple(np.take(grad, i, axis=ctx.axis) for i in range(ctx.count))",
                                      "return tuple(np.split(grad, ctx.count, axis=ctx.axis))"), "4.3", "Stack"),
    ("stack unstacks along axis 0", ("ops_index.py", "return tuple(np.take(grad, i, axis=ctx.axis) for i in range(ctx.count))",
                                     "return tuple(grad[i] for i in range(ctx.count))"), "4.3", "Stack(axis=1)"),
    # ---- 5.1 matmul
    ("matmul sums b's batch over the first axis only", ("ops_linalg.py",
        "grad_b = unbroadcast(product_like(np.swapaxes(a2, -1, -2), grad2, b2), b2.shape).reshape(b.shape)",
        "grad_b = np.swapaxes(a2, -1, -2) @ grad2\n            grad_b = (grad_b.sum(axis=0) if grad_b.ndim > b2.ndim "
        "else grad_b).reshape(b.shape)"), "5.1", "batched"),
    ("matmul transposed gradient", ("ops_linalg.py", "grad_a = unbroadcast(grad2 @ np.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)",
                                    "grad_a = unbroadcast(grad2 @ b2, a2.shape).reshape(a.shape)"), "5.1", "MatMul"),
    ("matmul forgets to reshape a 1-D gradient", ("ops_linalg.py",
        "grad_a = unbroadcast(grad2 @ np.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)",
        "grad_a = unbroadcast(grad2 @ np.swapaxes(b2, -1, -2), a2.shape)"), "5.1", "1-D"),
    ("matmul transposes with .T", ("ops_linalg.py",
        "grad_a = unbroadcast(grad2 @ np.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)",
        "grad_a = unbroadcast(grad2 @ b2.T, a2.shape).reshape(a.shape)"), "5.1", "batched"),
    ("matmul without unbroadcast for b", ("ops_linalg.py",
        "grad_b = unbroadcast(product_like(np.swapaxes(a2, -1, -2), grad2, b2), b2.shape).reshape(b.shape)",
        "grad_b = (np.swapaxes(a2, -1, -2) @ grad2).reshape(b.shape)"), "5.1", "batched"),
    ("matmul fast path reverses a batched operand", ("ops_linalg.py",
        "        return (y.swapaxes(-1, -2) @ x.swapaxes(-1, -2)).swapaxes(-1, -2)",
        "        return (y.T @ x.T).T"), "5.1", "transposed view"),
    # ---- 5.2 GELU
    ("gelu tanh derivative drops a term", ("ops_activation.py", "return grad * (cdf + 2 * x * cdf * (1 - cdf) * du)",
                                           "return grad * cdf"), "5.2", "tanh"),
    ("gelu exact forgets x times the density", ("ops_activation.py", "return grad * (cdf + x * normal_pdf(x))",
                                                "return grad * normal_cdf(x)"), "5.2", "approximate='none'"),
    ("gelu density without its constant", ("ops_activation.py", "    return np.exp(-0.5 * x * x) * (1 / math.sqrt(2.0 * math.pi))",
                                            "    return np.exp(-0.5 * x * x)"), "5.2", "Gelu"),
    ("gelu tanh forgets the 3 of the cube's derivative", ("ops_activation.py",
        "du = SQRT_2_OVER_PI * (1 + 3 * TANH_CUBIC * x * x)", "du = SQRT_2_OVER_PI * (1 + TANH_CUBIC * x * x)"),
     "5.2", "tanh"),
    # ---- 5.3 the softmax family
    ("unstable logsumexp", ("ops_softmax.py", "return m + np.log(np.exp(x - m).sum(axis=axes, keepdims=True))",
                            "return np.log(np.exp(x).sum(axis=axes, keepdims=True))"), "5.3", "overflow"),
    ("logsumexp forgets to add the max back", ("ops_softmax.py",
        "return m + np.log(np.exp(x - m).sum(axis=axes, keepdims=True))",
        "return np.log(np.exp(x - m).sum(axis=axes, keepdims=True))"), "5.3", "stable_logsumexp"),
    ("logsumexp backward forgets the reduced axes", ("ops_softmax.py",
        "        if not ctx.keepdims:\n            grad = np.expand_dims(grad, ctx.axes)\n        return grad * np.exp(x - out)",
        "        return grad * np.exp(x - out)"), "5.3", "keepdims=False"),
    ("log_softmax forgets the sum", ("ops_softmax.py", "return grad - np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)",
                                     "return grad - np.exp(out) * grad"), "5.3", "LogSoftmax"),
    ("softmax sums over every axis", ("ops_softmax.py", "return out * (grad - np.sum(grad * out, axis=ctx.axis, keepdims=True))",
                                      "return out * (grad - np.sum(grad * out))"), "5.3", "Softmax(axis=1)"),
    # ---- 5.4 cross-entropy
    ("cross-entropy forgets the mean", ("losses.py", "    return grad / n if reduction == \"mean\" else grad",
                                        "    return grad"), "5.4", "CrossEntropy"),
    ("cross-entropy one-hot by columns", ("losses.py", "p[np.arange(n), target] -= 1", "p[:, target] -= 1"),
     "5.4", "class indices"),
    ("cross-entropy forward picks whole columns", ("losses.py", "losses = -log_p[np.arange(n), target]",
                                                   "losses = -log_p[:, target].sum(axis=1) / n"), "5.4", "CrossEntropy.forward"),
    ("cross-entropy gradient for the indices", ("losses.py", "return p * rows, None",
                                                "return p * rows, np.zeros_like(target)"), "5.4", "None"),
    ("cross-entropy one-hot from np.eye", ("losses.py",
        "            p[np.arange(n), target] -= 1  # p is a fresh array: safe to change in place\n            return p * rows, None",
        "            return (p - np.eye(p.shape[1])[target]) * rows, None"), "5.4", "float32"),
    ("cross-entropy target gradient sign", ("losses.py", "grad_target = -log_p * rows if", "grad_target = log_p * rows if"),
     "5.4", "wrong sign"),
    ("cross-entropy target gradient though not needed", ("losses.py",
        "grad_target = -log_p * rows if ctx.needs_input_grad[1] else None", "grad_target = -log_p * rows"),
     "5.4", "need no gradient"),
    # ---- 6.1 modules
    ("parameters misses lists", ("nn/modules.py", "        for value in _walk(vars(self).values()):",
                                 "        for value in vars(self).values():"), "6.1", "lists"),
    ("parameters lists a shared module twice", ("nn/modules.py",
        "        found: dict[int, Parameter] = {}\n        for value in _walk(vars(self).values()):\n"
        "            if isinstance(value, Parameter):\n                found.setdefault(id(value), value)\n"
        "            elif isinstance(value, Module):\n                for p in value.parameters():\n"
        "                    found.setdefault(id(p), p)\n        return list(found.values())",
        "        found = []\n        for value in _walk(vars(self).values()):\n            if isinstance(value, Parameter):\n"
        "                found.append(value)\n            elif isinstance(value, Module):\n"
        "                found.extend(value.parameters())\n        return found"), "6.1", "once"),
    ("parameters takes any Tensor", ("nn/modules.py", "            if isinstance(value, Parameter):\n                found.setdefault",
                                     "            if isinstance(value, Tensor):\n                found.setdefault"),
     "6.1", "plain Tensor"),
    ("linear ignores bias=False", ("nn/modules.py",
        "self.bias = Parameter(_rng.uniform(-bound, bound, (out_features,)), dtype=dtype) if bias else None",
        "self.bias = Parameter(_rng.uniform(-bound, bound, (out_features,)), dtype=dtype)"), "6.1", "bias=False"),
    ("linear weight stored as (in, out)", ("nn/modules.py",
        "self.weight = Parameter(_rng.uniform(-bound, bound, (out_features, in_features)), dtype=dtype)",
        "self.weight = Parameter(_rng.uniform(-bound, bound, (in_features, out_features)), dtype=dtype)"),
     "6.1", "(3, 5)"),
    ("linear initialised from a normal", ("nn/modules.py",
        "self.weight = Parameter(_rng.uniform(-bound, bound, (out_features, in_features)), dtype=dtype)",
        "self.weight = Parameter(_rng.standard_normal((out_features, in_features)), dtype=dtype)"), "6.1", "uniform"),
    ("mlp activation after the last layer", ("nn/modules.py",
        "        for layer in self.layers[:-1]:\n            x = act(layer(x))\n        return self.layers[-1](x)",
        "        for layer in self.layers:\n            x = act(layer(x))\n        return x"), "6.1", "none after the last"),
    # ---- 6.2 SGD
    ("sgd momentum dampened", ("optim.py", "g = np.array(g) if buffer is None else self.momentum * buffer + g",
                               "g = np.array(g) if buffer is None else self.momentum * buffer + (1 - self.momentum) * g"),
     "6.2", "SGD"),
    ("sgd momentum buffer shared between parameters", ("optim.py",
        "                buffer = state.get(\"momentum_buffer\")\n"
        "                g = np.array(g) if buffer is None else self.momentum * buffer + g\n"
        "                state[\"momentum_buffer\"] = g",
        "                buffer = getattr(self, \"buffer\", None)\n"
        "                g = np.array(g) if buffer is None else self.momentum * buffer + g\n"
        "                self.buffer = g"), "6.2", "its own state"),
    ("sgd weight decay subtracted", ("optim.py",
        "            g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad\n            if self.momentum:",
        "            g = p.grad - self.weight_decay * p.data if self.weight_decay else p.grad\n            if self.momentum:"),
     "6.2", "weight_decay=0.05"),
    ("sgd updates parameters without a gradient", ("optim.py",
        "            if p.grad is None:\n                continue\n            # Task 6.2",
        "            if p.grad is None:\n                p.grad = np.zeros_like(p.data)\n            # Task 6.2"),
     "6.2", "grad is None"),
    ("sgd rebinds instead of updating", ("optim.py", "            p.data -= self.lr * g\n",
                                         "            p = p - self.lr * g\n"), "6.2", "SGD(lr=0.1, momentum=0.0"),
    ("sgd gives p.data a new array", ("optim.py", "            p.data -= self.lr * g\n",
                                      "            p.data = p.data - self.lr * g\n"), "6.2", "in place"),
    # ---- 6.3 Adam
    ("adam without bias correction", ("optim.py", "p.data -= (self.lr / (1 - beta1 ** t)) * m / denom",
                                      "p.data -= self.lr * m / (np.sqrt(v) + self.eps)"), "6.3", "bias correction"),
    ("adam epsilon inside the correction", ("optim.py",
        "denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + self.eps",
        "denom = (np.sqrt(v) + self.eps) / math.sqrt(1 - beta2 ** t)"), "6.3", "eps=0.001"),
    ("adam epsilon under the square root", ("optim.py",
        "denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + self.eps",
        "denom = np.sqrt(v / (1 - beta2 ** t) + self.eps)"), "6.3", "Adam"),
    ("adam step counter shared between parameters", ("optim.py",
        "t = state[\"step\"] = state.get(\"step\", 0) + 1",
        "t = self.t = getattr(self, \"t\", 0) + 1"), "6.3", "its own state"),
    ("adam second moment without the square", ("optim.py",
        "v = state[\"v\"] = beta2 * state.get(\"v\", 0) + (1 - beta2) * g * g",
        "v = state[\"v\"] = beta2 * state.get(\"v\", 0) + (1 - beta2) * np.abs(g)"), "6.3", "Adam"),
    ("adam decoupled weight decay", ("optim.py",
        "            g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad\n            t = state",
        "            g = p.grad\n            p.data -= self.lr * self.weight_decay * p.data\n            t = state"),
     "6.3", "weight_decay=0.1"),
    ("adam gives p.data a new array", ("optim.py", "p.data -= (self.lr / (1 - beta1 ** t)) * m / denom",
                                       "p.data = p.data - (self.lr / (1 - beta1 ** t)) * m / denom"), "6.3", "in place"),
    ("adam updates parameters without a gradient", ("optim.py",
        "            if p.grad is None:\n                continue\n            # Task 6.3",
        "            if p.grad is None:\n                p.grad = np.zeros_like(p.data)\n            # Task 6.3"),
     "6.3", "grad is None"),
    ("linear spread without the square root", ("nn/modules.py", "bound = 1.0 / math.sqrt(in_features)",
                                                 "bound = 1.0 / in_features"), "6.1", "1/in_features"),
    ("linear spread over out_features", ("nn/modules.py", "bound = 1.0 / math.sqrt(in_features)",
                                         "bound = 1.0 / math.sqrt(out_features)"), "6.1", "1/sqrt(out_features)"),
    ("mlp makes each layer with in and out swapped", ("nn/modules.py", "zip(sizes[:-1], sizes[1:])",
                                                      "zip(sizes[1:], sizes[:-1])"), "6.1", "in and out swapped"),
    ("adam step count one ahead of the steps taken", ("optim.py", 't = state["step"] = state.get("step", 0) + 1',
                                                      't = state.get("step", 1)\n            state["step"] = t + 1'),
     "6.3", "state['step']"),
    ("parameters sorted by attribute name", ("nn/modules.py", "for value in _walk(vars(self).values()):",
                                             "for value in _walk([vars(self)[k] for k in sorted(vars(self))]):"),
     "6.1", "order"),
    ("linear ignores its dtype", ("nn/modules.py",
        "self.weight = Parameter(_rng.uniform(-bound, bound, (out_features, in_features)), dtype=dtype)",
        "self.weight = Parameter(_rng.uniform(-bound, bound, (out_features, in_features)))"), "6.1", "float32"),
    # ---- 6.4 the training loop
    ("training loop averages the batch losses unweighted", ("training.py", "total += loss.item() * len(batch)",
                                                             "total += loss.item() * len(x) / -(-len(x) // batch_size)"),
     "6.4", "weighted by batch size"),
    ("training loop forgets zero_grad", ("training.py", "        optimizer.zero_grad()\n", ""), "6.4", "zero_grad"),
    ("training loop zeroes after backward", ("training.py",
        "        optimizer.zero_grad()\n        loss = loss_fn(model(Tensor(x[batch])), y[batch])\n        loss.backward()\n",
        "        loss = loss_fn(model(Tensor(x[batch])), y[batch])\n        loss.backward()\n        optimizer.zero_grad()\n"),
     "6.4", "zero_grad"),
    ("training loop steps before backward", ("training.py", "        loss.backward()\n        optimizer.step()\n",
                                             "        optimizer.step()\n        loss.backward()\n"), "6.4", "order"),
    ("training loop averages batch means", ("training.py", "total += loss.item() * len(batch)",
                                            "total += loss.item()"), "6.4", "weighted by batch size"),
    ("training loop uses every example each step", ("training.py",
        "loss = loss_fn(model(Tensor(x[batch])), y[batch])", "loss = loss_fn(model(Tensor(x)), y)"),
     "6.4", "the whole data set"),
    # issue 45, learner 3: mistakes no check caught, or caught without a cause
    ("training loop swaps the loss's arguments", ("training.py", "loss = loss_fn(model(Tensor(x[batch])), y[batch])",
                                                   "loss = loss_fn(y[batch], model(Tensor(x[batch])))"), "6.4",
     "output second"),
    ("sgd buffer is p.grad, updated in place", ("optim.py",
        "                g = np.array(g) if buffer is None else self.momentum * buffer + g\n"
        "                state[\"momentum_buffer\"] = g",
        "                if buffer is None:\n                    buffer = g\n                else:\n"
        "                    buffer *= self.momentum\n                    buffer += g\n"
        "                g = state[\"momentum_buffer\"] = buffer"), "6.2", "an earlier step"),
    ("mlp stops one layer early", ("nn/modules.py",
        "self.layers = [Linear(m, n, dtype=dtype) for m, n in zip(sizes[:-1], sizes[1:])]",
        "self.layers = [Linear(sizes[i], sizes[i + 1], dtype=dtype) for i in range(len(sizes) - 2)]"), "6.1",
     "the last layer is missing"),
]

ALTERNATIVES = [
    # name, patches: correct solutions written differently must keep full marks
    ("central difference with tuple slices", [("numerical.py",
        "    up = list(values)\n    down = list(values)\n    up[arg] = values[arg] + eps\n    down[arg] = values[arg] - eps\n"
        "    return (f(*up) - f(*down)) / (2.0 * eps)",
        "    before, x, after = values[:arg], values[arg], values[arg + 1:]\n"
        "    return (f(*before, x + eps, *after) - f(*before, x - eps, *after)) / (2 * eps)")]),
    ("scalar rules from math functions and float comparisons", [
        ("scalar.py", "return (g * (1.0 - out * out),)", "return (g * (1 - math.tanh(a.data) ** 2),)"),
        ("scalar.py", "return (g if a.data > 0.0 else 0.0,)", "return (g * float(a.data > 0),)"),
        ("scalar.py", "return (0.0 if c == 0.0 else g * c * a.data ** (c - 1.0),)",
         "if c == 0:\n                return (0.0,)\n            return (g * c * a.data ** (c - 1),)"),
        ("scalar.py", "return g / b.data, -g * a.data / (b.data * b.data)", "return g / b.data, -g * a.data / b.data ** 2")]),
    ("topological order by Kahn's algorithm", [("autodiff.py",
        "    finished: list[Node] = []\n    seen: set[int] = set()\n    stack: list[tuple[Node, bool]] = [(root, False)]",
        "    nodes, users, todo = {id(root): root}, {}, [root]\n    while todo:\n        node = todo.pop()\n"
        "        for parent in node.parents:\n            users[id(parent)] = users.get(id(parent), 0) + 1\n"
        "            if id(parent) not in nodes:\n                nodes[id(parent)] = parent\n                todo.append(parent)\n"
        "    order, ready = [], [root]\n    while ready:\n        node = ready.pop()\n        order.append(node)\n"
        "        for parent in node.parents:\n            users[id(parent)] -= 1\n            if users[id(parent)] == 0:\n"
        "                ready.append(parent)\n    return order\n"
        "    finished: list[Node] = []\n    seen: set[int] = set()\n    stack: list[tuple[Node, bool]] = [(root, False)]")]),
    ("backpropagate with a grads dict and get", [("autodiff.py",
        "    pending: dict[int, Any] = {id(root): grad}\n    for node in topological_order(root):\n"
        "        node_grad = pending.pop(id(node), None)\n        if node_grad is None:  # nothing flowed here (a rule returned no gradient)\n"
        "            continue\n        node.accumulate(node_grad)\n        for parent, parent_grad in node.chain_rule(node_grad):\n"
        "            key = id(parent)\n            pending[key] = parent_grad if key not in pending else pending[key] + parent_grad",
        "    grads = {id(root): grad}\n    for node in topological_order(root):\n        g = grads.get(id(node))\n"
        "        if g is None:\n            continue\n        node.accumulate(g)\n"
        "        for parent, contribution in node.chain_rule(g):\n            previous = grads.get(id(parent))\n"
        "            grads[id(parent)] = contribution if previous is None else previous + contribution")]),
    # (the 1s left out before the max: a 0 with a 1 broadcasts to 0, issue 45; the max of all is a known mistake)
    ("broadcast_shapes with zip_longest", [("shapes.py",
        "    shapes = [tuple(int(n) for n in shape) for shape in shapes]\n    ndim = max((len(shape) for shape in shapes), default=0)",
        "    from itertools import zip_longest\n    out = []\n"
        "    for sizes in zip_longest(*[tuple(reversed(s)) for s in shapes], fillvalue=1):\n"
        "        big = max((n for n in sizes if n != 1), default=1)\n        if any(n not in (1, big) for n in sizes):\n"
        "            raise ValueError(f\"shapes {shapes} do not broadcast\")\n        out.append(big)\n"
        "    return tuple(reversed(out))\n"
        "    shapes = [tuple(int(n) for n in shape) for shape in shapes]\n    ndim = max((len(shape) for shape in shapes), default=0)")]),
    ("unbroadcast by repeated sums", [("shapes.py",
        "    extra = grad.ndim - len(shape)  # leading axes the input did not have\n"
        "    stretched = [extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1]\n"
        "    return grad.sum(axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
        "    while grad.ndim > len(shape):\n        grad = grad.sum(axis=0)\n"
        "    for i, n in enumerate(shape):\n        if n == 1 and grad.shape[i] != 1:\n"
        "            grad = grad.sum(axis=i, keepdims=True)\n    return grad")]),
    ("maximum and minimum with np.where", [
        ("ops_binary.py", "return _split_by_winner(grad, a > b, a == b, a.shape, b.shape)",
         "to_a = np.where(a > b, grad, np.where(a == b, grad / 2, 0))\n"
         "        return unbroadcast(to_a, a.shape), unbroadcast(grad - to_a, b.shape)"),
        ("ops_binary.py", "return _split_by_winner(grad, a < b, a == b, a.shape, b.shape)",
         "to_b = np.where(b < a, grad, np.where(a == b, 0.5 * grad, 0))\n"
         "        return unbroadcast(grad - to_b, a.shape), unbroadcast(to_b, b.shape)")]),
    ("pow and div from the output", [
        ("ops_binary.py",
         "            grad_a = grad * np.where(b == 0, 0, b * a ** (b - 1)).astype(grad.dtype, copy=False)",
         "            grad_a = np.where(b == 0, 0, grad * b * np.power(a, b - 1))"),
        ("ops_binary.py", "log_a = np.where((a == 0) & (b >= 0), 0, np.log(a))", "log_a = np.log(np.where(a == 0, 1, a))"),
        ("ops_binary.py", "return unbroadcast(grad / b, a.shape), unbroadcast(-grad * (a / b) / b, b.shape)",
         "out = a / b\n        return unbroadcast(grad / b, a.shape), unbroadcast(-grad * out / b, b.shape)")]),
    ("relu with where and float32 care", [("ops_unary.py", "        return grad * (x > 0)",
        "        return np.where(x > 0, grad, np.zeros((), dtype=grad.dtype))")]),
    ("abs, sqrt and sigmoid written out", [
        ("ops_unary.py", "return grad * np.sign(x)", "return np.where(x > 0, grad, np.where(x < 0, -grad, 0))"),
        ("ops_unary.py", "return grad / (2 * out)", "return 0.5 * grad / out"),
        ("ops_unary.py", "return grad * out * (1 - out)", "return grad * (out - out ** 2)")]),
    ("sum and mean with an explicit keepdims reshape", [
        ("ops_reduce.py", "    return grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)",
         "    kept = [1 if axis in ctx.axes else n for axis, n in enumerate(ctx.shape)]\n    return np.reshape(grad, kept)"),
        ("ops_reduce.py", "        count = math.prod(ctx.shape[a] for a in ctx.axes)\n",
         "        count = math.prod(ctx.shape) // grad.size if grad.size else 1  # max and sum are ops here\n"),
        ("ops_reduce.py", "return np.broadcast_to(_lined_up(grad, ctx, \"Sum\"), ctx.shape)",
         "return _lined_up(grad, ctx, \"Sum\") * np.ones(ctx.shape, dtype=grad.dtype)")]),
    ("max backward with a mask and division in float64 then cast back", [("ops_reduce.py",
        "    return hit * (grad / ties)",
        "    return (hit * (grad.astype(np.float64) / ties.astype(np.float64))).astype(grad.dtype)")]),
    ("max backward with np.where", [("ops_reduce.py", "    return hit * (grad / ties)",
                                      "    return np.where(hit, grad / ties, 0).astype(grad.dtype)")]),
    ("transpose by argsort and broadcast_to by explicit sums", [
        ("ops_shape.py", "return grad.transpose([ctx.axes.index(i) for i in range(len(ctx.axes))])",
         "return np.transpose(grad, np.argsort(ctx.axes))"),
        ("ops_shape.py", "        return unbroadcast(grad, ctx.shape)",
         "        lead = grad.ndim - len(ctx.shape)\n        grad = grad.sum(axis=tuple(range(lead)))\n"
         "        ones = tuple(i for i, n in enumerate(ctx.shape) if n == 1)\n"
         "        return grad.sum(axis=ones, keepdims=True) if ones else grad")]),
    ("getitem with a python loop over repeats", [("ops_index.py",
        "        np.add.at(full, ctx.index, grad)  # unlike full[index] += grad, repeats add up",
        "        positions = np.arange(full.size).reshape(full.shape)[ctx.index]\n"
        "        flat = full.reshape(-1)\n"
        "        for p, g in zip(np.ravel(positions), np.ravel(np.broadcast_to(grad, positions.shape))):\n"
        "            flat[p] += g")]),
    ("getitem with np.bincount", [("ops_index.py",
        "        full = np.zeros(ctx.shape, dtype=ctx.dtype)\n"
        "        np.add.at(full, ctx.index, grad)  # unlike full[index] += grad, repeats add up\n        return full",
        "        size = int(np.prod(ctx.shape))\n        positions = np.arange(size).reshape(ctx.shape)[ctx.index]\n"
        "        weights = np.broadcast_to(grad, positions.shape).ravel()\n"
        "        summed = np.bincount(positions.ravel(), weights=weights, minlength=size)\n"
        "        return summed.reshape(ctx.shape).astype(ctx.dtype)")]),
    ("cat with slices and stack with moveaxis", [
        ("ops_index.py", "return tuple(np.split(grad, np.cumsum(ctx.sizes)[:-1], axis=ctx.axis))",
         "pieces, start = [], 0\n        for size in ctx.sizes:\n"
         "            index = [slice(None)] * grad.ndim\n            index[ctx.axis] = slice(start, start + size)\n"
         "            pieces.append(grad[tuple(index)])\n            start += size\n        return pieces"),
        ("ops_index.py", "return tuple(np.take(grad, i, axis=ctx.axis) for i in range(ctx.count))",
         "return list(np.moveaxis(grad, ctx.axis, 0))")]),
    ("matmul with einsum", [("ops_linalg.py",
        "            grad_a = unbroadcast(grad2 @ np.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)",
        "            grad_a = unbroadcast(np.einsum('...ij,...kj->...ik', grad2, b2), a2.shape).reshape(a.shape)"),
        ("ops_linalg.py",
         "            grad_b = unbroadcast(product_like(np.swapaxes(a2, -1, -2), grad2, b2), b2.shape).reshape(b.shape)",
         "            grad_b = unbroadcast(np.einsum('...ji,...jk->...ik', a2, grad2), b2.shape).reshape(b.shape)")]),
    ("gelu tanh derivative through cosh", [("ops_activation.py",
        "            return grad * (cdf + 2 * x * cdf * (1 - cdf) * du)",
        "            u = tanh_inner(x)\n            return grad * (cdf + 0.5 * x * du / np.cosh(u) ** 2)")]),
    ("gelu tanh derivative that computes the tanh again", [("ops_activation.py",
        "            return grad * (cdf + 2 * x * cdf * (1 - cdf) * du)",
        "            t = np.tanh(tanh_inner(x))\n            return grad * (0.5 * (1 + t) + 0.5 * x * (1 - t * t) * du)")]),
    ("logsumexp trying the direct formula first, with NumPy RuntimeWarnings", [("ops_softmax.py",
        "        return m + np.log(np.exp(x - m).sum(axis=axes, keepdims=True))",
        "        stable = m + np.log(np.exp(x - m).sum(axis=axes, keepdims=True))\n"
        "    direct = np.log(np.exp(x).sum(axis=axes, keepdims=True))  # overflows, warns, is not used\n"
        "    return np.where(np.abs(m) < 300, direct, stable)")]),
    ("softmax family written with the probabilities", [
        ("ops_softmax.py", "return grad - np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)",
         "softmax = np.exp(out)\n        total = grad.sum(axis=ctx.axis)\n"
         "        return grad - softmax * np.expand_dims(total, ctx.axis)"),
        ("ops_softmax.py", "return out * (grad - np.sum(grad * out, axis=ctx.axis, keepdims=True))",
         "return out * grad - out * (out * grad).sum(axis=ctx.axis, keepdims=True)")]),
    ("cross-entropy with a one-hot of the logits' dtype, softmax minus target", [
        ("losses.py", "            p[np.arange(n), target] -= 1  # p is a fresh array: safe to change in place\n"
         "            return p * rows, None",
         "            one_hot = np.eye(p.shape[1], dtype=p.dtype)[target]\n            return (p - one_hot) * rows, None"),
        # probabilities: p times each row's sum, minus the target (p - target alone is right only where rows sum to 1)
        ("losses.py", "grad_logits = (p * np.sum(target, axis=1, keepdims=True) - target) * rows",
         "grad_logits = (np.sum(target, axis=-1)[:, None] * p - target) * rows")]),
    ("parameters by recursion and an explicit MLP loop", [
        ("nn/modules.py", "        found: dict[int, Parameter] = {}\n        for value in _walk(vars(self).values()):\n"
         "            if isinstance(value, Parameter):\n                found.setdefault(id(value), value)\n"
         "            elif isinstance(value, Module):\n                for p in value.parameters():\n"
         "                    found.setdefault(id(p), p)\n        return list(found.values())",
         "        out, seen = [], set()\n\n        def visit(value):\n"
         "            if isinstance(value, Parameter):\n                if id(value) not in seen:\n"
         "                    seen.add(id(value))\n                    out.append(value)\n"
         "            elif isinstance(value, Module):\n                for v in vars(value).values():\n                    visit(v)\n"
         "            elif isinstance(value, (list, tuple)):\n                for v in value:\n                    visit(v)\n"
         "            elif isinstance(value, dict):\n                for v in value.values():\n                    visit(v)\n"
         "        visit(self)\n        return out"),
        ("nn/modules.py", "        for layer in self.layers[:-1]:\n            x = act(layer(x))\n        return self.layers[-1](x)",
         "        for i, layer in enumerate(self.layers):\n            x = layer(x)\n"
         "            if i < len(self.layers) - 1:\n                x = act(x)\n        return x"),
        ("nn/modules.py", "        out = x @ self.weight.T\n        return out if self.bias is None else out + self.bias",
         "        out = x.matmul(self.weight.transpose())\n        if self.bias is not None:\n"
         "            out = out + self.bias\n        return out")]),
    ("sgd with a zero-initialised buffer and weight decay in place", [("optim.py",
        "            g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad\n            if self.momentum:\n"
        "                buffer = state.get(\"momentum_buffer\")\n"
        "                g = np.array(g) if buffer is None else self.momentum * buffer + g\n"
        "                state[\"momentum_buffer\"] = g\n            p.data -= self.lr * g",
        "            d_p = p.grad.copy()\n            if self.weight_decay != 0:\n                d_p += self.weight_decay * p.data\n"
        "            if self.momentum != 0:\n"
        "                if \"momentum_buffer\" not in state:\n                    state[\"momentum_buffer\"] = np.zeros_like(p.data)\n"
        "                state[\"momentum_buffer\"] = self.momentum * state[\"momentum_buffer\"] + d_p\n"
        "                d_p = state[\"momentum_buffer\"]\n            p.data -= self.lr * d_p")]),
    ("adam with separate bias-corrected variables", [("optim.py",
        "            denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + self.eps\n"
        "            p.data -= (self.lr / (1 - beta1 ** t)) * m / denom",
        "            m_hat = m / (1 - beta1 ** t)\n            v_hat = v / (1 - beta2 ** t)\n"
        "            p.data -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)")]),
    ("training loop with model.zero_grad, Tensor targets and float(loss.data)", [("training.py",
        "        optimizer.zero_grad()\n        loss = loss_fn(model(Tensor(x[batch])), y[batch])\n        loss.backward()\n"
        "        optimizer.step()\n        total += loss.item() * len(batch)",
        "        xb, yb = Tensor(x[batch]), Tensor(y[batch])\n        model.zero_grad()\n        pred = model(xb)\n"
        "        loss = loss_fn(pred, yb)\n        loss.backward()\n        optimizer.step()\n"
        "        total += float(loss.data) * len(batch)")]),
    ("training loop clears the gradients after each step", [("training.py",
        "        optimizer.zero_grad()\n        loss = loss_fn(model(Tensor(x[batch])), y[batch])\n        loss.backward()\n"
        "        optimizer.step()\n",
        "        loss = loss_fn(model(Tensor(x[batch])), y[batch])\n        loss.backward()\n        optimizer.step()\n"
        "        optimizer.zero_grad()\n")]),
]
