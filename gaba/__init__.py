"""gaba: the package behind the book *Graph RAG and multi-hop reasoning*.

Modules (one concept each), in layers: a module imports only from its own layer or the layers
below it, and no two modules import each other (``tests/test_layers.py`` holds the table and
checks every import):

1. files and settings - :mod:`gaba.config`, :mod:`gaba.errors`, :mod:`gaba.fileio`;
2. model calls and embeddings - :mod:`gaba.cache`, :mod:`gaba.backend`, :mod:`gaba.llm`,
   :mod:`gaba.localmodel`, :mod:`gaba.embed`, :mod:`gaba.prompts`, :mod:`gaba.tokens`;
3. data - :mod:`gaba.data` and its corpora (a fact: :class:`gaba.data.triple.Triple`);
4. extraction - :mod:`gaba.names`, :mod:`gaba.passages`, :mod:`gaba.request`,
   :mod:`gaba.validate`, :mod:`gaba.kgcache`, :mod:`gaba.extract`, :mod:`gaba.cooccurrence`,
   :mod:`gaba.aliases`, :mod:`gaba.kgbuild`, :mod:`gaba.kgfile`, :mod:`gaba.scoring`;
5. graph and traversal - :mod:`gaba.entities`, :mod:`gaba.graph`, :mod:`gaba.traversal`, :mod:`gaba.nxpaths`,
   :mod:`gaba.paths`, :mod:`gaba.falkor_server`, :mod:`gaba.cypher_paths`, :mod:`gaba.store`;
6. linking, ranking, answering - :mod:`gaba.words`, :mod:`gaba.nameindex`, :mod:`gaba.link`,
   :mod:`gaba.node_merge`, :mod:`gaba.relevance`, :mod:`gaba.rank`, :mod:`gaba.answer`, :mod:`gaba.rag`,
   :mod:`gaba.multihop`, :mod:`gaba.communities`, :mod:`gaba.routing`;
7. evaluation and benchmarks - :mod:`gaba.evaluate`, :mod:`gaba.scaling`, :mod:`gaba.retrieval_eval`,
   :mod:`gaba.bench`, :mod:`gaba.costs`;
8. widgets, labs, book, command line - :mod:`gaba.hop_layout`, :mod:`gaba.widgets`, :mod:`gaba.figures`,
   :mod:`gaba.labs`, :mod:`gaba.book`, ``python -m gaba``.

Heavy dependencies (the model runtime, the graph database client, widgets, plotting, pandas)
are imported inside the functions that need them, so ``import gaba`` is cheap.
"""
__version__ = "0.1.0"
