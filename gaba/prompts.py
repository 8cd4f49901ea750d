"""Every prompt template of the book in one place, so a chapter can print the prompt it explains.

Prompts are written for the small default model (Qwen2.5-Coder-1.5B-Instruct): short, plain,
one task each, JSON schemas with enums where the answer is a choice. Changing a template changes
the cache key of every call that uses it (a deliberate cache miss).

Sections, one per module that uses them: extraction (gaba.extract), answering (gaba.graph),
paths (gaba.paths / gaba.store pipeline), communities and routing (gaba.communities),
evaluation (gaba.evaluate), labs (gaba.labs).
"""
from __future__ import annotations

# === extraction (gaba.extract) ===

# === end extraction ===

# === answering (gaba.graph: graph_rag, flat_rag) ===

# === end answering ===

# === paths (gaba.paths / gaba.store explain pipeline) ===

# === end paths ===

# === communities and routing (gaba.communities) ===

# === end communities ===

# === evaluation and labs (gaba.evaluate, gaba.labs) ===

# === end evaluation ===
