"""gaba: the package behind the book *Graph RAG and multi-hop reasoning*.

One concept per module, in layers (``tests/test_layers.py``); ``import gaba`` is cheap.
"""
__version__ = "0.1.0"
