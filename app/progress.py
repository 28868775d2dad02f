"""Progress between a client's successive assessments: which earlier assessment a new one is compared with, and
what changed since.

A new assessment is linked to the partner's most recent earlier assessment (highest id) of the same client
(`companyId`) and framework (the pack's key when a pack knows the name, else the name normalised), made in the
same mode (live or test); or to the one the submission names in `previousAssessmentId`; or, with
`previousAssessmentId: null`, to none. Links never cross partners or modes.

The change is computed once, when the link is made, and stored with the new assessment. Erasing the earlier
one unlinks the later ones and takes from their change what describes the erased one (`ERASED_WITH_PREVIOUS`),
in their record, their webhook deliveries and their stored idempotent answers; the counts stay as written.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from sqlalchemy import ColumnElement, and_, delete, select, update

from .content import Framework, load
from .errors import ApiError
from .extensions import db
from .keys.auth import AuthenticatedKey
from .models import Assessment, EmbedPage, IdempotencyKey, Partner, Requirement, WebhookDelivery, iso_utc

FIELD = "previousAssessmentId"
OPEN = frozenset({"not_met", "partially_met"})
RANK = {"not_met": 0, "partially_met": 1, "met": 2}
# What a change says of the earlier assessment itself (its requirement ids and its date), set to null when that
# one is erased; the counts, the scores and the ids of the later one's own requirements stay.
ERASED_WITH_PREVIOUS = ("droppedIds", "openSince")

# "A.8.13" and "A8.13", "AC-2" and "AC 2", "GV.OC-01" and "GV.OC-1": no separator between a letter and a number,
# no leading zeros after a letter or an opening bracket.
_LETTER_NUMBER_SEPARATOR = re.compile(r"(?<=[a-z])[.\-_](?=\d)")
_LEADING_ZEROS = re.compile(r"(?<=[a-z(])0+(?=\d)")


@lru_cache(maxsize=4096)
def framework_key(name: str) -> str:
    """What makes two framework names the same framework: the pack's key ("ISO 27001", "ISO/IEC 27001:2022" and
    "iso27001" are all `iso27001`), else the name in lower case with runs of other characters as one space."""
    pack = load().framework_for(name)
    return pack.key if pack else " ".join(re.findall(r"[0-9a-z]+", name.casefold()))


def requirement_key(pack: Framework | None, ref: str) -> str:
    """A requirement id as compared across assessments: the pack's own normal form (known prefixes such as
    "Annex", "§" or "45 CFR" removed, lower case, no whitespace), then no separator between a letter and a number
    and no leading zeros after one. "A.8.13", "A 8.13" and "Annex A 8.13" are one control; so are
    "164.308(a)(1)(ii)(A)" and "§ 164.308(A)(1)(ii)(a)"."""
    text = pack.normal_id(ref) if pack is not None else re.sub(r"\s+", "", ref.strip().lower())
    return _LEADING_ZEROS.sub("", _LETTER_NUMBER_SEPARATOR.sub("", text))


def _keyed(pack: Framework | None, rows) -> dict[str, tuple[str, str]]:
    """requirement key -> (id as written, status), in submission order; of one id written two ways, the first."""
    keyed: dict[str, tuple[str, str]] = {}
    for ref, status in rows:
        keyed.setdefault(requirement_key(pack, ref), (ref, status))
    return keyed


def _renumbering(pack: Framework) -> dict[str, tuple[str, ...]]:
    """The pack's earlier-edition ids as requirement keys -> the keys of the ids they became."""
    return {requirement_key(pack, old): tuple(requirement_key(pack, new) for new in news)
            for old, news in pack.renumbered.items()}


def _in_earlier_edition(renumbering: dict, keyed: dict) -> bool:
    return bool(keyed) and 2 * sum(key in renumbering for key in keyed) > len(keyed)


def _renumbered(pack: Framework | None, was: dict, now: dict) -> tuple[dict, dict[str, tuple[str, ...]]]:
    """The earlier assessment's rows keyed as the later one's ids, when it was written in an edition the pack
    renumbered (ISO/IEC 27001:2013) and the later one is not: a control that became several counts under each;
    several that became one count as one, with the lowest status among them. Also: key -> the keys each of the
    earlier assessment's own ids is compared under (for what was dropped)."""
    renumbering = _renumbering(pack) if pack is not None and pack.renumbered else {}
    if not renumbering or not _in_earlier_edition(renumbering, was) or _in_earlier_edition(renumbering, now):
        return was, {key: (key,) for key in was}
    merged: dict[str, tuple[str, str]] = {}
    under: dict[str, tuple[str, ...]] = {}
    for key, (ref, status) in was.items():
        under[key] = renumbering.get(key, (key,))
        for new in under[key]:
            if new not in merged or RANK[status] < RANK[merged[new][1]]:
                merged[new] = (merged[new][0] if new in merged else ref, status)
    return merged, under


