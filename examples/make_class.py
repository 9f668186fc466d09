"""Generate the bundled example class: 12 fictional students, nbgrader layout.

    python examples/make_class.py

For every (student, assignment) in ``STUDENTS`` this reads the RELEASED notebook
``assignments/<id>/<id>.ipynb`` (what students receive), fills its solution cells
(nbgrader ``solution: true``) with that student's code, and writes
``examples/submitted/<student>/<id>/<id>.ipynb``. The ``def`` line and docstring
of each solution cell are kept; the stub lines ``# YOUR CODE HERE`` /
``raise NotImplementedError()`` are replaced by the student's body. A body of
``None`` leaves the stub (an exercise the student did not do). No other cell is
touched, except the few listed in ``DEMO_EDITS`` (a student who broke a demo).

Outputs are cleared and nothing depends on time or randomness, so running the
script again rewrites identical files. Notebooks under ``submitted/`` that are
no longer in the table are removed. ``README.md`` lists who made which mistake
and what the grader says about it.
"""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import nbformat

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
ASSIGNMENTS = ROOT / "assignments"
SUBMITTED = HERE / "submitted"
STUB = "    # YOUR CODE HERE\n    raise NotImplementedError()"
ASSIGNMENT_IDS = ("custom_gradients", "higher_order", "jacobians", "implicit")

# ============================================================================ the class
#
# STUDENTS[student][assignment][exercise] = the body of the function, written at
# column 0 (it is indented into the def), or None for "left the stub".

STUDENTS: dict[str, dict[str, dict[str, str | None]]] = {}

