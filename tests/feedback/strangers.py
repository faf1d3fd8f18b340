"""Mistakes a learner could plausibly make, written from the notebooks' task texts alone.

Nobody who wrote this file looked at the course's library of known mistakes or at its
variant lists; the point is to see how the feedback copes with code it was not built for.

Each entry:
    name    a short label
    task    "X.Y", the task whose code is changed
    patch   (file under solutions/minitorch, old text, new text) or a list of them; the old
            text occurs once in the file and lies inside a solution region
    what    the mistake in plain words
    line    1-based line, in the patched file, that a good diagnosis points at
    words   lowercase words or phrases: any of them in a message means it named the mistake
"""

# The TOPO_* texts replace the whole body of topological_order (autodiff.py).
TOPO_OLD = """    finished: list[Node] = []
    seen: set[int] = set()
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            finished.append(node)
            continue
        if id(node) in seen:
            continue
        seen.add(id(node))
        stack.append((node, True))
        for parent in node.parents:
            if id(parent) not in seen:
                stack.append((parent, False))
    finished.reverse()
    return finished"""

TOPO_MARK_ON_PUSH = """    finished: list[Node] = []
    seen: set[int] = {id(root)}
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        node, parents_done = stack.pop()
        if parents_done:
            finished.append(node)
            continue
        stack.append((node, True))
        for parent in node.parents:
            if id(parent) not in seen:
                seen.add(id(parent))
                stack.append((parent, False))
    finished.reverse()
    return finished"""

TOPO_NO_SEEN = """    finished: list[Node] = []

    def visit(node):
        for parent in node.parents:
            visit(parent)
        finished.append(node)

    visit(root)
    finished.reverse()
    return finished"""

TOPO_RECURSIVE = """    finished: list[Node] = []
    seen: set[int] = set()

    def visit(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        for parent in node.parents:
            visit(parent)
        finished.append(node)

    visit(root)
    finished.reverse()
    return finished"""

UNBROADCAST_OLD = """    extra = grad.ndim - len(shape)  # leading axes the input did not have
    stretched = [extra + i for i, n in enumerate(shape) if n == 1 and grad.shape[extra + i] != 1]
    return grad.sum(axis=(*range(extra), *stretched), keepdims=True).reshape(shape)"""

UNBROADCAST_NO_KEEPDIMS = """    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for i, n in enumerate(shape):
        if n == 1 and grad.shape[i] != 1:
            grad = grad.sum(axis=i)
    return grad"""

