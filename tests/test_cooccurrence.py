"""Open-extraction names and the co-occurrence rule, on text written for these tests only."""
from __future__ import annotations

import json

import networkx as nx
import pytest

from gaba.aliases import defined_acronyms, reconcile_entities
from gaba.cooccurrence import COOCCURRENCE_RELATION, cooccurrence_triples, topic_triples
from gaba.kgbuild import build_knowledge_graph, graph_triples
from gaba.names import ALL_TITLES, TITLES, candidate_names, capitalised_names, strip_title


def test_extended_titles_drop_role_words_only_before_a_full_name():
    assert strip_title("Admiral Pell Oduya", extended=True) == "Pell Oduya"
    assert strip_title("Judge Bishop Ilse Brandt", extended=True) == "Ilse Brandt"      # two titles
    assert strip_title("General Motors", extended=True) == "General Motors"          # one word left
    assert strip_title("General Electric Company", extended=True) == "General Electric Company"
    assert strip_title("Admiral Pell Oduya") == "Admiral Pell Oduya"                 # not in the short list
    assert {"coach", "general", "admiral", "brother"} <= ALL_TITLES and TITLES <= ALL_TITLES


def test_candidate_names_use_the_extended_titles_but_capitalised_names_do_not_by_default():
    text = "Admiral Pell Oduya commands the Saltmere Fleet. Oduya sailed from Keshport."
    assert candidate_names(text)[0] == "Pell Oduya"
    assert capitalised_names(text)[0] == "Admiral Pell Oduya"                        # schema mode unchanged
    assert capitalised_names(text, extended_titles=True)[0] == "Pell Oduya"


def test_reconcile_keeps_the_untitled_name_canonical_in_open_mode():
    docs = [{"id": "a", "text": "Admiral Pell Oduya commands the Saltmere Fleet."},
            {"id": "b", "text": "Pell Oduya was born in Keshport."}]
    assert reconcile_entities(["Pell Oduya"], docs)["Pell Oduya"] == "Admiral Pell Oduya"
    assert reconcile_entities(["Pell Oduya"], docs, extended_titles=True)["Pell Oduya"] == "Pell Oduya"


def test_cooccurrence_links_names_of_one_sentence_with_the_words_between():
    doc = {"id": "x1", "text": "Tamsin Drury coaxed Quillon Reeds into the Ossary Guild. "
                               "Later, the Ossary Guild and Brell Fane parted ways after a long, bitter and "
                               "very public quarrel over the Varro Ledger."}
    got = {t.as_tuple() for t in cooccurrence_triples(doc)}
    assert ("Tamsin Drury", "coaxed", "Quillon Reeds") in got
    assert ("Quillon Reeds", "into", "Ossary Guild") in got             # the words between, as they are
    assert ("Tamsin Drury", COOCCURRENCE_RELATION, "Ossary Guild") in got  # another name lies between
    assert ("Brell Fane", COOCCURRENCE_RELATION, "Varro Ledger") in got    # too many words between
    assert all(t.doc_id == "x1" and t.evidence in doc["text"] for t in cooccurrence_triples(doc))
    # names of different sentences are never linked
    assert not any({t.subject, t.object} == {"Tamsin Drury", "Brell Fane"} for t in cooccurrence_triples(doc))


def test_cooccurrence_prefers_the_longest_overlapping_name():
    doc = {"id": "x2", "text": "Orla Wyn edited the Annals of Dunmarrow in Dunmarrow."}
    pairs = {(t.subject, t.object) for t in cooccurrence_triples(doc)}
    assert ("Orla Wyn", "Annals of Dunmarrow") in pairs and ("Orla Wyn", "Dunmarrow") in pairs
    assert ("Annals of Dunmarrow", "Dunmarrow") in pairs
    assert len(pairs) == 3                                               # "Annals" alone is not a mention


def _scripted_cache(tmp_path, monkeypatch, facts_by_doc):
    """Point the triples cache at a folder and answer extraction with scripted facts."""
    from gaba.llm import Response

    def fake_call(prompt, **kw):
        facts = next((f for marker, f in facts_by_doc.items() if marker in prompt), [])
        return Response(text=json.dumps({"facts": facts}), data={"facts": facts}, key="k")

    monkeypatch.setattr("gaba.llm.call_llm", fake_call)
    return tmp_path / "kg"


