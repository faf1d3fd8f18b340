"""Six honest learners, each writing every region of the course in a style of their own, as
learners who never saw each other's work (or the reference) would: the copying check's test
class (tests/grader/similarity_disguises.py applies them onto the released stubs). Where a task
leaves one natural way to write it (``return grad * out``), several of them write it alike,
as real learners do. Keys are the regions' labels, less "Task X.Y: " and any "(...)"."""

# Terse: one-liners, NumPy idioms, tuple returns.
TERSE = {
    "central_difference": """
        hi, lo = list(values), list(values)
        hi[arg] += eps
        lo[arg] -= eps
        return (f(*hi) - f(*lo)) / (2 * eps)""",
    "Scalar.__add__ backward": "return g, g",
    "Scalar.__sub__ backward": "return g, -g",
    "Scalar.__mul__ backward": "return g * b.data, g * a.data",
    "Scalar.__truediv__ backward": "return g / b.data, -g * a.data / b.data ** 2",
    "Scalar.__pow__ backward": "return (g * c * a.data ** (c - 1) if c else 0.0,)",
    "Scalar.__neg__ backward": "return (-g,)",
    "Scalar.exp backward": "return (g * out,)",
    "Scalar.log backward": "return (g / a.data,)",
    "Scalar.sin backward": "return (g * math.cos(a.data),)",
    "Scalar.cos backward": "return (-g * math.sin(a.data),)",
    "Scalar.tanh backward": "return (g * (1 - out ** 2),)",
    "Scalar.sigmoid backward": "return (g * out * (1 - out),)",
    "Scalar.relu backward": "return (g * (a.data > 0),)",
    "topological_order": """
        order, seen, todo = [], set(), [(root, 0)]
        while todo:
            n, done = todo.pop()
            if done:
                order.append(n)
            elif id(n) not in seen:
                seen.add(id(n))
                todo += [(n, 1)] + [(p, 0) for p in n.parents if id(p) not in seen]
        return order[::-1]""",
    "backpropagate": """
        acc = {id(root): grad}
        for n in topological_order(root):
            if id(n) in acc:
                d = acc.pop(id(n))
                n.accumulate(d)
                for p, dp in n.chain_rule(d):
                    acc[id(p)] = acc[id(p)] + dp if id(p) in acc else dp""",
    "broadcast_shapes": """
        shapes = [tuple(map(int, s)) for s in shapes]
        nd = max(map(len, shapes), default=0)
        padded = [(1,) * (nd - len(s)) + s for s in shapes]
        out = []
        for i, dims in enumerate(zip(*padded)):
            big = set(dims) - {1}
            if len(big) > 1:
                raise ValueError(f"cannot broadcast {shapes}: axis {i - nd} has {sorted(big)}")
            out.append(max(dims))
        return tuple(out)""",
    "unbroadcast": """
        lead = grad.ndim - len(shape)
        g = grad.sum(axis=tuple(range(lead))) if lead else grad
        return g.sum(axis=tuple(i for i, s in enumerate(shape) if s == 1), keepdims=True).reshape(shape)""",
    "Sub.backward": "return unbroadcast(grad, a_shape), unbroadcast(-grad, b_shape)",
    "Mul.backward": "return unbroadcast(grad * b, a.shape), unbroadcast(grad * a, b.shape)",
    "Div.backward": "return unbroadcast(grad / b, a.shape), unbroadcast(-grad * a / b ** 2, b.shape)",
    "Pow.backward": """
        with np.errstate(all="ignore"):
            da = np.where(b == 0, 0, grad * b * a ** (b - 1))
            db = unbroadcast(grad * out * np.where(a == 0, 0, np.log(a)), b.shape) if ctx.needs_input_grad[1] else None
        return unbroadcast(da.astype(grad.dtype), a.shape), db""",
    "_split_by_winner": """
        ga = grad * (a_wins + 0.5 * tie)
        return unbroadcast(ga, a_shape), unbroadcast(grad - ga, b_shape)""",
    "Exp.backward": "return grad * out",
    "Log.backward": "return grad / x",
    "Sqrt.backward": "return grad / (2 * out)",
    "Abs.backward": "return grad * np.sign(x)",
    "Sin.backward": "return grad * np.cos(x)",
    "Cos.backward": "return -grad * np.sin(x)",
    "Tanh.backward": "return grad * (1 - out ** 2)",
    "Sigmoid.backward": "return grad * out * (1 - out)",
    "Relu.backward": "return grad * (x > 0)",
    "_with_reduced_axes": "return grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)",
    "_to_extremes": """
        g = grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)
        m = (x == out).astype(grad.dtype)
        return g * m / m.sum(axis=ctx.axes, keepdims=True)""",
    "Reshape.backward": "return grad.reshape(ctx.shape)",
    "Transpose.backward": "return grad.transpose(np.argsort(ctx.axes))",
    "BroadcastTo.backward": "return unbroadcast(grad, ctx.shape)",
    "Squeeze.backward": "return grad.reshape(ctx.shape)",
    "Unsqueeze.backward": "return grad.reshape(ctx.shape)",
    "GetItem.backward": """
        g = np.zeros(ctx.shape, ctx.dtype)
        np.add.at(g, ctx.index, grad)
        return g""",
    "Cat.backward": "return tuple(np.split(grad, np.cumsum(ctx.sizes)[:-1], axis=ctx.axis))",
    "Stack.backward": "return tuple(np.moveaxis(grad, ctx.axis, 0))",
    "MatMul.backward": """
        ga = unbroadcast(grad2 @ b2.swapaxes(-1, -2), a2.shape).reshape(a.shape) if ctx.needs_input_grad[0] else None
        gb = unbroadcast(product_like(a2.swapaxes(-1, -2), grad2, b2), b2.shape).reshape(b.shape) if ctx.needs_input_grad[1] else None
        return ga, gb""",
    "Gelu.backward": """
        if ctx.approximate == "tanh":
            return grad * (cdf + 2 * x * cdf * (1 - cdf) * SQRT_2_OVER_PI * (1 + 3 * TANH_CUBIC * x ** 2))
        return grad * (cdf + x * normal_pdf(x))""",
    "stable_logsumexp": """
        m = np.max(x, axis=axes, keepdims=True)
        m[~np.isfinite(m)] = 0
        with np.errstate(divide="ignore"):
            return np.log(np.sum(np.exp(x - m), axis=axes, keepdims=True)) + m""",
    "LogSumExp.backward": """
        g = grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)
        return g * np.exp(x - out)""",
    "LogSoftmax.backward": "return grad - np.exp(out) * grad.sum(axis=ctx.axis, keepdims=True)",
    "Softmax.backward": "return out * (grad - (grad * out).sum(axis=ctx.axis, keepdims=True))",
    "CrossEntropy.forward": "losses = -log_p[np.arange(n), target] if ctx.by_index else -(target * log_p).sum(1)",
    "CrossEntropy.backward": """
        sm = np.exp(log_p)
        if ctx.by_index:
            sm[np.arange(n), target] -= 1
            return sm * rows, None
        return (sm * target.sum(1, keepdims=True) - target) * rows, (-log_p * rows if ctx.needs_input_grad[1] else None)""",
    "Module.parameters": """
        out = {}
        for v in _walk(vars(self).values()):
            for p in ([v] if isinstance(v, Parameter) else v.parameters() if isinstance(v, Module) else []):
                out.setdefault(id(p), p)
        return list(out.values())""",
    "Linear.__init__": """
        k = in_features ** -0.5
        self.weight = Parameter(_rng.uniform(-k, k, (out_features, in_features)), dtype=dtype)
        self.bias = Parameter(_rng.uniform(-k, k, out_features), dtype=dtype) if bias else None""",
    "Linear.forward": "return x @ self.weight.T + self.bias if self.bias is not None else x @ self.weight.T",
    "MLP.__init__": "self.layers = [Linear(i, o, dtype=dtype) for i, o in zip(sizes, sizes[1:])]",
    "MLP.forward": """
        for l in self.layers[:-1]:
            x = ACTIVATIONS[self.activation](l(x))
        return self.layers[-1](x)""",
    "SGD.step": """
        g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad
        if self.momentum:
            g = state["momentum_buffer"] = self.momentum * state["momentum_buffer"] + g if "momentum_buffer" in state else np.copy(g)
        p.data -= self.lr * g""",
    "Adam.step": """
        g = p.grad + self.weight_decay * p.data if self.weight_decay else p.grad
        state["step"] = t = state.get("step", 0) + 1
        state["m"] = m = beta1 * state.get("m", 0) + (1 - beta1) * g
        state["v"] = v = beta2 * state.get("v", 0) + (1 - beta2) * g ** 2
        p.data -= self.lr * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + self.eps)""",
    "train_epoch": """
        optimizer.zero_grad()
        loss = loss_fn(model(Tensor(x[batch])), y[batch])
        loss.backward()
        optimizer.step()
        total += loss.item() * len(batch)""",
    "LayerNorm.backward": """
        ax = tuple(range(grad.ndim - 1))
        gx = grad * weight
        return rstd * (gx - mean_last(gx) - xhat * mean_last(gx * xhat)), (grad * xhat).sum(ax), grad.sum(ax)""",
    "CausalSelfAttention.forward": """
        split = lambda t: t.reshape(B, T, H, d).transpose(0, 2, 1, 3)
        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        att = softmax(where(np.tril(np.ones((T, T), bool)), q @ k.transpose(0, 1, 3, 2) / math.sqrt(d), -1e9), axis=-1)
        self.last_attention = att.data
        return self.proj((att @ v).transpose(0, 2, 1, 3).reshape(B, T, D))""",
    "Block.forward": """
        x = x + self.attn(self.ln1(x))
        return x + self.down(gelu(self.up(self.ln2(x)), approximate="tanh"))""",
    "GPT.forward": """
        x = self.token(idx) + self.position(np.arange(idx.shape[1]))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))""",
    "one training step": """
        optimizer.zero_grad()
        loss = loss_on(model, x, y)
        loss.backward()
        optimizer.step()""",
    "sampling with a temperature": """
        if not temperature:
            return logits.argmax(-1)
        z = np.exp((logits - logits.max(-1, keepdims=True)) / temperature)
        z /= z.sum(-1, keepdims=True)
        return np.array([rng.choice(z.shape[-1], p=r) for r in z])""",
}

