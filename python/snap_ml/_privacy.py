"""Differentially private training: DP-SGD (Abadi et al., "Deep Learning with
Differential Privacy", CCS 2016) for the linear models' logistic and squared
losses, with the Renyi-DP accountant of the sampled Gaussian mechanism (Mironov,
"Renyi Differential Privacy", CSF 2017; Mironov, Talwar and Zhang, "Renyi
Differential Privacy of the Sampled Gaussian Mechanism", arXiv:1908.10530, 2019).

Each step samples every row independently with probability ``q = batch_size / n``
(Poisson sampling, the mechanism the accountant analyses), clips each sampled
row's gradient of the loss to L2 norm ``grad_clip``, adds Gaussian noise of standard
deviation ``sigma * grad_clip`` to their sum, divides by ``batch_size`` and steps by
``eta`` on the mean objective ``(1/n) (sum_i loss_i + regularizer/2 ||w||^2)``; the
regulariser's gradient reads no row, so it costs no privacy. ``sigma`` (the noise
multiplier) is the smallest that keeps ``T = epochs * n / batch_size`` steps
``(privacy_epsilon, delta)``-differentially private, found by bisection on the
accountant; the epsilon actually spent (at most the target) is reported.
"""

import math

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, gammaln, logsumexp

# Renyi orders the accountant minimises over (TF Privacy's and Opacus's integer set).
ORDERS = tuple(range(2, 64)) + (64, 80, 96, 128, 256, 512)


def sampled_gaussian_rdp(q, sigma, order):
    """The Renyi DP of order ``order`` (an integer >= 2) of one step of the sampled
    Gaussian mechanism: sampling rate ``q``, noise multiplier ``sigma``.

    Mironov, Talwar, Zhang 2019, Section 3.3, for integer orders:
    ``A = sum_k C(order, k) (1 - q)^(order - k) q^k exp((k^2 - k) / (2 sigma^2))`` and
    the RDP is ``log(A) / (order - 1)``; summed in log space. With ``q = 1`` it is the
    Gaussian mechanism's ``order / (2 sigma^2)``.
    """
    if q == 0:
        return 0.0
    if q == 1:
        return order / (2.0 * sigma**2)
    k = np.arange(order + 1, dtype=np.float64)
    log_binomial = gammaln(order + 1) - gammaln(k + 1) - gammaln(order - k + 1)
    terms = log_binomial + (order - k) * math.log1p(-q) + k * math.log(q) + (k * k - k) / (2.0 * sigma**2)
    return float(logsumexp(terms)) / (order - 1)


def epsilon_spent(q, sigma, steps, delta):
    """The epsilon of ``steps`` composed steps at ``delta``: RDP adds up over the
    steps, and ``(alpha, r)``-RDP is ``(r + log(1/delta) / (alpha - 1), delta)``-DP
    (Mironov 2017, Proposition 3); the best order is taken."""
    return min(steps * sampled_gaussian_rdp(q, sigma, a) + math.log(1.0 / delta) / (a - 1) for a in ORDERS)


def noise_multiplier(q, steps, epsilon, delta):
    """The smallest sigma (to 0.1%) whose ``epsilon_spent`` is at most ``epsilon``."""
    low, high = 0.0, 1.0
    while epsilon_spent(q, high, steps, delta) > epsilon:
        low, high = high, high * 2.0
        if high > 1e6:
            raise ValueError(f"privacy_epsilon={epsilon} cannot be met with {steps} steps at sampling rate {q}")
    while high - low > 1e-3 * high:
        middle = 0.5 * (low + high)
        if epsilon_spent(q, middle, steps, delta) > epsilon:
            low = middle
        else:
            high = middle
    return high


def loss_derivative(loss, y, z):
    """d loss / d z per row: logistic (labels +-1) or squared ``(z - y)^2``."""
    if loss == "logistic":
        return -y * expit(-y * z)
    return 2.0 * (z - y)


def clipped_gradient_sum(X, y, w, b, loss, clip, intercept_scaling):
    """The sum over the rows of X of each row's loss gradient in (w, b), each
    scaled to L2 norm at most ``clip`` (Abadi et al.'s per-example clipping).

    A row's gradient is ``l'(z) (x, s)`` (s: the intercept's constant feature, 0
    without one), whose norm is ``|l'(z)| sqrt(||x||^2 + s^2)``.
    """
    z = np.asarray(X @ w).ravel() + b * intercept_scaling
    derivative = loss_derivative(loss, y, z)
    squares = np.asarray(X.multiply(X).sum(axis=1) if sp.issparse(X) else np.einsum("ij,ij->i", X, X)).ravel()
    norms = np.abs(derivative) * np.sqrt(squares + intercept_scaling**2)
    factor = derivative * np.minimum(1.0, clip / np.maximum(norms, np.finfo(float).tiny))
    return np.asarray(X.T @ factor).ravel(), float(factor.sum()) * intercept_scaling


def dp_sgd(X, y, loss, regularizer, eta, batch_size, epochs, clip, epsilon, delta, fit_intercept,
           intercept_scaling, rng):
    """DP-SGD on rows X (CSR or dense), targets y (+-1 for the logistic loss).

    Returns
    -------
    w, b : the model (b is the intercept_ = intercept_scaling * the bias weight)
    sigma : the noise multiplier used
    spent : the epsilon the accountant certifies at ``delta``
    """
    n, d = X.shape
    q = min(1.0, batch_size / n)
    steps_per_epoch = max(1, int(round(n / batch_size)))
    steps = epochs * steps_per_epoch
    sigma = noise_multiplier(q, steps, epsilon, delta)
    scale = intercept_scaling if fit_intercept else 0.0
    w, bias = np.zeros(d), 0.0
    for _ in range(steps):
        # Poisson sampling, each row with probability q: a Binomial(n, q) count of
        # rows drawn uniformly without replacement (the same distribution, in
        # O(batch) instead of O(n) draws).
        rows = rng.choice(n, size=rng.binomial(n, q), replace=False)
        g_w, g_b = clipped_gradient_sum(X[rows], y[rows], w, bias, loss, clip, scale)
        g_w = (g_w + rng.normal(0.0, sigma * clip, size=d)) / batch_size
        g_b = (g_b + (rng.normal(0.0, sigma * clip) if fit_intercept else 0.0)) / batch_size
        w -= eta * (g_w + regularizer / n * w)
        bias -= eta * (g_b + regularizer / n * bias)
    return w, bias * scale, sigma, epsilon_spent(q, sigma, steps, delta)
