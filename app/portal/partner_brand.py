"""The brand and embed origins every key of a partner uses, as the portal shows and saves them."""

from __future__ import annotations

import base64
from dataclasses import dataclass

from ..extensions import db
from ..keys.brand import PNG, BrandError
from ..keys.service import KeyInputError, set_brand, set_embed_origins
from ..models import Partner


@dataclass(frozen=True)
class BrandChanges:
    """What the brand form submits: the whole brand as the form shows it (None: no name, no colour) and the embed
    origins (empty: any site), except the logo: `logo` is a new one to store, `remove_logo` removes it, neither
    keeps the current one."""

    embed_origins: list[str]
    brand_name: str | None = None
    brand_color: str | None = None
    logo: bytes | None = None
    remove_logo: bool = False
    white_label: bool = False

    def brand(self) -> dict:
        """Keyword arguments for `set_brand`."""
        changes = {"name": self.brand_name, "color": self.brand_color, "white_label": self.white_label}
        if self.logo is not None:
            changes["logo"] = self.logo
        elif self.remove_logo:
            changes["logo"] = None
        return changes


@dataclass(frozen=True)
class CurrentLogo:
    """What the brand form says about the stored logo."""

    kind: str        # "PNG" or "SVG"
    size: str        # "12 KB"
    data_uri: str    # a preview; the portal's CSP allows data: images


def current_logo(partner: Partner) -> CurrentLogo | None:
    """The partner's logo for the brand form (this loads its bytes, which reading the partner never does)."""
    if partner.brand_logo_digest is None or partner.brand_logo is None:
        return None
    size = len(partner.brand_logo)
    return CurrentLogo(kind="PNG" if partner.brand_logo_type == PNG else "SVG",
                       size=f"{round(size / 1024)} KB" if size >= 1024 else f"{size} bytes",
                       data_uri=f"data:{partner.brand_logo_type};base64,"
                                f"{base64.b64encode(partner.brand_logo).decode()}")


def save(partner: Partner, changes: BrandChanges) -> Partner:
    """Store the brand and embed origins; nothing is stored when any of it is refused."""
    try:
        set_brand(partner, **changes.brand())
        set_embed_origins(partner, changes.embed_origins)
    except (KeyInputError, BrandError):
        db.session.rollback()
        raise
    db.session.commit()
    return partner