@pytest.fixture
def two_docs():
    return [{"id": "d1", "text": "Admiral Pell Oduya commands the Saltmere Fleet. The fleet sails from Keshport."},
            {"id": "d2", "text": "Pell Oduya was born in Veyholm, where Ansa Crell taught him to sail."}]


def test_build_adds_rule_edges_only_where_the_model_linked_nothing(tmp_path, monkeypatch, two_docs):
    facts = {"Saltmere Fleet": [{"sentence": 1, "subject": "Pell Oduya", "predicate": "commands",
                                  "object": "Saltmere Fleet", "subject_type": "person",
                                  "object_type": "organization"}],
             "Veyholm": [{"sentence": 1, "subject": "Pell Oduya", "predicate": "born in",
                          "object": "Veyholm", "subject_type": "person", "object_type": "place"}]}
    cache = _scripted_cache(tmp_path, monkeypatch, facts)
    G = build_knowledge_graph(two_docs, cache_dir=cache, progress=False)
    model = {t.as_tuple() for t in graph_triples(G, rules=False)}
    rules = [(u, v, d) for u, v, d in G.edges(data=True) if d.get("rule") == "co-occurrence"]
    assert ("Pell Oduya", "commands", "Saltmere Fleet") in model and ("Pell Oduya", "born_in", "Veyholm") in model
    assert "Admiral Pell Oduya" in G.nodes["Pell Oduya"]["aliases"]
    pairs = {frozenset((u, v)) for u, v, _ in rules}
    assert frozenset(("Ansa Crell", "Veyholm")) in pairs or frozenset(("Ansa Crell", "Pell Oduya")) in pairs
    assert frozenset(("Pell Oduya", "Veyholm")) not in pairs              # the model's edge is kept alone
    assert G.graph["cooccurrence"] is True
    off = build_knowledge_graph(two_docs, cache_dir=cache, progress=False, cooccurrence=False)
    assert not any(d.get("rule") for _, _, d in off.edges(data=True))
    assert isinstance(off, nx.MultiDiGraph) and off.graph["cooccurrence"] is False


def test_a_number_that_ends_a_name_stays_in_it():
    text = ("Pellwick Transit ordered twelve Series 4 trams. Ferry 212 sails from Keshport, and Line 9A "
            "reaches Veyholm. In March 5 drivers left; at 20 stops the Series 4 waits. Patch 2.5 shipped in 1998.")
    names = candidate_names(text)
    assert {"Series 4", "Ferry 212", "Line 9A"} <= set(names)
    assert "Series" not in names and "Ferry" not in names      # not cut short of its number
    assert not any(n[:1].isdigit() for n in names)             # no bare number, no "5" after a month
    assert "Patch" in names and not any("1998" in n for n in names)   # no decimal, no year


def test_a_compound_adjective_opens_no_name():
    text = ("Vantry-based Orrel Mills hired Tam Osk. Keshport-born Ilse Varn joined Bram-Holt Works, "
            "and Orrel Mills bought X-ray scanners.")
    names = candidate_names(text)
    assert {"Orrel Mills", "Ilse Varn", "Bram-Holt Works"} <= set(names)   # a capital after the hyphen stays
    assert not any("-based" in n or "-born" in n or "-ray" in n for n in names)


def test_initials_and_particles_stay_inside_a_name():
    text = ("J. K. Wend heads the Tarrow Board. Bram van der Holt chairs it, and Ilse de la Roche "
            "joined. He took Vitamin D. Then he left. Plan A. The team met R. Ostby.")
    names = candidate_names(text)
    assert {"J. K. Wend", "Bram van der Holt", "Ilse de la Roche", "R. Ostby"} <= set(names)
    assert not {"J", "K", "der Holt", "la Roche"} & set(names)          # no initial or particle alone
    assert "Vitamin D" in names and not any("Then" in n and " " in n for n in names)   # a sentence ended
    assert not any(n.endswith("The") for n in names)


def test_a_name_in_single_quotes_keeps_its_first_word():
    """Before: the opening quote of "the rose 'Tarn Wren'" was read as an apostrophe, so the name
    lost its first word ("Wren"), and a cultivar's facts had no node to land on."""
    text = "Pesk Plants bred the rose 'Tarn Wren' and the tulip ‘Orrel Dancer’. Sean O'Brien sells them."
    names = candidate_names(text)
    assert {"Tarn Wren", "Orrel Dancer", "Sean O'Brien"} <= set(names)
    assert not {"Wren", "Dancer", "Brien"} & set(names)


