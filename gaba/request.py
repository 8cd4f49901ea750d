"""The extraction request: the prompt, the JSON schema of the answer and the limits sent to the model.

Taught in chapter "From text to a knowledge graph". The request is part of every cache key.
"""
from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from typing import Any

from . import config
from .names import candidate_names
from .passages import numbered_sentences
from .prompts import (ENTITY_TYPES, EXTRACTION_PROMPT, EXTRACTION_RELATIONS, EXTRACTION_SYSTEM,
                      NEWS_SCHEMA, OPEN_EXTRACTION_PROMPT, OPEN_EXTRACTION_SYSTEM, OPEN_ROWS_PROMPT)


#: The relations of the news schema (:data:`gaba.prompts.NEWS_SCHEMA`).
RELATIONS: tuple[str, ...] = tuple(EXTRACTION_RELATIONS)
#: Free-text fallback relation; its triples keep the model's verb in ``Triple.verb``.
FALLBACK_RELATION = "RELATED_TO"

#: First cap on the extraction answer (a reply cut off here is asked again with more room, up to
#: gaba.llm.MAX_TOKENS_CEILING).
EXTRACTION_MAX_TOKENS = 400
#: At most this many facts per document (the schema's ``maxItems``; a fact is about 35 tokens).
MAX_FACTS = 8

#: The fields of an open extraction fact, in row order (``GABA_EXTRACT_FORMAT=rows``).
ROW_FIELDS = ("sentence", "subject", "predicate", "object", "subject_type", "object_type")


def schema_relations(schema: Any) -> dict[str, str]:
    """A domain schema as ``{RELATION: meaning}``: a mapping, or a list of names (no meanings)."""
    if isinstance(schema, dict):
        rels = {str(k).strip().upper(): str(v) for k, v in schema.items()}
    elif isinstance(schema, (list, tuple)) and schema and all(isinstance(x, str) for x in schema):
        rels = {x.strip().upper(): x.strip().replace("_", " ").lower() for x in schema}
    else:
        raise ValueError("schema must be None (open extraction), a dict of relation -> meaning, or "
                         f"a list of relation names, not {schema!r}")
    if not rels:                         # an empty enum: every fact refused, silently
        raise ValueError("schema has no relations; give at least one, or None for open extraction")
    if not all(re.fullmatch(r"[A-Z][A-Z0-9_]*", r) for r in rels):
        raise ValueError(f"schema relation names must be UPPER_SNAKE_CASE words, got {sorted(rels)}")
    return rels


def _facts_answer(item: dict) -> dict:
    """The JSON schema of an answer ``{"facts": [item, ...]}`` of at most :data:`MAX_FACTS` items."""
    return {"type": "object", "properties": {"facts": {"type": "array", "maxItems": MAX_FACTS, "items": item}},
            "required": ["facts"], "additionalProperties": False}


def extraction_schema(schema: Any = NEWS_SCHEMA) -> dict:
    """The JSON schema of a schema-guided extraction answer (``relation`` an enum, ``evidence`` first)."""
    return _facts_answer({
        "type": "object",
        "properties": {
            "evidence": {"type": "string"},
            "subject": {"type": "string"},
            "relation": {"type": "string", "enum": list(schema_relations(schema))},
            "object": {"type": "string"},
            "verb": {"type": "string"},
        },
        "required": ["evidence", "subject", "relation", "object"],
        "additionalProperties": False})


def _rows() -> bool:
    return config.get_settings().extract_format == "rows"


def open_extraction_schema(names: Sequence[str] | None = None, *, rows: bool = False) -> dict:
    """The JSON schema of an open extraction answer: facts with a free ``predicate``.

    ``subject`` and ``object`` must be one of ``names``; ``rows=True``: a fact is an array.

    >>> s = open_extraction_schema(["Acme", "Ann Lee"])
    >>> s["properties"]["facts"]["items"]["properties"]["subject"]["enum"]
    ['Acme', 'Ann Lee']
    """
    types = {"type": "string", "enum": list(ENTITY_TYPES)}
    name = {"type": "string", "enum": list(names)} if names else {"type": "string"}
    fields = {"sentence": {"type": "integer", "minimum": 1}, "subject": name,
              "predicate": {"type": "string"}, "object": name, "subject_type": types, "object_type": types}
    if rows:
        item = {"type": "array", "prefixItems": [fields[f] for f in ROW_FIELDS]}
    else:
        item = {"type": "object", "properties": fields, "required": list(ROW_FIELDS),
                "additionalProperties": False}
    return _facts_answer(item)


def facts_from_rows(facts: Any) -> Any:
    """Open extraction facts written as rows, as dicts; a malformed row is kept as ``{"row": row}``."""
    if not isinstance(facts, list):
        return facts
    return [dict(zip(ROW_FIELDS, r)) if isinstance(r, list) and len(r) == len(ROW_FIELDS) else {"row": r}
            for r in facts]


def _system_and_template(schema: Any) -> tuple[str, str]:
    """The system message and the prompt template of open (``schema=None``) or schema extraction."""
    if schema is None:
        return OPEN_EXTRACTION_SYSTEM, OPEN_ROWS_PROMPT if _rows() else OPEN_EXTRACTION_PROMPT
    return EXTRACTION_SYSTEM, EXTRACTION_PROMPT


def extraction_prompt(text: str, schema: Any = None) -> str:
    """The user message asking for the facts of ``text`` (open extraction unless ``schema`` is given)."""
    template = _system_and_template(schema)[1]
    if schema is None:
        return template.format(names="; ".join(candidate_names(text)), sentences=numbered_sentences(text))
    relations = "\n".join(f"- {name}: {meaning}" for name, meaning in schema_relations(schema).items())
    return template.format(relations=relations, text=text.strip())


def prompt_version(schema: Any = None) -> str:
    """A short hash of everything that shapes an extraction request (prompt, schema, limits)."""
    system, template = _system_and_template(schema)
    if schema is None:
        parts = {"schema": open_extraction_schema(rows=_rows())}
    else:
        rels = schema_relations(schema)
        parts = {"relations": rels, "schema": extraction_schema(rels)}
    blob = json.dumps({"system": system, "prompt": template, **parts, "max_tokens": EXTRACTION_MAX_TOKENS},
                      sort_keys=True)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:12]


def extraction_request(text: str, schema: Any = None) -> dict:
    """The request that extracts the facts of ``text``: ``prompt``, ``system``, ``schema``, ``max_tokens``."""
    answer = (open_extraction_schema(candidate_names(text), rows=_rows()) if schema is None
              else extraction_schema(schema))
    return {"prompt": extraction_prompt(text, schema), "system": _system_and_template(schema)[0],
            "schema": answer, "max_tokens": EXTRACTION_MAX_TOKENS}
