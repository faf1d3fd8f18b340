"""Buggy and alternative versions of the stage-7 reference (the same format as variants.py)."""

BUGGY = [
    ("layer norm forgets the mean's path", ("ops_norm.py",
        "grad_x = rstd * (g - g.mean(axis=-1, keepdims=True) - xhat * (g * xhat).mean(axis=-1, keepdims=True))",
        "grad_x = rstd * (g - xhat * (g * xhat).mean(axis=-1, keepdims=True))"), "7.1", "gradient for input 0"),
    ("layer norm forgets the variance's path", ("ops_norm.py",
        "grad_x = rstd * (g - g.mean(axis=-1, keepdims=True) - xhat * (g * xhat).mean(axis=-1, keepdims=True))",
        "grad_x = rstd * (g - g.mean(axis=-1, keepdims=True))"), "7.1", "gradient for input 0"),
    ("layer norm bias gradient not summed over the batch", ("ops_norm.py", "grad_bias = grad.sum(axis=batch_axes)",
                                                             "grad_bias = grad.sum(axis=0)"), "7.1", "input 2"),
    ("attention without the scale", ("transformer.py", "scores = (q @ k) * (1.0 / math.sqrt(d))", "scores = q @ k"),
     "7.2", "scaled"),
    ("mask lets a position see the future", ("transformer.py", "causal = np.tril(np.ones((T, T), dtype=bool))",
                                              "causal = np.ones((T, T), dtype=bool)"), "7.2", "future"),
    ("heads merged without the transpose", ("transformer.py",
        "merged = (weights @ v).transpose(0, 2, 1, 3).reshape(B, T, D)", "merged = (weights @ v).reshape(B, T, D)"),
     "7.2", "several heads"),
    ("block without the residual around attention", ("transformer.py", "x = x + self.attn(self.ln1(x))",
                                                     "x = self.attn(self.ln1(x))"), "7.3", "Block"),
    ("gpt forgets the position embeddings", ("transformer.py",
        "x = self.token(idx) + self.position(np.arange(idx.shape[1]))", "x = self.token(idx)"), "7.3", "GPT"),
    ("gpt skips the final layer norm", ("transformer.py", "return self.head(self.ln_f(x))", "return self.head(x)"),
     "7.3", "GPT"),
    ("sampling ignores the temperature", ("transformer.py", "z = logits / temperature", "z = logits"), "7.4",
     "temperature"),
    ("temperature 0 still samples", ("transformer.py", "if temperature == 0:", "if temperature < 0:"), "7.4", "greedy"),
    ("training step without zero_grad", ("language.py", "        optimizer.zero_grad()\n", ""), "7.4", "zero_grad"),
]

ALTERNATIVES = [
    ("layer norm backward through the centred input", [("ops_norm.py",
        "grad_x = rstd * (g - g.mean(axis=-1, keepdims=True) - xhat * (g * xhat).mean(axis=-1, keepdims=True))",
        "n = g.shape[-1]\n"
        "        grad_x = (rstd / n) * (n * g - g.sum(axis=-1, keepdims=True)\n"
        "                               - xhat * (g * xhat).sum(axis=-1, keepdims=True))")]),
    ("attention masked with -inf and softmax of the scaled scores", [("transformer.py",
        "weights = softmax(where(causal, scores, -1e9), axis=-1)",
        "weights = softmax(where(causal, scores, -np.inf), axis=-1)")]),
    ("sampling by inverse transform of the cumulative distribution", [("transformer.py",
        "chosen = np.array([rng.choice(len(row), p=row) for row in p])",
        "cumulative = np.cumsum(p, axis=-1)\n"
        "                    draws = rng.random((len(p), 1))\n"
        "                    chosen = np.minimum((cumulative < draws).sum(axis=-1), p.shape[-1] - 1)")]),
]
