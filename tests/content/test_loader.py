"""The content files load once, and a bad file fails at start-up with its path and field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from app.content import ROOT, ContentError, load
from app.content.schemas import RELATIONS, SLOTS, TOPICS


@pytest.fixture
def content_copy(tmp_path) -> Path:
    root = tmp_path / "content"
    shutil.copytree(ROOT, root, ignore=shutil.ignore_patterns("*.py", "__pycache__", "samples"))
    return root


@pytest.mark.parametrize("key", sorted(load().frameworks))
def test_every_packs_topic_lists_use_the_vocabulary(key):
    """One check for every framework pack: id prefixes are lower case and map to topics of the vocabulary."""
    for scheme in load().frameworks[key].schemes:
        for prefix, topics in scheme.prefixes:
            assert prefix == prefix.lower() and topics and set(topics) <= set(TOPICS), (key, prefix)


def test_every_file_loads_and_covers_the_catalogue():
    content = load()
    assert len(content.personas) == 25 and len(content.methodologies) == 10
    assert set(content.topics) == set(TOPICS)
    assert {p.relation for p in content.personas} == set(RELATIONS)
    outside = {p.id for p in content.personas if p.relation == "outside_reader"}
    assert outside == {"external_auditor", "insurance_underwriter", "investor"}
    for key in ("soc2", "iso27001", "hipaa", "pci_dss", "nist_csf", "gdpr", "nist_800_53", "nist_800_171",
                "nis2", "dora"):
        assert key in content.frameworks, key
    for key in ("healthcare", "financial_services", "saas", "retail", "manufacturing", "public_sector",
                "education", "professional_services"):
        assert key in content.industries, key


def test_every_fact_carries_its_source_and_year():
    content = load()
    facts = [f for fw in content.frameworks.values() for f in fw.facts]
    facts += [f for ind in content.industries.values() for f in ind.facts] + list(content.general_facts)
    assert len(facts) > 80
    for fact in facts:
        assert fact["source"] and fact["url"].startswith("http") and fact["year"] >= 0


def test_a_bad_field_fails_with_its_path_and_field(content_copy):
    path = content_copy / "personas" / "cfo.toml"
    path.write_text(path.read_text().replace('relation = "decision_maker"', 'relation = "buyer"'))
    with pytest.raises(ContentError, match=r"personas/cfo\.toml: relation: Must be one of"):
        load.__wrapped__(content_copy)


def test_an_unknown_placeholder_fails_at_load(content_copy):
    path = content_copy / "personas" / "cfo.toml"
    text = path.read_text()
    start = text.index("ask = ")
    path.write_text(text[:start] + 'ask = "approve {budget} now"\n' + text[text.index("\n", start) + 1:])
    with pytest.raises(ContentError, match=r"cfo\.toml: ask: unknown placeholder\(s\) \['budget'\]"):
        load.__wrapped__(content_copy)


def test_a_missing_angle_for_a_topic_fails(content_copy):
    path = content_copy / "personas" / "network_admin.toml"
    lines = [line for line in path.read_text().splitlines() if not line.startswith("network =")]
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ContentError, match=r"network_admin\.toml: angles: no angle for topic\(s\) \['network'\]"):
        load.__wrapped__(content_copy)


def test_broken_toml_names_the_file(content_copy):
    (content_copy / "frameworks" / "soc2.toml").write_text("key = \n")
    with pytest.raises(ContentError, match=r"frameworks/soc2\.toml"):
        load.__wrapped__(content_copy)


def test_a_file_named_unlike_its_key_fails(content_copy):
    shutil.copy(content_copy / "industries" / "saas.toml", content_copy / "industries" / "software.toml")
    with pytest.raises(ContentError, match=r"software\.toml: key: must be the file name"):
        load.__wrapped__(content_copy)


def test_no_text_field_uses_a_placeholder_outside_the_allowed_set():
    # The schema checks this at load; this pins the set the writers fill, so the two cannot drift.
    assert SLOTS == {"org", "Org", "framework", "a_framework", "A_framework", "framework_name", "data", "industry",
                     "a_industry", "business", "backers", "an_org", "audit_conclusion", "audit_stake",
                     "served", "served_and_partners", "one_served", "systems", "profile"}
    from app.generation.facts import AssessmentFacts
    from app.generation.reading import slots_for
    facts = AssessmentFacts.from_submission({"framework": "SOC 2", "industry": "Software", "policy": "YES",
                                             "requirements": [{"id": "CC6.1", "title": "Access", "status": "met"}]})
    assert set(slots_for(facts)) == SLOTS


def test_a_framework_rewording_a_reader_must_name_a_persona_and_hold_its_fields(content_copy):
    """`readers` in a framework pack lays fields over a persona (`Persona.for_framework`): an unknown persona, a field
    the persona has not, or a list too short for the persona's own rules fails at start-up."""
    path = content_copy / "frameworks" / "ftc_safeguards.toml"
    original = path.read_text()
    path.write_text(original + '\n[readers.chief_wizard]\nsummary = "For you, the rule is a budget line."\n')
    with pytest.raises(ContentError, match=r"frameworks/ftc_safeguards: readers\.chief_wizard"):
        load.__wrapped__(content_copy)
    path.write_text(original + '\n[readers.cfo]\nquestions = ["Only one question?"]\n')
    with pytest.raises(ContentError, match=r"readers\.cfo: .*questions"):
        load.__wrapped__(content_copy)
    path.write_text(original + '\n[readers.cfo]\nslogan = "Comply now"\n')
    with pytest.raises(ContentError, match=r"ftc_safeguards\.toml: readers"):
        load.__wrapped__(content_copy)
    path.write_text(original + '\n[readers.cfo]\nsummary = "For you, {framework} is a line in the budget."\n')
    reworded = load.__wrapped__(content_copy)
    cfo = next(p for p in reworded.personas if p.id == "cfo")
    assert cfo.for_framework(reworded.frameworks["ftc_safeguards"]).summary.startswith("For you, {framework} is")
    assert cfo.for_framework(reworded.frameworks["soc2"]).summary == cfo.summary
    assert cfo.for_framework(None) is cfo


def test_a_framework_rewording_a_reason_must_name_a_known_subject(content_copy):
    path = content_copy / "frameworks" / "ftc_safeguards.toml"
    path.write_text(path.read_text() + '\n[reasons."access.telepathy"]\ncost = "Mind-reading is cheap."\n')
    with pytest.raises(ContentError, match=r"frameworks/ftc_safeguards: reasons: unknown subjects"):
        load.__wrapped__(content_copy)
