"""Hints on request, in up to three steps: the idea, where to look, then nearly the line.

    mt.hint("2.2")       # the first step; call again for the next one
    mt.hint("2.2", 3)    # the third step at once

A hint never gives the code itself: it says what to compute and with which names.
"""

from __future__ import annotations

HINTS: dict[str, tuple[str, str, str]] = {
    "1.1": ("The slope of f at x is about (f a little to the right - f a little to the left) / the distance between "
            "the two points.",
            "Make two separate copies of the list of values (not two names for one list); in one copy add eps to the "
            "value at position arg, in the other subtract it. Leave every other value alone.",
            "Call f on each copy (unpack the lists with *), subtract, and divide by twice eps."),
    "1.2": ("Each backward returns, for every input, the upstream gradient g times the local derivative of the "
            "output with respect to that input.",
            "Every operation in minitorch/scalar.py has a small backward function; use a.data and b.data (plain "
            "floats), and out, the output's value, where it is simpler.",
            "a - b hands minus g for b. Product rule: d(ab)/da is b (the inputs' gradients not swapped). Quotient: "
            "d(a/b)/db is -a/b^2. Power: c a^(c-1), but give 0 when c is 0 (0.0 ** -1 raises). log' is 1/a: g divided "
            "by a, the input (its value a.data). sin' is cos, no minus; cos has a minus sign: -sin. exp' is out, tanh' is 1 - out^2, "
            "sigmoid' is out (1 - out), from the output, not the input; relu' is 1 only where a > 0."),
    "1.3": ("Order the graph so that every node comes before the nodes it was computed from (its parents), starting "
            "at the root: every node the root depends on, the root and the leaves included, once each.",
            "A depth-first walk finishes a node only after all its parents have finished (post-order): append it to a "
            "finished list then; reversing that list puts the root first. Keep a set of the ids of the nodes you have expanded, so a shared node "
            "is expanded once: mark a node when you expand it (when it pops), never when you push it. A node marked "
            "as it is pushed can be skipped by the branch that needs it finished first, and the order comes out wrong.",
            "Use a list as a stack of (node, parents_done) pairs instead of recursion, and loop as long as anything is "
            "left on it. Pop a pair (from the end, where append puts it): marked done, the "
            "node goes on the finished list; otherwise skip it if its id is in the set, else add its id now, push it "
            "back marked done, then push each parent whose id is not in the set. Reverse the finished list at the end."),
    "1.4": ("Walk the nodes in topological order, root first; each node's gradient is complete once every node "
            "computed from it has passed its share on.",
            "Keep a dictionary from id(node) to the gradient collected so far, seeded with the root's gradient (the "
            "one you are given, not 1). node.chain_rule(g) gives (parent, gradient) pairs.",
            "For each node: take its total out of the dictionary (skip it if none), call node.accumulate once with "
            "it (every node, the root too, not only the leaves), then node.chain_rule(total) with that node's own total, and add each "
            "parent's share into the dictionary (a new sum, never += on an array)."),
    "2.1": ("Line the shapes up from the right. In each position the sizes must be equal or 1; the result takes the "
            "size that is not 1.",
            "Loop over the positions -1, -2, ... down to minus the longest length, that one included; a shorter shape has no "
            "axis there (it counts as 1).",
            "In each position collect the set of sizes other than 1; more than one size left means a clash (raise "
            "ValueError naming the shapes); otherwise take that size (not the largest: a 0 with a 1 gives 0), or 1 if the "
            "set is empty. Return a tuple, not a list."),
    "2.2": ("Broadcasting copied the input along some axes; the reverse sums the gradient along those same axes.",
            "Two kinds of axes were stretched: the leading axes grad has and shape lacks (shapes line up from the "
            "right: exactly grad.ndim - len(shape) of them, not one more), and the axes where shape has a 1 but grad "
            "does not.",
            "Sum grad over both kinds at once with keepdims=True, then reshape the result to shape (that drops the "
            "leading size-1 axes). Return this new array."),
    "2.3": ("Each input's gradient is grad times the local derivative with respect to it, then summed back to that "
            "input's shape.",
            "The table in the notebook gives each rule; unbroadcast(g, x.shape) does the summing. For maximum and "
            "minimum, _split_by_winner gets boolean arrays a_wins and tie.",
            "Mul: a's gradient uses b and b's uses a (not swapped). Sub: grad and minus grad. Div: grad / b and "
            "-grad a / b^2, computed as -grad (a / b) / b (b * b overflows float32 near 2e19). Pow: a's is b a^(b-1), with np.where so that b == 0 gives 0; b's is out times log(a) (NaN "
            "for a negative base, as in PyTorch), skipped (None) unless ctx.needs_input_grad[1]. Ties: half of grad to "
            "each side."),
    "3.1": ("One input, one output of the same shape: the gradient is grad times the derivative, elementwise.",
            "Each backward has x (the input) or out (the output) saved; pick whichever makes the derivative short.",
            "exp: times out. log: divided by x. sqrt: divided by twice out (mind the parentheses: a / 2 * b is "
            "(a / 2) * b). abs: times the sign of x. relu: times (x > 0). sin: times cos x, no minus; cos has a minus "
            "sign. tanh: 1 - out^2, the output squared, not the input. sigmoid: out (1 - out)."),
    "3.2": ("Summing over some axes copies each upstream gradient value to every element that was summed, so the "
            "backward broadcasts grad back; mean also divides by the count.",
            "_with_reduced_axes only has to give grad the reduced axes back as size 1; Sum and Mean then broadcast "
            "it. ctx.axes and ctx.keepdims say what the forward did.",
            "If keepdims was True, grad already has its size-1 axes; otherwise insert them with np.expand_dims at "
            "ctx.axes. Sum does not divide; Mean divides by the count, the product of the reduced axes' sizes only."),
    "3.3": ("Only the elements equal to the maximum get gradient; when several tie, they share it equally.",
            "First put the reduced axes back as in 3.2. Then compare x == out (which broadcasts) to find the "
            "winners: equal, not >= or <=.",
            "Count the winners along ctx.axes (keepdims, in grad's dtype) and give each winner grad divided by that "
            "count; every other element gets 0."),
    "4.1": ("Reshaping, transposing and the like move values without changing them: the backward moves the gradient "
            "back.",
            "ctx.shape holds the input's shape, ctx.axes the transpose's permutation; BroadcastTo is a broadcast, so "
            "its reverse is your unbroadcast.",
            "Reshape, squeeze and unsqueeze: reshape grad to ctx.shape. Transpose: apply the inverse permutation "
            "(input axis i went to position axes.index(i)), not the forward's permutation again, nor all axes reversed (the "
            "inverse only of a swap of two axes), nor axes[::-1], the permutation read backwards."),
    "4.2": ("Indexing picks elements; each picked element sends its gradient back to the place it came from, and "
            "one picked twice gets both.",
            "Start from zeros of ctx.shape and ctx.dtype (the input's shape, not grad's). Plain full[index] += grad "
            "loses repeats; NumPy has an unbuffered add for exactly this.",
            "NumPy's add.at, given the zeros, ctx.index and grad, adds every piece, repeats included; return the "
            "filled array."),
    "4.3": ("cat glued pieces along an axis and stack put them along a new one: the backward cuts grad back into the "
            "pieces.",
            "For cat, ctx.sizes are the pieces' lengths along ctx.axis; the cut points are their running totals. For "
            "stack, ctx.count pieces lie along ctx.axis.",
            "cat: np.split along ctx.axis at the running totals without the last one. stack: take index i along "
            "ctx.axis for each piece (np.take drops the stacked axis; a split keeps it as size 1). Return a tuple, "
            "one gradient per input."),
    "5.1": ("For a @ b with upstream grad: the gradient for a is grad times b transposed, for b it is a transposed "
            "times grad, in that order: each comes out in its input's shape.",
            "as_matrices gives a2, b2 and grad2 in the batched matrix case; transpose only the last two axes "
            "(np.swapaxes(..., -1, -2)), and unbroadcast over batch axes an operand did not have.",
            "grad_a: unbroadcast of grad2 @ swapaxes(b2) to a2's shape, reshaped to a's. grad_b: the same with "
            "swapaxes(a2) @ grad2 (product_like keeps a transposed weight's layout). Skip an input that needs none."),
    "5.2": ("GELU is x times Phi(x); by the product rule its derivative is Phi(x) + x Phi'(x).",
            "For the exact form Phi' is the normal density (normal_pdf). For the tanh form, cdf is (1 + tanh(u)) / 2 "
            "with u a cubic in x (the tanh of u, not of x): the chain rule needs du/dx too.",
            "tanh form: cdf + x times d(cdf)/dx, where d(cdf)/dx = (1 - tanh(u)^2) / 2 times du/dx = 2 cdf (1 - cdf) "
            "times du/dx, and du/dx is sqrt(2/pi) (1 + 3 times the cubic coefficient times x^2)."),
    "5.3": ("Subtract the maximum before exp so that nothing overflows; the gradients of logsumexp, log_softmax and "
            "softmax all involve softmax itself.",
            "stable_logsumexp: m, the maximum along axes with keepdims (each group's own, not the mean, not the whole "
            "array's), replaced by 0 where it is not finite; the result is m plus the log of the sum of exp(x - m) "
            "(add m back). The backward of logsumexp is grad times softmax, which is exp(x - out).",
            "log_softmax: grad minus softmax times the sum of grad along the axis (grad need not sum to 1). softmax: "
            "out times (grad minus the sum of grad times out along the axis): every output of a row depends on every "
            "input of it, not only the diagonal out (1 - out). Keep the summed axis (keepdims). In logsumexp's backward, "
            "with keepdims=False, put the reduced axes back into grad first (np.expand_dims)."),
    "5.4": ("Cross-entropy is minus the log-probability of the right class; its gradient for the logits is the "
            "probabilities minus the one-hot target.",
            "log_p holds log_softmax of the logits. With class indices, pick one entry per row with "
            "np.arange(n) and the targets; with probability targets, sum target times log_p along axis 1.",
            "backward: p = exp(log_p), subtract 1 at each row's target, in its own row (or, for probability "
            "targets, which are not indices, multiply p by each target row's sum, kept as an (N, 1) column, then "
            "subtract the target rows: the rows need not sum to 1); scale by rows, not by grad: the upstream "
            "gradient per row, already divided by N for 'mean' and an (N, 1) column for 'none'. A probability "
            "target's own gradient is minus log_p times rows."),
    "6.1": ("A Module finds its Parameters by looking through its own attributes, in the order they were set, and "
            "into sub-modules (and theirs, at any depth) and lists, tuples and dicts of them (a plain Tensor is not a "
            "Parameter); Linear computes "
            "x times the weight transposed plus the bias.",
            "_walk goes through the values of vars(self); keep each Parameter once (by id). Linear's weight has "
            "shape (out_features, in_features), uniform in plus or minus 1 / sqrt(in_features); add the bias after "
            "the matmul.",
            "MLP makes one Linear per pair of neighbouring sizes (zip of sizes[:-1] and sizes[1:]) and applies the "
            "activation after every layer but the last."),
    "6.2": ("SGD moves each parameter against its gradient: data minus lr times gradient. Skip a parameter whose "
            "grad is None: no step, and its state waits.",
            "Weight decay adds weight_decay times data to the gradient first (before momentum). Momentum keeps a "
            "buffer in the parameter's own state, a dict (self.state is a list of them, one per parameter, in the "
            "order of self.params; the loop gives each as state): state[\"momentum_buffer\"]. The first step stores a "
            "copy of the gradient.",
            "Later steps: buffer = momentum times buffer plus the whole gradient (not a fraction of it), store it, "
            "and step with lr times it (keep lr out of the buffer: a schedule changes lr between steps)."),
    "6.3": ("Adam keeps running averages of the gradient (m) and of its square (v), corrects their start at zero, "
            "and steps by m over the square root of v. Skip a parameter whose grad is None.",
            "The state holds step, m and v, each parameter's own; count the step first (t = 1 at the first step). "
            "Weight decay adds weight_decay times data to the gradient first. m averages with beta1, v with beta2. "
            "The corrections divide m by "
            "1 - beta1^t and v by 1 - beta2^t (a power of beta, not a product).",
            "Keep the raw m and v in the state and correct copies. Step: lr times corrected m divided by (square "
            "root of corrected v, plus eps). eps goes outside the square root."),
    "6.4": ("One epoch is one pass over the shuffled batches, one step per batch: for each, clear the gradients, "
            "compute the loss, backward, step.",
            "The batches come from the loop that is given; the model takes a Tensor of x[batch], the loss compares "
            "with y[batch].",
            "Clear the gradients with the optimizer's zero_grad method before backward, let it step after, and add "
            "the loss as a float (its item method) times the batch's length (the last batch may be smaller) to the "
            "total."),
    "7.1": ("Layer norm's gradient for x is rstd times (g minus its mean minus xhat times the mean of g times xhat), "
            "all means over the last axis, where g is grad times weight (the mean and the variance depend on x too).",
            "The forward saved xhat, rstd (already 1 / sqrt(var + eps): multiply by it) and weight; mean_last takes the mean over the last axis with keepdims. "
            "The weight and bias gradients sum over every axis but the last (all the leading axes, not only axis 0; "
            "a sum, not a mean).",
            "grad for bias: grad itself (not g) summed over the batch axes; for weight: grad times xhat, summed the "
            "same way; for x: the formula above. Return the three in the order x, weight, bias."),
    "7.2": ("Each head compares queries with keys, scales the scores by 1 / sqrt(d), hides the future, turns the "
            "scores into weights with a softmax over the keys and averages the values with them; then the heads are "
            "put back side by side.",
            "Split the last axis into H heads of size d: reshape to (B, T, H, d), then transpose to move the head axis "
            "forward, (B, H, T, d) (a reshape straight to (B, H, T, d) mixes positions). d = dim // heads, the size of "
            "one head, not dim. np.tril of ones, the diagonal included (a position sees itself) and nothing above it, gives the mask; "
            "where replaces the masked scores before the softmax: it keeps a score where the mask is True (the "
            "earlier keys and the position itself).",
            "scores: q @ k with k's last two axes swapped, times 1 / sqrt(d); mask with a very negative number; softmax "
            "over the last axis (the keys); keep the weights' .data (an ndarray, not the Tensor) in self.last_attention; weights @ v is (B, H, T, d): move "
            "the head axis back (transpose to (B, T, H, d)) before the reshape to (B, T, D), then proj."),
    "7.3": ("A pre-norm Block adds to x what attention makes of ln1(x), then adds what the MLP makes of ln2 of the "
            "result: two residual sums, and the sums themselves are not normalised. GPT adds token and position "
            "embeddings, runs every block in turn, then ln_f and the head.",
            "The MLP is down(gelu(up(...), approximate=\"tanh\")): gelu between up and down, on ln2 of x; attention "
            "takes ln1 of x (each LayerNorm has its own weights). The positions are np.arange of the sequence length "
            "(idx.shape[1]), not the tokens.",
            "Block: x plus attn of ln1 of x, then that plus the MLP of ln2 of it. GPT: token(idx) plus "
            "position(positions), each block applied in turn to what the one before gave, then head of ln_f of the result."),
    "7.4": ("Training is the stage-6 step; sampling turns the logits into probabilities (after dividing by the "
            "temperature, never multiplying) and draws one token per row.",
            "The step: clear the gradients before backward (never between backward and step), the loss from loss_on for "
            "the model and (x, y), backward, then the optimizer's step. For sampling: temperature 0 means each row's "
            "argmax along the last axis (the token, the position of the largest logit, not the value); otherwise a "
            "stable softmax of the logits divided by the temperature.",
            "Subtract each row's maximum before exp, divide by the row's sum, and draw with rng.choice(size, p=row) "
            "for each row; return the chosen tokens as an array."),
}

_given: dict[str, int] = {}  # task -> steps shown so far


def hint_text(task: str, step: int) -> str:
    """Step ``step`` (1 to 3) of the hints for ``task``, as text."""
    steps = HINTS.get(str(task))
    if steps is None:
        raise ValueError(f"hint: no task {task!r}; the tasks are {', '.join(HINTS)}")
    if not 1 <= step <= len(steps):
        raise ValueError(f"hint: step {step} of task {task}: there are steps 1 to {len(steps)}")
    return f"Hint {step}/{len(steps)} for Task {task}: {steps[step - 1]}"


def hint(task: str, step: int | None = None) -> None:
    """Print a hint for ``task`` ("2.2"): the next step each call (up to three), or ``step``."""
    task = str(task)
    if step is None:
        step = min(_given.get(task, 0) + 1, len(HINTS.get(task, ("",) * 3)))
    print(hint_text(task, step))
    _given[task] = max(_given.get(task, 0), step)
    if step < 3:
        print(f"(mt.hint(\"{task}\") again for step {step + 1})")
