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
    # (the 1s left out before the max: a 0 with a 1 broadcasts to 0, issue 45; the max of all is a known mistake)
    ("broadcast_shapes by padding with ones, a tuple of Python ints", [("shapes.py",
        "    shapes = [tuple(int(n) for n in shape) for shape in shapes]\n"
        "    ndim = max((len(shape) for shape in shapes), default=0)",
        "    ndim = max((len(s) for s in shapes), default=0)\n"
        "    padded = [(1,) * (ndim - len(s)) + tuple(s) for s in shapes]\n"
        "    out = [max((n for n in column if n != 1), default=1) for column in zip(*padded)]\n"
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
        "    m = x.max(axis=axes, keepdims=True)\n"
        "    m = np.where(np.isfinite(m), m, 0)  # all -inf (or inf) along an axis: leave as is\n",
        "    m = np.amax(x, axis=axes, keepdims=True)\n    m[~np.isfinite(m)] = 0\n")]),
    ("cross-entropy losses picked with take_along_axis", [("losses.py", "losses = -log_p[np.arange(n), target]",
        "losses = -np.take_along_axis(log_p, target.reshape(-1, 1), axis=1).reshape(-1)")]),
]

_SGD = ("            g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad\n"
        "            if self.momentum:\n"
        "                buffer = state.get(\"momentum_buffer\")\n"
        "                g = np.array(g) if buffer is None else self.momentum * buffer + g\n"
        "                state[\"momentum_buffer\"] = g\n"
        "            p.data -= self.lr * g\n")
_ADAM = ("            t = state[\"step\"] = state.get(\"step\", 0) + 1\n"
         "            m = state[\"m\"] = beta1 * state.get(\"m\", 0) + (1 - beta1) * g\n"
         "            v = state[\"v\"] = beta2 * state.get(\"v\", 0) + (1 - beta2) * g * g\n"
         "            denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + self.eps\n"
         "            p.data -= (self.lr / (1 - beta1 ** t)) * m / denom\n")
_LINEAR = ("        bound = 1.0 / math.sqrt(in_features)\n"
           "        self.weight = Parameter(_rng.uniform(-bound, bound, (out_features, in_features)), dtype=dtype)\n"
           "        self.bias = Parameter(_rng.uniform(-bound, bound, (out_features,)), dtype=dtype) if bias else None\n")

