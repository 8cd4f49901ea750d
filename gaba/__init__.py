"""gaba: the package behind the book *Graph RAG and multi-hop reasoning*.

One concept per module, in layers from files and settings up to the widgets and the command line:
a module imports only from its own layer or those below (``tests/test_layers.py`` holds the table).
Heavy dependencies are imported inside the functions that need them, so ``import gaba`` is cheap.
"""
__version__ = "0.1.0"
