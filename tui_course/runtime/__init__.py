"""The process and its surroundings: the terminal, hang-ups, crashes and shell access."""