# Verbose: a name for every intermediate value, explicit loops, comments.
VERBOSE = {
    "central_difference": """
        # move only the chosen argument, once up and once down
        plus = [v for v in values]
        minus = [v for v in values]
        plus[arg] = plus[arg] + eps
        minus[arg] = minus[arg] - eps
        f_plus = f(*plus)
        f_minus = f(*minus)
        slope = (f_plus - f_minus) / (2 * eps)
        return slope""",
    "Scalar.__add__ backward": """
        grad_left = g
        grad_right = g
        return grad_left, grad_right""",
    "Scalar.__sub__ backward": """
        grad_left = g
        grad_right = -1.0 * g
        return grad_left, grad_right""",
    "Scalar.__mul__ backward": """
        grad_left = g * b.data
        grad_right = g * a.data
        return grad_left, grad_right""",
    "Scalar.__truediv__ backward": """
        grad_left = g * (1.0 / b.data)
        grad_right = g * (-a.data / (b.data ** 2))
        return grad_left, grad_right""",
    "Scalar.__pow__ backward": """
        if c == 0:
            derivative = 0.0
        else:
            derivative = c * (a.data ** (c - 1))
        return (g * derivative,)""",
    "Scalar.__neg__ backward": """
        result = -1.0 * g
        return (result,)""",
    "Scalar.exp backward": """
        derivative = out
        return (g * derivative,)""",
    "Scalar.log backward": """
        derivative = 1.0 / a.data
        return (g * derivative,)""",
    "Scalar.sin backward": """
        derivative = math.cos(a.data)
        return (g * derivative,)""",
    "Scalar.cos backward": """
        derivative = -math.sin(a.data)
        return (g * derivative,)""",
    "Scalar.tanh backward": """
        derivative = 1.0 - out * out
        return (g * derivative,)""",
    "Scalar.sigmoid backward": """
        derivative = out * (1.0 - out)
        return (g * derivative,)""",
    "Scalar.relu backward": """
        if a.data > 0:
            derivative = 1.0
        else:
            derivative = 0.0
        return (g * derivative,)""",
    "topological_order": """
        # iterative post-order DFS, then reverse it
        visited = set()
        post_order = []
        stack = [root]
        expanded = set()
        while len(stack) > 0:
            current = stack[-1]
            if id(current) in expanded:
                stack.pop()
                if id(current) not in visited:
                    visited.add(id(current))
                    post_order.append(current)
                continue
            expanded.add(id(current))
            for parent in current.parents:
                if id(parent) not in expanded:
                    stack.append(parent)
        post_order.reverse()
        return post_order""",
    "backpropagate": """
        gradients = {}
        gradients[id(root)] = grad
        ordered_nodes = topological_order(root)
        for current in ordered_nodes:
            key = id(current)
            if key not in gradients:
                continue
            total_grad = gradients[key]
            del gradients[key]
            current.accumulate(total_grad)
            contributions = current.chain_rule(total_grad)
            for parent, contribution in contributions:
                parent_key = id(parent)
                if parent_key in gradients:
                    gradients[parent_key] = gradients[parent_key] + contribution
                else:
                    gradients[parent_key] = contribution""",
    "broadcast_shapes": """
        shape_list = []
        for shape in shapes:
            shape_list.append(tuple(int(size) for size in shape))
        longest = 0
        for shape in shape_list:
            if len(shape) > longest:
                longest = len(shape)
        result = []
        for position in range(longest):
            axis = position - longest
            chosen = 1
            for shape in shape_list:
                if len(shape) + axis < 0:
                    continue
                size = shape[axis]
                if size == 1:
                    continue
                if chosen != 1 and chosen != size:
                    raise ValueError("shapes " + str(shape_list) + " do not broadcast at axis " + str(axis))
                chosen = size
            result.append(chosen)
        return tuple(result)""",
    "unbroadcast": """
        # first remove the extra leading axes, then sum over axes that were stretched from 1
        result = grad
        while result.ndim > len(shape):
            result = result.sum(axis=0)
        for axis in range(len(shape)):
            if shape[axis] == 1 and result.shape[axis] != 1:
                result = result.sum(axis=axis, keepdims=True)
        return result.reshape(shape)""",
    "Sub.backward": """
        grad_a = unbroadcast(grad, a_shape)
        grad_b = unbroadcast(-grad, b_shape)
        return grad_a, grad_b""",
    "Mul.backward": """
        grad_a = unbroadcast(grad * b, a.shape)
        grad_b = unbroadcast(grad * a, b.shape)
        return grad_a, grad_b""",
    "Div.backward": """
        grad_a = unbroadcast(grad / b, a.shape)
        grad_b = unbroadcast(-grad * a / (b * b), b.shape)
        return grad_a, grad_b""",
    "Pow.backward": """
        with np.errstate(divide="ignore", invalid="ignore"):
            local_a = b * np.power(a, b - 1)
            local_a = np.where(b == 0, 0.0, local_a)
            grad_a = unbroadcast((grad * local_a).astype(grad.dtype), a.shape)
            if ctx.needs_input_grad[1]:
                log_of_a = np.where(a == 0, 0.0, np.log(a))
                grad_b = unbroadcast((grad * out * log_of_a).astype(grad.dtype), b.shape)
            else:
                grad_b = None
        return grad_a, grad_b""",
    "_split_by_winner": """
        share_a = np.where(tie, 0.5, np.where(a_wins, 1.0, 0.0))
        share_b = 1.0 - share_a
        grad_a = unbroadcast(grad * share_a, a_shape)
        grad_b = unbroadcast(grad * share_b, b_shape)
        return grad_a, grad_b""",
    "Exp.backward": """
        local = out
        return grad * local""",
    "Log.backward": """
        local = 1.0 / x
        return grad * local""",
    "Sqrt.backward": """
        local = 0.5 / out
        return grad * local""",
    "Abs.backward": """
        local = np.sign(x)
        return grad * local""",
    "Sin.backward": """
        local = np.cos(x)
        return grad * local""",
    "Cos.backward": """
        local = -np.sin(x)
        return grad * local""",
    "Tanh.backward": """
        local = 1.0 - out * out
        return grad * local""",
    "Sigmoid.backward": """
        local = out * (1.0 - out)
        return grad * local""",
    "Relu.backward": """
        local = (x > 0).astype(grad.dtype)
        return grad * local""",
    "_with_reduced_axes": """
        if ctx.keepdims:
            return grad
        expanded = grad
        for axis in sorted(ctx.axes):
            expanded = np.expand_dims(expanded, axis)
        return expanded""",
    "_to_extremes": """
        if not ctx.keepdims:
            for axis in sorted(ctx.axes):
                grad = np.expand_dims(grad, axis)
        is_extreme = (x == out)
        how_many = is_extreme.sum(axis=ctx.axes, keepdims=True)
        return grad * is_extreme / how_many""",
    "Reshape.backward": """
        original_shape = ctx.shape
        return grad.reshape(original_shape)""",
    "Transpose.backward": """
        inverse = [0] * len(ctx.axes)
        for position, axis in enumerate(ctx.axes):
            inverse[axis] = position
        return grad.transpose(inverse)""",
    "BroadcastTo.backward": """
        original_shape = ctx.shape
        return unbroadcast(grad, original_shape)""",
    "Squeeze.backward": """
        original_shape = ctx.shape
        return grad.reshape(original_shape)""",
    "Unsqueeze.backward": """
        original_shape = ctx.shape
        return np.reshape(grad, original_shape)""",
    "GetItem.backward": """
        result = np.zeros(ctx.shape, dtype=ctx.dtype)
        # add.at adds repeated indices instead of overwriting them
        np.add.at(result, ctx.index, grad)
        return result""",
    "Cat.backward": """
        pieces = []
        start = 0
        for size in ctx.sizes:
            index = [slice(None)] * grad.ndim
            index[ctx.axis] = slice(start, start + size)
            pieces.append(grad[tuple(index)])
            start = start + size
        return tuple(pieces)""",
    "Stack.backward": """
        pieces = []
        for i in range(ctx.count):
            pieces.append(np.take(grad, i, axis=ctx.axis))
        return tuple(pieces)""",
    "MatMul.backward": """
        grad_a = None
        grad_b = None
        if ctx.needs_input_grad[0]:
            b_transposed = np.swapaxes(b2, -1, -2)
            full_a = grad2 @ b_transposed
            grad_a = unbroadcast(full_a, a2.shape).reshape(a.shape)
        if ctx.needs_input_grad[1]:
            a_transposed = np.swapaxes(a2, -1, -2)
            full_b = product_like(a_transposed, grad2, b2)
            grad_b = unbroadcast(full_b, b2.shape).reshape(b.shape)
        return grad_a, grad_b""",
    "Gelu.backward": """
        if ctx.approximate == "tanh":
            inner_derivative = SQRT_2_OVER_PI * (1.0 + 3.0 * TANH_CUBIC * x ** 2)
            one_minus_t_squared = 4.0 * cdf * (1.0 - cdf)
            derivative = cdf + 0.5 * x * one_minus_t_squared * inner_derivative
        else:
            derivative = cdf + x * normal_pdf(x)
        return grad * derivative""",
    "stable_logsumexp": """
        biggest = np.max(x, axis=axes, keepdims=True)
        biggest = np.where(np.isfinite(biggest), biggest, 0.0)
        shifted = np.exp(x - biggest)
        total = np.sum(shifted, axis=axes, keepdims=True)
        with np.errstate(divide="ignore"):
            result = np.log(total) + biggest
        return result""",
    "LogSumExp.backward": """
        if ctx.keepdims:
            expanded = grad
        else:
            expanded = np.expand_dims(grad, ctx.axes)
        weights = np.exp(x - out)
        return expanded * weights""",
    "LogSoftmax.backward": """
        probabilities = np.exp(out)
        total = np.sum(grad, axis=ctx.axis, keepdims=True)
        return grad - probabilities * total""",
    "Softmax.backward": """
        weighted = np.sum(grad * out, axis=ctx.axis, keepdims=True)
        return out * (grad - weighted)""",
    "CrossEntropy.forward": """
        if ctx.by_index:
            rows_index = np.arange(n)
            picked = log_p[rows_index, target]
            losses = -picked
        else:
            products = target * log_p
            losses = -np.sum(products, axis=1)""",
    "CrossEntropy.backward": """
        probabilities = np.exp(log_p)
        if ctx.by_index:
            one_hot = np.zeros_like(probabilities)
            one_hot[np.arange(n), target] = 1.0
            return (probabilities - one_hot) * rows, None
        target_mass = np.sum(target, axis=1, keepdims=True)
        grad_logits = (probabilities * target_mass - target) * rows
        grad_target = None
        if ctx.needs_input_grad[1]:
            grad_target = -log_p * rows
        return grad_logits, grad_target""",
    "Module.parameters": """
        result = []
        seen_ids = set()
        for value in _walk(vars(self).values()):
            candidates = []
            if isinstance(value, Parameter):
                candidates = [value]
            elif isinstance(value, Module):
                candidates = value.parameters()
            for candidate in candidates:
                if id(candidate) not in seen_ids:
                    seen_ids.add(id(candidate))
                    result.append(candidate)
        return result""",
    "Linear.__init__": """
        limit = 1.0 / math.sqrt(in_features)
        weight_values = _rng.uniform(low=-limit, high=limit, size=(out_features, in_features))
        self.weight = Parameter(weight_values, dtype=dtype)
        if bias:
            bias_values = _rng.uniform(low=-limit, high=limit, size=(out_features,))
            self.bias = Parameter(bias_values, dtype=dtype)
        else:
            self.bias = None""",
    "Linear.forward": """
        result = x @ self.weight.T
        if self.bias is not None:
            result = result + self.bias
        return result""",
    "MLP.__init__": """
        self.layers = []
        for index in range(len(sizes) - 1):
            layer = Linear(sizes[index], sizes[index + 1], dtype=dtype)
            self.layers.append(layer)""",
    "MLP.forward": """
        activation_function = ACTIVATIONS[self.activation]
        hidden = x
        for index, layer in enumerate(self.layers):
            hidden = layer(hidden)
            if index < len(self.layers) - 1:
                hidden = activation_function(hidden)
        return hidden""",
    "SGD.step": """
        gradient = p.grad
        if self.weight_decay != 0:
            gradient = gradient + self.weight_decay * p.data
        if self.momentum != 0:
            if "momentum_buffer" in state:
                velocity = self.momentum * state["momentum_buffer"] + gradient
            else:
                velocity = gradient.copy()
            state["momentum_buffer"] = velocity
            gradient = velocity
        p.data -= self.lr * gradient""",
    "Adam.step": """
        gradient = p.grad
        if self.weight_decay != 0:
            gradient = gradient + self.weight_decay * p.data
        if "step" not in state:
            state["step"] = 0
            state["m"] = np.zeros_like(p.data)
            state["v"] = np.zeros_like(p.data)
        state["step"] = state["step"] + 1
        step_number = state["step"]
        state["m"] = beta1 * state["m"] + (1 - beta1) * gradient
        state["v"] = beta2 * state["v"] + (1 - beta2) * gradient * gradient
        m_corrected = state["m"] / (1 - beta1 ** step_number)
        v_corrected = state["v"] / (1 - beta2 ** step_number)
        p.data -= self.lr * m_corrected / (np.sqrt(v_corrected) + self.eps)""",
    "train_epoch": """
        inputs = Tensor(x[batch])
        targets = y[batch]
        optimizer.zero_grad()
        predictions = model(inputs)
        loss = loss_fn(predictions, targets)
        loss.backward()
        optimizer.step()
        batch_loss = loss.item()
        total = total + batch_loss * len(batch)""",
    "LayerNorm.backward": """
        all_but_last = tuple(range(grad.ndim - 1))
        grad_weight = np.sum(grad * xhat, axis=all_but_last)
        grad_bias = np.sum(grad, axis=all_but_last)
        grad_xhat = grad * weight
        mean_grad = mean_last(grad_xhat)
        mean_grad_xhat = mean_last(grad_xhat * xhat)
        grad_x = rstd * (grad_xhat - mean_grad - xhat * mean_grad_xhat)
        return grad_x, grad_weight, grad_bias""",
    "CausalSelfAttention.forward": """
        queries = self.query(x).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        keys = self.key(x).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        values = self.value(x).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        scale = 1.0 / math.sqrt(d)
        scores = (queries @ keys.transpose(0, 1, 3, 2)) * scale
        mask = np.tril(np.ones((T, T))) == 1
        masked_scores = where(mask, scores, -1e9)
        attention = softmax(masked_scores, axis=-1)
        self.last_attention = attention.data
        context = attention @ values
        context = context.transpose(0, 2, 1, 3).reshape(B, T, D)
        return self.proj(context)""",
    "Block.forward": """
        attended = x + self.attn(self.ln1(x))
        hidden = self.up(self.ln2(attended))
        hidden = gelu(hidden, approximate="tanh")
        return attended + self.down(hidden)""",
    "GPT.forward": """
        positions = np.arange(idx.shape[1])
        hidden = self.token(idx) + self.position(positions)
        for block in self.blocks:
            hidden = block(hidden)
        hidden = self.ln_f(hidden)
        logits = self.head(hidden)
        return logits""",
    "one training step": """
        optimizer.zero_grad()
        loss = loss_on(model, x, y)
        loss.backward()
        optimizer.step()""",
    "sampling with a temperature": """
        if temperature == 0:
            return np.argmax(logits, axis=-1)
        scaled = logits / temperature
        scaled = scaled - np.max(scaled, axis=-1, keepdims=True)
        weights = np.exp(scaled)
        probabilities = weights / np.sum(weights, axis=-1, keepdims=True)
        choices = []
        for row in probabilities:
            choices.append(rng.choice(len(row), p=row))
        return np.array(choices)""",
}

