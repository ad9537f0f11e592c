"""The lab side of the course: site config, class folder, drop-box, report, training slots.

No textual here: the CLI and the app call these modules; they call content/ and progress/.
"""
