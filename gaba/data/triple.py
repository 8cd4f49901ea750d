"""A fact with its provenance: the one record type of extracted and generated triples."""
from __future__ import annotations

import dataclasses

__all__ = ["Triple"]


@dataclasses.dataclass(frozen=True)
class Triple:
    """One fact ``subject -[relation]-> object``, stated by ``evidence`` in document ``doc_id``."""

    subject: str
    relation: str
    object: str
    doc_id: str
    evidence: str
    verb: str = ""          # the model's own verb, kept for RELATED_TO (schema mode)
    subject_type: str = ""  # person, org, place, work, event, other (open mode)
    object_type: str = ""

    def as_tuple(self) -> tuple[str, str, str]:
        """``(subject, relation, object)``."""
        return (self.subject, self.relation, self.object)

    #: ``(subject, relation, object)``, as ``gaba.graph.gather_facts`` returns it.
    fact = property(as_tuple)

    def __str__(self) -> str:
        rel = f"{self.relation}({self.verb})" if self.verb else self.relation
        return f"{self.subject} -[{rel}]-> {self.object}"
