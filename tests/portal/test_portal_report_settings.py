"""The Reports fieldset of the key form: a partner sets the day rate and currency the reports price effort at
and whether the client pages name the sales methodology, sees a field error for a value that cannot be used
(with nothing changed), and sees the settings on the keys page."""

from __future__ import annotations

import html as html_module
import re

import pytest

from app.extensions import db
from app.models import ApiKey
from tests.portal import follow, page_token

DAY_RATE_HINT = ("Reports for the CFO, CEO, board and owner price effort at this rate; without it they use a "
                 "documented default range")
METHODOLOGY_HINT = "Show the sales methodology's name on report pages and PDFs (off: your client never sees it)"


def text(response) -> str:
    return html_module.unescape(response.get_data(as_text=True))


@pytest.fixture
def key_id(make_key) -> int:
    return make_key("Acme Security", name="Production").key.id


def form_fields(**fields) -> dict:
    return {"name": "Production", "tier": "standard", "frameworks": "", "webhook_url": "", "day_rate": "",
            "currency": "", **fields}


def edit(client, key_id: int, **fields):
    """Submit the edit form as a browser does (an unticked checkbox is not sent)."""
    path = f"/portal/keys/{key_id}/edit"
    data = {"csrf_token": page_token(client, path), **form_fields(**fields)}
    return client.post(path, data=data, content_type="multipart/form-data")


def tag(page: str, element_id: str) -> str:
    """The start tag of the input or select with this id (WTForms writes attributes in name order)."""
    return re.search(rf'<(?:input|select)[^>]*\bid="{element_id}"[^>]*>', page).group(0)


def stored(app, key_id: int) -> tuple:
    with app.app_context():
        key = db.session.get(ApiKey, key_id)
        return key.day_rate, key.currency, key.show_methodology


def test_the_form_has_the_reports_fieldset_with_its_help_texts(signed_in, key_id):
    page = text(signed_in.get(f"/portal/keys/{key_id}/edit"))
    assert ">Reports</legend>" in page
    assert 'inputmode="numeric"' in tag(page, "day_rate")
    assert DAY_RATE_HINT in page and METHODOLOGY_HINT in page
    select = re.search(r'<select[^>]*name="currency".*?</select>', page, re.DOTALL).group(0)
    assert re.findall(r'<option[^>]*value="(\w*)"', select) == ["", "USD", "EUR", "GBP", "CAD", "AUD", "NZD", "CHF",
                                                                 "SEK", "NOK", "DKK", "JPY", "SGD", "INR", "ZAR"]
    assert 'type="checkbox"' in tag(page, "show_methodology")
    assert " checked" not in tag(page, "show_methodology")   # off by default
    # The create form has the same fields.
    new = text(signed_in.get("/portal/keys/new"))
    assert DAY_RATE_HINT in new and METHODOLOGY_HINT in new and 'name="currency"' in new


def test_a_partner_sets_and_clears_the_settings(app, signed_in, key_id):
    response = edit(signed_in, key_id, day_rate=" 1200 ", currency="EUR", show_methodology="y")
    assert response.status_code == 302, text(response)
    assert stored(app, key_id) == (1200, "EUR", True)
    listing = text(signed_in.get("/portal/keys"))
    assert "1,200 EUR per person-day" in listing and "Shown to your clients" in listing
    page = text(signed_in.get(f"/portal/keys/{key_id}/edit"))
    assert 'value="1200"' in tag(page, "day_rate")
    assert re.search(r'<option[^>]*selected[^>]*value="EUR"|<option[^>]*value="EUR"[^>]*selected', page)
    assert " checked" in tag(page, "show_methodology")

    assert edit(signed_in, key_id, day_rate="800").status_code == 302      # no currency chosen: USD
    assert stored(app, key_id) == (800, "USD", False)
    assert edit(signed_in, key_id).status_code == 302                       # empty: the default range
    assert stored(app, key_id) == (None, None, False)
    listing = text(signed_in.get("/portal/keys"))
    assert "Default range" in listing and "Hidden from your clients" in listing


@pytest.mark.parametrize(("fields", "field", "message"), [
    ({"day_rate": "0"}, "day_rate", "Enter a whole number from 1 to 1,000,000"),
    ({"day_rate": "1000001"}, "day_rate", "Enter a whole number from 1 to 1,000,000"),
    ({"day_rate": "12.50"}, "day_rate", "Enter a whole number from 1 to 1,000,000"),
    ({"day_rate": "1,200"}, "day_rate", "Enter a whole number from 1 to 1,000,000"),
    ({"day_rate": "12\x01"}, "day_rate", "Enter a whole number from 1 to 1,000,000"),
    ({"currency": "XYZ"}, "currency", "Choose one of USD, EUR, GBP"),
    ({"day_rate": "12\n"}, "day_rate", "Enter a whole number from 1 to 1,000,000"),
    ({"currency": "eur"}, "currency", "Choose one of USD, EUR, GBP"),
    ({"currency": "EUR\n"}, "currency", "Choose one of USD, EUR, GBP"),
])
def test_a_bad_value_is_a_field_error_and_nothing_changes(app, signed_in, key_id, fields, field, message):
    assert edit(signed_in, key_id, day_rate="500", currency="GBP").status_code == 302
    response = edit(signed_in, key_id, **{"day_rate": "900", "show_methodology": "y", **fields})
    assert response.status_code == 200
    page = text(response)
    error = re.search(rf'<p class="field__error" id="{field}-error">([^<]*)</p>', page)
    assert error and message in error.group(1), page[:2000]
    assert 'aria-invalid="true"' in tag(page, field)
    assert stored(app, key_id) == (500, "GBP", False)


def test_creating_a_key_with_the_settings(app, signed_in):
    path = "/portal/keys/new"
    data = {"csrf_token": page_token(signed_in, path),
            **form_fields(name="Staging", day_rate="650", currency="CAD", show_methodology="y")}
    response = follow(signed_in, signed_in.post(path, data=data, content_type="multipart/form-data"))
    assert response.status_code == 200 and "crs_" in text(response)
    with app.app_context():
        key = db.session.query(ApiKey).filter_by(name="Staging").one()
        assert (key.day_rate, key.currency, key.show_methodology) == (650, "CAD", True)
