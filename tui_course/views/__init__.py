"""View states: one frozen object per interactive view, no Textual (see DESIGN.md)."""