MISTAKES = [
    # ---------------------------------------------------------------- 1.1 central_difference
    {"name": "cd precedence", "task": "1.1",
     "patch": ("numerical.py", "return (f(*up) - f(*down)) / (2.0 * eps)", "return (f(*up) - f(*down)) / 2.0 * eps"),
     "what": "divides by 2 and then multiplies by eps: the parentheses around 2 * eps are missing",
     "line": 38, "words": ["precedence", "parenthes", "multiplies by eps", "times eps"]},
    {"name": "cd one-sided", "task": "1.1",
     "patch": ("numerical.py", "return (f(*up) - f(*down)) / (2.0 * eps)", "return (f(*up) - f(*values)) / eps"),
     "what": "a forward (one-sided) difference instead of the central one",
     "line": 38, "words": ["one-sided", "forward difference", "two-sided", "central", "both sides"]},
    {"name": "cd divides by eps", "task": "1.1",
     "patch": ("numerical.py", "return (f(*up) - f(*down)) / (2.0 * eps)", "return (f(*up) - f(*down)) / eps"),
     "what": "the two points are 2 eps apart but the difference is divided by eps only",
     "line": 38, "words": ["2 * eps", "2*eps", "2 eps", "twice", "factor of 2", "double"]},

    # ---------------------------------------------------------------- 1.2 Scalar local derivatives
    {"name": "scalar sub no minus", "task": "1.2",
     "patch": ("scalar.py", "            return g, -g\n", "            return g, g\n"),
     "what": "Sub's second input gets +g: the minus of a - b is forgotten",
     "line": 97, "words": ["sign", "minus", "negat"]},
    {"name": "scalar div sign", "task": "1.2",
     "patch": ("scalar.py", "return g / b.data, -g * a.data / (b.data * b.data)",
               "return g / b.data, g * a.data / (b.data * b.data)"),
     "what": "d(a/b)/db written without its minus sign",
     "line": 119, "words": ["sign", "minus", "negat"]},
    {"name": "scalar div not squared", "task": "1.2",
     "patch": ("scalar.py", "return g / b.data, -g * a.data / (b.data * b.data)",
               "return g / b.data, -g * a.data / b.data"),
     "what": "d(a/b)/db divides by b instead of b squared",
     "line": 119, "words": ["square", "b²", "b**2", "b * b", "b^2"]},
    {"name": "scalar pow exponent", "task": "1.2",
     "patch": ("scalar.py", "g * c * a.data ** (c - 1.0)", "g * c * a.data ** c"),
     "what": "power rule without lowering the exponent: c * a**c",
     "line": 132, "words": ["c - 1", "c-1", "exponent", "power rule"]},
    {"name": "scalar tanh uses input", "task": "1.2",
     "patch": ("scalar.py", "return (g * (1.0 - out * out),)", "return (g * (1.0 - a.data * a.data),)"),
     "what": "tanh' written as 1 - x**2 with the input x, not 1 - tanh(x)**2",
     "line": 207, "words": ["out", "output", "tanh(x)", "input instead"]},
    {"name": "scalar cos sign", "task": "1.2",
     "patch": ("scalar.py", "return (-g * math.sin(a.data),)", "return (g * math.sin(a.data),)"),
     "what": "the derivative of cos taken as +sin",
     "line": 197, "words": ["sign", "minus", "negat", "-sin"]},

    # ---------------------------------------------------------------- 1.3 topological order
    {"name": "topo marks on push", "task": "1.3",
     "patch": ("autodiff.py", TOPO_OLD, TOPO_MARK_ON_PUSH),
     "what": "iterative DFS that marks a node seen when it is pushed, so a node reached again "
             "through a deeper path is emitted too early",
     "line": 54, "words": ["push", "when it is expanded", "mark", "visited too early"]},
    {"name": "topo no reverse", "task": "1.3",
     "patch": ("autodiff.py", "    finished.reverse()\n    return finished\n", "    return finished\n"),
     "what": "post-order returned as is: inputs first, the root last; it was never reversed",
     "line": 58, "words": ["reverse", "backwards", "root first", "root last"]},
    {"name": "topo no seen set", "task": "1.3",
     "patch": ("autodiff.py", TOPO_OLD, TOPO_NO_SEEN),
     "what": "recursive DFS with no visited set: a node reached twice is listed twice",
     "line": 45, "words": ["twice", "duplicate", "more than once", "seen", "visited", "once"]},
    {"name": "topo recursion depth", "task": "1.3",
     "patch": ("autodiff.py", TOPO_OLD, TOPO_RECURSIVE),
     "what": "a correct recursive DFS that overflows Python's recursion limit on deep graphs",
     "line": 51, "words": ["recursion", "deep", "stack"]},

    # ---------------------------------------------------------------- 1.4 backpropagate
    {"name": "backprop overwrites", "task": "1.4",
     "patch": ("autodiff.py", "pending[key] = parent_grad if key not in pending else pending[key] + parent_grad",
               "pending[key] = parent_grad"),
     "what": "a node reached along two paths keeps only the last contribution instead of their sum",
     "line": 84, "words": ["sum", "accumulat", "overwrit", "add up", "adds up"]},
    {"name": "backprop in-place add", "task": "1.4",
     "patch": ("autodiff.py",
               "            pending[key] = parent_grad if key not in pending else pending[key] + parent_grad",
               "            if key in pending:\n                pending[key] += parent_grad\n"
               "            else:\n                pending[key] = parent_grad"),
     "what": "adds in place into an array a backward rule returned, which other nodes share (x + x)",
     "line": 85, "words": ["in place", "in-place", "alias", "same array", "copy", "+="]},
    {"name": "backprop chains the root grad", "task": "1.4",
     "patch": ("autodiff.py", "for parent, parent_grad in node.chain_rule(node_grad):",
               "for parent, parent_grad in node.chain_rule(grad):"),
     "what": "passes the root's gradient, not the node's own, to each chain rule",
     "line": 82, "words": ["node_grad", "node's own", "root's gradient", "wrong variable"]},

    # ---------------------------------------------------------------- 2.1 broadcast_shapes
    {"name": "bshapes never reversed", "task": "2.1",
     "patch": ("shapes.py", "for axis in range(-ndim, 0):", "for axis in range(-1, -ndim - 1, -1):"),
     "what": "walks the axes from the right and appends, but never reverses the result",
     "line": 36, "words": ["revers", "order", "backwards"]},
    {"name": "bshapes left aligned", "task": "2.1",
     "patch": [("shapes.py", "for axis in range(-ndim, 0):", "for axis in range(ndim):"),
               ("shapes.py", "if len(shape) >= -axis} - {1}", "if len(shape) > axis} - {1}")],
     "what": "lines the shapes up on the left instead of the right",
     "line": 36, "words": ["right", "trailing", "align", "left"]},
    {"name": "bshapes 1 is a clash", "task": "2.1",
     "patch": ("shapes.py", "if len(shape) >= -axis} - {1}", "if len(shape) >= -axis}"),
     "what": "treats a size-1 axis as a clash instead of letting it stretch",
     "line": 37, "words": ["size 1", "size-1", "stretch", "equal or 1"]},

    # ---------------------------------------------------------------- 2.2 unbroadcast
    {"name": "unb sums without keepdims", "task": "2.2",
     "patch": ("shapes.py", UNBROADCAST_OLD, UNBROADCAST_NO_KEEPDIMS),
     "what": "sums the stretched axes without keepdims, which drops them and shifts the later axes",
     "line": 70, "words": ["keepdims", "keep the size-1", "keep it"]},
    {"name": "unb forgets stretched", "task": "2.2",
     "patch": ("shapes.py", "return grad.sum(axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
               "return grad.sum(axis=tuple(range(extra))).reshape(shape)"),
     "what": "sums only the leading axes, never the stretched size-1 ones",
     "line": 68, "words": ["stretched", "size-1", "size 1"]},
    {"name": "unb offset", "task": "2.2",
     "patch": ("shapes.py", "stretched = [extra + i for i, n", "stretched = [i for i, n"),
     "what": "indexes the stretched axes in the input's numbering, forgetting to add the leading axes",
     "line": 67, "words": ["offset", "leading", "extra", "shift"]},
    {"name": "unb mean", "task": "2.2",
     "patch": ("shapes.py", "return grad.sum(axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
               "return grad.mean(axis=(*range(extra), *stretched), keepdims=True).reshape(shape)"),
     "what": "averages the broadcast copies instead of summing them",
     "line": 68, "words": ["mean", "average", "sum, not"]},

    # ---------------------------------------------------------------- 2.3 binary backward
    {"name": "bin sub no minus", "task": "2.3",
     "patch": ("ops_binary.py", "unbroadcast(-grad, b_shape)", "unbroadcast(grad, b_shape)"),
     "what": "Sub.backward gives b +grad",
     "line": 58, "words": ["sign", "minus", "negat"]},
    {"name": "bin mul swapped", "task": "2.3",
     "patch": ("ops_binary.py", "return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)",
               "return unbroadcast(grad * a, a.shape), unbroadcast(grad * b, b.shape)"),
     "what": "Mul.backward multiplies each input's gradient by itself rather than by the other input",
     "line": 76, "words": ["swap", "the other", "other input"]},
    {"name": "bin div no unbroadcast", "task": "2.3",
     "patch": ("ops_binary.py", "return unbroadcast(grad / b, a.shape), unbroadcast(-grad * (a / b) / b, b.shape)",
               "return grad / b, -grad * a / (b * b)"),
     "what": "Div.backward forgets to unbroadcast, so a broadcast input gets a gradient of the wrong shape",
     "line": 94, "words": ["unbroadcast"]},
    {"name": "bin div precedence", "task": "2.3",
     "patch": ("ops_binary.py", "unbroadcast(-grad * (a / b) / b, b.shape)", "unbroadcast(-grad * a / b * b, b.shape)"),
     "what": "-grad * a / b * b: without parentheses it multiplies by b again",
     "line": 94, "words": ["precedence", "parenthes"]},
    {"name": "bin pow exponent", "task": "2.3",
     "patch": ("ops_binary.py", "b * a ** (b - 1)", "b * a ** b"),
     "what": "Pow's gradient for a does not lower the exponent",
     "line": 119, "words": ["b - 1", "b-1", "exponent", "power rule"]},
    {"name": "bin max ties full", "task": "2.3",
     "patch": [("ops_binary.py", "    to_a = grad * a_wins + half\n", "    to_a = grad * (a_wins | tie)\n"),
               ("ops_binary.py", "    to_b = grad - to_a  # where b won, or the other half of a tie\n",
                "    to_b = grad * ~a_wins\n")],
     "what": "at a tie both inputs get the whole gradient instead of half each",
     "line": 165, "words": ["tie", "half", "split"]},

    # ---------------------------------------------------------------- 3.1 unary backward
    {"name": "un log no grad", "task": "3.1",
     "patch": ("ops_unary.py", "        return grad / x\n", "        return 1 / x\n"),
     "what": "Log.backward returns the local derivative and forgets to multiply by grad",
     "line": 69, "words": ["grad", "upstream", "chain rule"]},
    {"name": "un sqrt precedence", "task": "3.1",
     "patch": ("ops_unary.py", "return grad / (2 * out)", "return grad / 2 * out"),
     "what": "grad / 2 * out multiplies by sqrt(x) instead of dividing",
     "line": 87, "words": ["precedence", "parenthes"]},
    {"name": "un cos sign", "task": "3.1",
     "patch": ("ops_unary.py", "return -grad * np.sin(x)", "return grad * np.sin(x)"),
     "what": "Cos.backward with +sin",
     "line": 138, "words": ["sign", "minus", "negat"]},
    {"name": "un tanh input", "task": "3.1",
     "patch": ("ops_unary.py", "return grad * (1 - out * out)", "return grad * (1 - x * x)"),
     "what": "Tanh.backward uses the input x where tanh(x) (the output) is needed",
     "line": 156, "words": ["out", "output", "tanh(x)"]},
    {"name": "un abs like relu", "task": "3.1",
     "patch": ("ops_unary.py", "return grad * np.sign(x)", "return grad * (x > 0)"),
     "what": "Abs.backward gives 0 for negative x (as relu) instead of -1",
     "line": 104, "words": ["negative", "sign", "-1"]},

    # ---------------------------------------------------------------- 3.2 sum and mean
    {"name": "red keepdims inverted", "task": "3.2",
     "patch": ("ops_reduce.py", "return grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)",
               "return np.expand_dims(grad, ctx.axes) if ctx.keepdims else grad"),
     "what": "the keepdims test is the wrong way round",
     "line": 110, "words": ["keepdims", "wrong way", "inverted"]},
    {"name": "red last axis only", "task": "3.2",
     "patch": ("ops_reduce.py", "return grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)",
               "return grad if ctx.keepdims else np.expand_dims(grad, -1)"),
     "what": "puts the reduced axis back at the end, whatever axis was reduced",
     "line": 110, "words": ["ctx.axes", "which axis", "axis", "axes"]},
    {"name": "red first axis only", "task": "3.2",
     "patch": ("ops_reduce.py", "return grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)",
               "return grad if ctx.keepdims else np.expand_dims(grad, ctx.axes[0])"),
     "what": "puts back only the first reduced axis when several were reduced",
     "line": 110, "words": ["every reduced axis", "all the reduced", "several axes", "tuple"]},

    # ---------------------------------------------------------------- 3.3 max and min
    {"name": "ext tie count no keepdims", "task": "3.3",
     "patch": ("ops_reduce.py", "ties = np.sum(hit, axis=ctx.axes, keepdims=True).astype(grad.dtype)",
               "ties = np.sum(hit, axis=ctx.axes).astype(grad.dtype)"),
     "what": "counts the ties without keepdims, so the count no longer lines up with grad",
     "line": 122, "words": ["keepdims"]},
    {"name": "ext no sharing", "task": "3.3",
     "patch": ("ops_reduce.py", "    return hit * (grad / ties)\n", "    return hit * grad\n"),
     "what": "every tied element gets the whole gradient",
     "line": 123, "words": ["tie", "share", "split", "divide"]},
    {"name": "ext ties over everything", "task": "3.3",
     "patch": ("ops_reduce.py", "ties = np.sum(hit, axis=ctx.axes, keepdims=True).astype(grad.dtype)",
               "ties = np.sum(hit).astype(grad.dtype)"),
     "what": "counts the ties over the whole array instead of per output (along the reduced axes)",
     "line": 122, "words": ["per output", "whole array", "every element", "axis", "axes"]},
    {"name": "ext forgets expand", "task": "3.3",
     "patch": ("ops_reduce.py", "    if not ctx.keepdims:\n        grad = np.expand_dims(grad, ctx.axes)\n    hit = x == out",
               "    hit = x == out"),
     "what": "does not put the reduced axes back into grad when keepdims is False",
     "line": 119, "words": ["expand_dims", "keepdims", "reduced axes"]},

    # ---------------------------------------------------------------- 4.1 shape ops
    {"name": "shape transpose same axes", "task": "4.1",
     "patch": ("ops_shape.py", "return grad.transpose([ctx.axes.index(i) for i in range(len(ctx.axes))])",
               "return grad.transpose(ctx.axes)"),
     "what": "Transpose.backward applies the same permutation again instead of its inverse",
     "line": 66, "words": ["inverse", "argsort", "undo"]},
    {"name": "shape broadcast_to sum0", "task": "4.1",
     "patch": ("ops_shape.py", "        return unbroadcast(grad, ctx.shape)\n", "        return grad.sum(axis=0)\n"),
     "what": "BroadcastTo.backward sums axis 0 whatever was broadcast",
     "line": 86, "words": ["unbroadcast", "stretched", "leading"]},
    {"name": "shape reshape to grad", "task": "4.1",
     "patch": ("ops_shape.py", "    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:\n        # Task 4.1: Reshape.backward\n        ### BEGIN SOLUTION\n        return grad.reshape(ctx.shape)",
               "    def backward(ctx: Context, grad: np.ndarray) -> np.ndarray:\n        # Task 4.1: Reshape.backward\n        ### BEGIN SOLUTION\n        return grad"),
     "what": "Reshape.backward returns grad in the output's shape",
     "line": 42, "words": ["reshape", "input's shape", "ctx.shape"]},

    # ---------------------------------------------------------------- 4.2 getitem
    {"name": "getitem plus-equals", "task": "4.2",
     "patch": ("ops_index.py", "np.add.at(full, ctx.index, grad)", "full[ctx.index] += grad"),
     "what": "full[index] += grad: repeated indices count once",
     "line": 43, "words": ["add.at", "repeat", "repeated"]},
    {"name": "getitem float64", "task": "4.2",
     "patch": ("ops_index.py", "full = np.zeros(ctx.shape, dtype=ctx.dtype)", "full = np.zeros(ctx.shape)"),
     "what": "the gradient array is made float64 whatever the input's dtype",
     "line": 42, "words": ["dtype", "float32", "float64"]},
    {"name": "getitem assigns", "task": "4.2",
     "patch": ("ops_index.py", "np.add.at(full, ctx.index, grad)", "full[ctx.index] = grad"),
     "what": "assigns the gradient into the selected places, so repeats overwrite",
     "line": 43, "words": ["add.at", "repeat", "repeated"]},

    # ---------------------------------------------------------------- 4.3 cat and stack
    {"name": "cat equal split", "task": "4.3",
     "patch": ("ops_index.py", "np.split(grad, np.cumsum(ctx.sizes)[:-1], axis=ctx.axis)",
               "np.split(grad, len(ctx.sizes), axis=ctx.axis)"),
     "what": "splits into equal parts, which only works when the inputs had equal sizes",
     "line": 62, "words": ["equal", "sizes", "cumsum", "split points"]},
    {"name": "cat cumsum not trimmed", "task": "4.3",
     "patch": ("ops_index.py", "np.split(grad, np.cumsum(ctx.sizes)[:-1], axis=ctx.axis)",
               "np.split(grad, np.cumsum(ctx.sizes), axis=ctx.axis)"),
     "what": "splits at every cumulative size, including the last, which adds an empty piece",
     "line": 62, "words": ["empty", "one too many", "extra", "[:-1]", "last"]},
    {"name": "cat axis 0", "task": "4.3",
     "patch": ("ops_index.py", "np.split(grad, np.cumsum(ctx.sizes)[:-1], axis=ctx.axis)",
               "np.split(grad, np.cumsum(ctx.sizes)[:-1])"),
     "what": "splits along axis 0 whatever axis was concatenated",
     "line": 62, "words": ["axis"]},
    {"name": "stack axis 0", "task": "4.3",
     "patch": ("ops_index.py", "return tuple(np.take(grad, i, axis=ctx.axis) for i in range(ctx.count))",
               "return tuple(grad[i] for i in range(ctx.count))"),
     "what": "Stack.backward indexes axis 0 whatever axis was stacked",
     "line": 80, "words": ["axis"]},

    # ---------------------------------------------------------------- 5.1 matmul
    {"name": "mm grad_a no transpose", "task": "5.1",
     "patch": ("ops_linalg.py", "unbroadcast(grad2 @ np.swapaxes(b2, -1, -2), a2.shape)", "unbroadcast(grad2 @ b2, a2.shape)"),
     "what": "grad_a = grad @ b, without transposing b (right only for some square shapes)",
     "line": 45, "words": ["transpose", "swapaxes", "b.t", "bᵀ"]},
    {"name": "mm grad_b dot T", "task": "5.1",
     "patch": ("ops_linalg.py", "product_like(np.swapaxes(a2, -1, -2), grad2, b2)", "product_like(a2.T, grad2, b2)"),
     "what": "a.T reverses every axis, so batched operands get their batch axes moved too",
     "line": 47, "words": [".t", "last two axes", "swapaxes", "batch"]},
    {"name": "mm grad_a no unbroadcast", "task": "5.1",
     "patch": ("ops_linalg.py", "unbroadcast(grad2 @ np.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)",
               "(grad2 @ np.swapaxes(b2, -1, -2)).reshape(a.shape)"),
     "what": "grad_a is not summed over the batch axes a was broadcast along",
     "line": 45, "words": ["unbroadcast", "broadcast", "batch"]},
    {"name": "mm grad_b order", "task": "5.1",
     "patch": ("ops_linalg.py", "product_like(np.swapaxes(a2, -1, -2), grad2, b2)",
               "product_like(grad2, np.swapaxes(a2, -1, -2), b2)"),
     "what": "grad_b = grad @ a.T: the factors in the wrong order",
     "line": 47, "words": ["order", "swap", "a.t @ grad", "aᵀ"]},

    # ---------------------------------------------------------------- 5.2 GELU
    {"name": "gelu pdf without x", "task": "5.2",
     "patch": ("ops_activation.py", "return grad * (cdf + x * normal_pdf(x))", "return grad * (cdf + normal_pdf(x))"),
     "what": "exact GELU: the product rule's second term lacks its factor x",
     "line": 114, "words": ["x *", "times x", "factor x", "product rule"]},
    {"name": "gelu cdf only", "task": "5.2",
     "patch": ("ops_activation.py", "return grad * (cdf + x * normal_pdf(x))", "return grad * cdf"),
     "what": "exact GELU: differentiates x * cdf as if cdf were a constant",
     "line": 114, "words": ["product rule", "second term", "pdf"]},
    {"name": "gelu tanh cubic", "task": "5.2",
     "patch": ("ops_activation.py", "(1 + 3 * TANH_CUBIC * x * x)", "(1 + 3 * TANH_CUBIC * x)"),
     "what": "tanh GELU: the derivative of x**3 written as 3x instead of 3x**2",
     "line": 112, "words": ["x²", "x**2", "x * x", "3x", "square", "cubic"]},
    {"name": "gelu tanh factor 2", "task": "5.2",
     "patch": ("ops_activation.py", "return grad * (cdf + 2 * x * cdf * (1 - cdf) * du)",
               "return grad * (cdf + x * cdf * (1 - cdf) * du)"),
     "what": "tanh GELU: 1 - tanh² = 4 cdf (1 - cdf), with the 0.5 that leaves 2; the 2 is dropped",
     "line": 113, "words": ["factor of 2", "factor 2", "twice", "2 *", "half"]},

    # ---------------------------------------------------------------- 5.3 logsumexp / softmax
    {"name": "lse forgets m", "task": "5.3",
     "patch": ("ops_softmax.py", "return m + np.log(np.exp(x - m).sum(axis=axes, keepdims=True))",
               "return np.log(np.exp(x - m).sum(axis=axes, keepdims=True))"),
     "what": "subtracts the max for stability but never adds it back",
     "line": 67, "words": ["add", "+ m", "max back", "shift"]},
    {"name": "lse max no keepdims", "task": "5.3",
     "patch": ("ops_softmax.py", "m = x.max(axis=axes, keepdims=True)", "m = x.max(axis=axes)"),
     "what": "the max is taken without keepdims, so x - m broadcasts along the wrong axis",
     "line": 64, "words": ["keepdims"]},
    {"name": "lse backward over all", "task": "5.3",
     "patch": ("ops_softmax.py", "        return grad * np.exp(x - out)\n", "        return grad * np.exp(x) / np.sum(np.exp(x))\n"),
     "what": "LogSumExp.backward normalises over the whole array instead of along the reduced axes",
     "line": 93, "words": ["whole array", "every element", "axis", "axes"]},
    {"name": "logsoftmax log probs", "task": "5.3",
     "patch": ("ops_softmax.py", "return grad - np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)",
               "return grad - out * np.sum(grad, axis=ctx.axis, keepdims=True)"),
     "what": "LogSoftmax.backward uses the log-probabilities (out) where the probabilities exp(out) belong",
     "line": 112, "words": ["exp(out)", "probabilit", "exp"]},
    {"name": "logsoftmax sum no keepdims", "task": "5.3",
     "patch": ("ops_softmax.py", "return grad - np.exp(out) * np.sum(grad, axis=ctx.axis, keepdims=True)",
               "return grad - np.exp(out) * np.sum(grad, axis=ctx.axis)"),
     "what": "the row sums lose their axis and broadcast the wrong way",
     "line": 112, "words": ["keepdims"]},
    {"name": "softmax diagonal only", "task": "5.3",
     "patch": ("ops_softmax.py", "return out * (grad - np.sum(grad * out, axis=ctx.axis, keepdims=True))",
               "return grad * out * (1 - out)"),
     "what": "Softmax.backward keeps only the Jacobian's diagonal, as for a sigmoid",
     "line": 132, "words": ["diagonal", "jacobian", "off-diagonal", "sum over"]},
    {"name": "softmax unweighted sum", "task": "5.3",
     "patch": ("ops_softmax.py", "return out * (grad - np.sum(grad * out, axis=ctx.axis, keepdims=True))",
               "return out * (grad - np.sum(grad, axis=ctx.axis, keepdims=True))"),
     "what": "the sum inside Softmax.backward is of grad, not grad * out",
     "line": 132, "words": ["grad * out", "weighted", "times out"]},

    # ---------------------------------------------------------------- 5.4 cross-entropy
    {"name": "ce no minus", "task": "5.4",
     "patch": ("losses.py", "losses = -log_p[np.arange(n), target]", "losses = log_p[np.arange(n), target]"),
     "what": "the loss is log p of the right class, without the minus",
     "line": 62, "words": ["sign", "minus", "negat"]},
    {"name": "ce column index", "task": "5.4",
     "patch": ("losses.py", "losses = -log_p[np.arange(n), target]", "losses = -log_p[:, target]"),
     "what": "log_p[:, target] picks every row's value at every target: an (N, N) array",
     "line": 62, "words": ["np.arange", "arange", "(n, n)", "pair", "one per row"]},
    {"name": "ce probs no axis", "task": "5.4",
     "patch": ("losses.py", "losses = -np.sum(target * log_p, axis=1)", "losses = -np.sum(target * log_p)"),
     "what": "sums over the whole batch instead of per sample, so the mean divides a total",
     "line": 64, "words": ["axis", "per sample", "per row", "each sample"]},
    {"name": "ce backward no rows", "task": "5.4",
     "patch": ("losses.py", "            return p * rows, None\n", "            return p, None\n"),
     "what": "class-index backward forgets the upstream gradient and the 1/N of the mean",
     "line": 78, "words": ["1/n", "mean", "rows", "upstream", "reduction", "scale"]},
    {"name": "ce backward minus target mutated", "task": "5.4",
     "patch": ("losses.py", "            p[np.arange(n), target] -= 1  # p is a fresh array: safe to change in place\n",
               "            p[:, target] -= 1\n"),
     "what": "subtracts 1 from whole columns instead of from each row's own class",
     "line": 77, "words": ["np.arange", "arange", "each row", "one per row", "column"]},

    # ---------------------------------------------------------------- 6.1 Module / Linear / MLP
    {"name": "params no lists", "task": "6.1",
     "patch": ("nn/modules.py", "for value in _walk(vars(self).values()):", "for value in vars(self).values():"),
     "what": "parameters() ignores modules kept in a list (MLP.layers)",
     "line": 56, "words": ["list", "nested", "layers", "_walk"]},
    {"name": "linear no transpose", "task": "6.1",
     "patch": ("nn/modules.py", "out = x @ self.weight.T", "out = x @ self.weight"),
     "what": "Linear multiplies by weight, not its transpose (weight is (out, in))",
     "line": 105, "words": ["transpose", ".t", "(out, in)", "out_features, in_features"]},
    {"name": "linear bound no sqrt", "task": "6.1",
     "patch": ("nn/modules.py", "bound = 1.0 / math.sqrt(in_features)", "bound = 1.0 / in_features"),
     "what": "initialises with bound 1/in_features instead of 1/sqrt(in_features)",
     "line": 94, "words": ["sqrt", "square root", "bound"]},
    {"name": "mlp activation after last", "task": "6.1",
     "patch": ("nn/modules.py", "        for layer in self.layers[:-1]:\n            x = act(layer(x))\n        return self.layers[-1](x)",
               "        for layer in self.layers:\n            x = act(layer(x))\n        return x"),
     "what": "applies the activation after the last layer too",
     "line": 139, "words": ["last layer", "final layer", "output layer", "after the last"]},
    {"name": "params duplicates", "task": "6.1",
     "patch": [("nn/modules.py", "        found: dict[int, Parameter] = {}\n", "        found: list[Parameter] = []\n"),
               ("nn/modules.py", "                found.setdefault(id(value), value)\n", "                found.append(value)\n"),
               ("nn/modules.py", "                    found.setdefault(id(p), p)\n", "                    found.append(p)\n"),
               ("nn/modules.py", "        return list(found.values())\n", "        return found\n")],
     "what": "a list with no de-duplication: a shared parameter is listed twice",
     "line": 55, "words": ["twice", "duplicate", "once", "shared"]},

    # ---------------------------------------------------------------- 6.2 SGD
    {"name": "sgd buffer not stored", "task": "6.2",
     "patch": ("optim.py", "                state[\"momentum_buffer\"] = g\n", ""),
     "what": "momentum buffer computed but never stored in the state, so momentum never builds up",
     "line": 64, "words": ["store", "buffer", "state"]},
    {"name": "sgd decay sign", "task": "6.2",
     "patch": ("optim.py", "            g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad\n"
               "            if self.momentum:",
               "            g = p.grad - self.weight_decay * p.data if self.weight_decay else p.grad\n"
               "            if self.momentum:"),
     "what": "weight decay subtracted from the gradient, which grows the weights",
     "line": 60, "words": ["sign", "minus", "grows"]},
    {"name": "sgd dampened", "task": "6.2",
     "patch": ("optim.py", "self.momentum * buffer + g", "self.momentum * buffer + (1 - self.momentum) * g"),
     "what": "momentum as an exponential average (1 - momentum) * g, not the plain sum the task asks for",
     "line": 63, "words": ["1 - momentum", "dampen", "average"]},
    {"name": "sgd steps by raw grad", "task": "6.2",
     "patch": ("optim.py", "            p.data -= self.lr * g\n", "            p.data -= self.lr * p.grad\n"),
     "what": "computes the decayed gradient and the momentum buffer, then steps by p.grad anyway (the wrong variable)",
     "line": 65, "words": ["p.grad", "wrong variable", "buffer is not used", "not used", "ignored"]},

    # ---------------------------------------------------------------- 6.3 Adam
    {"name": "adam v with beta1", "task": "6.3",
     "patch": ("optim.py", "np.sqrt(v) / math.sqrt(1 - beta2 ** t)", "np.sqrt(v) / math.sqrt(1 - beta1 ** t)"),
     "what": "v is bias-corrected with beta1 instead of beta2",
     "line": 87, "words": ["beta2"]},
    {"name": "adam no correction", "task": "6.3",
     "patch": [("optim.py", "denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + self.eps", "denom = np.sqrt(v) + self.eps"),
               ("optim.py", "p.data -= (self.lr / (1 - beta1 ** t)) * m / denom", "p.data -= self.lr * m / denom")],
     "what": "no bias correction at all",
     "line": 87, "words": ["bias correction", "bias-correct", "correct"]},
    {"name": "adam step starts at 0", "task": "6.3",
     "patch": ("optim.py", "t = state[\"step\"] = state.get(\"step\", 0) + 1",
               "t = state.get(\"step\", 0)\n            state[\"step\"] = t + 1"),
     "what": "t read before it is incremented: the first step has t = 0 and divides by 1 - beta**0 = 0",
     "line": 84, "words": ["t = 0", "starts at 1", "off by one", "increment", "step count"]},
    {"name": "adam v not squared", "task": "6.3",
     "patch": ("optim.py", "(1 - beta2) * g * g", "(1 - beta2) * g"),
     "what": "v averages g instead of g squared",
     "line": 86, "words": ["square", "g²", "g * g", "g**2"]},
    {"name": "adam decoupled decay", "task": "6.3",
     "patch": [("optim.py", "            g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad\n            t =",
                "            g = p.grad\n            t ="),
               ("optim.py", "p.data -= (self.lr / (1 - beta1 ** t)) * m / denom",
                "p.data -= (self.lr / (1 - beta1 ** t)) * m / denom + self.lr * self.weight_decay * p.data")],
     "what": "AdamW-style decay applied to the weights directly, instead of added to the gradient as the task says",
     "line": 88, "words": ["decoupled", "adamw", "to the gradient", "added to g"]},

    # ---------------------------------------------------------------- 6.4 train_epoch
    {"name": "epoch no zero_grad", "task": "6.4",
     "patch": ("training.py", "        optimizer.zero_grad()\n        loss = loss_fn(", "        loss = loss_fn("),
     "what": "gradients never cleared, so they pile up across batches",
     "line": 44, "words": ["zero_grad"]},
    {"name": "epoch unweighted total", "task": "6.4",
     "patch": ("training.py", "total += loss.item() * len(batch)", "total += loss.item()"),
     "what": "adds each batch's mean loss without weighting it by the batch size",
     "line": 48, "words": ["len(batch)", "batch size", "weight"]},
    {"name": "epoch step before backward", "task": "6.4",
     "patch": ("training.py", "        loss.backward()\n        optimizer.step()\n        total",
               "        optimizer.step()\n        loss.backward()\n        total"),
     "what": "steps before backward, so each step uses no (or the previous batch's) gradient",
     "line": 46, "words": ["order", "before", "after"]},

    # ---------------------------------------------------------------- 7.1 layer_norm backward
    {"name": "ln no xhat term", "task": "7.1",
     "patch": ("ops_norm.py", "grad_x = rstd * (g - mean_last(g) - xhat * mean_last(g * xhat))",
               "grad_x = rstd * (g - mean_last(g))"),
     "what": "grad_x misses the term through the variance, xhat * mean(g * xhat)",
     "line": 63, "words": ["xhat", "variance", "third term", "mean_last(g * xhat)"]},
    {"name": "ln weight forgotten", "task": "7.1",
     "patch": ("ops_norm.py", "        g = grad * weight  # d(loss)/d(xhat)\n", "        g = grad\n"),
     "what": "the gradient for xhat is not multiplied by the weight",
     "line": 62, "words": ["weight"]},
    {"name": "ln sums axis 0", "task": "7.1",
     "patch": [("ops_norm.py", "grad_weight = (grad * xhat).sum(axis=batch_axes)", "grad_weight = (grad * xhat).sum(axis=0)"),
               ("ops_norm.py", "grad_bias = grad.sum(axis=batch_axes)", "grad_bias = grad.sum(axis=0)")],
     "what": "weight and bias gradients summed over axis 0 only, wrong for (B, T, D) inputs",
     "line": 60, "words": ["leading axes", "every axis but the last", "batch axes", "all axes", "(b, t"]},

    # ---------------------------------------------------------------- 7.2 attention
    {"name": "attn scale by d", "task": "7.2",
     "patch": ("nn/transformer.py", "(1.0 / math.sqrt(d))", "(1.0 / d)"),
     "what": "scores scaled by 1/d instead of 1/sqrt(d)",
     "line": 71, "words": ["sqrt", "square root"]},
    {"name": "attn mask with zero", "task": "7.2",
     "patch": ("nn/transformer.py", "where(causal, scores, -1e9)", "where(causal, scores, 0.0)"),
     "what": "future positions masked with 0 before the softmax, which still gives them weight",
     "line": 73, "words": ["-inf", "-1e9", "large negative", "with 0", "zero"]},
    {"name": "attn softmax axis", "task": "7.2",
     "patch": ("nn/transformer.py", "softmax(where(causal, scores, -1e9), axis=-1)", "softmax(where(causal, scores, -1e9), axis=-2)"),
     "what": "softmax over the queries' axis instead of the keys'",
     "line": 73, "words": ["axis"]},
    {"name": "attn triu", "task": "7.2",
     "patch": ("nn/transformer.py", "causal = np.tril(", "causal = np.triu("),
     "what": "mask keeps the future instead of the past (triu for tril)",
     "line": 72, "words": ["tril", "triu", "future", "upper", "lower"]},
    {"name": "attn merge no transpose", "task": "7.2",
     "patch": ("nn/transformer.py", "merged = (weights @ v).transpose(0, 2, 1, 3).reshape(B, T, D)",
               "merged = (weights @ v).reshape(B, T, D)"),
     "what": "heads merged by reshape without moving the head axis back next to d",
     "line": 75, "words": ["transpose", "head axis", "merge"]},

    # ---------------------------------------------------------------- 7.3 Block and GPT
    {"name": "block ln1 twice", "task": "7.3",
     "patch": ("nn/transformer.py", "self.up(self.ln2(x))", "self.up(self.ln1(x))"),
     "what": "the MLP branch normalises with ln1 as well",
     "line": 92, "words": ["ln2"]},
    {"name": "block attn no ln1", "task": "7.3",
     "patch": ("nn/transformer.py", "x = x + self.attn(self.ln1(x))", "x = x + self.attn(x)"),
     "what": "attention reads x without normalising it first",
     "line": 91, "words": ["ln1"]},
    {"name": "block no residual", "task": "7.3",
     "patch": ("nn/transformer.py", "x = x + self.attn(self.ln1(x))", "x = self.attn(self.ln1(x))"),
     "what": "the attention branch replaces x instead of being added to it",
     "line": 91, "words": ["residual", "skip", "x +", "added"]},
    {"name": "gpt positions of batch", "task": "7.3",
     "patch": ("nn/transformer.py", "self.position(np.arange(idx.shape[1]))", "self.position(np.arange(idx.shape[0]))"),
     "what": "positions numbered along the batch axis instead of the time axis",
     "line": 112, "words": ["shape[1]", "time axis", "positions", "sequence length"]},
    {"name": "gpt no ln_f", "task": "7.3",
     "patch": ("nn/transformer.py", "return self.head(self.ln_f(x))", "return self.head(x)"),
     "what": "the final layer norm is skipped before the head",
     "line": 115, "words": ["ln_f", "final layer norm", "final norm"]},
    {"name": "gpt positions from tokens", "task": "7.3",
     "patch": ("nn/transformer.py", "self.position(np.arange(idx.shape[1]))", "self.position(idx)"),
     "what": "the position table is indexed with the token ids instead of the positions 0..T-1",
     "line": 112, "words": ["np.arange", "arange", "0..t-1", "position index", "positions 0", "token ids"]},

    # ---------------------------------------------------------------- 7.4 training step and sampling
    {"name": "sample row 0", "task": "7.4",
     "patch": ("language.py", "rng.choice(len(row), p=row) for row in p", "rng.choice(len(row), p=p[0]) for row in p"),
     "what": "every row is drawn from the first row's distribution",
     "line": 113, "words": ["row 0", "first row", "each row", "p[0]"]},
    {"name": "sample no temperature", "task": "7.4",
     "patch": ("language.py", "        z = logits / temperature\n", "        z = logits\n"),
     "what": "temperature ignored when sampling",
     "line": 110, "words": ["temperature"]},
    {"name": "sample times temperature", "task": "7.4",
     "patch": ("language.py", "        z = logits / temperature\n", "        z = logits * temperature\n"),
     "what": "logits multiplied by the temperature instead of divided",
     "line": 110, "words": ["divide", "temperature"]},
    {"name": "sample normalise all", "task": "7.4",
     "patch": ("language.py", "p /= p.sum(axis=-1, keepdims=True)", "p /= p.sum()"),
     "what": "probabilities normalised over the whole batch instead of per row",
     "line": 112, "words": ["per row", "each row", "axis"]},
    {"name": "sample greedy axis 0", "task": "7.4",
     "patch": ("language.py", "chosen = logits.argmax(axis=-1)", "chosen = logits.argmax(axis=0)"),
     "what": "greedy pick along the batch axis instead of the vocabulary",
     "line": 108, "words": ["axis"]},
    {"name": "train no zero_grad", "task": "7.4",
     "patch": ("language.py", "        optimizer.zero_grad()\n        loss = loss_on(model, x, y)", "        loss = loss_on(model, x, y)"),
     "what": "the training step never clears the gradients",
     "line": 92, "words": ["zero_grad"]},
    {"name": "train step before backward", "task": "7.4",
     "patch": ("language.py", "        loss.backward()\n        optimizer.step()\n", "        optimizer.step()\n        loss.backward()\n"),
     "what": "optimizer.step() called before loss.backward()",
     "line": 94, "words": ["order", "before"]},
]
