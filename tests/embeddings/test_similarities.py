"""The query-time product (embeddings.similarities): the cosines matrix @ vec gives, on the calling thread."""

from __future__ import annotations

import numpy as np

from memlane.embeddings import normalize_rows, similarities


def test_similarities_are_the_cosines_of_each_row_in_float32() -> None:
    rng = np.random.default_rng(48)
    matrix = normalize_rows(rng.standard_normal((2_000, 384)))
    vec = normalize_rows(rng.standard_normal((1, 384)))[0]
    got = similarities(matrix, vec)
    assert got.dtype == np.float32 and got.shape == (2_000,)
    assert np.allclose(got, matrix.astype(np.float64) @ vec.astype(np.float64), atol=1e-6)
    assert list(np.argsort(-got)[:10]) == list(np.argsort(-(matrix @ vec))[:10])
    assert similarities(np.zeros((0, 384), np.float32), vec).shape == (0,)