BUGGY += [
    # ---- modules' starting values
    ("linear bias starts at zero", ("nn/modules.py", _LINEAR, _LINEAR.replace(
        "Parameter(_rng.uniform(-bound, bound, (out_features,)), dtype=dtype)",
        "Parameter(np.zeros(out_features), dtype=dtype)")), "6.1", "bias"),
    ("linear bias spread from out_features", ("nn/modules.py", _LINEAR, _LINEAR.replace(
        "_rng.uniform(-bound, bound, (out_features,))",
        "_rng.uniform(-1 / math.sqrt(out_features), 1 / math.sqrt(out_features), (out_features,))")), "6.1",
     "not out_features"),
    ("linear draws from np.random, so manual_seed does nothing", ("nn/modules.py", _LINEAR, _LINEAR.replace(
        "_rng.uniform", "np.random.uniform")), "6.1", "manual_seed"),
    ("linear makes its own generator with a fixed seed", ("nn/modules.py", _LINEAR, _LINEAR.replace(
        "        bound = 1.0 / math.sqrt(in_features)\n",
        "        bound = 1.0 / math.sqrt(in_features)\n        _rng = np.random.default_rng(0)\n")), "6.1",
     "manual_seed(8) gave the same start"),
    # ---- optimizer state under a changing learning rate, and which Adam term is wrong
    ("sgd momentum with the learning rate inside the buffer", ("optim.py", _SGD,
        "            g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad\n"
        "            if self.momentum:\n"
        "                v = state.get(\"momentum_buffer\", np.zeros_like(p.data))\n"
        "                v = self.momentum * v - self.lr * g\n"
        "                state[\"momentum_buffer\"] = v\n"
        "                p.data += v\n"
        "            else:\n"
        "                p.data -= self.lr * g\n"), "6.2", "only while lr stays the same"),
    ("sgd adds weight decay after the momentum", ("optim.py", _SGD,
        "            g = p.grad\n"
        "            if self.momentum:\n"
        "                buffer = state.get(\"momentum_buffer\")\n"
        "                g = np.array(g) if buffer is None else self.momentum * buffer + g\n"
        "                state[\"momentum_buffer\"] = g\n"
        "            p.data -= self.lr * (g + self.weight_decay * p.data)\n"), "6.2", "weight_decay * p to each gradient"),
    ("adam corrects m only", ("optim.py", _ADAM, _ADAM.replace(
        "denom = np.sqrt(v) / math.sqrt(1 - beta2 ** t) + self.eps", "denom = np.sqrt(v) + self.eps")),
     "6.3", "bias correction of v"),
    ("adam counts the steps from 0", ("optim.py", _ADAM, _ADAM.replace(
        "            t = state[\"step\"] = state.get(\"step\", 0) + 1\n",
        "            t = state.get(\"step\", 0)\n            state[\"step\"] = t + 1\n")), "6.3", "t = 1 at the first step"),
    ("adam bias correction multiplies by t", ("optim.py", _ADAM, _ADAM.replace("beta2 ** t", "beta2 * t").replace(
        "beta1 ** t", "beta1 * t")), "6.3", "not a power"),
    ("adam keeps the corrected m in its state", ("optim.py", _ADAM, _ADAM.replace(
        "m = state[\"m\"] = beta1 * state.get(\"m\", 0) + (1 - beta1) * g",
        "m = state[\"m\"] = (beta1 * state.get(\"m\", 0) + (1 - beta1) * g) / (1 - beta1 ** t)").replace(
        "p.data -= (self.lr / (1 - beta1 ** t)) * m / denom", "p.data -= self.lr * m / denom")), "6.3",
     "raw running averages"),
    # ---- a Tensor where a float is due
    ("training loop returns a Tensor", ("training.py", "total += loss.item() * len(batch)",
                                        "total += loss * len(batch)"), "6.4", "loss.item()"),
    # ---- float32 in, float32 gradients out: each checked by the notebook too (a float64 copy, or a sum in float64)
    ("transpose backward copies the gradient into float64", ("ops_shape.py",
        "return grad.transpose([ctx.axes.index(i) for i in range(len(ctx.axes))])",
        "return np.array(grad.transpose([ctx.axes.index(i) for i in range(len(ctx.axes))]), dtype=float)"),
     "4.1", "dtype drift"),
    ("cat backward splits a float64 copy", ("ops_index.py", "return tuple(np.split(grad, np.cumsum(ctx.sizes)[:-1], axis=ctx.axis))",
        "return tuple(np.split(np.asarray(grad, dtype=float), np.cumsum(ctx.sizes)[:-1], axis=ctx.axis))"), "4.3",
     "dtype drift"),
    ("softmax backward sums in float64", ("ops_softmax.py",
        "return out * (grad - np.sum(grad * out, axis=ctx.axis, keepdims=True))",
        "return out * (grad - np.sum(grad * out, axis=ctx.axis, keepdims=True, dtype=np.float64))"), "5.3", "dtype drift"),
    ("matmul backward multiplies in float64", ("ops_linalg.py",
        "grad_a = unbroadcast(grad2 @ np.swapaxes(b2, -1, -2), a2.shape).reshape(a.shape)",
        "grad_a = unbroadcast(np.matmul(grad2, np.swapaxes(b2, -1, -2), dtype=np.float64), a2.shape).reshape(a.shape)"),
     "5.1", "dtype drift"),
    # issue 45: its broadcast error is also what a missing expand_dims raises where keepdims is False, so both checks
    # run a keepdims=True case first, where a missing expand_dims changes nothing: the error there is this one's alone
    ("max counts the ties without keepdims", ("ops_reduce.py",
        "ties = np.sum(hit, axis=ctx.axes, keepdims=True).astype(grad.dtype)",
        "ties = np.sum(hit, axis=ctx.axes).astype(grad.dtype)"), "3.3", "known mistake: ties counted without keepdims"),
    # a fresh learner's (fb-s6): a probability target's gradient None, said with what it is
    ("cross-entropy gives a probability target no gradient", ("losses.py",
        "        grad_target = -log_p * rows if ctx.needs_input_grad[1] else None\n        return grad_logits, grad_target",
        "        return grad_logits, None"), "5.4", "a probability target gets a gradient too"),
    # a fresh learner's (fb-s6): Linear's weight drawn without the dtype asked for; the line that makes it is said
    ("linear's weight not made in the dtype asked for", ("nn/modules.py",
        "self.weight = Parameter(_rng.uniform(-bound, bound, (out_features, in_features)), dtype=dtype)",
        "self.weight = Parameter(_rng.uniform(-bound, bound, (out_features, in_features)))"), "6.1",
     "self.weight is made in float64 at line 95 of minitorch/nn/modules.py (Linear.__init__)"),
    # a fresh learner's (fb-s6): the right steps, the buffer kept under another key than the stub's (PyTorch's) name
    ("sgd keeps its momentum buffer under another key", ("optim.py",
        '                buffer = state.get("momentum_buffer")\n'
        '                g = np.array(g) if buffer is None else self.momentum * buffer + g\n'
        '                state["momentum_buffer"] = g',
        '                buffer = state.get("momentum")\n'
        '                g = np.array(g) if buffer is None else self.momentum * buffer + g\n'
        '                state["momentum"] = g'), "6.2",
     "expected 'momentum_buffer' in each: the buffer b is kept under PyTorch's name, which the stub gives"),
]

