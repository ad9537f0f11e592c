from tui_course.cli import main

raise SystemExit(main())
