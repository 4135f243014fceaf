from sweepgate.cli import main

raise SystemExit(main())
