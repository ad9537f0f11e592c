"""`attn-tui --plain`: the course as a line-oriented conversation (no Textual here).

For screen readers, braille displays, `ssh -T`, dumb terminals, emacs' shell and
pipes: lines are written once, in reading order, and read one at a time.
"""
