"""The compliance score, as CONTRACT.md defines it."""


def compliance_score(met: int, partially_met: int, total: int) -> float:
    """round(100 × (met + 0.5 × partially_met) / total, 1); 0.0 for no requirements."""
    if total <= 0:
        return 0.0
    return round(100 * (met + 0.5 * partially_met) / total, 1)