# Functional: comprehensions, helpers, recursion turned into generators, map/zip.
FUNCTIONAL = {
    "central_difference": """
        shifted = lambda step: [v + step if i == arg else v for i, v in enumerate(values)]
        return (f(*shifted(eps)) - f(*shifted(-eps))) / (eps + eps)""",
    "Scalar.__add__ backward": "return (g, g)",
    "Scalar.__sub__ backward": "return (g, -g)",
    "Scalar.__mul__ backward": "return tuple(g * s.data for s in (b, a))",
    "Scalar.__truediv__ backward": "return (g / b.data, -(g * a.data) / (b.data * b.data))",
    "Scalar.__pow__ backward": "return (0.0,) if c == 0 else (c * g * pow(a.data, c - 1),)",
    "Scalar.__neg__ backward": "return (-1 * g,)",
    "Scalar.exp backward": "return (out * g,)",
    "Scalar.log backward": "return (g * (1 / a.data),)",
    "Scalar.sin backward": "return (math.cos(a.data) * g,)",
    "Scalar.cos backward": "return (math.sin(a.data) * -g,)",
    "Scalar.tanh backward": "return ((1 - out * out) * g,)",
    "Scalar.sigmoid backward": "return ((out - out * out) * g,)",
    "Scalar.relu backward": "return (g * float(a.data > 0),)",
    "topological_order": """
        marks = {}
        result = []
        frames = [(root, iter(root.parents))]
        marks[id(root)] = True
        while frames:
            node, parents = frames[-1]
            nxt = next((p for p in parents if id(p) not in marks), None)
            if nxt is None:
                frames.pop()
                result.append(node)
            else:
                marks[id(nxt)] = True
                frames.append((nxt, iter(nxt.parents)))
        return list(reversed(result))""",
    "backpropagate": """
        from collections import defaultdict
        sums = defaultdict(list)
        sums[id(root)].append(grad)
        for node in topological_order(root):
            parts = sums.pop(id(node), [])
            if parts:
                total = sum(parts[1:], parts[0])
                node.accumulate(total)
                for parent, g in node.chain_rule(total):
                    sums[id(parent)].append(g)""",
    "broadcast_shapes": """
        shapes = [tuple(int(d) for d in s) for s in shapes]
        width = max((len(s) for s in shapes), default=0)
        def size_at(axis):
            sizes = {s[axis] for s in shapes if -axis <= len(s)}
            real = sizes - {1}
            if len(real) > 1:
                raise ValueError(f"shapes {shapes} clash at axis {axis}: {sorted(real)}")
            return real.pop() if real else 1
        return tuple(map(size_at, range(-width, 0)))""",
    "unbroadcast": """
        extra = grad.ndim - len(shape)
        axes = tuple(range(extra)) + tuple(extra + i for i, s in enumerate(shape) if s == 1)
        return np.sum(grad, axis=axes, keepdims=True).reshape(shape)""",
    "Sub.backward": "return tuple(unbroadcast(s * grad, sh) for s, sh in ((1, a_shape), (-1, b_shape)))",
    "Mul.backward": "return tuple(unbroadcast(grad * other, mine.shape) for mine, other in ((a, b), (b, a)))",
    "Div.backward": "return unbroadcast(grad * np.reciprocal(b), a.shape), unbroadcast(grad * -a * np.reciprocal(b) ** 2, b.shape)",
    "Pow.backward": """
        with np.errstate(divide="ignore", invalid="ignore"):
            safe_log = np.log(np.where(a > 0, a, 1))
            parts = (np.where(b == 0, 0, b * a ** (b - 1)), out * safe_log)
        wanted = (True, ctx.needs_input_grad[1])
        return tuple(unbroadcast((grad * p).astype(grad.dtype), s.shape) if w else None
                     for p, s, w in zip(parts, (a, b), wanted))""",
    "_split_by_winner": """
        weights = (a_wins + tie / 2, (1 - a_wins - tie) + tie / 2)
        return tuple(unbroadcast(grad * w, s) for w, s in zip(weights, (a_shape, b_shape)))""",
    "Exp.backward": "return out * grad",
    "Log.backward": "return grad * np.reciprocal(x)",
    "Sqrt.backward": "return 0.5 * grad / out",
    "Abs.backward": "return np.sign(x) * grad",
    "Sin.backward": "return np.cos(x) * grad",
    "Cos.backward": "return np.sin(x) * -grad",
    "Tanh.backward": "return (1 - np.square(out)) * grad",
    "Sigmoid.backward": "return (out - np.square(out)) * grad",
    "Relu.backward": "return np.where(x > 0, grad, 0)",
    "_with_reduced_axes": """
        shape = [1 if i in ctx.axes else n for i, n in enumerate(np.expand_dims(grad, ctx.axes).shape)]
        return grad if ctx.keepdims else grad.reshape(shape)""",
    "_to_extremes": """
        g = grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)
        winners = np.equal(x, out)
        return np.where(winners, g / np.count_nonzero(winners, axis=ctx.axes, keepdims=True), 0)""",
    "Reshape.backward": "return np.reshape(grad, ctx.shape)",
    "Transpose.backward": "return np.transpose(grad, sorted(range(len(ctx.axes)), key=ctx.axes.__getitem__))",
    "BroadcastTo.backward": "return unbroadcast(grad, tuple(ctx.shape))",
    "Squeeze.backward": "return np.reshape(grad, ctx.shape)",
    "Unsqueeze.backward": "return np.reshape(grad, ctx.shape)",
    "GetItem.backward": """
        return (lambda z: (np.add.at(z, ctx.index, grad), z)[1])(np.zeros(ctx.shape, dtype=ctx.dtype))""",
    "Cat.backward": """
        edges = np.cumsum([0, *ctx.sizes])
        return tuple(np.take(grad, range(lo, hi), axis=ctx.axis) for lo, hi in zip(edges[:-1], edges[1:]))""",
    "Stack.backward": "return tuple(map(lambda i: grad.take(i, axis=ctx.axis), range(ctx.count)))",
    "MatMul.backward": """
        t = lambda m: np.swapaxes(m, -1, -2)
        return (unbroadcast(grad2 @ t(b2), a2.shape).reshape(a.shape) if ctx.needs_input_grad[0] else None,
                unbroadcast(product_like(t(a2), grad2, b2), b2.shape).reshape(b.shape) if ctx.needs_input_grad[1] else None)""",
    "Gelu.backward": """
        tanh_part = lambda: cdf + x * cdf * (1 - cdf) * 2 * SQRT_2_OVER_PI * (1 + 3 * TANH_CUBIC * np.square(x))
        exact_part = lambda: cdf + x * normal_pdf(x)
        return grad * (tanh_part() if ctx.approximate == "tanh" else exact_part())""",
    "stable_logsumexp": """
        top = np.nan_to_num(np.amax(x, axis=axes, keepdims=True), nan=0.0, posinf=0.0, neginf=0.0)
        with np.errstate(divide="ignore"):
            return top + np.log(np.exp(x - top).sum(axis=axes, keepdims=True))""",
    "LogSumExp.backward": "return np.exp(x - out) * (grad if ctx.keepdims else np.expand_dims(grad, ctx.axes))",
    "LogSoftmax.backward": "return grad - np.exp(out) * np.sum(grad, ctx.axis, keepdims=True)",
    "Softmax.backward": "return out * grad - out * np.sum(out * grad, ctx.axis, keepdims=True)",
    "CrossEntropy.forward": """
        picked = np.take_along_axis(log_p, target[:, None], axis=1)[:, 0] if ctx.by_index else None
        losses = -(picked if ctx.by_index else np.einsum("nc,nc->n", target, log_p))""",
    "CrossEntropy.backward": """
        probs = np.exp(log_p)
        onehot = np.eye(log_p.shape[1])[target] if ctx.by_index else target
        mass = 1 if ctx.by_index else onehot.sum(1, keepdims=True)
        want_target = (not ctx.by_index) and ctx.needs_input_grad[1]
        return (probs * mass - onehot) * rows, (-log_p * rows if want_target else None)""",
    "Module.parameters": """
        def own(v):
            if isinstance(v, Parameter):
                yield v
            elif isinstance(v, Module):
                yield from v.parameters()
        everything = [p for v in _walk(vars(self).values()) for p in own(v)]
        return list({id(p): p for p in reversed(everything)}.values())[::-1]""",
    "Linear.__init__": """
        r = math.sqrt(1 / in_features)
        make = lambda *shape: Parameter(_rng.uniform(-r, r, shape), dtype=dtype)
        self.weight, self.bias = make(out_features, in_features), (make(out_features) if bias else None)""",
    "Linear.forward": "return sum([x @ self.weight.T] + ([self.bias] if self.bias is not None else []))",
    "MLP.__init__": "self.layers = list(map(lambda io: Linear(*io, dtype=dtype), zip(sizes[:-1], sizes[1:])))",
    "MLP.forward": """
        act = ACTIVATIONS[self.activation]
        from functools import reduce
        x = reduce(lambda h, layer: act(layer(h)), self.layers[:-1], x)
        return self.layers[-1](x)""",
    "SGD.step": """
        d = p.grad if not self.weight_decay else p.grad + self.weight_decay * p.data
        if self.momentum:
            prev = state.get("momentum_buffer")
            d = state["momentum_buffer"] = np.array(d, copy=True) if prev is None else prev * self.momentum + d
        p.data -= d * self.lr""",
    "Adam.step": """
        d = p.grad if not self.weight_decay else p.grad + self.weight_decay * p.data
        state.update(step=state.get("step", 0) + 1)
        state.update(m=beta1 * state.get("m", 0) + (1 - beta1) * d, v=beta2 * state.get("v", 0) + (1 - beta2) * d * d)
        step = state["step"]
        mhat, vhat = state["m"] / (1 - beta1 ** step), state["v"] / (1 - beta2 ** step)
        p.data -= self.lr * mhat / (vhat ** 0.5 + self.eps)""",
    "train_epoch": """
        optimizer.zero_grad()
        batch_loss = loss_fn(model(Tensor(x[batch])), y[batch])
        batch_loss.backward()
        optimizer.step()
        total += len(batch) * batch_loss.item()""",
    "LayerNorm.backward": """
        lead = tuple(range(grad.ndim - 1))
        dxh = grad * weight
        dx = rstd * (dxh - mean_last(dxh)) - rstd * xhat * mean_last(dxh * xhat)
        return dx, np.sum(grad * xhat, axis=lead), np.sum(grad, axis=lead)""",
    "CausalSelfAttention.forward": """
        heads = lambda proj: proj(x).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        q, k, v = map(heads, (self.query, self.key, self.value))
        s = (q @ k.transpose(0, 1, 3, 2)) / math.sqrt(d)
        w = softmax(where(np.arange(T)[:, None] >= np.arange(T)[None, :], s, -1e9), axis=-1)
        self.last_attention = w.data
        return self.proj((w @ v).transpose(0, 2, 1, 3).reshape(B, T, D))""",
    "Block.forward": """
        mlp = lambda h: self.down(gelu(self.up(h), approximate="tanh"))
        x = x + self.attn(self.ln1(x))
        return x + mlp(self.ln2(x))""",
    "GPT.forward": """
        from functools import reduce
        h = reduce(lambda acc, blk: blk(acc), self.blocks, self.token(idx) + self.position(np.arange(idx.shape[-1])))
        return self.head(self.ln_f(h))""",
    "one training step": """
        optimizer.zero_grad()
        loss = loss_on(model, x, y)
        loss.backward()
        optimizer.step()""",
    "sampling with a temperature": """
        if temperature == 0:
            return np.argmax(logits, -1)
        e = np.exp((logits - np.max(logits, -1, keepdims=True)) / temperature)
        return np.array(list(map(lambda row: rng.choice(row.size, p=row / row.sum()), e)))""",
}

