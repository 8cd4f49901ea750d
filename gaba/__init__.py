"""gaba: the package behind the book *Graph RAG and multi-hop reasoning*.

Modules (one concept each): :mod:`gaba.config`, :mod:`gaba.llm`, :mod:`gaba.embed`,
:mod:`gaba.prompts`, :mod:`gaba.data`, :mod:`gaba.extract`, :mod:`gaba.graph`, :mod:`gaba.paths`,
:mod:`gaba.store`, :mod:`gaba.evaluate`, :mod:`gaba.widgets`, :mod:`gaba.labs`.
Heavy dependencies (the model runtime, the graph database client, widgets) are imported
inside the functions that need them, so ``import gaba`` is cheap.
"""
__version__ = "0.1.0"