ALTERNATIVES += [
    ("linear drawn as a scaled random() from the seeded generator", [("nn/modules.py", _LINEAR,
        "        bound = in_features ** -0.5\n"
        "        self.weight = Parameter((2 * _rng.random((out_features, in_features)) - 1) * bound, dtype=dtype)\n"
        "        self.bias = None\n        if bias:\n"
        "            self.bias = Parameter((2 * _rng.random(out_features) - 1) * bound, dtype=dtype)\n")]),
    ("sgd with an in-place buffer update and lr read at each step", [("optim.py", _SGD,
        "            d_p = p.grad if not self.weight_decay else p.grad + self.weight_decay * p.data\n"
        "            if self.momentum:\n"
        "                if \"momentum_buffer\" not in state:\n"
        "                    state[\"momentum_buffer\"] = np.array(d_p, copy=True)\n"
        "                else:\n"
        "                    state[\"momentum_buffer\"] *= self.momentum\n"
        "                    state[\"momentum_buffer\"] += d_p\n"
        "                d_p = state[\"momentum_buffer\"]\n"
        "            np.subtract(p.data, self.lr * d_p, out=p.data)\n")]),
    ("adam in Kingma's efficient form: the corrections in the step size, eps scaled with them", [("optim.py", _ADAM,
        "            state[\"step\"] = state.get(\"step\", 0) + 1\n            t = state[\"step\"]\n"
        "            state.setdefault(\"m\", np.zeros_like(p.data))\n            state.setdefault(\"v\", np.zeros_like(p.data))\n"
        "            state[\"m\"] = beta1 * state[\"m\"] + (1 - beta1) * g\n"
        "            state[\"v\"] = beta2 * state[\"v\"] + (1 - beta2) * np.square(g)\n"
        "            step_size = self.lr * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)\n"
        "            p.data -= step_size * state[\"m\"] / (np.sqrt(state[\"v\"]) + self.eps * math.sqrt(1 - beta2 ** t))\n")]),
    ("training loop adding float(np.asarray(loss.data)) * batch.size", [("training.py",
        "        total += loss.item() * len(batch)",
        "        total = total + float(np.asarray(loss.data)) * batch.size")]),
]