# Mathy: short names from the formulas (dx, dy, mu), derivative first, then the chain rule.
MATHY = {
    "central_difference": """
        x = list(values)
        x0 = x[arg]
        x[arg] = x0 + eps
        fp = f(*x)
        x[arg] = x0 - eps
        fm = f(*x)
        return (fp - fm) / (2.0 * eps)""",
    "Scalar.__add__ backward": "return 1.0 * g, 1.0 * g",
    "Scalar.__sub__ backward": "return 1.0 * g, -1.0 * g",
    "Scalar.__mul__ backward": """
        dx, dy = b.data, a.data
        return dx * g, dy * g""",
    "Scalar.__truediv__ backward": """
        dx, dy = 1.0 / b.data, -a.data / b.data ** 2
        return dx * g, dy * g""",
    "Scalar.__pow__ backward": """
        dx = c * a.data ** (c - 1.0) if c != 0.0 else 0.0
        return (dx * g,)""",
    "Scalar.__neg__ backward": "return (-1.0 * g,)",
    "Scalar.exp backward": """
        dx = out
        return (dx * g,)""",
    "Scalar.log backward": """
        dx = 1.0 / a.data
        return (dx * g,)""",
    "Scalar.sin backward": """
        dx = math.cos(a.data)
        return (dx * g,)""",
    "Scalar.cos backward": """
        dx = -math.sin(a.data)
        return (dx * g,)""",
    "Scalar.tanh backward": """
        dx = 1.0 - out ** 2
        return (dx * g,)""",
    "Scalar.sigmoid backward": """
        dx = out * (1.0 - out)
        return (dx * g,)""",
    "Scalar.relu backward": """
        dx = 1.0 if a.data > 0.0 else 0.0
        return (dx * g,)""",
    "topological_order": """
        # Kahn's algorithm on the reversed edges: count how many nodes use each node
        users = {}
        nodes = {id(root): root}
        frontier = [root]
        while frontier:
            u = frontier.pop()
            for w in u.parents:
                users[id(w)] = users.get(id(w), 0) + 1
                if id(w) not in nodes:
                    nodes[id(w)] = w
                    frontier.append(w)
        ready = [root]
        order = []
        while ready:
            u = ready.pop()
            order.append(u)
            for w in u.parents:
                users[id(w)] -= 1
                if users[id(w)] == 0:
                    ready.append(w)
        return order""",
    "backpropagate": """
        dL = {id(root): grad}
        for u in topological_order(root):
            du = dL.pop(id(u), None)
            if du is None:
                continue
            u.accumulate(du)
            for w, dw in u.chain_rule(du):
                dL[id(w)] = dw if id(w) not in dL else dL[id(w)] + dw""",
    "broadcast_shapes": """
        S = [tuple(int(k) for k in s) for s in shapes]
        r = max([len(s) for s in S] + [0])
        out = []
        for j in range(1, r + 1):
            n = 1
            for s in S:
                if j <= len(s) and s[-j] != 1:
                    if n not in (1, s[-j]):
                        raise ValueError(f"cannot broadcast {S}: axis {-j} has sizes {n} and {s[-j]}")
                    n = s[-j]
            out.insert(0, n)
        return tuple(out)""",
    "unbroadcast": """
        k = grad.ndim - len(shape)
        dx = grad.sum(axis=tuple(range(k)))
        ax = tuple(i for i in range(len(shape)) if shape[i] == 1 and dx.shape[i] > 1)
        return dx.sum(axis=ax, keepdims=True) if ax else dx""",
    "Sub.backward": """
        da, db = grad, -grad
        return unbroadcast(da, a_shape), unbroadcast(db, b_shape)""",
    "Mul.backward": """
        da, db = grad * b, grad * a
        return unbroadcast(da, a.shape), unbroadcast(db, b.shape)""",
    "Div.backward": """
        da = grad / b
        db = -grad * a / b ** 2
        return unbroadcast(da, a.shape), unbroadcast(db, b.shape)""",
    "Pow.backward": """
        with np.errstate(divide="ignore", invalid="ignore"):
            da = grad * np.where(b != 0, b * a ** (b - 1), 0)
            db = None
            if ctx.needs_input_grad[1]:
                ln_a = np.where(a > 0, np.log(np.abs(a) + (a == 0)), 0)
                db = unbroadcast((grad * out * ln_a).astype(grad.dtype), b.shape)
        return unbroadcast(da.astype(grad.dtype), a.shape), db""",
    "_split_by_winner": """
        wa = np.where(tie, 0.5, a_wins.astype(grad.dtype))
        da, db = grad * wa, grad * (1 - wa)
        return unbroadcast(da, a_shape), unbroadcast(db, b_shape)""",
    "Exp.backward": """
        dx = out
        return dx * grad""",
    "Log.backward": """
        dx = 1 / x
        return dx * grad""",
    "Sqrt.backward": """
        dx = 1 / (2 * out)
        return dx * grad""",
    "Abs.backward": """
        dx = np.sign(x)
        return dx * grad""",
    "Sin.backward": """
        dx = np.cos(x)
        return dx * grad""",
    "Cos.backward": """
        dx = -np.sin(x)
        return dx * grad""",
    "Tanh.backward": """
        dx = 1 - out ** 2
        return dx * grad""",
    "Sigmoid.backward": """
        dx = out * (1 - out)
        return dx * grad""",
    "Relu.backward": """
        dx = np.heaviside(x, 0.0)
        return dx * grad""",
    "_with_reduced_axes": """
        if ctx.keepdims:
            return grad
        return np.expand_dims(grad, tuple(ctx.axes))""",
    "_to_extremes": """
        dy = grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)
        I = (x == out)
        k = np.sum(I, axis=ctx.axes, keepdims=True)
        return dy * I / k""",
    "Reshape.backward": "return grad.reshape(ctx.shape)",
    "Transpose.backward": """
        inv = np.empty(len(ctx.axes), dtype=int)
        inv[list(ctx.axes)] = np.arange(len(ctx.axes))
        return grad.transpose(inv)""",
    "BroadcastTo.backward": "return unbroadcast(grad, ctx.shape)",
    "Squeeze.backward": "return grad.reshape(ctx.shape)",
    "Unsqueeze.backward": "return grad.reshape(ctx.shape)",
    "GetItem.backward": """
        dx = np.zeros(ctx.shape, dtype=ctx.dtype)
        np.add.at(dx, ctx.index, grad)
        return dx""",
    "Cat.backward": """
        ends = np.cumsum(ctx.sizes)
        return tuple(np.split(grad, ends[:-1], axis=ctx.axis))""",
    "Stack.backward": """
        parts = np.split(grad, ctx.count, axis=ctx.axis)
        return tuple(np.squeeze(p, axis=ctx.axis) for p in parts)""",
    "MatMul.backward": """
        dA = dB = None
        if ctx.needs_input_grad[0]:
            dA = unbroadcast(np.matmul(grad2, np.swapaxes(b2, -2, -1)), a2.shape).reshape(a.shape)
        if ctx.needs_input_grad[1]:
            dB = unbroadcast(product_like(np.swapaxes(a2, -2, -1), grad2, b2), b2.shape).reshape(b.shape)
        return dA, dB""",
    "Gelu.backward": """
        if ctx.approximate == "tanh":
            du = SQRT_2_OVER_PI * (1 + 3 * TANH_CUBIC * x ** 2)
            dphi = 2 * cdf * (1 - cdf) * du
            return grad * (cdf + x * dphi)
        return grad * (cdf + x * normal_pdf(x))""",
    "stable_logsumexp": """
        mu = x.max(axis=axes, keepdims=True)
        mu = np.where(np.isinf(mu), 0, mu)
        with np.errstate(divide="ignore"):
            return mu + np.log(np.exp(x - mu).sum(axis=axes, keepdims=True))""",
    "LogSumExp.backward": """
        dy = grad if ctx.keepdims else np.expand_dims(grad, ctx.axes)
        return dy * np.exp(x - out)""",
    "LogSoftmax.backward": """
        p = np.exp(out)
        return grad - p * grad.sum(axis=ctx.axis, keepdims=True)""",
    "Softmax.backward": """
        s = out
        return s * grad - s * (s * grad).sum(axis=ctx.axis, keepdims=True)""",
    "CrossEntropy.forward": """
        if ctx.by_index:
            losses = -log_p[np.arange(n), target]
        else:
            losses = -(target * log_p).sum(axis=1)""",
    "CrossEntropy.backward": """
        p = np.exp(log_p)
        if ctx.by_index:
            p[np.arange(n), target] -= 1.0
            return rows * p, None
        dz = rows * (p * target.sum(axis=1, keepdims=True) - target)
        dt = -rows * log_p if ctx.needs_input_grad[1] else None
        return dz, dt""",
    "Module.parameters": """
        P = {}
        for a in _walk(vars(self).values()):
            if isinstance(a, Parameter):
                P.setdefault(id(a), a)
            if isinstance(a, Module):
                P.update({id(q): q for q in a.parameters() if id(q) not in P})
        return [*P.values()]""",
    "Linear.__init__": """
        s = 1.0 / np.sqrt(in_features)
        W = _rng.uniform(-s, s, size=(out_features, in_features))
        self.weight = Parameter(W, dtype=dtype)
        self.bias = Parameter(_rng.uniform(-s, s, size=out_features), dtype=dtype) if bias else None""",
    "Linear.forward": """
        y = x @ self.weight.T
        if self.bias is not None:
            y = y + self.bias
        return y""",
    "MLP.__init__": "self.layers = [Linear(sizes[i], sizes[i + 1], dtype=dtype) for i in range(len(sizes) - 1)]",
    "MLP.forward": """
        sigma = ACTIVATIONS[self.activation]
        h = x
        for W in self.layers[:-1]:
            h = sigma(W(h))
        return self.layers[-1](h)""",
    "SGD.step": """
        dp = p.grad
        if self.weight_decay:
            dp = dp + self.weight_decay * p.data
        if self.momentum:
            b = state.get("momentum_buffer")
            b = dp.copy() if b is None else self.momentum * b + dp
            state["momentum_buffer"] = b
            dp = b
        p.data -= self.lr * dp""",
    "Adam.step": """
        dp = p.grad
        if self.weight_decay:
            dp = dp + self.weight_decay * p.data
        t = state.get("step", 0) + 1
        m = beta1 * state.get("m", 0.0) + (1.0 - beta1) * dp
        v = beta2 * state.get("v", 0.0) + (1.0 - beta2) * dp ** 2
        state["step"], state["m"], state["v"] = t, m, v
        alpha = self.lr * math.sqrt(1 - beta2 ** t) / (1 - beta1 ** t)
        p.data -= alpha * m / (np.sqrt(v) + self.eps * math.sqrt(1 - beta2 ** t))""",
    "train_epoch": """
        optimizer.zero_grad()
        L = loss_fn(model(Tensor(x[batch])), y[batch])
        L.backward()
        optimizer.step()
        total += float(L.item()) * len(batch)""",
    "LayerNorm.backward": """
        axes = tuple(range(grad.ndim - 1))
        dxhat = grad * weight
        dx = rstd * (dxhat - mean_last(dxhat) - xhat * mean_last(dxhat * xhat))
        dw = (grad * xhat).sum(axis=axes)
        db = grad.sum(axis=axes)
        return dx, dw, db""",
    "CausalSelfAttention.forward": """
        Q = self.query(x).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        K = self.key(x).reshape(B, T, H, d).transpose(0, 2, 3, 1)
        V = self.value(x).reshape(B, T, H, d).transpose(0, 2, 1, 3)
        A = Q @ K / math.sqrt(d)
        M = np.triu(np.ones((T, T)), k=1) == 0
        P = softmax(where(M, A, -1e9), axis=-1)
        self.last_attention = P.data
        Y = (P @ V).transpose(0, 2, 1, 3).reshape(B, T, D)
        return self.proj(Y)""",
    "Block.forward": """
        h = x + self.attn(self.ln1(x))
        z = gelu(self.up(self.ln2(h)), approximate="tanh")
        return h + self.down(z)""",
    "GPT.forward": """
        T = idx.shape[1]
        h = self.token(idx) + self.position(np.arange(T))
        for blk in self.blocks:
            h = blk(h)
        return self.head(self.ln_f(h))""",
    "one training step": """
        optimizer.zero_grad()
        loss = loss_on(model, x, y)
        loss.backward()
        optimizer.step()""",
    "sampling with a temperature": """
        if temperature == 0:
            return logits.argmax(axis=-1)
        z = logits / temperature
        z = z - z.max(axis=-1, keepdims=True)
        P = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
        return np.array([rng.choice(P.shape[-1], p=P[i]) for i in range(P.shape[0])])""",
}

