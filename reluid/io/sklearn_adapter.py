"""Fitted scikit-learn MLPs → exact :class:`~reluid.model.network.Network` objects.

:func:`from_sklearn` reads a fitted ``MLPClassifier`` or ``MLPRegressor`` with
``activation='relu'``.  scikit-learn stores ``coefs_[i]`` as n_in × n_out
(it computes ``X @ W + b``), so each is transposed to reluid's n_out × n_in;
``intercepts_[i]`` are the biases.  Every entry is read as the exact binary
value it holds.

A regressor's output activation is the identity, so the network is exactly
what ``predict`` computes (in real arithmetic).  A classifier applies softmax
(or the logistic function, for one output) after the last layer; that is not
part of a ReLU network, so the network reluid reads is the classifier's
*logits*, and :attr:`Network.assumption` says so in every certificate and
report.  Other activations (``tanh``, ``logistic``, ``identity``) and other
estimators are refused by name; so is an unfitted estimator.

scikit-learn is imported only when :func:`from_sklearn` is called.
"""

from __future__ import annotations

import numpy as np

from reluid.errors import InvalidArgument, InvalidNetwork
from reluid.io.loader import ArrayLayer, network_from_arrays
from reluid.model.network import Network

__all__ = ["from_sklearn"]


def from_sklearn(estimator) -> Network:
    """The exact ReLU network of a fitted ``MLPClassifier`` (its logits) or ``MLPRegressor``.

    Raises
    ------
    InvalidNetwork
        For another estimator (a ``Pipeline``: with the hint to pass its last
        step), an activation other than ``'relu'``, or an unfitted estimator.
    InvalidArgument
        If scikit-learn is not installed.

    Examples
    --------
    >>> from sklearn.neural_network import MLPRegressor            # doctest: +SKIP
    >>> est = MLPRegressor(hidden_layer_sizes=(4,), max_iter=20).fit([[0.0], [1.0]], [0.0, 1.0])  # doctest: +SKIP
    >>> from_sklearn(est).architecture                            # doctest: +SKIP
    (1, 4, 1)
    """
    kind = type(estimator).__name__
    if kind == "Pipeline" and hasattr(estimator, "steps"):
        steps = [name for name, _ in getattr(estimator, "steps", [])]
        raise InvalidNetwork(f"a Pipeline ({' → '.join(map(str, steps)) or 'no steps'}) is not supported; pass its "
                             "last step (pipeline[-1]), the MLP, and note that the steps before it (a scaler, say) "
                             "are then not part of the certified function")
    try:
        from sklearn.neural_network import MLPClassifier, MLPRegressor
    except ImportError:
        raise InvalidArgument("reluid.from_sklearn needs scikit-learn") from None
    kind = type(estimator).__name__
    if not isinstance(estimator, (MLPClassifier, MLPRegressor)):
        raise InvalidNetwork(f"{kind} is not supported; from_sklearn reads fitted MLPClassifier and MLPRegressor "
                             "estimators")
    if not hasattr(estimator, "coefs_") or not hasattr(estimator, "intercepts_"):
        raise InvalidNetwork(f"the {kind} is not fitted (it has no coefs_); call fit first")
    if estimator.activation != "relu":
        raise InvalidNetwork(f"the {kind} has activation={estimator.activation!r}; reluid reads ReLU networks "
                             "(activation='relu') only")
    coefs, intercepts = list(estimator.coefs_), list(estimator.intercepts_)
    if len(coefs) != len(intercepts) or not coefs:
        raise InvalidNetwork(f"the {kind} has {len(coefs)} coefs_ but {len(intercepts)} intercepts_")
    layers = []
    for i, (W, b) in enumerate(zip(coefs, intercepts)):
        W, b = np.asarray(W), np.asarray(b)
        if W.ndim != 2:
            raise InvalidNetwork(f"coefs_[{i}] has shape {W.shape}, expected 2-D")
        layers.append(ArrayLayer(W.T, b, f"coefs_[{i}] (transposed)", f"intercepts_[{i}]"))
    out = getattr(estimator, "out_activation_", None)
    if isinstance(estimator, MLPClassifier):
        assumption = (f"the logits of a scikit-learn MLPClassifier: its output {out or 'softmax'} (applied by "
                      "predict_proba) is not part of the certified function")
    elif out not in (None, "identity"):
        raise InvalidNetwork(f"the {kind} has output activation {out!r}; expected 'identity'")
    else:
        assumption = None
    return network_from_arrays(layers, name=kind, assumption=assumption)