def compute_change(pack: Framework | None, before: list[tuple[str, str]], after: list[tuple[str, str]],
                   score_before: float, score_after: float, before_created_at) -> dict:
    """What changed from the earlier assessment's (id, status) pairs to the later one's.

    closed: open (not met or partly met) -> met; improved: not met -> partly met; regressed: met or partly met ->
    anything lower; new / dropped: only in the later / earlier one; stillOpen: open in both (so an improved
    item, and one that went from partly met to not met, is also still open). Ids are as the later assessment
    writes them, but dropped ones as the earlier did. An earlier assessment in ISO/IEC 27001:2013 ids is compared
    with a later one in 2022 ids through the pack's renumbering (`_renumbered`).
    """
    now = _keyed(pack, after)
    was, under = _renumbered(pack, _keyed(pack, before), now)
    ids: dict[str, list[str]] = {"closed": [], "improved": [], "regressed": [], "new": [], "stillOpen": []}
    for key, (ref, status) in now.items():
        if key not in was:
            ids["new"].append(ref)
            continue
        earlier = was[key][1]
        if earlier in OPEN and status == "met":
            ids["closed"].append(ref)
        elif earlier == "not_met" and status == "partially_met":
            ids["improved"].append(ref)
        elif RANK[status] < RANK[earlier]:
            ids["regressed"].append(ref)
        if earlier in OPEN and status in OPEN:
            ids["stillOpen"].append(ref)
    dropped = [ref for key, (ref, _) in _keyed(pack, before).items() if not any(k in now for k in under[key])]
    return {
        "closed": len(ids["closed"]), "improved": len(ids["improved"]), "regressed": len(ids["regressed"]),
        "new": len(ids["new"]), "dropped": len(dropped), "stillOpen": len(ids["stillOpen"]),
        "scoreBefore": score_before, "scoreAfter": score_after,
        "closedIds": ids["closed"], "improvedIds": ids["improved"], "regressedIds": ids["regressed"],
        "newIds": ids["new"], "droppedIds": dropped, "stillOpenIds": ids["stillOpen"],
        "openSince": iso_utc(before_created_at),
    }


def _same_partner_and_mode(key: AuthenticatedKey) -> ColumnElement[bool]:
    return and_(Assessment.partner_id == key.partner_id, Assessment.livemode == key.livemode)


def serialise_links(key: AuthenticatedKey) -> None:
    """Make the partner's links and erasures one at a time, so that of two assessments of one client submitted at
    once the later id is linked to the earlier, and no link is made to an assessment being erased. Postgres queues
    them on the partner's row; SQLite serialises every write anyway (and the lookups follow the insert)."""
    db.session.execute(select(Partner.id).where(Partner.id == key.partner_id).with_for_update())


def _most_recent(key: AuthenticatedKey, assessment: Assessment) -> Assessment | None:
    wanted = framework_key(assessment.framework)
    earlier = db.session.execute(
        select(Assessment.id, Assessment.framework)
        .where(_same_partner_and_mode(key), Assessment.external_company_id == assessment.external_company_id,
               Assessment.id < assessment.id)
        .order_by(Assessment.id.desc())).all()
    found = next((row.id for row in earlier if framework_key(row.framework) == wanted), None)
    return db.session.get(Assessment, found) if found is not None else None


def _named(key: AuthenticatedKey, assessment: Assessment, previous_id: int) -> Assessment:
    previous = db.session.scalar(select(Assessment).where(
        Assessment.id == previous_id, Assessment.id < assessment.id, _same_partner_and_mode(key)))
    if previous is None:
        db.session.rollback()
        raise ApiError(422, "validation_error", "Some fields are invalid; see details.", details={FIELD: [
            "Must be the id of one of your earlier assessments made with a key of the same mode (live or test),"
            " or null to compare with none."]})
    return previous


def link(key: AuthenticatedKey, assessment: Assessment, previous_id: int | None) -> None:
    """Link a new assessment, flushed with its requirements, and store its change; the caller commits.

    `previous_id` None: the client's most recent earlier assessment of the framework, if any; otherwise the one
    named, which must be the partner's and of the key's mode (422 otherwise, the transaction rolled back).
    """
    previous = _most_recent(key, assessment) if previous_id is None else _named(key, assessment, previous_id)
    if previous is None:
        return

    def rows(assessment_id: int) -> list[tuple[str, str]]:
        return [(ref, status) for ref, status in db.session.execute(
            select(Requirement.ref, Requirement.status).where(Requirement.assessment_id == assessment_id)
            .order_by(Requirement.position))]

    pack = load().framework_for(assessment.framework)
    assessment.previous_assessment_id = previous.id
    assessment.change = compute_change(pack, rows(previous.id), rows(assessment.id), previous.compliance_score,
                                       assessment.compliance_score, previous.created_at)


