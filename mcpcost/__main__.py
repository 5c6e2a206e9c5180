from mcpcost.cli import main

raise SystemExit(main())