def test_a_role_before_an_abbreviated_title_is_no_name():
    """Before: "Botanist Dr. Ann Lee" gave the name "Botanist Dr" beside "Ann Lee"."""
    names = candidate_names("Botanist Dr. Ann Lee runs Tarn Garden. Bo Chan sails the MV Pesk Queen. The crew cheered.")
    assert {"Ann Lee", "Tarn Garden", "MV Pesk Queen"} <= set(names)      # "Queen." ends a sentence, not a title
    assert not any("Botanist" in n for n in names)


def test_a_preposition_that_opens_a_sentence_opens_no_name():
    """Before: "Like Grandmaster Ann Lee, Bo Chan was born in Osk" gave the name "Like Grandmaster
    Ann Lee", and the small model gave it Bo Chan's birthplace and club."""
    text = ("Like Grandmaster Ann Lee, Bo Chan was born in Osk. \u201cDespite Tarn Rovers\u2019 loss, we stay,\u201d "
            "he said.\nDuring Pesk Week, Cara Doyle plays. She met Like Minds Ltd and Under Armour.")
    names = candidate_names(text)
    assert {"Grandmaster Ann Lee", "Bo Chan", "Tarn Rovers", "Pesk Week", "Cara Doyle"} <= set(names)
    assert not any(n.split()[0] in ("Like", "Despite", "During") for n in names if n != "Like Minds Ltd")
    assert {"Like Minds Ltd", "Under Armour"} <= set(names)          # inside a sentence, a name's own word
    assert candidate_names("Under Armour grew.") == ["Under Armour"]  # a word that begins names is kept


def test_a_number_inside_a_name_keeps_the_words_after_it():
    """Before: "Tarn 21 Denim" gave two names, "Tarn 21" and "Denim", and the label's facts split."""
    names = candidate_names("Osk Mill weaves for Tarn 21 Denim and Pier 7 Fish Hall. Flight 90 left.")
    assert {"Osk Mill", "Tarn 21 Denim", "Pier 7 Fish Hall", "Flight 90"} <= set(names)
    assert not {"Denim", "Tarn 21", "Fish Hall"} & set(names)
    # a date or a function word before the number ends no name: the name after it stands alone
    assert candidate_names("On May 5 Ann Lee left. At 20 Bo Chan won.") == ["Ann Lee", "Bo Chan"]
    assert candidate_names("Route 66\nAnn Lee drove it.") == ["Route 66", "Ann Lee"]     # a heading ends the name


def test_an_acronym_defined_in_brackets_is_an_alias_of_its_name():
    docs = [{"id": "d1", "text": "The Tarrow Water Board (TWB) funds Pellick Mill. The TWB is chaired by Ann Lee."}]
    assert defined_acronyms(docs[0]["text"]) == {"TWB": "Tarrow Water Board"}
    table = reconcile_entities(["Tarrow Water Board", "TWB", "Ann Lee", "Pellick Mill"], docs)
    assert table["TWB"] == "Tarrow Water Board"
    assert reconcile_entities(["Tarrow Water Board", "TWB"])["TWB"] == "TWB"        # no text, no alias
    assert defined_acronyms("Ann Lee (XYZ) left.") == {}                              # spells no name


def test_a_name_may_begin_with_a_capital_of_any_alphabet():
    text = "Émile Varenne founded Øster Haulage in Århavn. Łucja Brenn joined. Ólafur Tind met É. Varenne."
    names = candidate_names(text)
    assert {"Émile Varenne", "Øster Haulage", "Århavn", "Łucja Brenn", "Ólafur Tind", "É. Varenne"} <= set(names)
    assert "Varenne" not in names[:1] and "Haulage" not in names          # not cut after the first letter
    from gaba.passages import split_sentences
    assert split_sentences(text)[1] == "Łucja Brenn joined."                # a sentence may open with one too


def test_a_person_named_with_the_body_she_belongs_to_is_that_person():
    names = ["Judge Ilse Varrow of the Tarrow High Court", "Ilse Varrow", "Tarrow High Court",
             "Supreme Court of Tarrow", "University of Keshport", "Pell Oduya of Brell & Sons"]
    table = reconcile_entities(names)
    assert table["Judge Ilse Varrow of the Tarrow High Court"] == "Ilse Varrow"   # she is named alone too
    assert table["Supreme Court of Tarrow"] == "Supreme Court of Tarrow"          # "Supreme Court": not a name given
    assert table["University of Keshport"] == "University of Keshport"
    assert table["Pell Oduya of Brell & Sons"] == "Pell Oduya of Brell & Sons"    # never named alone: left as it is


