"""Everything Textual: the app, its screens and thin widgets."""