# Beginner: index loops, while loops, explicit ifs, repeated code, a print left commented out.
BEGINNER = {
    "central_difference": """
        values_up = []
        values_down = []
        for i in range(len(values)):
            if i == arg:
                values_up.append(values[i] + eps)
                values_down.append(values[i] - eps)
            else:
                values_up.append(values[i])
                values_down.append(values[i])
        answer = f(*values_up) - f(*values_down)
        answer = answer / (2 * eps)
        return answer""",
    "Scalar.__add__ backward": "return (g, g)",
    "Scalar.__sub__ backward": "return (g, g * -1)",
    "Scalar.__mul__ backward": "return (b.data * g, a.data * g)",
    "Scalar.__truediv__ backward": """
        first = g / b.data
        second = g * (-1) * a.data / (b.data * b.data)
        return (first, second)""",
    "Scalar.__pow__ backward": """
        if c == 0:
            return (0.0,)
        return (g * c * (a.data ** (c - 1)),)""",
    "Scalar.__neg__ backward": "return (g * -1,)",
    "Scalar.exp backward": "return (g * math.exp(a.data),)",
    "Scalar.log backward": "return (g * 1 / a.data,)",
    "Scalar.sin backward": "return (g * math.cos(a.data),)",
    "Scalar.cos backward": "return (g * (-math.sin(a.data)),)",
    "Scalar.tanh backward": "return (g * (1 - math.tanh(a.data) ** 2),)",
    "Scalar.sigmoid backward": "return (g * out * (1 - out),)",
    "Scalar.relu backward": """
        if a.data > 0:
            return (g,)
        return (0.0,)""",
    "topological_order": """
        result = []
        visited = []
        visited_ids = set()
        todo = [root]
        # first find every node
        while len(todo) > 0:
            node = todo.pop()
            if id(node) in visited_ids:
                continue
            visited_ids.add(id(node))
            visited.append(node)
            for p in node.parents:
                todo.append(p)
        # then count the children of each node
        children = {}
        for node in visited:
            for p in node.parents:
                if id(p) in children:
                    children[id(p)] = children[id(p)] + 1
                else:
                    children[id(p)] = 1
        queue = [root]
        while len(queue) > 0:
            node = queue.pop(0)
            result.append(node)
            for p in node.parents:
                children[id(p)] = children[id(p)] - 1
                if children[id(p)] == 0:
                    queue.append(p)
        return result""",
    "backpropagate": """
        grads = {}
        grads[id(root)] = grad
        nodes = topological_order(root)
        i = 0
        while i < len(nodes):
            node = nodes[i]
            i = i + 1
            if not id(node) in grads:
                continue
            g = grads[id(node)]
            node.accumulate(g)
            pairs = node.chain_rule(g)
            for pair in pairs:
                p = pair[0]
                pg = pair[1]
                if id(p) in grads:
                    grads[id(p)] = grads[id(p)] + pg
                else:
                    grads[id(p)] = pg""",
    "broadcast_shapes": """
        all_shapes = []
        for s in shapes:
            t = []
            for n in s:
                t.append(int(n))
            all_shapes.append(t)
        biggest = 0
        for s in all_shapes:
            biggest = max(biggest, len(s))
        for s in all_shapes:
            while len(s) < biggest:
                s.insert(0, 1)
        answer = []
        for i in range(biggest):
            size = 1
            for s in all_shapes:
                if s[i] != 1:
                    if size == 1:
                        size = s[i]
                    elif size != s[i]:
                        raise ValueError("cannot broadcast shapes " + str(shapes) + " at axis " + str(i - biggest))
            answer.append(size)
        return tuple(answer)""",
    "unbroadcast": """
        g = grad
        while len(g.shape) > len(shape):
            g = np.sum(g, axis=0)
        i = 0
        while i < len(shape):
            if shape[i] == 1:
                g = np.sum(g, axis=i, keepdims=True)
            i = i + 1
        return g""",
    "Sub.backward": "return (unbroadcast(grad, a_shape), unbroadcast(grad * -1, b_shape))",
    "Mul.backward": "return (unbroadcast(b * grad, a.shape), unbroadcast(a * grad, b.shape))",
    "Div.backward": """
        left = unbroadcast(grad / b, a.shape)
        right = unbroadcast(grad * (-1) * a / (b * b), b.shape)
        return (left, right)""",
    "Pow.backward": """
        old = np.seterr(all="ignore")
        left = grad * b * (a ** (b - 1))
        left = np.where(b == 0, 0, left)
        left = left.astype(grad.dtype)
        right = None
        if ctx.needs_input_grad[1]:
            logs = np.log(a)
            logs = np.where(a == 0, 0, logs)
            right = unbroadcast((grad * out * logs).astype(grad.dtype), b.shape)
        np.seterr(**old)
        return (unbroadcast(left, a.shape), right)""",
    "_split_by_winner": """
        left = np.zeros_like(grad)
        left = np.where(a_wins, grad, left)
        left = np.where(tie, grad / 2, left)
        right = grad - left
        return (unbroadcast(left, a_shape), unbroadcast(right, b_shape))""",
    "Exp.backward": "return out * grad",
    "Log.backward": "return grad * (1 / x)",
    "Sqrt.backward": "return grad * 0.5 / out",
    "Abs.backward": "return grad * np.where(x > 0, 1, np.where(x < 0, -1, 0))",
    "Sin.backward": "return grad * np.cos(x)",
    "Cos.backward": "return grad * (-np.sin(x))",
    "Tanh.backward": "return grad * (1 - np.tanh(np.arctanh(out)) ** 2)",
    "Sigmoid.backward": "return grad * (out * (1 - out))",
    "Relu.backward": """
        mask = np.zeros_like(x)
        mask[x > 0] = 1
        return grad * mask""",
    "_with_reduced_axes": """
        if ctx.keepdims == True:
            return grad
        else:
            return np.expand_dims(grad, ctx.axes)""",
    "_to_extremes": """
        if ctx.keepdims == False:
            grad = np.expand_dims(grad, ctx.axes)
        where_max = np.where(x == out, 1.0, 0.0)
        count = np.sum(where_max, axis=ctx.axes, keepdims=True)
        return grad * where_max / count""",
    "Reshape.backward": "return np.reshape(grad, ctx.shape)",
    "Transpose.backward": """
        back = []
        for i in range(len(ctx.axes)):
            back.append(list(ctx.axes).index(i))
        return np.transpose(grad, back)""",
    "BroadcastTo.backward": "return unbroadcast(grad, ctx.shape)",
    "Squeeze.backward": "return np.reshape(grad, ctx.shape)",
    "Unsqueeze.backward": "return np.reshape(grad, ctx.shape)",
    "GetItem.backward": """
        answer = np.zeros(ctx.shape)
        answer = answer.astype(ctx.dtype)
        np.add.at(answer, ctx.index, grad)
        return answer""",
    "Cat.backward": """
        answer = []
        position = 0
        for size in ctx.sizes:
            answer.append(np.take(grad, list(range(position, position + size)), axis=ctx.axis))
            position += size
        return tuple(answer)""",
    "Stack.backward": """
        answer = []
        for i in range(ctx.count):
            answer.append(np.take(grad, i, axis=ctx.axis))
        return tuple(answer)""",
    "MatMul.backward": """
        left = None
        right = None
        if ctx.needs_input_grad[0] == True:
            left = grad2 @ np.swapaxes(b2, -1, -2)
            left = unbroadcast(left, a2.shape)
            left = np.reshape(left, a.shape)
        if ctx.needs_input_grad[1] == True:
            right = product_like(np.swapaxes(a2, -1, -2), grad2, b2)
            right = unbroadcast(right, b2.shape)
            right = np.reshape(right, b.shape)
        return (left, right)""",
    "Gelu.backward": """
        if ctx.approximate == "none":
            return grad * (cdf + x * normal_pdf(x))
        t = 2 * cdf - 1
        inner = SQRT_2_OVER_PI * (1 + 3 * TANH_CUBIC * x * x)
        return grad * (cdf + 0.5 * x * (1 - t * t) * inner)""",
    "stable_logsumexp": """
        biggest = np.max(x, axis=axes, keepdims=True)
        biggest[np.isinf(biggest)] = 0
        s = np.sum(np.exp(x - biggest), axis=axes, keepdims=True)
        old = np.seterr(divide="ignore")
        answer = np.log(s) + biggest
        np.seterr(**old)
        return answer""",
    "LogSumExp.backward": """
        if ctx.keepdims == False:
            grad = np.expand_dims(grad, ctx.axes)
        return grad * np.exp(x - out)""",
    "LogSoftmax.backward": """
        s = np.sum(grad, axis=ctx.axis, keepdims=True)
        return grad - np.exp(out) * s""",
    "Softmax.backward": """
        s = np.sum(out * grad, axis=ctx.axis, keepdims=True)
        return out * (grad - s)""",
    "CrossEntropy.forward": """
        losses = np.zeros(n)
        for i in range(n):
            if ctx.by_index:
                losses[i] = -log_p[i, target[i]]
            else:
                losses[i] = -np.sum(target[i] * log_p[i])""",
    "CrossEntropy.backward": """
        p = np.exp(log_p)
        if ctx.by_index:
            for i in range(n):
                p[i, target[i]] = p[i, target[i]] - 1
            return (p * rows, None)
        g = (p * np.sum(target, axis=1, keepdims=True) - target) * rows
        if ctx.needs_input_grad[1]:
            return (g, -log_p * rows)
        return (g, None)""",
    "Module.parameters": """
        answer = []
        for thing in _walk(vars(self).values()):
            if isinstance(thing, Parameter):
                if not any(thing is q for q in answer):
                    answer.append(thing)
            elif isinstance(thing, Module):
                for q in thing.parameters():
                    if not any(q is r for r in answer):
                        answer.append(q)
        return answer""",
    "Linear.__init__": """
        lim = 1 / math.sqrt(in_features)
        self.weight = Parameter(_rng.uniform(-lim, lim, (out_features, in_features)), dtype=dtype)
        if bias == True:
            self.bias = Parameter(_rng.uniform(-lim, lim, (out_features,)), dtype=dtype)
        else:
            self.bias = None""",
    "Linear.forward": """
        if self.bias is None:
            return x @ self.weight.T
        return x @ self.weight.T + self.bias""",
    "MLP.__init__": """
        self.layers = []
        i = 0
        while i < len(sizes) - 1:
            self.layers.append(Linear(sizes[i], sizes[i + 1], dtype=dtype))
            i += 1""",
    "MLP.forward": """
        for i in range(len(self.layers)):
            x = self.layers[i](x)
            if i != len(self.layers) - 1:
                x = ACTIVATIONS[self.activation](x)
        return x""",
    "SGD.step": """
        grad = p.grad
        if self.weight_decay != 0:
            grad = grad + p.data * self.weight_decay
        if self.momentum != 0:
            if state.get("momentum_buffer") is None:
                state["momentum_buffer"] = np.array(grad)
            else:
                state["momentum_buffer"] = state["momentum_buffer"] * self.momentum + grad
            grad = state["momentum_buffer"]
        p.data -= grad * self.lr""",
    "Adam.step": """
        grad = p.grad
        if self.weight_decay != 0:
            grad = grad + p.data * self.weight_decay
        if len(state) == 0:
            state["step"] = 0
            state["m"] = 0
            state["v"] = 0
        state["step"] += 1
        state["m"] = state["m"] * beta1 + grad * (1 - beta1)
        state["v"] = state["v"] * beta2 + grad * grad * (1 - beta2)
        m_hat = state["m"] / (1 - beta1 ** state["step"])
        v_hat = state["v"] / (1 - beta2 ** state["step"])
        p.data -= self.lr * m_hat / (np.sqrt(v_hat) + self.eps)""",
    "train_epoch": """
        xb = Tensor(x[batch])
        yb = y[batch]
        out = model(xb)
        loss = loss_fn(out, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        # print(loss.item())
        total = total + loss.item() * len(batch)""",
    "LayerNorm.backward": """
        axes = []
        for i in range(grad.ndim - 1):
            axes.append(i)
        axes = tuple(axes)
        g = grad * weight
        gx = rstd * (g - mean_last(g) - xhat * mean_last(g * xhat))
        return (gx, np.sum(grad * xhat, axis=axes), np.sum(grad, axis=axes))""",
    "CausalSelfAttention.forward": """
        q = self.query(x)
        k = self.key(x)
        v = self.value(x)
        q = q.reshape(B, T, H, d)
        k = k.reshape(B, T, H, d)
        v = v.reshape(B, T, H, d)
        q = q.transpose(0, 2, 1, 3)
        k = k.transpose(0, 2, 1, 3)
        v = v.transpose(0, 2, 1, 3)
        att = q @ k.transpose(0, 1, 3, 2)
        att = att / math.sqrt(d)
        mask = np.zeros((T, T), dtype=bool)
        for i in range(T):
            for j in range(i + 1):
                mask[i, j] = True
        att = where(mask, att, -1e9)
        att = softmax(att, axis=-1)
        self.last_attention = att.data
        y = att @ v
        y = y.transpose(0, 2, 1, 3)
        y = y.reshape(B, T, D)
        return self.proj(y)""",
    "Block.forward": """
        y = self.ln1(x)
        y = self.attn(y)
        x = x + y
        y = self.ln2(x)
        y = self.up(y)
        y = gelu(y, approximate="tanh")
        y = self.down(y)
        return x + y""",
    "GPT.forward": """
        T = idx.shape[1]
        tok = self.token(idx)
        pos = self.position(np.arange(0, T))
        x = tok + pos
        for i in range(len(self.blocks)):
            x = self.blocks[i](x)
        x = self.ln_f(x)
        return self.head(x)""",
    "one training step": """
        loss = loss_on(model, x, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()""",
    "sampling with a temperature": """
        answer = []
        for i in range(logits.shape[0]):
            row = logits[i]
            if temperature == 0:
                answer.append(np.argmax(row))
            else:
                row = row / temperature
                row = np.exp(row - np.max(row))
                row = row / np.sum(row)
                answer.append(rng.choice(len(row), p=row))
        return np.array(answer)""",
}

