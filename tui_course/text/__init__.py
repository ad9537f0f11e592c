"""Text the app prints: shown as text, never obeyed (safe), and CSV a spreadsheet opens as data."""