def test_a_possessive_name_is_not_the_longer_form_of_its_owner():
    names = ["Orla Penn", "Orla Penn's Third Reel", "Keshport"]
    table = reconcile_entities(names)
    assert table["Orla Penn"] == "Orla Penn"                          # her work is not her
    assert reconcile_entities(["Orla", "Orla Penn"])["Orla"] == "Orla Penn"


def test_a_place_is_not_the_short_form_of_a_longer_name_of_another_type():
    names = ["Vellmouth", "Vellmouth Trust", "Orla Penn", "Penn", "Brell Records", "Brell"]
    types = {"Vellmouth": "place", "Vellmouth Trust": "org", "Orla Penn": "person", "Penn": "work",
             "Brell Records": "org", "Brell": "org"}
    table = reconcile_entities(names, types=types)
    assert table["Vellmouth"] == "Vellmouth"                 # the town is not the charity
    assert table["Penn"] == "Orla Penn"                      # an unsteady type other than place: merged
    assert table["Brell"] == "Brell Records"
    assert reconcile_entities(names)["Vellmouth"] == "Vellmouth Trust"   # without types, as before
    # nor of a longer name no fact typed (one only the documents write), but of a longer place
    assert reconcile_entities(["Vellmouth", "Vellmouth School of Glass"],
                              types={"Vellmouth": "place"})["Vellmouth"] == "Vellmouth"
    assert reconcile_entities(["Vell", "Vell Harbour"],
                              types={"Vell": "place", "Vell Harbour": "place"})["Vell"] == "Vell Harbour"
    # a city that ends a person's name stays a city
    assert reconcile_entities(["Ansa Keshport", "Keshport"],
                              types={"Ansa Keshport": "person", "Keshport": "place"})["Keshport"] == "Keshport"


def test_build_keeps_a_town_apart_from_the_charity_named_after_it(tmp_path, monkeypatch):
    docs = [{"id": "d1", "text": "Corve Mills is based in Vellmouth. It set up the Vellmouth Trust in 1990."}]
    facts = {"Corve": [{"sentence": 1, "subject": "Corve Mills", "predicate": "based in", "object": "Vellmouth",
                        "subject_type": "org", "object_type": "place"},
                       {"sentence": 2, "subject": "Corve Mills", "predicate": "set up", "object": "Vellmouth Trust",
                        "subject_type": "org", "object_type": "org"}]}
    G = build_knowledge_graph(docs, cache_dir=_scripted_cache(tmp_path, monkeypatch, facts), progress=False)
    assert G.has_edge("Corve Mills", "Vellmouth", key="based_in")
    assert G.has_edge("Corve Mills", "Vellmouth Trust", key="set_up")
    assert G.nodes["Vellmouth"]["type"] == "place" and "Vellmouth" not in G.nodes["Vellmouth Trust"]["aliases"]


def test_a_word_written_only_before_a_name_at_a_sentence_start_gives_an_alias(tmp_path, monkeypatch):
    docs = [{"id": "d1", "text": "Lutist Orla Penn has signed with Brell Records. The label is based in Keshport."},
            {"id": "d2", "text": "The fleet sails from Keshport. Tamsin Ilse Drury leads it, and Tamsin Ilse "
                                 "Drury was born in Veyholm."}]
    row = {"sentence": 1, "subject_type": "person", "object_type": "organization"}
    facts = {"Lutist": [{**row, "subject": "Lutist Orla Penn", "predicate": "signed with", "object": "Brell Records"}],
             "fleet": [{**row, "sentence": 2, "subject": "Tamsin Ilse Drury", "predicate": "leads",
                        "object": "Keshport", "object_type": "place"}]}
    G = build_knowledge_graph(docs, cache_dir=_scripted_cache(tmp_path, monkeypatch, facts), progress=False)
    assert "Orla Penn" in G.nodes["Lutist Orla Penn"]["aliases"]       # "Lutist" only opens a sentence
    assert "Ilse Drury" not in G.nodes["Tamsin Ilse Drury"]["aliases"]  # also written mid-sentence
    from gaba.entities import find_entities
    assert find_entities("Which label signed Orla Penn?", G) == ["Lutist Orla Penn"]


