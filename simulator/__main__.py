from simulator.entry import main

raise SystemExit(main())
