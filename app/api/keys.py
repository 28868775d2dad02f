"""Views of /api/v1/key, the calling key's own settings, and /api/v1/partner, what every key of its partner shows
its clients (brand and embed origins): read and changed with the key itself."""

from __future__ import annotations

from ..errors import not_found
from ..extensions import db
from ..keys.auth import current_key
from ..keys.brand import BrandError
from ..keys.service import KeyInputError, set_brand, set_embed_origins, set_report_settings
from ..models import ApiKey
from . import bp
from .body import json_object, load, validation_error
from .schemas import KeySettingsSchema, KeyUpdateSchema, PartnerSettingsSchema, PartnerUpdateSchema

key_settings_schema = KeySettingsSchema()
key_update_schema = KeyUpdateSchema()
partner_settings_schema = PartnerSettingsSchema()
partner_update_schema = PartnerUpdateSchema()
_BRAND_FIELDS = {"brandName": "name", "brandColor": "color", "logo": "logo", "whiteLabel": "white_label"}


def _own_key() -> ApiKey:
    """The authenticated key's row (authentication read it a moment ago: revoked keys never get here)."""
    key = db.session.get(ApiKey, current_key().id)
    if key is None:   # deleted between authentication and now
        raise not_found("No such key.")
    return key


@bp.get("/key")
def get_key():
    return key_settings_schema.dump(_own_key())


@bp.patch("/key")
def update_key():
    """Change any of dayRate, currency and showMethodology; a field left out is unchanged, null clears it."""
    changes = load(key_update_schema, json_object())
    key = _own_key()
    try:
        set_report_settings(key, **changes)
    except KeyInputError as error:   # the schema checks the same rules; this is the service's last word
        db.session.rollback()
        raise validation_error({"_schema": [str(error)]}) from None
    db.session.commit()
    return key_settings_schema.dump(key)


@bp.get("/partner")
def get_partner():
    return partner_settings_schema.dump(_own_key().partner)


@bp.patch("/partner")
def update_partner():
    """Change any of the brand fields and the embed origins of every key of the partner; a field left out is
    unchanged, null removes it."""
    changes = load(partner_update_schema, json_object())
    partner = _own_key().partner
    try:   # the schema checks the same rules; this is the services' last word
        set_brand(partner, **{_BRAND_FIELDS[name]: value for name, value in changes.items() if name in _BRAND_FIELDS})
        if "embedOrigins" in changes:
            set_embed_origins(partner, changes["embedOrigins"] or [])
    except (KeyInputError, BrandError) as error:
        db.session.rollback()
        raise validation_error({"_schema": [str(error)]}) from None
    db.session.commit()
    return partner_settings_schema.dump(partner)
