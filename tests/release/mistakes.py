"""Deliberate mistakes of the kind learners make, each a patch of the reference package
(file in solutions/minitorch, text to find, text to put instead), with the task whose
visible check must fail and the words its message must hold: the pattern it names (or,
for the learner's own exception, the exception, the learner's file and the task's hint).
Five or more per stage, from the mistakes issue 33 lists: a lost minus sign, a factor of
2, a transposed matmul gradient, one-hot built wrongly, Adam's bias correction, GELU's
inner derivative, shapes aligned from the left, batch axes not summed, 0.0 ** -1, eps
inside the square root.
"""

MISTAKES = [
    # ---- stage 1
    ("central difference forgets the 2", ("numerical.py", "return (f(*up) - f(*down)) / (2.0 * eps)",
                                          "return (f(*up) - f(*down)) / eps"), "1.1",
     ["known mistake: divided by eps", "Fix: divide the difference by twice eps"]),
    ("sin derivative loses its sign", ("scalar.py", "return (g * math.cos(a.data),)", "return (-g * math.cos(a.data),)"),
     "1.2", ["known mistake: sign added", "got:", "expected:"]),
    ("mul gradients swapped", ("scalar.py", "return g * b.data, g * a.data", "return g * a.data, g * b.data"),
     "1.2", ["known mistake: gradients swapped"]),
    ("pow at 0.0 ** -1", ("scalar.py", "return (0.0 if c == 0.0 else g * c * a.data ** (c - 1.0),)",
                          "return (g * c * a.data ** (c - 1.0),)"), "1.2",
     ["raised ZeroDivisionError", "your line: minitorch/scalar.py, line", "known mistake: 0 ** -1 for c = 0",
      "Fix: give 0 when c is 0"]),
    ("backpropagate ignores the seed", ("autodiff.py", "pending: dict[int, Any] = {id(root): grad}",
                                        "pending: dict[int, Any] = {id(root): 1.0}"), "1.4", ["known mistake: seed ignored"]),
    # ---- stage 2
    ("broadcast_shapes aligns from the left", ("shapes.py",
        "        sizes = {shape[axis] for shape in shapes if len(shape) >= -axis} - {1}",
        "        sizes = {shape[ndim + axis] for shape in shapes if len(shape) > ndim + axis} - {1}"),
     "2.1", ["raised ValueError", "your line: minitorch/shapes.py", "from the right", "mt.hint(\"2.1\")"]),
    ("unbroadcast forgets the leading axes", ("shapes.py", "axis=(*range(extra), *stretched), keepdims=True)",
                                              "axis=tuple(stretched), keepdims=True)"), "2.2",
     ["raised ValueError", "reshape", "your line: minitorch/shapes.py", "unbroadcast(g, (4, 3))", 'mt.hint("2.2")']),
    ("unbroadcast drops the size-1 axes", ("shapes.py", "axis=(*range(extra), *stretched), keepdims=True).reshape(shape)",
                                           "axis=(*range(extra), *stretched))"), "2.2",
     ["came back with shape (4,), not (4, 1)", "known mistake: size-1 axes dropped", "keepdims=True"]),
    ("unbroadcast averages", ("shapes.py", "return grad.sum(axis=(*range(extra), *stretched), keepdims=True)",
                              "return grad.mean(axis=(*range(extra), *stretched), keepdims=True)"), "2.2",
     ["known mistake: mean instead of sum", "got:", "expected:"]),
    ("sub loses the minus sign", ("ops_binary.py", "unbroadcast(-grad, b_shape)", "unbroadcast(grad, b_shape)"),
     "2.3", ["wrong sign"]),
    ("broadcast_shapes error without the shapes", ("shapes.py",
        "raise ValueError(f\"shapes {listed} cannot be broadcast together: axis {axis} \"\n"
        "                             f\"has sizes {sorted(sizes)} (each must be equal or 1)\")",
        "raise ValueError(\"shapes cannot be broadcast\")"), "2.1",
     ["does not name the shapes (3,), (3,) and (4,)", "your line: minitorch/shapes.py", "Fix: put every shape"]),
    ("div squares b, which overflows float32", ("ops_binary.py", "unbroadcast(-grad * (a / b) / b, b.shape)",
                                                "unbroadcast(-grad * a / (b * b), b.shape)"), "2.3",
     ["b * b overflowed float32", "Fix: divide by b twice"]),
    ("div doubles b's gradient", ("ops_binary.py", "unbroadcast(-grad * (a / b) / b, b.shape)",
                                  "unbroadcast(-2 * grad * a / (b * b), b.shape)"), "2.3", ["constant factor of 2"]),
    # ---- stage 3
    ("sqrt forgets the 2", ("ops_unary.py", "return grad / (2 * out)", "return grad / out"), "3.1",
     ["constant factor of 2"]),
    ("cos loses its minus sign", ("ops_unary.py", "return -grad * np.sin(x)", "return grad * np.sin(x)"), "3.1",
     ["wrong sign"]),
    ("abs forgets the sign of x", ("ops_unary.py", "return grad * np.sign(x)", "return grad * 1"), "3.1",
     ["right only where the input is positive"]),
    ("max gives every tie the whole gradient", ("ops_reduce.py", "return hit * (grad / ties)", "return hit * grad"),
     "3.3", ["tie"]),
    # ---- stage 4
    ("transpose backward repeats the permutation", ("ops_shape.py",
        "return grad.transpose([ctx.axes.index(i) for i in range(len(ctx.axes))])", "return grad.transpose(ctx.axes)"),
     "4.1", ["axes are in the wrong order"]),
    ("getitem loses repeated rows", ("ops_index.py", "np.add.at(full, ctx.index, grad)", "full[ctx.index] += grad"),
     "4.2", ["largest difference", "at index"]),
    ("cat splits at every boundary", ("ops_index.py", "np.cumsum(ctx.sizes)[:-1]", "np.cumsum(ctx.sizes)"),
     "4.3", ["returned 4 gradient(s) for 3 input(s)", "the last of them empty"]),
    ("stack keeps the stacked axis", ("ops_index.py", "np.take(grad, i, axis=ctx.axis)",
                                      "np.take(grad, [i], axis=ctx.axis)"), "4.3", ["size-1 axis too many: drop it"]),
    # ---- stage 5
    ("matmul gradient transposed", ("ops_linalg.py", "product_like(np.swapaxes(a2, -1, -2), grad2, b2)",
                                    "np.swapaxes(grad2, -1, -2) @ a2"), "5.1", ["(4, 3) and (3, 4): It is transposed"]),
    ("matmul batch axes not summed", ("ops_linalg.py",
        "grad_b = unbroadcast(product_like(np.swapaxes(a2, -1, -2), grad2, b2), b2.shape).reshape(b.shape)",
        "grad_b = product_like(np.swapaxes(a2, -1, -2), grad2, b2).reshape(b.shape)"), "5.1",
     ["raised ValueError", "your line: minitorch/ops_linalg.py", "an axis of size 5 was not summed"]),
    ("gelu forgets the inner derivative", ("ops_activation.py", "2 * x * cdf * (1 - cdf) * du", "2 * x * cdf * (1 - cdf)"),
     "5.2", ["largest difference", "at index"]),
    ("softmax backward loses its sign", ("ops_softmax.py", "return out * (grad - np.sum(grad * out, axis=ctx.axis, keepdims=True))",
                                         "return out * (np.sum(grad * out, axis=ctx.axis, keepdims=True) - grad)"),
     "5.3", ["wrong sign"]),
    ("one-hot built wrongly", ("losses.py", "p[np.arange(n), target] -= 1", "p[:, target] -= 1"), "5.4",
     ["largest difference", "at index"]),
    ("cross-entropy keeps only the sign of the upstream", ("losses.py", "return p * rows, None",
                                                           "return p * np.sign(rows), None"), "5.4", ["constant factor"]),
    # ---- stage 6
    ("linear forgets the transpose", ("nn/modules.py", "out = x @ self.weight.T", "out = x @ self.weight"), "6.1",
     ["nn.Linear(3, 3)(x)", "x @ weight", "known mistake: weight not transposed", "got:", "expected:"]),
    ("sgd steps uphill", ("optim.py", "p.data -= self.lr * g", "p.data += self.lr * g"), "6.2", ["wrong sign"]),
    ("adam without the bias correction of m", ("optim.py", "p.data -= (self.lr / (1 - beta1 ** t)) * m / denom",
                                               "p.data -= self.lr * m / denom"), "6.3",
     ["parameter 0 after the first step", "known mistake: m not corrected", "1 - beta1 ** t"]),
    ("adam with eps inside the square root", ("optim.py", "denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + self.eps",
                                              "denom = np.sqrt(v + self.eps) / math.sqrt(1 - beta2 ** t)"), "6.3",
     ["parameter 0 after the first step", "known mistake: eps under the root before the correction", "-1.997"]),
    ("train_epoch never clears the gradients", ("training.py", "        optimizer.zero_grad()\n", ""), "6.4",
     ["zero_grad"]),
    # ---- stage 7
    ("layer norm weight gradient not summed over the batch", ("ops_norm.py",
        "grad_weight = (grad * xhat).sum(axis=batch_axes)", "grad_weight = grad * xhat"), "7.1",
     ["Not summed", "axes (0, 1)"]),
    ("layer norm drops a minus sign", ("ops_norm.py", "grad_x = rstd * (g - mean_last(g) - xhat * mean_last(g * xhat))",
                                       "grad_x = rstd * (g - mean_last(g) + xhat * mean_last(g * xhat))"), "7.1",
     ["LayerNorm.backward", "the gradient for input 0", "largest difference", 'mt.hint("7.1")']),
    ("attention without the mask", ("nn/transformer.py", "softmax(where(causal, scores, -1e9), axis=-1)",
                                    "softmax(scores, axis=-1)"), "7.2", ["known mistake: mask missing", "the future"]),
    ("attention forgets the scale", ("nn/transformer.py", "scores = (q @ k) * (1.0 / math.sqrt(d))", "scores = q @ k"),
     "7.2", ["known mistake: scale missing", "√d", "got:"]),
    ("sampling multiplies by the temperature", ("language.py", "z = logits / temperature", "z = logits * temperature"),
     "7.4", ["known mistake: temperature multiplies", "Divide the logits by the temperature", "got:", "expected:"]),
    ("sampling divides by temperature 0", ("language.py", "    if temperature == 0:\n        chosen = logits.argmax(axis=-1)\n"
                                           "    else:\n        z = logits / temperature",
                                           "    if False:\n        chosen = logits.argmax(axis=-1)\n"
                                           "    else:\n        z = logits / temperature"), "7.4",
     ["language.sample_next(logits, 0, rng) with 3 rows of 4 logits, temperature 0 raised", "your line: minitorch/language.py",
      "with no draw: dividing by 0"]),
    ("training steps before backward", ("language.py", "        loss.backward()\n        optimizer.step()",
                                         "        optimizer.step()\n        loss.backward()"), "7.4",
     ["known mistake: gradients cleared before the step", "the step comes before backward"]),
    # learner 6: the same, in a model whose attention scales its scores another way (the same maths, other last
    # bits): the case the check hands the library is made by the learner's own model, and must still be found
    ("training steps before backward, scores scaled alike", [
        ("nn/transformer.py", "scores = (q @ k) * (1.0 / math.sqrt(d))", "scores = (q @ k) / math.sqrt(d)"),
        ("language.py", "        loss.backward()\n        optimizer.step()", "        optimizer.step()\n        loss.backward()")],
     "7.4", ["known mistake: gradients cleared before the step", "the step comes before backward"]),
    # ---- issue 45, learner 3: not caught, or caught without a cause
    ("training loop swaps the loss's arguments", ("training.py", "loss = loss_fn(model(Tensor(x[batch])), y[batch])",
                                                   "loss = loss_fn(y[batch], model(Tensor(x[batch])))"), "6.4",
     ["called the loss with the model's output second", "loss_fn(out, y[batch])"]),
    ("training loop uses the whole data set each batch", ("training.py",
        "loss = loss_fn(model(Tensor(x[batch])), y[batch])", "loss = loss_fn(model(Tensor(x)), y)"), "6.4",
     ["inputs of [10, 10, 10] examples", "the whole data set"]),
    ("sgd buffer is p.grad, updated in place", ("optim.py",
        "                g = np.array(g) if buffer is None else self.momentum * buffer + g\n"
        "                state[\"momentum_buffer\"] = g",
        "                if buffer is None:\n                    buffer = g\n                else:\n"
        "                    buffer *= self.momentum\n                    buffer += g\n"
        "                g = state[\"momentum_buffer\"] = buffer"), "6.2",
     ["changed the gradient p.grad held at step 1", "g.copy()"]),
    ("mlp stops one layer early", ("nn/modules.py",
        "self.layers = [Linear(m, n, dtype=dtype) for m, n in zip(sizes[:-1], sizes[1:])]",
        "self.layers = [Linear(sizes[i], sizes[i + 1], dtype=dtype) for i in range(len(sizes) - 2)]"), "6.1",
     ["the last layer is missing", "zip(sizes[:-1], sizes[1:])"]),
    # ---- a fresh learner's (fb-s6): the model fed all of x, its own line above the loss's that raised; a line above
    # the one that raised, where the value it uses is made
    ("training loop feeds the model all of x, the loss the batch's targets", ("training.py",
        "        loss = loss_fn(model(Tensor(x[batch])), y[batch])",
        "        pred = model(Tensor(x))\n        loss = loss_fn(pred, y[batch])"), "6.4",
     ["gave the model inputs of [10] examples, then raised ValueError", "every row of x, not the batch's rows",
      "(the model is called at line 45 of minitorch/training.py (train_epoch))", "A small edit of line 45 of "
      "minitorch/training.py (train_epoch) makes every case of this check pass: look there at an index missing"]),
    ("matmul's 1-D b gradient read at the wrong axis, a line above the reshape that raises", ("ops_linalg.py",
        "            grad_b = unbroadcast(product_like(np.swapaxes(a2, -1, -2), grad2, b2), b2.shape).reshape(b.shape)",
        "            db = unbroadcast(product_like(np.swapaxes(a2, -1, -2), grad2, b2), b2.shape)\n"
        "            db = db[..., 0, :] if b.ndim == 1 else db\n            grad_b = db.reshape(b.shape)"), "5.1",
     ["raised ValueError", "A small edit of line 48 of minitorch/ops_linalg.py (MatMul.backward)",
      "Line 49, your line below it, raised: it uses db, made at line 48.", "your line: minitorch/ops_linalg.py, line 49"]),
    ("cross-entropy gives a probability target no gradient", ("losses.py",
        "        grad_target = -log_p * rows if ctx.needs_input_grad[1] else None\n        return grad_logits, grad_target",
        "        return grad_logits, None"), "5.4",
     ["the gradient for input 1: came back as None", "ctx.needs_input_grad[1] is True", "it returns at line 84 of "
      "minitorch/losses.py (CrossEntropy.backward)", "A probability target gets a gradient too"]),
    ("linear's weight not made in the dtype asked for", ("nn/modules.py",
        "self.weight = Parameter(_rng.uniform(-bound, bound, (out_features, in_features)), dtype=dtype)",
        "self.weight = Parameter(_rng.uniform(-bound, bound, (out_features, in_features)))"), "6.1",
     ["weight.dtype: came back as 'float64'; expected 'float32'", "self.weight is made in float64 at line 95 of "
      "minitorch/nn/modules.py (Linear.__init__)", "Parameter(..., dtype=dtype)"]),
    ("sgd keeps its momentum buffer under another key", ("optim.py",
        '                buffer = state.get("momentum_buffer")\n'
        '                g = np.array(g) if buffer is None else self.momentum * buffer + g\n'
        '                state["momentum_buffer"] = g',
        '                buffer = state.get("momentum")\n'
        '                g = np.array(g) if buffer is None else self.momentum * buffer + g\n'
        '                state["momentum"] = g'), "6.2",
     ["held the keys [['momentum'], ['momentum']]", "expected 'momentum_buffer' in each",
      "Keep b in state['momentum_buffer']"]),
    # ---- learner 5's walk
    ("unbroadcast sums where shape is not 1", ("shapes.py", "if n == 1 and grad.shape[extra + i] != 1",
                                               "if n != 1 and grad.shape[extra + i] != 1"), "2.2",
     ["known mistake: size-1 condition inverted", "n == 1"]),
    ("mlp swaps in and out", ("nn/modules.py", "zip(sizes[:-1], sizes[1:])", "zip(sizes[1:], sizes[:-1])"), "6.1",
     ["in and out swapped", "[(8, 2), (3, 8)]"]),
    ("linear bound 1/in", ("nn/modules.py", "bound = 1.0 / math.sqrt(in_features)", "bound = 1.0 / in_features"), "6.1",
     ["1/in_features"]),
    ("sgd decays by the gradient", ("optim.py",
        "            g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad\n            if self.momentum:",
        "            g = p.grad + self.weight_decay * p.grad if self.weight_decay else p.grad\n            if self.momentum:"),
     "6.2", ["known mistake: weight decay from the gradient"]),
    ("sgd ignores its buffer", ("optim.py", "p.data -= self.lr * g", "p.data -= self.lr * p.grad"), "6.2",
     ["known mistake: momentum buffer not used"]),
    ("adam uses the step count before counting it", ("optim.py", 't = state["step"] = state.get("step", 0) + 1',
                                                     't = state.get("step", 0)\n            state["step"] = t + 1'),
     "6.3", ["known mistake: t from 0"]),
    ("adam step count one ahead", ("optim.py", 't = state["step"] = state.get("step", 0) + 1',
                                   't = state.get("step", 1)\n            state["step"] = t + 1'),
     "6.3", ["state['step']"]),
]
