from klipui.cli import main

raise SystemExit(main())
