"""The small multilayer perceptrons of the configuration-space contact fields (mjgranular.cem), in
numpy: SiLU after every affine layer but the last, least-squares fit by Adam on minibatches,
deterministic for a seed. A net is a list of (W, b) with W of shape (outputs, inputs), the layout
of the fields file."""

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


def mse(net, x, y):
    return float(np.mean((forward(net, x)[0] - y) ** 2))


def train(net, x, y, rng, epochs, batch=256, lr=3e-3, lr_end=3e-5):
    """Adam on the mean squared error over shuffled minibatches, the learning rate decaying
    geometrically from lr to lr_end over the epochs. Returns the loss after each epoch."""
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
        history.append(mse(net, x, y))
    return history
