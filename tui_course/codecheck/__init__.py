"""Checking a student's code: the service the app, the CLI and recheck call, the student's
file, the reference's cached results and the file watch of `check --watch`."""