MAX_HISTORY = 8   # earlier assessments walked back for how long an item has been open


def open_since_by_id(framework: str, previous_id: int | None, change: dict | None) -> dict[str, str]:
    """Each requirement open in this assessment and the one before it (`stillOpenIds`, as this one writes them) ->
    the date of the earliest assessment of the unbroken run of linked ones in which it was open: the earlier
    assessment's own `change` says what was open in both it and the one before it, and so on back. An erased
    assessment ends the run (its successor's `openSince` is null), so nothing of it is read."""
    if not change or not change.get("openSince"):
        return {}
    pack = load().framework_for(framework)
    since = dict.fromkeys(change.get("stillOpenIds") or (), change["openSince"])
    running = {requirement_key(pack, ref): ref for ref in since}
    for _ in range(MAX_HISTORY):
        row = db.session.execute(select(Assessment.previous_assessment_id, Assessment.change)
                                 .where(Assessment.id == previous_id)).first() if previous_id is not None else None
        if row is None or not row.change or not row.change.get("openSince"):
            break
        theirs = {requirement_key(pack, ref) for ref in row.change.get("stillOpenIds") or ()}
        running = {key: ref for key, ref in running.items() if key in theirs}
        if not running:
            break
        for ref in running.values():
            since[ref] = row.change["openSince"]
        previous_id = row.previous_assessment_id
    return since


# ------------------------------------------------------------------------------------------------ erasure

def unlink_from(key: AuthenticatedKey, erased_id: int) -> list[tuple[int, dict | None]]:
    """Before erasing an assessment: unlink the later ones compared with it; their ids and changes.
    (The foreign key's ON DELETE SET NULL would unlink them too, but not say which they were.)"""
    return [(row.id, row.change) for row in db.session.execute(
        update(Assessment).where(Assessment.previous_assessment_id == erased_id, _same_partner_and_mode(key))
        .values(previous_assessment_id=None).returning(Assessment.id, Assessment.change)
        .execution_options(synchronize_session=False))]


def _without_erased(change: dict | None) -> dict | None:
    return None if change is None else {**change, **dict.fromkeys(ERASED_WITH_PREVIOUS)}


def _scrubbed(body: bytes | None, erased_id: int) -> bytes | None:
    """A stored JSON answer or webhook body of a later assessment, without what it said of the erased one."""
    try:
        payload = json.loads(body) if body else None
    except ValueError:
        return body
    if not isinstance(payload, dict) or payload.get(FIELD) != erased_id:
        return body
    payload[FIELD] = None
    if isinstance(payload.get("change"), dict):
        payload["change"] = _without_erased(payload["change"])
    return json.dumps(payload, separators=(",", ":")).encode()


def forget_erased(unlinked: list[tuple[int, dict | None]], erased_id: int) -> None:
    """After erasing an assessment: take what described it out of the changes of the ones it was unlinked from,
    and out of their stored webhook bodies and idempotent answers (a redelivery or replay says it no more); and
    drop the stored pages of every later assessment down their links, whose score-over-time chart drew it."""
    frontier = {assessment_id for assessment_id, _ in unlinked}
    later = set(frontier)
    while frontier:
        frontier = set(db.session.scalars(select(Assessment.id).where(
            Assessment.previous_assessment_id.in_(frontier)))) - later
        later |= frontier
    if later:
        db.session.execute(delete(EmbedPage).where(EmbedPage.assessment_id.in_(later)))
    for assessment_id, change in unlinked:
        if change is not None:
            db.session.execute(update(Assessment).where(Assessment.id == assessment_id)
                               .values(change=_without_erased(change)).execution_options(synchronize_session=False))
        for table, pk, column in ((WebhookDelivery, WebhookDelivery.pk, WebhookDelivery.body),
                                  (IdempotencyKey, IdempotencyKey.id, IdempotencyKey.response_body)):
            for row_id, body in db.session.execute(select(pk, column).where(table.assessment_id == assessment_id)):
                scrubbed = _scrubbed(body, erased_id)
                if scrubbed is not body:
                    db.session.execute(update(table).where(pk == row_id).values({column.key: scrubbed})
                                       .execution_options(synchronize_session=False))
