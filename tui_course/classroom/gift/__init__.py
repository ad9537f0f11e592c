"""Quizzes to and from Moodle's GIFT text format, following Moodle's own reader
(question/format/gift): export.py writes it, parse.py reads it (imported.py holds what an
import gives and proves it with the app's loader), syntax.py the escapes and attn-tui's
comment markers both sides share, html_text.py HTML written elsewhere as the app's text.
"""
