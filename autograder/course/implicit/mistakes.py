"""Mistake models of ``implicit``: TRUSTED code, imported only by reference children.

Each mistake is a correct implicit gradient with one part changed, so this module holds correct parts (Newton
steps, the adjoint of a linear solve, the adjoint fixed point iteration, CG on Hessian-vector products): a
student's child must never import it (``autograder.run.child_modules``), and the students' wheel ships the
models' answers on the public cases, not this code.
"""
from __future__ import annotations


def _newton(F, theta, x, steps):
    import tensorflow as tf

    for _ in range(steps):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = F(x, theta)
        x = x - y / tape.gradient(y, x)
    return x


def _root(F, theta, x0, iters, sign=-1.0, upstream=True, inverted=False, at_start=False, steps=None):
    """root_solve with its gradient -u dF/dtheta / dF/dx changed as asked."""
    import tensorflow as tf

    @tf.custom_gradient
    def solve(theta):
        x = _newton(F, theta, x0, iters if steps is None else steps)

        def grad_fn(u):
            at = x0 if at_start else x
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([at, theta])
                y = F(at, theta)
            dx, dtheta = tape.gradient(y, at), tape.gradient(y, theta)
            return sign * (u if upstream else tf.ones_like(u)) * (dx / dtheta if inverted else dtheta / dx)
        return x, grad_fn
    return solve(theta)


def root_no_gradient(F, theta, x0, iters):
    import tensorflow as tf

    return tf.stop_gradient(_newton(F, theta, x0, iters))


def root_sign(F, theta, x0, iters):
    return _root(F, theta, x0, iters, sign=1.0)


def root_ignores_upstream(F, theta, x0, iters):
    return _root(F, theta, x0, iters, upstream=False)


def root_inverted_ratio(F, theta, x0, iters):
    return _root(F, theta, x0, iters, inverted=True)


def root_partials_at_start(F, theta, x0, iters):
    return _root(F, theta, x0, iters, at_start=True)


def root_one_step_fewer(F, theta, x0, iters):
    return _root(F, theta, x0, iters, steps=iters - 1)


# --------------------------------------------------------------------------- implicit_solve

def _solve(solver, A, b, transposed=True, sign_a=-1.0, sign_b=1.0, outer_transposed=False, upstream=True,
           solved=True, grad_a=True):
    """implicit_solve with its adjoint changed as asked; the signs multiply b̄ and Ā = sign_a b̄ xᵀ as returned."""
    import tensorflow as tf

    @tf.custom_gradient
    def solve(A, b):
        x = solver(A, b)

        def grad_fn(u):
            u = u if upstream else tf.ones_like(u)
            bar_b = solver(tf.transpose(A) if transposed else A, u) if solved else u
            outer = x[:, None] * bar_b[None, :] if outer_transposed else bar_b[:, None] * x[None, :]
            return (sign_a * outer if grad_a else None), sign_b * bar_b
        return x, grad_fn
    return solve(A, b)


def solve_no_gradient(solver, A, b):
    return solver(A, b)


def solve_not_transposed(solver, A, b):
    return _solve(solver, A, b, transposed=False)


def solve_sign(solver, A, b):
    return _solve(solver, A, b, sign_a=1.0)


def solve_negated(solver, A, b):
    return _solve(solver, A, b, sign_a=1.0, sign_b=-1.0)


def solve_negated_b(solver, A, b):
    return _solve(solver, A, b, sign_b=-1.0)


def solve_outer_transposed(solver, A, b):
    return _solve(solver, A, b, outer_transposed=True)


def solve_ignores_upstream(solver, A, b):
    return _solve(solver, A, b, upstream=False)


def solve_upstream_not_solved(solver, A, b):
    return _solve(solver, A, b, solved=False)


def solve_no_gradient_for_a(solver, A, b):
    return _solve(solver, A, b, grad_a=False)


# --------------------------------------------------------------------------- fixed_point

def _iterate(f, theta, x, iters):
    for _ in range(iters):
        x = f(x, theta)
    return x


def _adjoint_product(tape, fx, x, u, forward):
    """(df/dx)ᵀ u by reverse mode, or (df/dx) u by forward mode where ``forward`` is (f, theta)."""
    import tensorflow as tf

    if forward is None:
        return tape.gradient(fx, x, output_gradients=u)
    f, theta = forward
    with tf.autodiff.ForwardAccumulator(x, u) as accumulator:
        y = f(x, theta)
    return accumulator.jvp(y)