# ---------------------------------------------------------------------------- ada: strong, tidy
STUDENTS["ada"] = {
    "custom_gradients": {
        "log1pexp": """
            x = tf.convert_to_tensor(x)  # snapshot, in case x is a Variable
            # softplus written so that exp() only ever sees a non-positive number
            value = tf.nn.relu(x) + tf.math.log1p(tf.exp(-tf.abs(x)))

            def grad_fn(upstream):
                # d/dx log(1 + e^x) = sigmoid(x); chain rule: times upstream
                return upstream * tf.math.sigmoid(x)

            return value, grad_fn
        """,
        "straight_through_round": """
            @tf.custom_gradient
            def _round_ste(t):
                def grad(dy):
                    return dy  # pretend round() was the identity
                return tf.round(t), grad

            return _round_ste(tf.convert_to_tensor(x))
        """,
        "clip_gradient_norm": """
            @tf.custom_gradient
            def _identity_clipped_backward(t):
                def grad(dy):
                    return tf.clip_by_norm(dy, max_norm)
                return tf.identity(t), grad

            return _identity_clipped_backward(tf.convert_to_tensor(x))
        """,
        "td_loss": """
            best_next = tf.reduce_max(next_q, axis=-1)
            y = tf.stop_gradient(reward + gamma * best_next)  # the target is a label, not trained
            return tf.reduce_mean(tf.math.squared_difference(q, y))
        """,
        "checkpointed": """
            g = tf.recompute_grad(f)
            return g
        """,
        "safe_norm": """
            x = tf.convert_to_tensor(x)
            peak = tf.reduce_max(tf.abs(x), axis=1)  # each row's largest magnitude
            peak = tf.where(peak > 0, peak, tf.ones_like(peak))  # all-zero row: divide by 1
            norm = peak * tf.sqrt(tf.reduce_sum(tf.square(x / peak[:, None]), axis=1))

            def grad_fn(upstream):
                # vector-Jacobian product: row i gets upstream[i] * x_i / |x_i|
                safe = tf.where(norm > 0, norm, tf.ones_like(norm))
                return upstream[:, None] * (x / safe[:, None])

            return norm, grad_fn
        """,
    },
    "higher_order": {
        "derivatives": """
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = f(x)
                dy_dx = t1.gradient(y, x)  # inside t2, so t2 records it
            d2y_dx2 = t2.gradient(dy_dx, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
            return dy_dx, d2y_dx2
        """,
        "hessian_vector_product": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    loss = f(x)
                grad = inner.gradient(loss, x)
                # <grad, v> is a scalar and v is a constant, so its gradient is H v
                gv = tf.tensordot(grad, v, axes=1)
            hv = outer.gradient(gv, x)
            if hv is None:  # f is linear in x
                hv = tf.zeros_like(x)
            return hv
        """,
        "gradient_penalty": """
            batch = tf.shape(real)[0]
            mixed = alpha * real + (1.0 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(mixed)
                d_hat = critic(mixed)
            grads = tape.gradient(d_hat, mixed)  # non-scalar target: gradient of the sum
            flat = tf.reshape(grads, [batch, -1])  # one row per example
            sq = tf.reduce_sum(flat ** 2, axis=1)
            ok = sq > 0
            norms = tf.where(ok, tf.sqrt(tf.where(ok, sq, tf.ones_like(sq))), tf.zeros_like(sq))
            return tf.reduce_mean((norms - 1.0) ** 2)
        """,
        "critic_gradients": """
            with tf.GradientTape() as tape:
                d_real = tf.reduce_mean(critic(real))
                d_fake = tf.reduce_mean(critic(fake))
                gp = gradient_penalty(critic, real, fake, alpha)  # inside the tape!
                loss = d_fake - d_real + gp_weight * gp
            grads = tape.gradient(loss, critic.trainable_variables)
            return loss, grads
        """,
        "newton_step": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            H = outer.jacobian(g, x)
            step = tf.linalg.solve(H, tf.reshape(g, [-1, 1]))
            return x - tf.reshape(step, [-1])
        """,
        "newton_cg_step": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                loss = f(x)
            r = -tape.gradient(loss, x)  # residual of H p = -g at p = 0
            p = tf.zeros_like(x)
            d = r
            rr = tf.tensordot(r, r, axes=1)
            for _ in range(iters):
                if rr == 0:  # exact already: the other steps would be 0/0
                    break
                hd = hessian_vector_product(f, x, d)  # my exercise 2: no Hessian
                a = rr / tf.tensordot(d, hd, axes=1)
                p = p + a * d
                r = r - a * hd
                rr_next = tf.tensordot(r, r, axes=1)
                d = r + (rr_next / rr) * d
                rr = rr_next
            return x + p
        """,
    },
    "jacobians": {
        "jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            J = tape.jacobian(y, x)
            if J is None:  # y does not depend on x
                J = tf.zeros([tf.size(y), tf.size(x)], dtype=x.dtype)
            return J
        """,
        "batch_jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                out = f(x)
            return tape.batch_jacobian(out, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "robust_jacobian": """
            with tf.GradientTape(persistent=True) as tape:  # the while_loop calls gradient m times
                tape.watch(x)
                y = f(x)
            J = tape.jacobian(y, x, experimental_use_pfor=False,
                              unconnected_gradients=tf.UnconnectedGradients.ZERO)
            del tape
            return J
        """,
        "hessian": """
            with tf.GradientTape() as t_outer:
                t_outer.watch(x)
                with tf.GradientTape() as t_inner:
                    t_inner.watch(x)
                    y = f(x)
                grad = t_inner.gradient(y, x)
            H = t_outer.jacobian(grad, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
            return H
        """,
        "jvp": """
            with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
                y = f(x)
            return acc.jvp(y, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "per_example_gradients": """
            with tf.GradientTape() as tape:
                losses = loss_fn(y, model(x))  # (batch,): one forward pass on the whole batch
            return tape.jacobian(losses, model.trainable_variables,
                                 unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
    },
}

# ---------------------------------------------------------------------------- bram: naive softplus, tape outside, tape.gradient
STUDENTS["bram"] = {
    "custom_gradients": {
        # MISTAKE: log(1 + e^x) straight from the definition; exp overflows for large x
        "log1pexp": """
            x = tf.convert_to_tensor(x)
            ex = tf.exp(x)
            value = tf.math.log(1.0 + ex)  # log(1 + e^x)

            def grad_fn(upstream):
                # derivative is e^x / (1 + e^x)
                return upstream * ex / (1.0 + ex)

            return value, grad_fn
        """,
        "straight_through_round": """
            # stop_gradient trick from the notebook: value is round(x), gradient is 1
            return x + tf.stop_gradient(tf.round(x) - x)
        """,
        "clip_gradient_norm": """
            @tf.custom_gradient
            def clipper(x):
                def grad_fn(dy):
                    return tf.clip_by_norm(dy, max_norm)
                return tf.identity(x), grad_fn
            return clipper(x)
        """,
        "td_loss": """
            target = reward + gamma * tf.reduce_max(next_q, axis=-1)
            target = tf.stop_gradient(target)
            return tf.reduce_mean(tf.square(q - target))
        """,
        "checkpointed": """
            return tf.recompute_grad(f)
        """,
        # MISTAKE: squares the entries unscaled: inf for rows of 1e30, 0 for rows of 1e-30
        "safe_norm": """
            norm = tf.sqrt(tf.reduce_sum(x * x, axis=1))

            def grad_fn(upstream):
                return upstream[:, None] * tf.math.divide_no_nan(x, norm[:, None])

            return norm, grad_fn
        """,
    },
    "higher_order": {
        # MISTAKE: inner.gradient is called after leaving the outer `with` block
        "derivatives": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
            dy_dx = inner.gradient(y, x)
            d2y_dx2 = outer.gradient(dy_dx, x)
            return dy_dx, d2y_dx2
        """,
        "hessian_vector_product": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
                g_dot_v = tf.reduce_sum(g * v)
            return outer.gradient(g_dot_v, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "gradient_penalty": """
            x_hat = alpha * real + (1.0 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(x_hat)
                d = tf.reduce_sum(critic(x_hat))
            g = tape.gradient(d, x_hat)
            axes = tf.range(1, tf.rank(g))
            sq = tf.reduce_sum(tf.square(g), axis=axes)
            nz = sq > 0
            norm = tf.where(nz, tf.sqrt(tf.where(nz, sq, tf.ones_like(sq))), tf.zeros_like(sq))
            return tf.reduce_mean(tf.square(norm - 1.0))
        """,
        "critic_gradients": """
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
                loss += gp_weight * gradient_penalty(critic, real, fake, alpha)
            grads = tape.gradient(loss, critic.trainable_variables)
            return loss, grads
        """,
        "newton_step": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            H = outer.jacobian(g, x)
            return x - tf.linalg.solve(H, g[:, tf.newaxis])[:, 0]
        """,
        # MISTAKE: "H d" is outer.gradient(g, x) * d, the row sums of H times d (right only for a diagonal H)
        "newton_cg_step": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            curvature = outer.gradient(g, x)
            r = -g
            d = r
            p = tf.zeros_like(x)
            for i in range(iters):
                rr = tf.reduce_sum(r * r)
                if rr == 0:
                    break
                hd = curvature * d
                a = rr / tf.reduce_sum(d * hd)
                p = p + a * d
                r = r - a * hd
                d = r + tf.reduce_sum(r * r) / rr * d
            return x + p
        """,
    },
    "jacobians": {
        # MISTAKE: tape.gradient on a vector output (column sums of J)
        "jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return tape.gradient(y, x)  # dy/dx
        """,
        "batch_jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return tape.batch_jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "robust_jacobian": """
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
            return tape.jacobian(y, x, experimental_use_pfor=False,
                                 unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "hessian": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            return outer.jacobian(g, x)
        """,
        "jvp": """
            with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
                y = f(x)
            jv = acc.jvp(y)
            if jv is None:
                jv = tf.zeros_like(y)
            return jv
        """,
        # MISTAKE: a Python loop, the model called once per example (right numbers)
        "per_example_gradients": """
            grads = []
            for i in range(x.shape[0]):
                with tf.GradientTape() as tape:
                    loss = loss_fn(y[i:i + 1], model(x[i:i + 1]))
                grads.append(tape.gradient(loss, model.trainable_variables))
            return [tf.stack([g[k] for g in grads]) for k in range(len(grads[0]))]
        """,
    },
}

# ---------------------------------------------------------------------------- chiara: clips the value, no stop_gradient, norm axis=1
STUDENTS["chiara"] = {
    "custom_gradients": {
        "log1pexp": """
            x = tf.convert_to_tensor(x)
            value = tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x)))

            def grad_fn(upstream):
                sig = tf.sigmoid(x)
                return upstream * sig

            return value, grad_fn
        """,
        "straight_through_round": """
            @tf.custom_gradient
            def round_st(t):
                y = tf.round(t)
                def grad_fn(upstream):
                    return upstream  # straight through
                return y, grad_fn
            return round_st(x)
        """,
        # MISTAKE: clips the forward value as well as the gradient
        "clip_gradient_norm": """
            @tf.custom_gradient
            def _clip(t):
                y = tf.clip_by_norm(t, max_norm)  # keep the output bounded too
                def grad_fn(upstream):
                    return tf.clip_by_norm(upstream, max_norm)
                return y, grad_fn
            return _clip(x)
        """,
        # MISTAKE: no tf.stop_gradient around the target
        "td_loss": """
            max_next = tf.reduce_max(next_q, axis=-1)
            target = reward + gamma * max_next
            loss = tf.reduce_mean(tf.square(q - target))
            return loss
        """,
        "checkpointed": """
            checkpointed_f = tf.recompute_grad(f)
            return checkpointed_f
        """,
        # MISTAKE: grad_fn divides by the norm unguarded: NaN for an all-zero row
        "safe_norm": """
            m = tf.reduce_max(tf.abs(x), axis=1, keepdims=True)
            m = tf.where(m > 0, m, tf.ones_like(m))
            norm = tf.squeeze(m, axis=1) * tf.norm(x / m, axis=1)

            def grad_fn(upstream):
                return tf.expand_dims(upstream, 1) * (x / tf.expand_dims(norm, 1))

            return norm, grad_fn
        """,
    },
    "higher_order": {
        "derivatives": """
            with tf.GradientTape() as outer_tape:
                outer_tape.watch(x)
                with tf.GradientTape() as inner_tape:
                    inner_tape.watch(x)
                    y = f(x)
                first = inner_tape.gradient(y, x)
            second = outer_tape.gradient(first, x)
            if second is None:  # linear f
                second = tf.zeros_like(first)
            return first, second
        """,
        "hessian_vector_product": """
            with tf.GradientTape() as tape2:
                tape2.watch(x)
                with tf.GradientTape() as tape1:
                    tape1.watch(x)
                    fx = f(x)
                grad = tape1.gradient(fx, x)
                prod = tf.reduce_sum(grad * v)
            return tape2.gradient(prod, x)
        """,
        # MISTAKE: tf.norm(..., axis=1) only; wrong for image batches
        "gradient_penalty": """
            interp = alpha * real + (1 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(interp)
                out = critic(interp)
            grads = tape.gradient(out, interp)
            norm = tf.norm(grads, axis=1)
            gp = tf.reduce_mean((norm - 1.0) ** 2)
            return gp
        """,
        "critic_gradients": """
            with tf.GradientTape() as tape:
                wasserstein = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
                gp = gradient_penalty(critic, real, fake, alpha)
                loss = wasserstein + gp_weight * gp
            grads = tape.gradient(loss, critic.trainable_variables)
            return loss, grads
        """,
        "newton_step": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            H = outer.jacobian(g, x)
            delta = tf.linalg.solve(H, tf.expand_dims(g, 1))
            return x - tf.squeeze(delta, 1)
        """,
        "newton_cg_step": """
            # one persistent tape: g is recorded once, and H d = the VJP of g with d (H is symmetric)
            with tf.GradientTape(persistent=True) as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            r = -g
            d = r
            p = tf.zeros_like(x)
            rr = tf.reduce_sum(r ** 2)
            for _ in range(iters):
                if rr == 0.0:
                    break
                hd = outer.gradient(g, x, output_gradients=d)
                a = rr / tf.reduce_sum(d * hd)
                p += a * d
                r -= a * hd
                rr_new = tf.reduce_sum(r ** 2)
                d = r + (rr_new / rr) * d
                rr = rr_new
            del outer
            return x + p
        """,
    },
}

# ---------------------------------------------------------------------------- dev: ignores upstream, plain round, tape.jacobian, pfor
STUDENTS["dev"] = {
    "custom_gradients": {
        # MISTAKE: grad_fn forgets the upstream gradient
        "log1pexp": """
            x = tf.convert_to_tensor(x)
            value = tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x)))

            def grad_fn(upstream):
                return tf.sigmoid(x)  # derivative of softplus is the sigmoid

            return value, grad_fn
        """,
        # MISTAKE: plain tf.round, which has no gradient
        "straight_through_round": """
            # the gradient of round is 1 almost everywhere, so autodiff should pass it through?
            return tf.round(x)
        """,
        "clip_gradient_norm": """
            @tf.custom_gradient
            def op(x):
                def grad(upstream):
                    return tf.clip_by_norm(upstream, max_norm)
                return tf.identity(x), grad
            return op(tf.convert_to_tensor(x))
        """,
        "td_loss": """
            target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=1))
            return tf.reduce_mean((q - target) ** 2)
        """,
        "checkpointed": """
            return tf.recompute_grad(f)
        """,
        "safe_norm": """
            scale = tf.reduce_max(tf.abs(x), axis=-1, keepdims=True)
            scaled = tf.math.divide_no_nan(x, scale)
            norm = tf.squeeze(scale, -1) * tf.sqrt(tf.reduce_sum(scaled * scaled, axis=-1))
            grad_fn = lambda upstream: tf.math.divide_no_nan(upstream[:, None] * x, norm[:, None])
            return norm, grad_fn
        """,
    },
    "jacobians": {
        "jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return tape.jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        # MISTAKE: tape.jacobian where per-example Jacobians are asked for
        "batch_jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            J = tape.jacobian(y, x)
            return J
        """,
        # MISTAKE: the default (pfor) jacobian; running_product cannot be vectorized
        "robust_jacobian": """
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
            return tape.jacobian(y, x)
        """,
        "hessian": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            return outer.jacobian(g, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "jvp": """
            with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
                y = f(x)
            return acc.jvp(y, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        # MISTAKE: the gradient of the mean loss, repeated for every example
        "per_example_gradients": """
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(loss_fn(y, model(x)))
            grads = tape.gradient(loss, model.trainable_variables)
            batch = x.shape[0]
            return [tf.stack([g] * batch) for g in grads]
        """,
    },
}

# ---------------------------------------------------------------------------- esra: strong, other styles
STUDENTS["esra"] = {
    "custom_gradients": {
        "log1pexp": """
            x = tf.convert_to_tensor(x)
            # mirror the positive half: log(1 + e^x) = x + log(1 + e^-x) for x > 0
            pos = x > 0
            small = tf.exp(tf.where(pos, -x, x))  # exp of a non-positive number, in (0, 1]
            value = tf.where(pos, x + tf.math.log1p(small), tf.math.log1p(small))

            def grad_fn(dy):
                return dy * tf.sigmoid(x)

            return value, grad_fn
        """,
        "straight_through_round": """
            rounded = tf.round(x)
            # forward: x + (round(x) - x) = round(x); backward: d/dx = 1
            return x + tf.stop_gradient(rounded - x)
        """,
        "clip_gradient_norm": """
            @tf.custom_gradient
            def _clip_bwd(t):
                def _grad(dy):
                    norm = tf.norm(dy)  # over the whole tensor
                    scale = tf.minimum(tf.ones_like(norm), max_norm / norm)
                    return dy * scale
                return tf.identity(t), _grad

            return _clip_bwd(x)
        """,
        "td_loss": """
            frozen = tf.stop_gradient(next_q)  # target network output: a constant
            target = reward + gamma * tf.reduce_max(frozen, axis=1)
            td_error = q - target
            return tf.reduce_mean(td_error * td_error)
        """,
        "checkpointed": """
            @tf.recompute_grad
            def wrapped(inputs):
                return f(inputs)

            return wrapped
        """,
        "safe_norm": """
            x = tf.identity(x)
            big = tf.reduce_max(tf.abs(x), axis=1, keepdims=True)
            unit_scale = tf.math.divide_no_nan(x, big)  # entries in [-1, 1]: no overflow, no underflow
            norm = tf.reshape(big, [-1]) * tf.linalg.norm(unit_scale, axis=1)

            def grad_fn(dy):
                return tf.reshape(dy, [-1, 1]) * tf.math.divide_no_nan(x, tf.reshape(norm, [-1, 1]))

            return norm, grad_fn
        """,
    },
    "higher_order": {
        "derivatives": """
            # one persistent tape, asked twice (the notebook says this works too)
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
                dy_dx = tape.gradient(y, x)
            d2y_dx2 = tape.gradient(dy_dx, x)
            del tape
            return dy_dx, d2y_dx2
        """,
        "hessian_vector_product": """
            # forward-over-backward: the JVP of the gradient map in direction v
            with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = f(x)
                g = tape.gradient(y, x)
            return acc.jvp(g, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "gradient_penalty": """
            x_hat = alpha * real + (1 - alpha) * fake
            with tf.GradientTape() as gp_tape:
                gp_tape.watch(x_hat)
                pred = tf.reduce_sum(critic(x_hat))
            grad = gp_tape.gradient(pred, x_hat)
            axes = list(range(1, len(grad.shape)))  # every axis but the batch
            slopes = tf.sqrt(tf.reduce_sum(tf.square(grad), axis=axes) + 1e-12)  # eps: finite grad at 0
            return tf.reduce_mean((slopes - 1.0) ** 2)
        """,
        "critic_gradients": """
            variables = critic.trainable_variables
            with tf.GradientTape() as tape:
                w_loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
                penalty = gradient_penalty(critic, real, fake, alpha)
                total = w_loss + gp_weight * penalty
            grads = tape.gradient(total, variables, unconnected_gradients=tf.UnconnectedGradients.ZERO)
            return total, list(grads)
        """,
        "newton_step": """
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    value = f(x)
                grad = t1.gradient(value, x)
            hess = t2.jacobian(grad, x)
            newton_dir = tf.squeeze(tf.linalg.solve(hess, tf.expand_dims(grad, -1)), -1)
            return x - newton_dir
        """,
        "newton_cg_step": """
            def hvp(d):
                # forward-over-backward: the JVP of the gradient map
                with tf.autodiff.ForwardAccumulator(primals=x, tangents=d) as acc:
                    with tf.GradientTape() as tape:
                        tape.watch(x)
                        y = f(x)
                    g = tape.gradient(y, x)
                return acc.jvp(g)

            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            r0 = -tape.gradient(y, x)

            def body(k, p, r, d, rr):
                hd = hvp(d)
                a = rr / tf.reduce_sum(d * hd)
                r_new = r - a * hd
                rr_new = tf.reduce_sum(r_new * r_new)
                return k + 1, p + a * d, r_new, r_new + (rr_new / rr) * d, rr_new

            _, p, _, _, _ = tf.while_loop(
                lambda k, p, r, d, rr: (k < iters) & (rr > 0.0), body,
                (0, tf.zeros_like(x), r0, r0, tf.reduce_sum(r0 * r0)))
            return x + p
        """,
    },
    "jacobians": {
        "jacobian": """
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
                rows = [y[i] for i in range(y.shape[0])]  # slice inside the tape so it is recorded
            J = tf.stack([tape.gradient(r, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
                          for r in rows])
            del tape
            return J
        """,
        "batch_jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            jac = tape.batch_jacobian(y, x)
            if jac is None:
                jac = tf.zeros([x.shape[0], y.shape[1], x.shape[1]], dtype=x.dtype)
            return jac
        """,
        "robust_jacobian": """
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
            m = y.shape[0]
            rows = []
            for i in range(m):
                e_i = tf.one_hot(i, m, dtype=y.dtype)  # picks row i of J
                rows.append(tape.gradient(y, x, output_gradients=e_i,
                                          unconnected_gradients=tf.UnconnectedGradients.ZERO))
            del tape
            return tf.stack(rows)
        """,
        "hessian": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
            return outer.jacobian(g, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "jvp": """
            # double-vjp trick: J^T u is linear in u, its vjp with v is J v
            with tf.GradientTape() as t_outer:
                with tf.GradientTape() as t_inner:
                    t_inner.watch(x)
                    y = f(x)
                u = tf.ones_like(y)  # dummy, any value works
                t_outer.watch(u)
                vjp = t_inner.gradient(y, x, output_gradients=u,
                                       unconnected_gradients=tf.UnconnectedGradients.ZERO)
            return t_outer.gradient(vjp, u, output_gradients=v,
                                    unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "per_example_gradients": """
            variables = model.trainable_variables

            def one_example(pair):
                x_i, y_i = pair
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(loss_fn(y_i[tf.newaxis], model(x_i[tf.newaxis])))
                grads = tape.gradient(loss, variables)
                return [tf.zeros_like(v) if g is None else g for g, v in zip(grads, variables)]

            return tf.vectorized_map(one_example, (x, y))
        """,
    },
}

# ---------------------------------------------------------------------------- finn: watches one tape only, penalty outside, transposed
STUDENTS["finn"] = {
    "higher_order": {
        # MISTAKE: only the inner tape watches x; the outer one never sees a Tensor x
        "derivatives": """
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                dy_dx = inner.gradient(y, x)
            d2y_dx2 = outer.gradient(dy_dx, x)
            return dy_dx, d2y_dx2
        """,
        "hessian_vector_product": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                grad_f = inner.gradient(y, x)
                s = tf.reduce_sum(grad_f * v)
            hv = outer.gradient(s, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
            return hv
        """,
        "gradient_penalty": """
            interpolates = alpha * real + (1.0 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(interpolates)
                scores = tf.reduce_sum(critic(interpolates))
            grads = tape.gradient(scores, interpolates)
            grads = tf.reshape(grads, [tf.shape(grads)[0], -1])
            sq = tf.reduce_sum(grads ** 2, axis=1)
            nonzero = sq > 0
            norm = tf.where(nonzero, tf.sqrt(tf.where(nonzero, sq, tf.ones_like(sq))), tf.zeros_like(sq))
            return tf.reduce_mean((norm - 1.0) ** 2)
        """,
        # MISTAKE: the penalty is computed before the loss tape opens
        "critic_gradients": """
            gp = gradient_penalty(critic, real, fake, alpha)
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real)) + gp_weight * gp
            grads = tape.gradient(loss, critic.trainable_variables)
            return loss, grads
        """,
        "newton_step": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            H = outer.jacobian(g, x)
            step = tf.linalg.solve(H, g[:, tf.newaxis])
            return x - step[:, 0]
        """,
        # MISTAKE: the gradient's tape does not watch x (a Tensor): None, and -None raises
        "newton_cg_step": """
            with tf.GradientTape() as tape:
                y = f(x)
            g = tape.gradient(y, x)
            r = -g
            d = r
            p = tf.zeros_like(x)
            rr = tf.reduce_sum(r * r)
            for _ in range(iters):
                if rr == 0:
                    break
                hd = hessian_vector_product(f, x, d)
                a = rr / tf.reduce_sum(d * hd)
                p = p + a * d
                r = r - a * hd
                new_rr = tf.reduce_sum(r * r)
                d = r + new_rr / rr * d
                rr = new_rr
            return x + p
        """,
    },
    "jacobians": {
        # MISTAKE: per-output gradients stacked as columns: J transposed
        "jacobian": """
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
                outputs = tf.unstack(y)
            grads = [tape.gradient(out, x) for out in outputs]  # gradient of each output
            del tape
            return tf.stack(grads, axis=1)
        """,
        "batch_jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return tape.batch_jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "robust_jacobian": """
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
            J = tape.jacobian(y, x, experimental_use_pfor=False)
            return J
        """,
        "hessian": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            return outer.jacobian(g, x)
        """,
        "jvp": """
            with tf.autodiff.ForwardAccumulator(x, v) as acc:
                out = f(x)
            return acc.jvp(out, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        # MISTAKE: the examples stacked on the last axis (batch last)
        "per_example_gradients": """
            def per_example(pair):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(loss_fn(pair[1][None], model(pair[0][None])))
                return tape.gradient(loss, model.trainable_variables)

            stacked = tf.vectorized_map(per_example, (x, y))
            return [tf.experimental.numpy.moveaxis(g, 0, -1) for g in stacked]
        """,
    },
}

# ---------------------------------------------------------------------------- greta: ran out of time
STUDENTS["greta"] = {
    "custom_gradients": {
        "log1pexp": """
            x = tf.convert_to_tensor(x)
            value = tf.maximum(x, 0.) + tf.math.log1p(tf.exp(-tf.abs(x)))
            def grad_fn(upstream):
                return upstream * tf.sigmoid(x)
            return value, grad_fn
        """,
        "straight_through_round": """
            return x + tf.stop_gradient(tf.round(x) - x)
        """,
        "clip_gradient_norm": """
            @tf.custom_gradient
            def inner(x):
                return tf.identity(x), lambda upstream: tf.clip_by_norm(upstream, max_norm)
            return inner(x)
        """,
        "td_loss": """
            target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
            return tf.reduce_mean(tf.square(q - target))
        """,
        "checkpointed": None,  # left the stub
        "safe_norm": None,  # left the stub
    },
    "higher_order": {
        "derivatives": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                dy = inner.gradient(y, x)
            d2y = outer.gradient(dy, x)
            return dy, d2y
        """,
        "hessian_vector_product": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
                gv = tf.reduce_sum(g * v)
            return outer.gradient(gv, x)
        """,
        "gradient_penalty": """
            x_hat = alpha * real + (1.0 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(x_hat)
                total = tf.reduce_sum(critic(x_hat))
            g = tape.gradient(total, x_hat)
            squared = tf.reduce_sum(tf.square(g), axis=tf.range(1, tf.rank(g)))
            nonzero = squared > 0
            norm = tf.where(nonzero, tf.sqrt(tf.where(nonzero, squared, tf.ones_like(squared))),
                            tf.zeros_like(squared))
            return tf.reduce_mean(tf.square(norm - 1.0))
        """,
        "critic_gradients": """
            with tf.GradientTape() as tape:
                loss = (tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
                        + gp_weight * gradient_penalty(critic, real, fake, alpha))
            return loss, tape.gradient(loss, critic.trainable_variables)
        """,
        "newton_step": """
            # TODO: Hessian with tape.jacobian, then solve -- did not get to it
            raise NotImplementedError()
        """,
        "newton_cg_step": None,
    },
}

# ---------------------------------------------------------------------------- hiro: strong, terse
STUDENTS["hiro"] = {
    "custom_gradients": {
        "log1pexp": """
            x = tf.convert_to_tensor(x)
            y = tf.maximum(x, tf.zeros_like(x)) + tf.math.log1p(tf.math.exp(-tf.math.abs(x)))
            def grad(dy):
                return dy * tf.nn.sigmoid(x)
            return y, grad
        """,
        "straight_through_round": """
            @tf.custom_gradient
            def ste(v):
                return tf.round(v), lambda dy: dy
            return ste(x)
        """,
        "clip_gradient_norm": """
            @tf.custom_gradient
            def ident(v):
                def grad(dy):
                    n = tf.sqrt(tf.reduce_sum(dy * dy))
                    return dy * max_norm / tf.maximum(n, max_norm)
                return tf.identity(v), grad
            return ident(x)
        """,
        "td_loss": """
            y = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, -1))
            return tf.reduce_mean((q - y) ** 2)
        """,
        "checkpointed": """
            return tf.recompute_grad(lambda t: f(t))
        """,
        "safe_norm": """
            m = tf.reduce_max(tf.abs(x), 1)
            m = tf.where(m == 0, tf.ones_like(m), m)
            n = m * tf.norm(x / m[:, None], axis=1)
            return n, lambda dy: dy[:, None] * (x / tf.where(n == 0, tf.ones_like(n), n)[:, None])
        """,
    },
    "jacobians": {
        "jacobian": """
            # forward mode, one column per input direction
            n = x.shape[0]
            cols = []
            for j in range(n):
                with tf.autodiff.ForwardAccumulator(x, tf.one_hot(j, n, dtype=x.dtype)) as acc:
                    y = f(x)
                cols.append(acc.jvp(y, unconnected_gradients=tf.UnconnectedGradients.ZERO))
            return tf.stack(cols, axis=1)
        """,
        "batch_jacobian": """
            with tf.GradientTape() as t:
                t.watch(x)
                y = f(x)
            return t.batch_jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "robust_jacobian": """
            with tf.GradientTape(persistent=True) as t:
                t.watch(x)
                y = f(x)
                ys = tf.unstack(y)
            J = tf.stack([t.gradient(yi, x, unconnected_gradients=tf.UnconnectedGradients.ZERO) for yi in ys])
            del t
            return J
        """,
        "hessian": """
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = f(x)
                g = t1.gradient(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
            return t2.jacobian(g, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "jvp": """
            with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
                y = f(x)
            return acc.jvp(y, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "per_example_gradients": """
            import keras
            def g(xy):
                with tf.GradientTape() as t:
                    l = keras.ops.sum(loss_fn(xy[1][None], model(xy[0][None])))
                return t.gradient(l, model.trainable_variables)
            return keras.ops.vectorized_map(g, (x, y))
        """,
    },
}

# ---------------------------------------------------------------------------- ines: .numpy() in the penalty; broke a demo cell
STUDENTS["ines"] = {
    "custom_gradients": {
        "log1pexp": """
            x = tf.convert_to_tensor(x)
            # stable form from the notebook: max(x, 0) + log1p(exp(-|x|))
            value = tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x)))

            def grad_fn(upstream):
                # chain rule: dL/dx = dL/dy * sigmoid(x)
                return upstream * tf.sigmoid(x)

            return value, grad_fn
        """,
        "straight_through_round": """
            x = tf.convert_to_tensor(x)
            return x + tf.stop_gradient(tf.round(x) - x)
        """,
        "clip_gradient_norm": """
            @tf.custom_gradient
            def clip_backward(t):
                def grad_fn(upstream):
                    return tf.clip_by_norm(upstream, max_norm)
                return tf.identity(t), grad_fn

            return clip_backward(tf.convert_to_tensor(x))
        """,
        "td_loss": """
            target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
            errors = q - target
            return tf.reduce_mean(tf.square(errors))
        """,
        "checkpointed": """
            return tf.recompute_grad(f)
        """,
        "safe_norm": """
            x = tf.convert_to_tensor(x)
            wide = tf.cast(x, tf.float64)  # float64 holds the squares of 1e30 and of 1e-30
            norm = tf.cast(tf.sqrt(tf.reduce_sum(wide * wide, axis=1)), x.dtype)

            def grad_fn(upstream):
                return upstream[:, None] * tf.math.divide_no_nan(x, norm[:, None])

            return norm, grad_fn
        """,
    },
    "higher_order": {
        "derivatives": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                dy_dx = inner.gradient(y, x)
            d2y_dx2 = outer.gradient(dy_dx, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
            return dy_dx, d2y_dx2
        """,
        "hessian_vector_product": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
                gv = tf.reduce_sum(g * v)
            return outer.gradient(gv, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        # MISTAKE: the norms are computed in NumPy, so the penalty is a constant for any outer tape
        "gradient_penalty": """
            x_hat = alpha * real + (1.0 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(x_hat)
                scores = critic(x_hat)
            g = tape.gradient(scores, x_hat)
            g = g.numpy().reshape(g.shape[0], -1)  # flatten each example
            norms = np.linalg.norm(g, axis=1)
            print("gradient norms:", norms)
            return tf.reduce_mean(tf.constant((norms - 1.0) ** 2))
        """,
        "critic_gradients": """
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
                loss = loss + gp_weight * gradient_penalty(critic, real, fake, alpha)
            grads = tape.gradient(loss, critic.trainable_variables)
            return loss, grads
        """,
        "newton_step": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            H = outer.jacobian(g, x)
            return x - tf.linalg.solve(H, g[:, tf.newaxis])[:, 0]
        """,
        "newton_cg_step": """
            # the CG scalars are plain floats: nothing differentiates them
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            r = -tape.gradient(y, x)
            d = r
            p = tf.zeros_like(x)
            rr = float(tf.reduce_sum(r * r))
            for _ in range(iters):
                if rr == 0.0:
                    break
                hd = hessian_vector_product(f, x, d)
                a = rr / float(tf.reduce_sum(d * hd))
                p = p + a * d
                r = r - a * hd
                rr_new = float(tf.reduce_sum(r * r))
                d = r + (rr_new / rr) * d
                rr = rr_new
            return x + p
        """,
    },
    "jacobians": {
        "jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)  # x is a Tensor
                y = f(x)
            return tape.jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "batch_jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return tape.batch_jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "robust_jacobian": """
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
            J = tape.jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO,
                              experimental_use_pfor=False)
            del tape
            return J
        """,
        "hessian": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            return outer.jacobian(g, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "jvp": """
            with tf.autodiff.ForwardAccumulator(primals=x, tangents=v) as acc:
                y = f(x)
            return acc.jvp(y, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "per_example_gradients": """
            with tf.GradientTape() as tape:
                predictions = model(x)
                per_example_losses = loss_fn(y, predictions)
            jacobians = tape.jacobian(per_example_losses, model.trainable_variables)
            return list(jacobians)
        """,
    },
}

# ---------------------------------------------------------------------------- jonas: syntax error, not recomputed
STUDENTS["jonas"] = {
    "custom_gradients": {
        "log1pexp": """
            x = tf.convert_to_tensor(x)
            value = tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x)))

            def grad_fn(upstream):
                return upstream / (1.0 + tf.exp(-x))  # = upstream * sigmoid(x)

            return value, grad_fn
        """,
        "straight_through_round": """
            @tf.custom_gradient
            def _ste(x):
                def grad_fn(dy):
                    return dy
                return tf.round(x), grad_fn
            return _ste(x)
        """,
        "clip_gradient_norm": """
            @tf.custom_gradient
            def _f(x):
                def grad_fn(dy):
                    return tf.clip_by_norm(dy, max_norm)
                return tf.identity(x), grad_fn
            return _f(x)
        """,
        "td_loss": """
            target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=-1))
            return tf.reduce_mean(tf.square(target - q))
        """,
        # MISTAKE: returns a plain wrapper of f, no tf.recompute_grad
        "checkpointed": """
            # g has to compute the same thing as f, with the same gradients
            def g(x):
                return f(x)
            return g
        """,
        # MISTAKE: upstream multiplied without [:, None]: lined up with the columns of x
        "safe_norm": """
            s = tf.reduce_max(tf.abs(x), axis=1)
            s = tf.where(s > 0, s, tf.ones_like(s))
            norm = s * tf.sqrt(tf.reduce_sum((x / s[:, None]) ** 2, axis=1))

            def grad_fn(upstream):
                safe = tf.where(norm > 0, norm, tf.ones_like(norm))
                return upstream * x / safe[:, None]

            return norm, grad_fn
        """,
    },
    "higher_order": {
        "derivatives": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                first = inner.gradient(y, x)
            second = outer.gradient(first, x)
            return first, second
        """,
        # MISTAKE: SyntaxError (a parenthesis is never closed): the cell does not run at all
        "hessian_vector_product": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
                gv = tf.reduce_sum(g * v
            return outer.gradient(gv, x)
        """,
        "gradient_penalty": """
            interpolates = alpha * real + (1.0 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(interpolates)
                d = tf.reduce_sum(critic(interpolates))
            grads = tape.gradient(d, interpolates)
            norm = tf.sqrt(tf.reduce_sum(tf.square(grads), axis=tf.range(1, tf.rank(grads))))
            return tf.reduce_mean((norm - 1.0) ** 2)
        """,
        "critic_gradients": """
            with tf.GradientTape() as tape:
                gp = gradient_penalty(critic, real, fake, alpha)
                loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real)) + gp_weight * gp
            grads = tape.gradient(loss, critic.trainable_variables)
            return loss, grads
        """,
        "newton_step": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            H = outer.jacobian(g, x)
            H_inv = tf.linalg.inv(H)  # n <= 50 so inverting is fine
            return x - tf.linalg.matvec(H_inv, g)
        """,
        # MISTAKE: range(1, iters) runs iters - 1 steps
        "newton_cg_step": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            r = -g
            d = r
            p = x * 0.0
            for k in range(1, iters):
                rr = tf.reduce_sum(r * r)
                if rr == 0:
                    break
                with tf.GradientTape() as t2:
                    t2.watch(x)
                    with tf.GradientTape() as t1:
                        t1.watch(x)
                        y = f(x)
                    gd = tf.reduce_sum(t1.gradient(y, x) * d)
                hd = t2.gradient(gd, x)
                a = rr / tf.reduce_sum(d * hd)
                p = p + a * d
                r = r - a * hd
                d = r + tf.reduce_sum(r * r) / rr * d
            return x + p
        """,
    },
}

# ---------------------------------------------------------------------------- kwame: several slips
STUDENTS["kwame"] = {
    "custom_gradients": {
        "log1pexp": """
            x = tf.convert_to_tensor(x)
            value = tf.maximum(x, 0.0) + tf.math.log1p(tf.exp(-tf.abs(x)))
            def grad_fn(upstream):
                return upstream * tf.sigmoid(x)
            return value, grad_fn
        """,
        # MISTAKE: grad_fn returns ones instead of passing the upstream gradient on
        "straight_through_round": """
            @tf.custom_gradient
            def _round(x):
                def grad(dy):
                    return tf.ones_like(x)  # straight through: derivative 1
                return tf.round(x), grad
            return _round(x)
        """,
        "clip_gradient_norm": """
            @tf.custom_gradient
            def clip(x):
                def grad(dy):
                    return tf.clip_by_norm(dy, max_norm)
                return x, grad
            return clip(tf.convert_to_tensor(x))
        """,
        # MISTAKE: .numpy() on q cuts the gradient
        "td_loss": """
            target = tf.stop_gradient(reward + gamma * tf.reduce_max(next_q, axis=1))
            err = q.numpy() - target.numpy()  # numpy is easier to debug
            print("mean td error", err.mean())
            return tf.constant(np.mean(err ** 2), dtype=q.dtype)
        """,
        "checkpointed": """
            return tf.recompute_grad(f)
        """,
        # MISTAKE: tf.norm of the raw rows and an unguarded division: unstable, and NaN at a zero row
        "safe_norm": """
            norm = tf.norm(x, axis=1)
            return norm, lambda upstream: upstream[:, None] * x / norm[:, None]
        """,
    },
    "higher_order": {
        "derivatives": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                d1 = inner.gradient(y, x)
            d2 = outer.gradient(d1, x)
            return d1, d2
        """,
        # MISTAKE: builds the full Hessian and multiplies
        "hessian_vector_product": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            H = outer.jacobian(g, x)  # Hessian = jacobian of the gradient
            return tf.linalg.matvec(H, v)
        """,
        # MISTAKE: tf.norm over the whole batch
        "gradient_penalty": """
            interpolated = alpha * real + (1 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(interpolated)
                pred = critic(interpolated)
            gradients = tape.gradient(pred, interpolated)
            grad_norm = tf.norm(gradients)
            return tf.reduce_mean((grad_norm - 1.0) ** 2)
        """,
        "critic_gradients": """
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
                loss += gp_weight * gradient_penalty(critic, real, fake, alpha)
            grads = tape.gradient(loss, critic.trainable_variables)
            return loss, grads
        """,
        "newton_step": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            H = outer.jacobian(g, x)
            s = tf.linalg.solve(H, tf.reshape(g, (-1, 1)))
            return x - tf.reshape(s, (-1,))
        """,
        # MISTAKE: calls his hessian_vector_product, which builds the full Hessian: out of memory at n = 100,000
        "newton_cg_step": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            g = tape.gradient(y, x)
            p = tf.zeros_like(x)
            r = -g
            d = r
            for _ in range(iters):
                rr = tf.reduce_sum(r * r)
                if rr == 0:
                    break
                hd = hessian_vector_product(f, x, d)
                a = rr / tf.reduce_sum(d * hd)
                p += a * d
                r -= a * hd
                d = r + tf.reduce_sum(r * r) / rr * d
            return x + p
        """,
    },
    "jacobians": {
        # MISTAKE: forgot tape.watch(x)
        "jacobian": """
            with tf.GradientTape() as tape:
                y = f(x)
            J = tape.jacobian(y, x)
            return J
        """,
        "batch_jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return tape.batch_jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "robust_jacobian": """
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = f(x)
            return tape.jacobian(y, x, experimental_use_pfor=False)
        """,
        "hessian": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            return outer.jacobian(g, x)
        """,
        # MISTAKE: forms J and multiplies; J does not fit in memory at n = 100,000
        "jvp": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            J = tape.jacobian(y, x)
            return tf.linalg.matvec(J, v)
        """,
        # MISTAKE: tape.gradient of the loss vector: one gradient for the whole batch
        "per_example_gradients": """
            with tf.GradientTape() as tape:
                loss = loss_fn(y, model(x))
            return tape.gradient(loss, model.trainable_variables)
        """,
    },
}

# ---------------------------------------------------------------------------- lina: non-persistent tapes
STUDENTS["lina"] = {
    "higher_order": {
        # MISTAKE: one non-persistent tape asked for two gradients
        "derivatives": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
                dy_dx = tape.gradient(y, x)  # inside the block, so the tape records it
            d2y_dx2 = tape.gradient(dy_dx, x)
            return dy_dx, d2y_dx2
        """,
        "hessian_vector_product": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                grad = inner.gradient(y, x)
                dot = tf.reduce_sum(grad * v)
            return outer.gradient(dot, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "gradient_penalty": """
            x_hat = alpha * real + (1.0 - alpha) * fake
            with tf.GradientTape() as tape:
                tape.watch(x_hat)
                score = tf.reduce_sum(critic(x_hat))
            g = tape.gradient(score, x_hat)
            g_flat = tf.reshape(g, [tf.shape(g)[0], -1])
            sq = tf.reduce_sum(tf.square(g_flat), axis=-1)
            nz = sq > 0
            norm = tf.where(nz, tf.sqrt(tf.where(nz, sq, tf.ones_like(sq))), tf.zeros_like(sq))
            return tf.reduce_mean(tf.square(norm - 1.0))
        """,
        "critic_gradients": """
            with tf.GradientTape() as tape:
                penalty = gradient_penalty(critic, real, fake, alpha)
                loss = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real)) + gp_weight * penalty
            grads = tape.gradient(loss, critic.trainable_variables,
                                  unconnected_gradients=tf.UnconnectedGradients.ZERO)
            return loss, grads
        """,
        "newton_step": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            hessian = outer.jacobian(g, x)
            step = tf.linalg.solve(hessian, g[:, tf.newaxis])[:, 0]
            return x - step
        """,
        # MISTAKE: g recorded once, then outer.gradient at every step on a tape that is not persistent
        "newton_cg_step": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            r = -g
            d = r
            p = tf.zeros_like(x)
            rr = tf.reduce_sum(r * r)
            for _ in range(iters):
                if rr == 0:
                    break
                hd = outer.gradient(g, x, output_gradients=d)
                a = rr / tf.reduce_sum(d * hd)
                p = p + a * d
                r = r - a * hd
                rr_new = tf.reduce_sum(r * r)
                d = r + rr_new / rr * d
                rr = rr_new
            return x + p
        """,
    },
    "jacobians": {
        "jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return tape.jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "batch_jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            return tape.batch_jacobian(y, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        # MISTAKE: experimental_use_pfor=False on a tape that is not persistent
        "robust_jacobian": """
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = f(x)
            # no pfor: compute the rows with a loop instead
            return tape.jacobian(y, x, experimental_use_pfor=False)
        """,
        "hessian": """
            with tf.GradientTape() as outer:
                outer.watch(x)
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                g = inner.gradient(y, x)
            return outer.jacobian(g, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        "jvp": """
            # double-vjp, as in the demo
            with tf.GradientTape() as outer:
                with tf.GradientTape() as inner:
                    inner.watch(x)
                    y = f(x)
                u = tf.zeros_like(y)
                outer.watch(u)
                g = inner.gradient(y, x, output_gradients=u,
                                   unconnected_gradients=tf.UnconnectedGradients.ZERO)
            return outer.gradient(g, u, output_gradients=v,
                                  unconnected_gradients=tf.UnconnectedGradients.ZERO)
        """,
        # MISTAKE: experimental_use_pfor=False on a tape that is not persistent (again)
        "per_example_gradients": """
            with tf.GradientTape() as tape:
                losses = loss_fn(y, model(x))
            return tape.jacobian(losses, model.trainable_variables, experimental_use_pfor=False)
        """,
    },
}

# Cells other than solution cells that a student changed: {(student, assignment): {grade_id: [(old, new)]}}.
# ---------------------------------------------------------------------------- implicit (the fourth notebook)
# ada: right, as the notebook teaches it. bram: right in two, two slips (the adjoint solved with A; the fixed
# point differentiated through its iterations). kwame: a slip in each.

STUDENTS["ada"]["implicit"] = {
    "root_solve": """
        @tf.custom_gradient
        def solve(theta):
            x = x0
            for _ in range(iters):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    residual = F(x, theta)
                x = x - residual / tape.gradient(residual, x)

            def grad_fn(upstream):
                with tf.GradientTape(persistent=True) as tape:
                    tape.watch([x, theta])
                    residual = F(x, theta)
                dF_dx = tape.gradient(residual, x)
                dF_dtheta = tape.gradient(residual, theta)
                return -upstream * dF_dtheta / dF_dx  # the implicit function theorem, elementwise

            return x, grad_fn

        return solve(theta)
    """,
    "implicit_solve": """
        @tf.custom_gradient
        def solve(A, b):
            x = solver(A, b)

            def grad_fn(x_bar):
                b_bar = solver(tf.transpose(A), x_bar)  # the adjoint system A^T b_bar = x_bar
                return -tf.tensordot(b_bar, x, axes=0), b_bar

            return x, grad_fn

        return solve(A, b)
    """,
    "fixed_point": """
        @tf.custom_gradient
        def solve(theta):
            x = x0
            for _ in range(iters):
                x = f(x, theta)

            def grad_fn(g):
                with tf.GradientTape(persistent=True) as tape:
                    tape.watch([x, theta])
                    fx = f(x, theta)
                u = g
                for _ in range(1000):  # u = g + J^T u
                    u_next = g + tape.gradient(fx, x, output_gradients=u)
                    converged = tf.norm(u_next - u) <= 1e-6 * tf.norm(u_next)
                    u = u_next
                    if converged:
                        break
                return tape.gradient(fx, theta, output_gradients=u)

            return x, grad_fn

        return solve(theta)
    """,
    "argmin_gradient": """
        @tf.custom_gradient
        def solve(theta):
            w = inner_solver(theta)

            def hvp(d):
                with tf.GradientTape() as outer:
                    outer.watch(w)
                    with tf.GradientTape() as inner:
                        inner.watch(w)
                        value = g(w, theta)
                    g_dot_d = tf.reduce_sum(inner.gradient(value, w) * d)
                return outer.gradient(g_dot_d, w)

            def grad_fn(w_bar):
                v, r = tf.zeros_like(w_bar), w_bar
                d, rr = r, tf.reduce_sum(r * r)
                for _ in range(cg_iters):
                    if rr == 0:
                        break
                    hd = hvp(d)
                    a = rr / tf.reduce_sum(d * hd)
                    v, r = v + a * d, r - a * hd
                    rr_new = tf.reduce_sum(r * r)
                    d = r + (rr_new / rr) * d
                    rr = rr_new
                with tf.GradientTape() as outer:
                    outer.watch(theta)
                    with tf.GradientTape() as inner:
                        inner.watch(w)
                        value = g(w, theta)
                    grad_w = inner.gradient(value, w)
                return -outer.gradient(grad_w, theta, output_gradients=v)

            return w, grad_fn

        return solve(theta)
    """,
}

STUDENTS["bram"]["implicit"] = {
    # right (converged Newton steps differentiated through: the same numbers; the advice says why not)
    "root_solve": """
        x = x0
        for _ in range(iters):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = F(x, theta)
            x = x - y / tape.gradient(y, x)
        return x
    """,
    # MISTAKE: the adjoint system solved with A, not its transpose (right for a symmetric A only)
    "implicit_solve": """
        @tf.custom_gradient
        def solve(A, b):
            x = solver(A, b)

            def grad_fn(upstream):
                grad_b = solver(A, upstream)
                return -grad_b[:, None] * x[None, :], grad_b

            return x, grad_fn

        return solve(A, b)
    """,
    # MISTAKE: the iterations differentiated by TensorFlow (unrolled): wrong after few iterations
    "fixed_point": """
        x = x0
        for _ in range(iters):
            x = f(x, theta)
        return x
    """,
    # right: forward-over-backward products, CG in a tf.while_loop
    "argmin_gradient": """
        @tf.custom_gradient
        def solve(theta):
            w = inner_solver(theta)

            def hvp(d):
                with tf.autodiff.ForwardAccumulator(w, d) as acc:
                    with tf.GradientTape() as tape:
                        tape.watch(w)
                        value = g(w, theta)
                    grad = tape.gradient(value, w)
                return acc.jvp(grad)

            def grad_fn(w_bar):
                def step(k, v, r, d, rr):
                    hd = hvp(d)
                    a = rr / tf.reduce_sum(d * hd)
                    v, r = v + a * d, r - a * hd
                    rr_new = tf.reduce_sum(r * r)
                    return k + 1, v, r, r + (rr_new / rr) * d, rr_new

                start = (0, tf.zeros_like(w_bar), w_bar, w_bar, tf.reduce_sum(w_bar * w_bar))
                v = tf.while_loop(lambda k, v, r, d, rr: (k < cg_iters) & (rr > 0), step, start)[1]
                with tf.GradientTape() as outer:
                    outer.watch(theta)
                    with tf.GradientTape() as inner:
                        inner.watch(w)
                        value = g(w, theta)
                    grad_w = inner.gradient(value, w)
                return -outer.gradient(grad_w, theta, output_gradients=v)

            return w, grad_fn

        return solve(theta)
    """,
}

STUDENTS["kwame"]["implicit"] = {
    # MISTAKE: the minus of the theorem dropped
    "root_solve": """
        @tf.custom_gradient
        def solve(theta):
            x = x0
            for _ in range(iters):
                with tf.GradientTape() as tape:
                    tape.watch(x)
                    y = F(x, theta)
                x = x - y / tape.gradient(y, x)

            def grad_fn(upstream):
                with tf.GradientTape(persistent=True) as tape:
                    tape.watch([x, theta])
                    y = F(x, theta)
                return upstream * tape.gradient(y, theta) / tape.gradient(y, x)

            return x, grad_fn

        return solve(theta)
    """,
    # MISTAKE: the solver's result returned as it is: no gradient reaches A and b
    "implicit_solve": """
        return solver(A, b)
    """,
    # MISTAKE: (df/dtheta)^T g, the adjoint iteration left out
    "fixed_point": """
        @tf.custom_gradient
        def solve(theta):
            x = x0
            for _ in range(iters):
                x = f(x, theta)

            def grad_fn(g):
                with tf.GradientTape() as tape:
                    tape.watch(theta)
                    fx = f(x, theta)
                return tape.gradient(fx, theta, output_gradients=g)

            return x, grad_fn

        return solve(theta)
    """,
    # MISTAKE: CG on H v = 1 instead of H v = w_bar
    "argmin_gradient": """
        @tf.custom_gradient
        def solve(theta):
            w = inner_solver(theta)

            def hvp(d):
                with tf.GradientTape() as outer:
                    outer.watch(w)
                    with tf.GradientTape() as inner:
                        inner.watch(w)
                        value = g(w, theta)
                    g_dot_d = tf.reduce_sum(inner.gradient(value, w) * d)
                return outer.gradient(g_dot_d, w)

            def grad_fn(w_bar):
                ones = tf.ones_like(w_bar)
                v, r = tf.zeros_like(ones), ones
                d, rr = r, tf.reduce_sum(r * r)
                for _ in range(cg_iters):
                    if rr == 0:
                        break
                    hd = hvp(d)
                    a = rr / tf.reduce_sum(d * hd)
                    v, r = v + a * d, r - a * hd
                    rr_new = tf.reduce_sum(r * r)
                    d = r + (rr_new / rr) * d
                    rr = rr_new
                with tf.GradientTape() as outer:
                    outer.watch(theta)
                    with tf.GradientTape() as inner:
                        inner.watch(w)
                        value = g(w, theta)
                    grad_w = inner.gradient(value, w)
                return -outer.gradient(grad_w, theta, output_gradients=v)

            return w, grad_fn

        return solve(theta)
    """,
}

# ines played with the Taylor-test demo and left it broken: h now has 3 entries for a 2-vector x, so
# `f(x + h)` raises InvalidArgumentError when the cell runs.
DEMO_EDITS: dict[tuple[str, str], dict[str, list[tuple[str, str]]]] = {
    ("ines", "jacobians"): {
        "demo_jacobian_2": [
            ("h = tf.constant([1e-3, 0.0])                      # move x_0 only",
             "h = tf.constant([1e-3, 0.0, 0.0])                 # move x_0 only (trying 3 inputs)"),
        ],
    },
}


# ============================================================================ building the notebooks

def _body(code: str) -> str:
    """Dedent a body written in this file and indent it one level, for the inside of a def."""
    lines = textwrap.dedent(code).strip("\n").splitlines()
    return "\n".join(("    " + line) if line.strip() else "" for line in lines)


def fill_solution_cell(source: str, code: str | None, where: str) -> str:
    if source.count(STUB) != 1:
        raise SystemExit(f"{where}: the released cell does not hold exactly one stub:\n{source}")
    if code is None:
        return source
    return source.replace(STUB, _body(code))


def build_notebook(student: str, assignment: str) -> nbformat.NotebookNode:
    bodies = STUDENTS[student][assignment]
    released = ASSIGNMENTS / assignment / f"{assignment}.ipynb"
    notebook = nbformat.read(released, as_version=4)
    edits = DEMO_EDITS.get((student, assignment), {})
    seen_solutions, seen_edits = set(), set()
    for cell in notebook.cells:
        meta = cell.get("metadata", {}).get("nbgrader", {})
        grade_id = meta.get("grade_id")
        if cell.cell_type == "code":
            cell.outputs = []
            cell.execution_count = None
        if meta.get("solution") and cell.cell_type == "code":
            if grade_id not in bodies:
                raise SystemExit(f"{student}/{assignment}: no entry for exercise {grade_id!r} in STUDENTS")
            cell.source = fill_solution_cell(cell.source, bodies[grade_id], f"{student}/{assignment}/{grade_id}")
            seen_solutions.add(grade_id)
        if grade_id in edits:
            for old, new in edits[grade_id]:
                if cell.source.count(old) != 1:
                    raise SystemExit(f"{student}/{assignment}/{grade_id}: cannot find the line to edit: {old!r}")
                cell.source = cell.source.replace(old, new)
            seen_edits.add(grade_id)
    unknown = set(bodies) - seen_solutions
    if unknown:
        raise SystemExit(f"{student}/{assignment}: {sorted(unknown)} are not solution cells of {released}")
    if set(edits) - seen_edits:
        raise SystemExit(f"{student}/{assignment}: no cells {sorted(set(edits) - seen_edits)} to edit")
    return notebook


def target(student: str, assignment: str) -> Path:
    return SUBMITTED / student / assignment / f"{assignment}.ipynb"


def render(student: str, assignment: str) -> str:
    """The notebook's file content, exactly as written."""
    return nbformat.writes(build_notebook(student, assignment), version=4) + "\n"


def main() -> int:
    wanted = set()
    for student in sorted(STUDENTS):
        for assignment in STUDENTS[student]:
            if assignment not in ASSIGNMENT_IDS:
                raise SystemExit(f"{student}: unknown assignment {assignment!r}")
            path = target(student, assignment)
            path.parent.mkdir(parents=True, exist_ok=True)
            text = render(student, assignment)
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
            wanted.add(path)
    for stale in sorted(SUBMITTED.rglob("*.ipynb")):
        if stale not in wanted:
            stale.unlink()
    for directory in sorted(SUBMITTED.rglob("*"), reverse=True):
        if directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()
    print(f"wrote {len(wanted)} notebooks for {len(STUDENTS)} students under {SUBMITTED.relative_to(ROOT)}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