def test_a_firm_named_by_its_partners_is_one_name():
    text = "Tarrin Quarries hired Oss, Vell & Dray. Its partner, Ysolde Marn, met Brack, Tull, Pym & Orr LLP."
    names = candidate_names(text)
    assert {"Oss, Vell & Dray", "Brack, Tull, Pym & Orr LLP"} <= set(names)
    assert {"Oss", "Vell & Dray"} <= set(names)                 # its parts are still offered
    assert not any("," in n for n in candidate_names("Ysolde Marn, Oss and Vell met in Tarrin."))


def test_cooccurrence_words_that_make_a_clause_give_no_relation():
    doc = {"id": "c9", "text": "Ilse Varn studied at Corrow University before she joined Pellam Labs."}
    rels = {(a, b): r for a, r, b in (t.as_tuple() for t in cooccurrence_triples(doc))}
    assert rels[("Corrow University", "Pellam Labs")] == COOCCURRENCE_RELATION
    assert rels[("Ilse Varn", "Corrow University")] == "studied_at"


def test_a_word_capitalised_only_to_open_a_sentence_is_no_name(tmp_path, monkeypatch):
    from gaba.names import common_openers

    docs = [{"id": "o1", "text": "Chief warden Ysolde Prane said the Morrow Lantern Guild would close. "
                                 "Stewards at the Morrow Lantern Guild voted to stay."},
            {"id": "o2", "text": "The guild's chief is Ysolde Prane, and its stewards meet in Harrowick."}]
    assert common_openers(d["text"] for d in docs) == {"Chief", "Stewards", "The"}
    # a name that also opens a sentence is capitalised elsewhere, so it stays a name
    assert common_openers(["Harrowick is old. Ysolde Prane lives in Harrowick."]) == frozenset()
    facts = {"Chief warden": [{"sentence": 1, "subject": "Chief", "predicate": "warden", "object": "Ysolde Prane",
                               "subject_type": "person", "object_type": "person"},
                              {"sentence": 2, "subject": "Stewards", "predicate": "voted",
                               "object": "Morrow Lantern Guild", "subject_type": "other", "object_type": "org"},
                              {"sentence": 1, "subject": "Ysolde Prane", "predicate": "said",
                               "object": "Morrow Lantern Guild", "subject_type": "person", "object_type": "org"}],
             "Harrowick": [{"sentence": 1, "subject": "Ysolde Prane", "predicate": "chief of",
                            "object": "Morrow Lantern Guild", "subject_type": "person", "object_type": "org"}]}
    G = build_knowledge_graph(docs, cache_dir=_scripted_cache(tmp_path, monkeypatch, facts), progress=False)
    assert "Chief" not in G and "Stewards" not in G             # neither the model's edge nor the rule's
    assert G.has_edge("Ysolde Prane", "Morrow Lantern Guild")


def test_a_title_on_its_own_is_no_name(tmp_path, monkeypatch):
    # "Chief" opens the only sentence that writes it, and the texts never write "chief" in lowercase,
    # so it is no common opener; as a title on its own it still names no one
    docs = [{"id": "t1", "text": "Chief executive Ysolde Prane said the Morrow Lantern Guild would close."},
            {"id": "t2", "text": "Ysolde Prane lives in Harrowick."}]
    facts = {"Chief executive": [{"sentence": 1, "subject": "Chief", "predicate": "executive", "object": "Ysolde Prane",
                                  "subject_type": "person", "object_type": "person"},
                                 {"sentence": 1, "subject": "Ysolde Prane", "predicate": "said",
                                  "object": "Morrow Lantern Guild", "subject_type": "person", "object_type": "org"}],
             "Harrowick": [{"sentence": 1, "subject": "Ysolde Prane", "predicate": "lives in",
                            "object": "Harrowick", "subject_type": "person", "object_type": "place"}]}
    G = build_knowledge_graph(docs, cache_dir=_scripted_cache(tmp_path, monkeypatch, facts), progress=False)
    assert "Chief" not in G                                      # neither the model's edge nor the rule's
    assert G.has_edge("Ysolde Prane", "Morrow Lantern Guild") and G.has_edge("Ysolde Prane", "Harrowick")


