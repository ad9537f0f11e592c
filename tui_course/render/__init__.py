"""Text rendering of the maths (heatmaps, tables, vectors): plain strings, no UI imports.

The same functions serve the lesson view and the command line.
"""
