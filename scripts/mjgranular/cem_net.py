"""The small multilayer perceptrons of the configuration-space contact fields (mjgranular.cem), in
numpy: SiLU after every affine layer but the last, least-squares fit by Adam on minibatches,
deterministic for a seed. A net is a list of (W, b) with W of shape (outputs, inputs), the layout
of the fields file.

The fit may also match the net's slopes along given input directions (Sobolev training): the
solver takes the contact normal and torque from the distance net's gradient, which a fit of the
values alone leaves 15 to 25 degrees off. Slopes are carried forward through the layers (forward
mode) and their squared error differentiated back through that pass."""

import numpy as np


def _sigmoid(z):
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # no overflow warnings for large |z|


def init(widths, rng):
    """Weights drawn with variance 2 / fan-in (SiLU passes about half the signal), zero biases."""
    return [(rng.standard_normal((n_out, n_in)) * np.sqrt(2.0 / n_in), np.zeros(n_out))
            for n_in, n_out in zip(widths[:-1], widths[1:])]


def forward(net, x):
    """Outputs for inputs x (n, width[0]) and, per layer, its input and pre-activation (what
    backward needs)."""
    pre = []
    h = x
    for layer, (w, b) in enumerate(net):
        z = h @ w.T + b
        pre.append((h, z))
        if layer < len(net) - 1:
            h = z * _sigmoid(z)
    return z, pre


def backward(net, pre, grad_out):
    """Gradients of sum(grad_out * outputs) with respect to every (W, b) and to the inputs."""
    grads = [None] * len(net)
    g = grad_out
    for layer in range(len(net) - 1, -1, -1):
        h, z = pre[layer]
        if layer < len(net) - 1:
            g = g * _silu_derivative(z)
        grads[layer] = (g.T @ h, g.sum(axis=0))
        g = g @ net[layer][0]
    return grads, g


def _silu_derivative(z):
    s = _sigmoid(z)
    return s * (1.0 + z * (1.0 - s))


def _silu_second_derivative(z):
    s = _sigmoid(z)
    return s * (1.0 - s) * (2.0 + z * (1.0 - 2.0 * s))


def forward_slopes(net, x, directions):
    """Outputs for inputs x (n, width[0]) and their slopes along directions (n, k, width[0]):
    (outputs (n, out), slopes (n, k, out), what backward_slopes needs)."""
    pre = []
    h, dh = x, directions
    for layer, (w, b) in enumerate(net):
        z, dz = h @ w.T + b, dh @ w.T
        pre.append((h, dh, z, dz))
        if layer < len(net) - 1:
            h, dh = z * _sigmoid(z), _silu_derivative(z)[:, None] * dz
    return z, dz, pre


def backward_slopes(net, pre, grad_out, grad_slopes):
    """Gradients with respect to every (W, b) of sum(grad_out * outputs) +
    sum(grad_slopes * slopes), slopes as forward_slopes gives them."""
    grads = [None] * len(net)
    g, dg = grad_out, grad_slopes
    for layer in range(len(net) - 1, -1, -1):
        h, dh, z, dz = pre[layer]
        if layer < len(net) - 1:
            # h = silu(z), dh = silu'(z) dz: z's adjoint gains silu''(z) dz from the slopes
            first = _silu_derivative(z)
            g = g * first + (dg * dz).sum(axis=1) * _silu_second_derivative(z)
            dg = dg * first[:, None]
        flat_dg = dg.reshape(-1, dg.shape[-1])
        grads[layer] = (g.T @ h + flat_dg.T @ dh.reshape(-1, dh.shape[-1]), g.sum(axis=0))
        w = net[layer][0]
        g, dg = g @ w, dg @ w
    return grads


def mse(net, x, y):
    return float(np.mean((forward(net, x)[0] - y) ** 2))


def train(net, x, y, rng, epochs, batch=256, lr=3e-3, lr_end=3e-5, directions=None,
          slopes=None, slope_weight=0.0):
    """Adam on the mean squared error over shuffled minibatches, the learning rate decaying
    geometrically from lr to lr_end over the epochs. With directions (n, k, width[0]) and slopes
    (n, k, out), slope_weight x the mean squared error of the net's slopes along the directions
    is added. Returns the loss after each epoch."""
    m = [(np.zeros_like(w), np.zeros_like(b)) for w, b in net]
    v = [(np.zeros_like(w), np.zeros_like(b)) for w, b in net]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    step = 0
    history = []
    for epoch in range(epochs):
        rate = lr * (lr_end / lr) ** (epoch / max(1, epochs - 1))
        order = rng.permutation(len(x))
        for s in range(0, len(x), batch):
            idx = order[s:s + batch]
            if slope_weight:
                out, dout, pre = forward_slopes(net, x[idx], directions[idx])
                grads = backward_slopes(
                    net, pre, 2.0 * (out - y[idx]) / out.size,
                    2.0 * slope_weight * (dout - slopes[idx]) / dout.size)
            else:
                out, pre = forward(net, x[idx])
                grads, _ = backward(net, pre, 2.0 * (out - y[idx]) / out.size)
            step += 1
            corr1, corr2 = 1 - beta1 ** step, 1 - beta2 ** step
            for layer, (gw, gb) in enumerate(grads):
                params = []
                for k, (p, g) in enumerate(zip(net[layer], (gw, gb))):
                    m[layer][k][...] = beta1 * m[layer][k] + (1 - beta1) * g
                    v[layer][k][...] = beta2 * v[layer][k] + (1 - beta2) * g * g
                    params.append(p - rate * (m[layer][k] / corr1)
                                  / (np.sqrt(v[layer][k] / corr2) + eps))
                net[layer] = tuple(params)
        history.append(loss(net, x, y, directions, slopes, slope_weight))
    return history


def loss(net, x, y, directions=None, slopes=None, slope_weight=0.0):
    """What train minimises: the outputs' mean squared error, plus slope_weight x the slopes'."""
    if not slope_weight:
        return mse(net, x, y)
    out, dout, _ = forward_slopes(net, x, directions)
    return float(np.mean((out - y) ** 2) + slope_weight * np.mean((dout - slopes) ** 2))
