"""Regenerate the committed validators: python -m sweepgate.core.validators"""

from sweepgate.core.validators import main

raise SystemExit(main())
