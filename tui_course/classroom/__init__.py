"""Lab and LMS tools for teachers: no UI imports (the CLI and the app call into it)."""