# Defensive: checks and asserts, early returns, float() and np.asarray() everywhere.
DEFENSIVE = {
    "central_difference": """
        assert eps > 0, "eps must be positive"
        args_hi = [float(v) for v in values]
        args_lo = [float(v) for v in values]
        args_hi[arg] += eps
        args_lo[arg] -= eps
        return float(f(*args_hi) - f(*args_lo)) / float(2 * eps)""",
    "Scalar.__add__ backward": "return float(g), float(g)",
    "Scalar.__sub__ backward": "return float(g), float(-g)",
    "Scalar.__mul__ backward": "return float(g) * float(b.data), float(g) * float(a.data)",
    "Scalar.__truediv__ backward": """
        denom = float(b.data)
        assert denom != 0.0
        return g / denom, -g * a.data / (denom * denom)""",
    "Scalar.__pow__ backward": """
        if c == 0.0:
            return (0.0,)
        if a.data == 0.0 and c < 1.0:
            return (float("inf") * g,)
        return (float(g * c * a.data ** (c - 1.0)),)""",
    "Scalar.__neg__ backward": "return (float(-g),)",
    "Scalar.exp backward": "return (float(g * out),)",
    "Scalar.log backward": """
        assert a.data > 0.0
        return (float(g / a.data),)""",
    "Scalar.sin backward": "return (float(g * math.cos(a.data)),)",
    "Scalar.cos backward": "return (float(-g * math.sin(a.data)),)",
    "Scalar.tanh backward": "return (float(g * (1.0 - out * out)),)",
    "Scalar.sigmoid backward": "return (float(g * out * (1.0 - out)),)",
    "Scalar.relu backward": "return (float(g) if a.data > 0.0 else 0.0,)",
    "topological_order": """
        if root is None:
            return []
        state = {}          # id -> 1 while its parents are pending, 2 when done
        order = []
        pending = [root]
        while pending:
            top = pending[-1]
            if state.get(id(top)) == 2:
                pending.pop()
                continue
            if state.get(id(top)) == 1:
                state[id(top)] = 2
                order.append(top)
                pending.pop()
                continue
            state[id(top)] = 1
            for parent in reversed(list(top.parents)):
                if state.get(id(parent)) is None:
                    pending.append(parent)
        order.reverse()
        return order""",
    "backpropagate": """
        if root is None:
            return
        incoming = {id(root): [grad]}
        for node in topological_order(root):
            received = incoming.pop(id(node), None)
            if not received:
                continue
            total = received[0]
            for more in received[1:]:
                total = total + more
            node.accumulate(total)
            for parent, parent_grad in node.chain_rule(total):
                if parent_grad is None:
                    continue
                incoming.setdefault(id(parent), []).append(parent_grad)""",
    "broadcast_shapes": """
        checked = []
        for shape in shapes:
            if any(int(n) < 0 for n in shape):
                raise ValueError(f"negative size in shape {tuple(shape)}")
            checked.append(tuple(int(n) for n in shape))
        if not checked:
            return ()
        ndim = max(len(shape) for shape in checked)
        out = [1] * ndim
        for shape in checked:
            offset = ndim - len(shape)
            for i, n in enumerate(shape):
                j = offset + i
                if n != 1 and out[j] != 1 and out[j] != n:
                    raise ValueError(f"shapes {checked} cannot be broadcast: axis {j - ndim} has sizes {out[j]} and {n}")
                if n != 1:
                    out[j] = n
        return tuple(out)""",
    "unbroadcast": """
        shape = tuple(shape)
        if grad.shape == shape:
            return grad
        leading = grad.ndim - len(shape)
        assert leading >= 0
        axes = list(range(leading))
        for i, n in enumerate(shape):
            if n == 1 and grad.shape[leading + i] != 1:
                axes.append(leading + i)
        summed = np.sum(grad, axis=tuple(axes), keepdims=True)
        return np.reshape(summed, shape)""",
    "Sub.backward": """
        ga = unbroadcast(np.asarray(grad), a_shape)
        gb = unbroadcast(np.negative(grad), b_shape)
        return ga, gb""",
    "Mul.backward": """
        ga = unbroadcast(np.multiply(grad, b), a.shape)
        gb = unbroadcast(np.multiply(grad, a), b.shape)
        return ga, gb""",
    "Div.backward": """
        ga = unbroadcast(np.divide(grad, b), a.shape)
        gb = unbroadcast(np.negative(grad) * a / np.square(b), b.shape)
        return ga, gb""",
    "Pow.backward": """
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            slope = np.where(b == 0, 0.0, b * np.power(a, b - 1))
            ga = unbroadcast(np.asarray(grad * slope, dtype=grad.dtype), a.shape)
            if not ctx.needs_input_grad[1]:
                return ga, None
            lg = np.where((a == 0) & (b >= 0), 0.0, np.log(a))
            gb = unbroadcast(np.asarray(grad * out * lg, dtype=grad.dtype), b.shape)
        return ga, gb""",
    "_split_by_winner": """
        a_share = np.asarray(a_wins, dtype=grad.dtype) + 0.5 * np.asarray(tie, dtype=grad.dtype)
        ga = grad * a_share
        gb = grad - ga
        assert ga.shape == grad.shape
        return unbroadcast(ga, a_shape), unbroadcast(gb, b_shape)""",
    "Exp.backward": "return np.multiply(grad, out)",
    "Log.backward": "return np.divide(grad, x)",
    "Sqrt.backward": "return np.divide(grad, 2.0 * out)",
    "Abs.backward": "return np.multiply(grad, np.sign(x))",
    "Sin.backward": "return np.multiply(grad, np.cos(x))",
    "Cos.backward": "return np.multiply(grad, -np.sin(x))",
    "Tanh.backward": "return np.multiply(grad, 1.0 - np.square(out))",
    "Sigmoid.backward": "return np.multiply(grad, out * (1.0 - out))",
    "Relu.backward": "return np.multiply(grad, (x > 0).astype(grad.dtype))",
    "_with_reduced_axes": """
        if ctx.keepdims:
            return grad
        axes = tuple(ctx.axes)
        assert grad.ndim + len(axes) >= len(axes)
        return np.expand_dims(grad, axes)""",
    "_to_extremes": """
        full = grad if ctx.keepdims else np.expand_dims(grad, tuple(ctx.axes))
        chosen = np.asarray(x == out, dtype=grad.dtype)
        counts = np.maximum(np.sum(chosen, axis=ctx.axes, keepdims=True), 1)
        return np.multiply(full, chosen) / counts""",
    "Reshape.backward": "return np.asarray(grad).reshape(ctx.shape)",
    "Transpose.backward": """
        assert sorted(ctx.axes) == list(range(len(ctx.axes)))
        return np.transpose(grad, np.argsort(ctx.axes))""",
    "BroadcastTo.backward": "return unbroadcast(np.asarray(grad), ctx.shape)",
    "Squeeze.backward": "return np.asarray(grad).reshape(ctx.shape)",
    "Unsqueeze.backward": "return np.asarray(grad).reshape(ctx.shape)",
    "GetItem.backward": """
        result = np.zeros(ctx.shape, dtype=ctx.dtype)
        np.add.at(result, ctx.index, np.asarray(grad, dtype=ctx.dtype))
        assert result.shape == tuple(ctx.shape)
        return result""",
    "Cat.backward": """
        assert sum(ctx.sizes) == grad.shape[ctx.axis]
        cuts = np.cumsum(ctx.sizes)[:-1]
        return tuple(np.split(grad, cuts, axis=ctx.axis))""",
    "Stack.backward": """
        assert grad.shape[ctx.axis] == ctx.count
        return tuple(np.take(grad, i, axis=ctx.axis) for i in range(ctx.count))""",
    "MatMul.backward": """
        need_a, need_b = ctx.needs_input_grad[0], ctx.needs_input_grad[1]
        ga = gb = None
        if need_a:
            ga = np.reshape(unbroadcast(np.matmul(grad2, np.swapaxes(b2, -1, -2)), a2.shape), a.shape)
        if need_b:
            gb = np.reshape(unbroadcast(product_like(np.swapaxes(a2, -1, -2), grad2, b2), b2.shape), b.shape)
        return ga, gb""",
    "Gelu.backward": """
        if ctx.approximate not in ("none", "tanh"):
            raise ValueError(ctx.approximate)
        if ctx.approximate == "none":
            return grad * (cdf + x * normal_pdf(x))
        sech2 = 4.0 * cdf * (1.0 - cdf)
        return grad * (cdf + 0.5 * x * sech2 * SQRT_2_OVER_PI * (1.0 + 3.0 * TANH_CUBIC * np.square(x)))""",
    "stable_logsumexp": """
        if x.size == 0:
            return np.log(np.sum(np.exp(x), axis=axes, keepdims=True))
        peak = np.max(x, axis=axes, keepdims=True)
        peak = np.where(np.isfinite(peak), peak, np.zeros_like(peak))
        with np.errstate(divide="ignore", under="ignore"):
            return peak + np.log(np.sum(np.exp(x - peak), axis=axes, keepdims=True))""",
    "LogSumExp.backward": """
        full = grad if ctx.keepdims else np.expand_dims(grad, tuple(ctx.axes))
        assert full.ndim == x.ndim
        return np.multiply(full, np.exp(x - out))""",
    "LogSoftmax.backward": """
        total = np.sum(grad, axis=ctx.axis, keepdims=True)
        return np.subtract(grad, np.exp(out) * total)""",
    "Softmax.backward": """
        inner = np.sum(np.multiply(grad, out), axis=ctx.axis, keepdims=True)
        return np.multiply(out, np.subtract(grad, inner))""",
    "CrossEntropy.forward": """
        if ctx.by_index:
            assert target.shape == (n,)
            losses = -np.asarray(log_p[np.arange(n), target])
        else:
            assert target.shape == log_p.shape
            losses = -np.sum(np.multiply(target, log_p), axis=1)""",
    "CrossEntropy.backward": """
        probs = np.exp(log_p)
        if ctx.by_index:
            probs[np.arange(n), target] = probs[np.arange(n), target] - 1.0
            return np.multiply(probs, rows), None
        weight = np.sum(target, axis=1, keepdims=True)
        dlogits = np.multiply(probs * weight - target, rows)
        dtarget = np.multiply(-log_p, rows) if ctx.needs_input_grad[1] else None
        return dlogits, dtarget""",
    "Module.parameters": """
        found = []
        ids = set()
        def keep(p):
            if id(p) not in ids:
                ids.add(id(p))
                found.append(p)
        for item in _walk(vars(self).values()):
            if isinstance(item, Parameter):
                keep(item)
            elif isinstance(item, Module) and item is not self:
                for p in item.parameters():
                    keep(p)
        return found""",
    "Linear.__init__": """
        assert in_features > 0 and out_features > 0
        edge = 1.0 / float(np.sqrt(in_features))
        self.weight = Parameter(np.asarray(_rng.uniform(-edge, edge, (out_features, in_features))), dtype=dtype)
        self.bias = None
        if bias:
            self.bias = Parameter(np.asarray(_rng.uniform(-edge, edge, (out_features,))), dtype=dtype)""",
    "Linear.forward": """
        product = x @ self.weight.T
        if self.bias is None:
            return product
        return product + self.bias""",
    "MLP.__init__": """
        pairs = list(zip(sizes[:-1], sizes[1:]))
        assert len(pairs) >= 1
        self.layers = [Linear(int(n_in), int(n_out), dtype=dtype) for n_in, n_out in pairs]""",
    "MLP.forward": """
        f = ACTIVATIONS[self.activation]
        *hidden, last = self.layers
        for layer in hidden:
            x = f(layer(x))
        return last(x)""",
    "SGD.step": """
        step_grad = np.asarray(p.grad)
        if self.weight_decay:
            step_grad = step_grad + self.weight_decay * p.data
        if self.momentum:
            old = state.get("momentum_buffer", None)
            new = np.copy(step_grad) if old is None else self.momentum * old + step_grad
            state["momentum_buffer"] = new
            step_grad = new
        p.data -= self.lr * step_grad""",
    "Adam.step": """
        step_grad = np.asarray(p.grad)
        if self.weight_decay:
            step_grad = step_grad + self.weight_decay * p.data
        state["step"] = int(state.get("step", 0)) + 1
        state["m"] = beta1 * state.get("m", np.zeros_like(step_grad)) + (1.0 - beta1) * step_grad
        state["v"] = beta2 * state.get("v", np.zeros_like(step_grad)) + (1.0 - beta2) * np.square(step_grad)
        bias1 = 1.0 - beta1 ** state["step"]
        bias2 = 1.0 - beta2 ** state["step"]
        p.data -= self.lr * (state["m"] / bias1) / (np.sqrt(state["v"] / bias2) + self.eps)""",
    "train_epoch": """
        if len(batch) == 0:
            continue
        optimizer.zero_grad()
        batch_loss = loss_fn(model(Tensor(np.asarray(x[batch]))), y[batch])
        batch_loss.backward()
        optimizer.step()
        total += float(batch_loss.item()) * len(batch)""",
    "LayerNorm.backward": """
        reduce_axes = tuple(range(grad.ndim - 1))
        gw = np.sum(np.multiply(grad, xhat), axis=reduce_axes)
        gb = np.sum(grad, axis=reduce_axes)
        gxh = np.multiply(grad, weight)
        gx = rstd * (gxh - mean_last(gxh) - xhat * mean_last(gxh * xhat))
        assert gx.shape == grad.shape
        return gx, gw, gb""",
    "CausalSelfAttention.forward": """
        assert D == H * d
        def heads(t):
            return t.reshape(B, T, H, d).transpose(0, 2, 1, 3)
        q, k, v = heads(self.query(x)), heads(self.key(x)), heads(self.value(x))
        logits = q @ k.transpose(0, 1, 3, 2) * (d ** -0.5)
        allowed = np.tril(np.ones((T, T), dtype=bool))
        probs = softmax(where(allowed, logits, -1e9), axis=-1)
        self.last_attention = probs.data
        mixed = (probs @ v).transpose(0, 2, 1, 3).reshape(B, T, D)
        return self.proj(mixed)""",
    "Block.forward": """
        after_attention = x + self.attn(self.ln1(x))
        after_mlp = after_attention + self.down(gelu(self.up(self.ln2(after_attention)), approximate="tanh"))
        return after_mlp""",
    "GPT.forward": """
        positions = np.arange(idx.shape[1], dtype=np.int64)
        x = self.token(idx) + self.position(positions)
        for block in self.blocks:
            x = block(x)
        x = self.ln_f(x)
        return self.head(x)""",
    "one training step": """
        optimizer.zero_grad()
        loss = loss_on(model, x, y)
        if not np.isfinite(loss.item()):
            raise FloatingPointError("the loss is not finite")
        loss.backward()
        optimizer.step()""",
    "sampling with a temperature": """
        if temperature < 0:
            raise ValueError("temperature must not be negative")
        if temperature == 0:
            return np.argmax(logits, axis=-1)
        scaled = np.asarray(logits, dtype=np.float64) / float(temperature)
        scaled -= scaled.max(axis=-1, keepdims=True)
        probs = np.exp(scaled)
        probs /= probs.sum(axis=-1, keepdims=True)
        return np.array([rng.choice(probs.shape[1], p=row) for row in probs])""",
}

STYLES = {"terse": TERSE, "verbose": VERBOSE, "functional": FUNCTIONAL, "mathy": MATHY, "beginner": BEGINNER,
          "defensive": DEFENSIVE}
