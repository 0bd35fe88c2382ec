from simulator.http.cli import main

raise SystemExit(main())