def _fixed_point(f, theta, x0, iters, sign=1.0, upstream=True, solve=True, forward=False, previous=False,
                 adjoint_steps=None, extra=0):
    import tensorflow as tf

    @tf.custom_gradient
    def solution(theta):
        before = _iterate(f, theta, x0, iters + extra - 1)
        x = f(before, theta)

        def grad_fn(g):
            at = before if previous else x
            g = g if upstream else tf.ones_like(g)
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([at, theta])
                fx = f(at, theta)
            u = g
            for _ in range((1000 if adjoint_steps is None else adjoint_steps) if solve else 0):
                u_new = g + _adjoint_product(tape, fx, at, u, (f, theta) if forward else None)
                done = adjoint_steps is None and tf.norm(u_new - u) <= 1e-6 * tf.norm(u_new)
                u = u_new
                if done:
                    break
            return sign * tape.gradient(fx, theta, output_gradients=u)
        return x, grad_fn
    return solution(theta)


def fp_unrolled(f, theta, x0, iters):
    return _iterate(f, theta, x0, iters)


def fp_one_step(f, theta, x0, iters):
    return _fixed_point(f, theta, x0, iters, solve=False)


def fp_not_transposed(f, theta, x0, iters):
    return _fixed_point(f, theta, x0, iters, forward=True)


def fp_sign(f, theta, x0, iters):
    return _fixed_point(f, theta, x0, iters, sign=-1.0)


def fp_ignores_upstream(f, theta, x0, iters):
    return _fixed_point(f, theta, x0, iters, upstream=False)


def fp_partials_at_previous(f, theta, x0, iters):
    return _fixed_point(f, theta, x0, iters, previous=True)


def fp_adjoint_iters(f, theta, x0, iters):
    return _fixed_point(f, theta, x0, iters, adjoint_steps=iters)


def fp_one_iteration_more(f, theta, x0, iters):
    return _fixed_point(f, theta, x0, iters, extra=1)


def fp_no_gradient(f, theta, x0, iters):
    import tensorflow as tf

    return tf.stop_gradient(_iterate(f, theta, x0, iters))


# --------------------------------------------------------------------------- argmin_gradient

def _hvp(g, w, theta, d):
    import tensorflow as tf

    with tf.GradientTape() as outer:
        outer.watch(w)
        with tf.GradientTape() as inner:
            inner.watch(w)
            y = g(w, theta)
        gd = tf.reduce_sum(inner.gradient(y, w) * d)
    return outer.gradient(gd, w)


def _cg(g, w, theta, b, steps, conjugate=True):
    import tensorflow as tf

    v, r = tf.zeros_like(b), b
    d, rr = r, tf.reduce_sum(r * r)
    for _ in range(steps):
        if rr == 0:
            break
        hd = _hvp(g, w, theta, d)
        a = rr / tf.reduce_sum(d * hd)
        v, r = v + a * d, r - a * hd
        rr_new = tf.reduce_sum(r * r)
        d = r + (rr_new / rr) * d if conjugate else r
        rr = rr_new
    return v


def _argmin(g, inner_solver, theta, cg_iters, sign=-1.0, upstream=True, vector="solve"):
    import tensorflow as tf

    @tf.custom_gradient
    def solution(theta):
        w = inner_solver(theta)

        def grad_fn(w_bar):
            w_bar = w_bar if upstream else tf.ones_like(w_bar)
            if vector == "solve":
                v = _cg(g, w, theta, w_bar, cg_iters)
            elif vector == "steepest":
                v = _cg(g, w, theta, w_bar, cg_iters, conjugate=False)
            else:
                v = w_bar if vector == "upstream" else _hvp(g, w, theta, w_bar)
            with tf.GradientTape() as outer:
                outer.watch(theta)
                with tf.GradientTape() as inner:
                    inner.watch(w)
                    y = g(w, theta)
                grad_w = inner.gradient(y, w)
            return sign * outer.gradient(grad_w, theta, output_gradients=v)
        return w, grad_fn
    return solution(theta)


def am_no_gradient(g, inner_solver, theta, cg_iters):
    return inner_solver(theta)


def am_one_step(g, inner_solver, theta, cg_iters):
    return _argmin(g, inner_solver, theta, cg_iters, vector="upstream")


def am_hessian_times(g, inner_solver, theta, cg_iters):
    return _argmin(g, inner_solver, theta, cg_iters, vector="hessian")


def am_sign(g, inner_solver, theta, cg_iters):
    return _argmin(g, inner_solver, theta, cg_iters, sign=1.0)


def am_ignores_upstream(g, inner_solver, theta, cg_iters):
    return _argmin(g, inner_solver, theta, cg_iters, upstream=False)


def am_steepest_descent(g, inner_solver, theta, cg_iters):
    return _argmin(g, inner_solver, theta, cg_iters, vector="steepest")
