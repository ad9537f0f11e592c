"""`attn-tui validate`: what can be proved about a course and its code questions."""
