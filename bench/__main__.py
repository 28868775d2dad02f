"""`python -m bench`: run every benchmark and print the figures."""

from __future__ import annotations

import platform
import sys

from . import embed, generation, http_api, pdf_load, responsiveness


def main() -> int:
    print(f"# make bench — Python {platform.python_version()}, {platform.machine()}\n")
    generation.main()
    http_api.main()
    embed.main()
    pdf_load.main()
    responsiveness.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
