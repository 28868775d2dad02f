"""Views of /api/v1/key: the calling key's own settings, read and changed by the key itself."""

from __future__ import annotations

from ..errors import not_found
from ..extensions import db
from ..keys.auth import current_key
from ..keys.service import KeyInputError, set_report_settings
from ..models import ApiKey
from . import bp
from .body import json_object, load, validation_error
from .schemas import KeySettingsSchema, KeyUpdateSchema

key_settings_schema = KeySettingsSchema()
key_update_schema = KeyUpdateSchema()


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
