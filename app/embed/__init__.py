"""Embed pages for partners' iframes."""
