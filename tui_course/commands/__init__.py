"""One module per command group.

Each module has `add_parser(commands)`, which adds its subparser and sets
`run` (a function of the parsed args returning the exit status) as a default.
Modules import only argparse-level things at the top: the heavy work is
imported inside `run`, so `attn-tui --help` stays light. Starting the app
imports none of them (commands.parser.build_parser imports only the commands named).
Adding a command is one new module and one line below.
"""

# The subcommand a student types -> the module under tui_course.commands that adds it.
COMMANDS = {
    "validate": "validate",
    "attention": "attention",
    "pe": "pe",
    "train": "train",
    "progress": "progress",
    "export": "export",
    "import": "quiz_import",  # `import` is a Python keyword
    "reset": "reset",
    "list": "list",
    "review": "review",
    "class": "classroom",
    "submit": "submit",
    "doctor": "doctor",
    "check": "check",
}