def test_a_description_that_refers_back_to_a_name_is_read_as_the_name(tmp_path, monkeypatch):
    from gaba.descriptions import resolve_descriptions

    text = ("Brisk Harbour Authority licensed the Quell Yard in 1990. It employs 40 people. "
            "The authority is run by Mira Tosh.")
    assert resolve_descriptions(text).endswith(" The Brisk Harbour Authority is run by Mira Tosh.")
    for same in ("Osk Bank and Vell Bank merged. The bank grew.",       # two names end in the noun
                 "The agency said so. Later, Osk Agency agreed.",       # the name comes after
                 "Osk Bank lends to Vell Mint. It is the bank of Vell Mint.",   # "the bank of ..."
                 "Osk Bank lends. The river rose."):                    # no name ends in "river"
        assert resolve_descriptions(same) == same
    facts = {"licensed": [{"sentence": 3, "subject": "Brisk Harbour Authority", "predicate": "is run by",
                           "object": "Mira Tosh", "subject_type": "org", "object_type": "person"}]}
    G = build_knowledge_graph([{"id": "h1", "text": text}], cache_dir=_scripted_cache(tmp_path, monkeypatch, facts),
                              progress=False)
    # without the resolution the third sentence names no authority, and the fact would be refused
    (data,) = G.get_edge_data("Brisk Harbour Authority", "Mira Tosh").values()
    assert data["evidence"] == "The Brisk Harbour Authority is run by Mira Tosh."   # the sentence as read


def test_a_name_a_sentence_writes_alone_is_linked_to_the_documents_topic():
    text = ("Harl Valley Radio has hired Tova Brisk as its editor. Founded in 1990 by the ferryman Oren Quill, "
            "the little station has six staff. Tova Brisk met Sela Marr in Dunvik. The mast was built by Ivo Tarn.")
    names = [n for n in candidate_names(text) if n != "Founded"]     # what the graph build leaves of them
    links = [t.as_tuple() for t in topic_triples({"id": "r1", "text": text}, names)]
    # "Oren Quill" and "Ivo Tarn" stand alone in their sentences; the third sentence names three
    assert links == [("Harl Valley Radio", COOCCURRENCE_RELATION, "Oren Quill"),
                     ("Harl Valley Radio", COOCCURRENCE_RELATION, "Ivo Tarn")]
    (first,) = [t for t in topic_triples({"id": "r1", "text": text}, names) if t.object == "Oren Quill"]
    assert first.evidence.startswith("Founded in 1990") and first.doc_id == "r1"


@pytest.mark.parametrize("text", [
    "In May the club met. Later Ivo Tarn spoke.",                  # the first sentence opens with no name
    "Brask hired staff. The mast was built by Ivo Tarn.",           # a one-word topic written only first
    "Harl Valley Radio grew. Valley Radio Trust paid for it.",     # shares a word with the topic: the same
    "Harl Valley Radio grew.",                                     # no later sentence
])
def test_no_topic_link_without_a_topic_or_a_lone_other_name(text):
    assert topic_triples({"id": "r1", "text": text}) == []


def test_in_a_document_about_a_person_only_a_sentence_about_that_person_is_linked():
    text = ("Tova Brisk won the Harl Prize. The museum was founded by Ivo Tarn. "
            "Her first book was printed by Orrin Press.")
    doc = {"id": "p1", "text": text}
    assert [t.object for t in topic_triples(doc)] == ["Ivo Tarn", "Orrin Press"]
    assert [t.object for t in topic_triples(doc, people={"Tova Brisk"})] == ["Orrin Press"]


def test_build_marks_topic_links_and_adds_them_only_where_nothing_joins_the_pair(tmp_path, monkeypatch):
    docs = [{"id": "s1", "text": "Harl Valley Radio hired Tova Brisk. Founded in 1990 by Oren Quill, the station "
                                 "is small. Its mast was built by Ivo Tarn."}]
    facts = {"Harl Valley Radio": [{"sentence": 3, "subject": "Ivo Tarn", "predicate": "built mast of",
                                     "object": "Harl Valley Radio", "subject_type": "person",
                                     "object_type": "organization"},
                                    {"sentence": 1, "subject": "Harl Valley Radio", "predicate": "hired",
                                     "object": "Tova Brisk", "subject_type": "organization",
                                     "object_type": "person"}]}
    G = build_knowledge_graph(docs, cache_dir=_scripted_cache(tmp_path, monkeypatch, facts), progress=False)
    topic = [(u, k, v) for u, v, k, d in G.edges(keys=True, data=True) if d.get("rule") == "topic"]
    assert topic == [("Harl Valley Radio", COOCCURRENCE_RELATION, "Oren Quill")]   # Ivo Tarn: the model's edge
    off = build_knowledge_graph(docs, cache_dir=tmp_path / "kg", progress=False, cooccurrence=False)
    assert "Oren Quill" not in off
