"""What an embedder's similarities mean: thresholds calibrated per embedding model.

Cosine similarities are not comparable across models, so a retrieval threshold only means
something for the embedder it was measured on (``make bench`` measures the offline one).
"""

from __future__ import annotations

from dataclasses import dataclass

OFFLINE_EMBEDDINGS = "offline"


@dataclass(frozen=True)
class EmbedderProfile:
    """A human name and the calibrated retrieval threshold of one embedder."""

    name: str
    retrieval_threshold: float  # a question and the fact it needs score at least this


_PROFILES = {
    OFFLINE_EMBEDDINGS: EmbedderProfile("offline all-MiniLM-L6-v2 (int8 ONNX, bundled)", 0.15),
    "openai:text-embedding-3-small": EmbedderProfile("openai:text-embedding-3-small", 0.2),
    "openai:text-embedding-3-large": EmbedderProfile("openai:text-embedding-3-large", 0.2),
}
UNCALIBRATED_THRESHOLD = 0.2


def embedder_profile(spec: str) -> EmbedderProfile:
    """The profile of an embedder spec; an unknown one gets a conservative threshold."""
    return _PROFILES.get(spec, EmbedderProfile(f"{spec} (uncalibrated)", UNCALIBRATED_THRESHOLD))
