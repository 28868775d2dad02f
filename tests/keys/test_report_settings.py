"""A key's report settings (day rate, currency, showMethodology): the rules they are checked by, the `keys`
CLI that sets and shows them."""

from __future__ import annotations

import json

import pytest

from app.extensions import db
from app.keys.service import (
    CURRENCIES,
    KeyInputError,
    normalize_currency,
    normalize_day_rate,
    set_report_settings,
)
from app.models import ApiKey


def create(runner, *args) -> dict:
    result = runner.invoke(args=["keys", "create", "--partner", "Acme Security", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def update(runner, key_id: int, *args):
    return runner.invoke(args=["keys", "update", str(key_id), *args, "--json"])


def stored(app, key_id: int) -> tuple:
    with app.app_context():
        key = db.session.get(ApiKey, key_id)
        return key.day_rate, key.currency, key.show_methodology


# --------------------------------------------------------------------------- the rules

@pytest.mark.parametrize(("given", "expected"), [
    (1, 1), (1_000_000, 1_000_000), ("1200", 1200), (" 950 ", 950), (None, None), ("", None), ("  ", None)])
def test_day_rates_that_are_taken(given, expected):
    assert normalize_day_rate(given) == expected


@pytest.mark.parametrize("given", [0, -5, 1_000_001, "0", "1000001", "12.5", "1e3", "-3", "12 00", "١٢", True,
                                   2.0, "twelve", "99999999999999999999"])
def test_day_rates_that_are_refused(given):
    with pytest.raises(KeyInputError, match="day rate must be a whole number from 1 to 1,000,000"):
        normalize_day_rate(given)


def test_currencies_are_a_short_allow_list_upper_cased():
    assert {"USD", "EUR", "GBP", "CAD", "AUD", "NZD", "CHF", "SEK", "NOK", "DKK", "JPY", "SGD", "INR",
            "ZAR"} == set(CURRENCIES)
    assert normalize_currency("eur") == "EUR" and normalize_currency(" GBP ") == "GBP"
    assert normalize_currency(None) is None and normalize_currency("") is None
    for bad in ("XXX", "EURO", "US", "€", "usd\n1"):
        with pytest.raises(KeyInputError, match="currency must be one of USD, EUR"):
            normalize_currency(bad)


def test_a_day_rate_without_a_currency_is_in_usd_and_a_cleared_rate_keeps_the_currency(app, make_key):
    key_id = make_key().key.id

    def stored():
        key = db.session.get(ApiKey, key_id)
        db.session.refresh(key)
        return key.day_rate, key.currency

    with app.app_context():
        assert stored() == (None, None)                           # no settings: the default range
        key = db.session.get(ApiKey, key_id)
        set_report_settings(key, day_rate=1200)
        assert (key.day_rate, key.currency) == (1200, "USD")
        set_report_settings(key, currency="chf")
        db.session.commit()
        assert stored() == (1200, "CHF")
        set_report_settings(key, day_rate=None)                   # the currency stays for the next rate
        db.session.commit()
        assert stored() == (None, "CHF")
        set_report_settings(key, currency=None)
        db.session.commit()
        assert stored() == (None, None)


def test_a_refused_setting_changes_nothing(app, make_key):
    key_id = make_key().key.id
    with app.app_context():
        key = db.session.get(ApiKey, key_id)
        set_report_settings(key, day_rate=800, currency="EUR", show_methodology=True)
        with pytest.raises(KeyInputError):
            set_report_settings(key, day_rate=900, currency="XYZ", show_methodology=False)
        assert (key.day_rate, key.currency, key.show_methodology) == (800, "EUR", True)


# --------------------------------------------------------------------------- the CLI

def test_create_with_the_report_settings(app, runner):
    out = create(runner, "--day-rate", "1200", "--currency", "eur", "--show-methodology")
    assert (out["dayRate"], out["currency"], out["showMethodology"]) == (1200, "EUR", True)
    assert stored(app, out["id"]) == (1200, "EUR", True)
    plain = create(runner)
    assert (plain["dayRate"], plain["currency"], plain["showMethodology"]) == (None, None, False)
    assert create(runner, "--day-rate", "700")["currency"] == "USD"


def test_update_sets_clears_and_keeps_the_settings(app, runner):
    key_id = create(runner)["id"]
    result = update(runner, key_id, "--day-rate", "950", "--currency", "GBP", "--show-methodology")
    assert result.exit_code == 0, result.output
    settings = json.loads(result.output)
    assert (settings["dayRate"], settings["currency"], settings["showMethodology"]) == (950, "GBP", True)
    assert update(runner, key_id, "--tier", "starter").exit_code == 0      # other changes keep them
    assert stored(app, key_id) == (950, "GBP", True)
    result = update(runner, key_id, "--day-rate", "", "--hide-methodology")
    assert result.exit_code == 0, result.output
    assert stored(app, key_id) == (None, "GBP", False)
    assert update(runner, key_id, "--currency", "").exit_code == 0
    assert stored(app, key_id) == (None, None, False)


@pytest.mark.parametrize(("option", "value", "message"), [
    ("--day-rate", "0", "Day rate must be a whole number from 1 to 1,000,000"),
    ("--day-rate", "12.5", "Day rate must be a whole number from 1 to 1,000,000"),
    ("--day-rate", "1000001", "Day rate must be a whole number from 1 to 1,000,000"),
    ("--currency", "XYZ", "Currency must be one of USD, EUR, GBP"),
])
def test_a_bad_value_stops_the_command_naming_the_option(app, runner, option, value, message):
    key_id = create(runner, "--day-rate", "500", "--currency", "EUR")["id"]
    result = update(runner, key_id, option, value, "--show-methodology")
    assert result.exit_code == 2
    assert f"Invalid value for '{option}': {message}" in result.output
    assert stored(app, key_id) == (500, "EUR", False)                       # nothing changed
    refused = runner.invoke(args=["keys", "create", "--partner", "Other", option, value])
    assert refused.exit_code == 2 and message in refused.output


def test_list_shows_the_settings(runner):
    priced = create(runner, "--day-rate", "1200", "--currency", "EUR", "--show-methodology")["id"]
    plain = create(runner)["id"]
    listed = {row["id"]: row for row in json.loads(runner.invoke(args=["keys", "list", "--json"]).output)}
    assert (listed[priced]["dayRate"], listed[priced]["currency"], listed[priced]["showMethodology"]) == (
        1200, "EUR", True)
    assert (listed[plain]["dayRate"], listed[plain]["currency"], listed[plain]["showMethodology"]) == (
        None, None, False)
    lines = {int(line.split()[0]): line for line in runner.invoke(args=["keys", "list"]).output.splitlines()}
    assert "day-rate=1200 EUR/day" in lines[priced] and "methodology=shown" in lines[priced]
    assert "day-rate=default" in lines[plain] and "methodology=hidden" in lines[plain]
