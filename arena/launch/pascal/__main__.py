"""`python -m arena.launch.pascal [--sandbox MODE] unit.pas…`: compile modules, print each program or its error."""

from arena.launch.pascal.pascal import main

raise SystemExit(main())
